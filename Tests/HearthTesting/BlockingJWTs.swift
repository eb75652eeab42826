import Foundation
import HearthServer
import HearthWire
import JWTKit

/// Any JSON object as a JWT payload (tests sign exactly the claims they want, well-formed or not).
private struct RawJWTPayload: JWTPayload {
    var claims: [String: JSONValue]

    init(_ claims: [String: JSONValue]) { self.claims = claims }

    init(from decoder: any Decoder) throws {
        claims = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(claims)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension HearthHarness {
    /// Signs `claims` with the server's current ID-token key (RS256, its `kid`), as the server signs the JWTs it
    /// posts to blocking functions (issue 39): for tests of verifiers, independent of the server's own minting.
    public func signBlockingJWT(_ claims: AuthBlockingEventClaims) async throws -> String {
        let object = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(claims))
        return try await signJWT(object)
    }

    /// Signs any JSON object with the server's current ID-token key (RS256, its `kid`).
    public func signJWT(_ payload: [String: JSONValue]) async throws -> String {
        try await server.keyRing.sign(payload: RawJWTPayload(payload))
    }

    /// The claims of a well-formed blocking-function JWT of this server for `functionURL`: issued now by the
    /// harness clock, valid an hour, a user `uid` with an email, from 203.0.113.7.
    public func blockingClaims(_ event: BlockingEventType, functionURL: String, uid: String = "hook-user-1",
                               email: String = "hook@example.com") -> AuthBlockingEventClaims {
        let now = Int64(clock.now.timeIntervalSince1970)
        let user = BlockingUserRecord(
            uid: uid, email: email, emailVerified: false, displayName: "Hook User",
            metadata: .init(creationTime: now * 1000, lastSignInTime: event == .beforeSignIn ? now * 1000 : nil),
            providerData: [.init(uid: email, providerId: "password", email: email)])
        return AuthBlockingEventClaims(
            iss: "https://securetoken.google.com/\(projectId)", aud: functionURL, iat: now, exp: now + 3600, sub: uid,
            eventId: "evt-\(UUID().uuidString)", eventType: event.rawValue, ipAddress: "203.0.113.7",
            userAgent: "HearthTests/1.0", locale: "en", signInMethod: "password", userRecord: user)
    }
}
