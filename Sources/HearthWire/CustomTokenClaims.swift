import Foundation

/// The claims of a custom token in Google's format: RS256, `iss = sub =` a service-account email,
/// `aud =` the Identity Toolkit audience, `uid`, optional `claims`, `exp - iat ≤ 1 h`. The one definition of the
/// format: the server verifies it (HearthCore), the Swift admin SDK signs it (HearthAdmin).
public struct CustomTokenClaims: Codable, Sendable, Equatable {
    /// The only audience a custom token may have.
    public static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// The longest lifetime Google accepts.
    public static let maximumLifetime: Int64 = 3600

    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int64
    public var exp: Int64
    public var uid: String
    public var claims: [String: JSONValue]?
    public var tenantId: String?

    public init(serviceAccount: String, uid: String, claims: [String: JSONValue]? = nil, issuedAt: Date, lifetime: Int64 = 3600, audience: String = Self.audience) {
        self.iss = serviceAccount
        self.sub = serviceAccount
        self.aud = audience
        self.iat = Int64(issuedAt.timeIntervalSince1970)
        self.exp = iat + lifetime
        self.uid = uid
        self.claims = claims
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, uid, claims
        case tenantId = "tenant_id"
    }

    /// Claim names a custom token's `claims` (and a user's custom claims) may not use: they belong to the ID token.
    public static let reservedClaimNames: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "iat", "iss", "jti", "nbf",
        "nonce", "sub", "firebase", "user_id",
    ]
}
