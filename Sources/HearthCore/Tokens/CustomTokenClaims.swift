import Foundation
import HearthWire
import JWTKit

/// The claims of a custom token in Google's format: RS256, `iss = sub =` a service-account email,
/// `aud =` the Identity Toolkit audience, `uid`, optional `claims`, `exp - iat ≤ 1 h`.
public struct CustomTokenClaims: JWTPayload, Equatable {
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

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        // Checked with an injectable clock in `validate(now:)`.
    }

    /// Audience, subject, uid, lifetime, time and claim checks.
    public func validate(now: Date, leeway: TimeInterval = 5) throws(TokenValidationError) {
        guard aud == Self.audience else { throw .wrongAudience }
        guard iss == sub, !iss.isEmpty else { throw .wrongIssuer }
        guard !uid.isEmpty, uid.utf8.count <= 128 else { throw .malformed }
        guard exp > iat, exp - iat <= Self.maximumLifetime else { throw .lifetimeTooLong }
        let nowSeconds = now.timeIntervalSince1970
        guard Double(exp) + leeway > nowSeconds else { throw .expired }
        guard Double(iat) - leeway <= nowSeconds else { throw .notYetValid }
        if let claims, let reserved = claims.keys.first(where: { IDTokenClaims.reservedClaimNames.contains($0) }) {
            throw .reservedClaim(reserved)
        }
    }
}
