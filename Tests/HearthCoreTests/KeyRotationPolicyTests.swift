import Foundation
import HearthCore
import Testing

@Suite struct KeyRotationPolicyTests {
    let policy = KeyRotationPolicy(rotationInterval: 86_400, prepublish: 3_600, tokenLifetime: 3_600, leeway: 300)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func key(_ generation: Int, activatesAt: Date) -> SigningKey {
        SigningKey(generation: generation, kid: "k\(generation)", privateKeyPEM: "", certificatePEM: "", createdAt: activatesAt, activatesAt: activatesAt)
    }

    @Test func firstKeyActivatesAtOnce() {
        let plan = policy.plan(keys: [], now: t0)
        #expect(plan.active == nil)
        #expect(plan.generate?.generation == 1)
        #expect(plan.generate?.activatesAt == t0)
    }

    @Test func nothingToDoMidInterval() {
        let plan = policy.plan(keys: [key(1, activatesAt: t0)], now: t0.addingTimeInterval(3_600))
        #expect(plan.active?.generation == 1)
        #expect(plan.generate == nil)
        #expect(plan.remove.isEmpty)
    }

    @Test func nextKeyIsPublishedAPrepublishPeriodBeforeItSigns() {
        let now = t0.addingTimeInterval(86_400 - 3_600)
        let plan = policy.plan(keys: [key(1, activatesAt: t0)], now: now)
        #expect(plan.generate?.generation == 2)
        #expect(plan.generate?.activatesAt == t0.addingTimeInterval(86_400))
        // Once it exists, the old key still signs until the new one's activation time.
        let later = policy.plan(keys: [key(1, activatesAt: t0), key(2, activatesAt: t0.addingTimeInterval(86_400))], now: now.addingTimeInterval(60))
        #expect(later.active?.generation == 1)
        #expect(later.generate == nil)
        #expect(later.published.map(\.generation) == [1, 2])
    }

    @Test func lateMaintenanceStillPrepublishes() {
        // The server was down past the rotation time: the new key must not sign before it was published for `prepublish`.
        let now = t0.addingTimeInterval(3 * 86_400)
        let plan = policy.plan(keys: [key(1, activatesAt: t0)], now: now)
        #expect(plan.generate?.activatesAt == now.addingTimeInterval(3_600))
    }

    @Test func retiredKeyStaysPublishedUntilItsTokensExpire() {
        let keys = [key(1, activatesAt: t0), key(2, activatesAt: t0.addingTimeInterval(86_400))]
        let justAfter = policy.plan(keys: keys, now: t0.addingTimeInterval(86_400 + 60))
        #expect(justAfter.active?.generation == 2)
        #expect(justAfter.remove.isEmpty)
        #expect(justAfter.published.map(\.generation) == [1, 2])
        let expired = policy.plan(keys: keys, now: t0.addingTimeInterval(86_400 + 3_600 + 300))
        #expect(expired.remove == [1])
        #expect(expired.published.map(\.generation) == [2])
    }

    @Test func generatedKeysHaveCertificatesAndJWKs() throws {
        let key = try SigningKey.generate(generation: 1, now: t0, activatesAt: t0, validUntil: t0.addingTimeInterval(86_400))
        #expect(key.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(key.kid.count == 40)
        let jwk = try key.publicJWK()
        #expect(jwk["kty"] == "RSA")
        #expect(jwk["alg"] == "RS256")
        #expect(jwk["kid"] == key.kid)
        #expect(jwk["e"] == "AQAB")
        #expect((jwk["n"]?.count ?? 0) > 300)
    }
}
