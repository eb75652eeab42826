import Foundation

/// The kind of provider token `accounts:revokeToken` revokes. Firebase's SDKs send it two ways: the Apple SDK sends
/// the enum's number as a string (`"3"`), the REST reference names it (`"CODE"`); both decode, and unknown values
/// keep their text so the server can say which value it refused.
public enum RevokeTokenType: Sendable, Equatable, Codable, CustomStringConvertible {
    case unspecified
    case refreshToken
    case accessToken
    /// An authorization code from the provider's native SDK: the server exchanges it, then revokes what it got.
    case code
    /// A value that is none of the above (kept to name it in the error).
    case unknown(String)

    /// Reads the enum's name (`CODE`) or number (`3`, as a string or a JSON number).
    public init(wireValue: String) {
        switch wireValue.trimmingCharacters(in: .whitespaces).uppercased() {
        case "0", "TOKEN_TYPE_UNSPECIFIED": self = .unspecified
        case "1", "REFRESH_TOKEN": self = .refreshToken
        case "2", "ACCESS_TOKEN": self = .accessToken
        case "3", "CODE": self = .code
        default: self = .unknown(wireValue)
        }
    }

    /// The enum's name, as Google's REST reference writes it.
    public var name: String {
        switch self {
        case .unspecified: "TOKEN_TYPE_UNSPECIFIED"
        case .refreshToken: "REFRESH_TOKEN"
        case .accessToken: "ACCESS_TOKEN"
        case .code: "CODE"
        case .unknown(let value): value
        }
    }

    public var description: String { name }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self.init(wireValue: String(number))
        } else {
            self.init(wireValue: try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// `POST /identitytoolkit.googleapis.com/v2/accounts:revokeToken` (Firebase's
/// `Auth.revokeToken(withAuthorizationCode:)`): revokes the signed-in user's token at the provider — Sign in with
/// Apple today, as in Firebase. With `tokenType` `CODE` the server exchanges the authorization code with its own
/// client secret and revokes the refresh token it receives, so the app never holds a provider secret.
public struct RevokeTokenRequest: Codable, Sendable, Equatable {
    /// The provider that issued the token: `apple.com`.
    public var providerId: String?
    /// What `token` is.
    public var tokenType: RevokeTokenType?
    /// The token or authorization code to revoke (a secret of the user's: never logged).
    public var token: String?
    /// The user's Hearth ID token: the user whose Apple identity is revoked.
    public var idToken: String?
    /// The redirect URI of the authorization that produced the code (web codes only; native codes have none).
    public var redirectUri: String?
    /// A tenant, which Hearth does not have: refused when set.
    public var tenantId: String?

    public init(providerId: String?, tokenType: RevokeTokenType?, token: String?, idToken: String?,
                redirectUri: String? = nil, tenantId: String? = nil) {
        self.providerId = providerId
        self.tokenType = tokenType
        self.token = token
        self.idToken = idToken
        self.redirectUri = redirectUri
        self.tenantId = tenantId
    }
}

/// The answer to `accounts:revokeToken`: empty, as Firebase's.
public struct RevokeTokenResponse: Codable, Sendable, Equatable {
    public init() {}
}
