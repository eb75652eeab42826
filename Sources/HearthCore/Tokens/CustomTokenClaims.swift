import Foundation
import HearthWire
import JWTKit

/// A custom token's claims (``CustomTokenClaims``, defined in HearthWire) as the server verifies them.
extension CustomTokenClaims: JWTPayload {
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
