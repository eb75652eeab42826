import Foundation
import HearthWire

/// Profile data of a user or of one of its providers.
public protocol UserInfo: Sendable {
    /// The provider: `firebase` for the user itself, `password`, `microsoft.com`, … for its providers.
    var providerID: String { get }
    /// The user's id at that provider (Firebase's `providerData[].uid`).
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

/// One linked provider of a user.
public struct ProviderUserInfo: UserInfo, Codable, Equatable {
    public let providerID: String
    public let uid: String
    public let displayName: String?
    public let photoURL: URL?
    public let email: String?
    public let phoneNumber: String?
}

/// When the user was created and last signed in.
public struct UserMetadata: Sendable, Codable, Equatable {
    public let creationDate: Date?
    public let lastSignInDate: Date?
}

/// A decoded ID token.
public struct AuthTokenResult: @unchecked Sendable {
    // Safe: immutable; `claims` holds only JSON values.
    public let token: String
    public let expirationDate: Date
    public let authDate: Date
    public let issuedAtDate: Date
    public let signInProvider: String
    public let signInSecondFactor: String?
    public let claims: [String: Any]

    /// Decodes `token`'s payload (no verification: the server verifies tokens).
    static func parse(_ token: String) throws -> AuthTokenResult {
        let parts = token.split(separator: ".")
        guard parts.count >= 2 else { throw AuthErrorUtils.error(.malformedJWT) }
        guard let data = Data(base64URLEncoded: String(parts[1])),
              let claims = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let exp = (claims["exp"] as? NSNumber)?.doubleValue, let iat = (claims["iat"] as? NSNumber)?.doubleValue
        else { throw AuthErrorUtils.error(.malformedJWT) }
        let auth = (claims["auth_time"] as? NSNumber)?.doubleValue ?? iat
        let firebase = claims["firebase"] as? [String: Any]
        return AuthTokenResult(token: token, expirationDate: Date(timeIntervalSince1970: exp), authDate: Date(timeIntervalSince1970: auth),
                               issuedAtDate: Date(timeIntervalSince1970: iat), signInProvider: firebase?["sign_in_provider"] as? String ?? "",
                               signInSecondFactor: firebase?["sign_in_second_factor"] as? String, claims: claims)
    }
}
