import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthStorePostgres
import HearthTesting
import HearthWire
import Logging
import Testing

/// Key rotation with several replicas on one PostgreSQL database: each replica's `KeyRing` over its own store
/// (its own connection pool), one clock. Exactly one replica adds the next key; every replica publishes it after its
/// maintenance pass, and accepts a token signed with a key it has not loaded yet (one reload for the unknown `kid`).
@Suite(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
struct ReplicaKeyRingTests {
    @Test func oneReplicaRotatesAndEveryReplicaPublishesAndAccepts() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let clock = TestClock()
            let policy = KeyRotationPolicy(rotationInterval: 7_200, prepublish: 600, tokenLifetime: 3_600, leeway: 300)
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<3 { group.addTask { try await PostgresStore.open(configuration) } }
                return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
            }
            do {
                try await Self.exercise(stores: stores, clock: clock, policy: policy)
            } catch {
                for store in stores { try? await store.close() }
                throw error
            }
            for store in stores { try await store.close() }
        }
    }

    static func exercise(stores: [PostgresStore], clock: TestClock, policy: KeyRotationPolicy) async throws {
        let rings = stores.map { KeyRing(store: $0, policy: policy, clock: clock.wallClock, logger: Logger(label: "test.keys")) }

        /// Every replica's maintenance pass at the same moment.
        func maintainAll() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for ring in rings { group.addTask { try await ring.maintain() } }
                try await group.waitForAll()
            }
        }
        func publishedKids(_ ring: KeyRing) async throws -> Set<String> { Set(try await ring.published().keys.map(\.kid)) }

        // Three replicas starting at once on an empty database: one first key, published by all.
        try await maintainAll()
        #expect(try await stores[0].signingKeys().count == 1)
        let first = try await publishedKids(rings[0])
        for ring in rings { #expect(try await publishedKids(ring) == first) }

        // The next key is due: all three run maintenance at once, exactly one key is added, all publish it.
        clock.advance(by: 7_200 - 600)
        try await maintainAll()
        let keys = try await stores[1].signingKeys()
        #expect(keys.map(\.generation).sorted() == [1, 2], "one new generation: \(keys.map(\.generation))")
        let both = try await publishedKids(rings[0])
        #expect(both.count == 2 && both.isSuperset(of: first))
        for ring in rings { #expect(try await publishedKids(ring) == both) }

        // After activation, a token one replica signs verifies on the others.
        clock.advance(by: 600)
        try await maintainAll()
        let user = UserRecord(localId: "u1", email: "ada@example.com", createdAt: clock.now, validSince: clock.now)
        let claims = IDTokenClaims(projectId: "demo-hearth", user: user, signInProvider: "password", authTime: clock.now,
                                   issuedAt: clock.now, lifetime: 3_600)
        let token = try await rings[0].sign(claims)
        for ring in rings.dropFirst() { #expect(try await ring.verify(token).subject == "u1") }

        // A key added by one replica between another's maintenance passes (an operator's "rotate now" that
        // activates at once): that other replica has never loaded it, and still accepts its first token.
        let urgent = try SigningKey.generate(generation: 3, now: clock.now, activatesAt: clock.now,
                                             validUntil: policy.certificateExpiry(activatesAt: clock.now))
        try await stores[0].insertSigningKey(urgent)
        try await rings[0].maintain()
        let urgentToken = try await rings[0].sign(claims)
        #expect(jwtHeader(urgentToken)?["kid"] as? String == urgent.kid)
        #expect(try await !publishedKids(rings[2]).contains(urgent.kid), "replica C has not reloaded yet")
        #expect(try await rings[2].verify(urgentToken).subject == "u1")
        #expect(try await publishedKids(rings[2]).contains(urgent.kid), "the unknown kid made C reload")
        // A forged kid does not make a replica hammer the store: still refused.
        let parts = urgentToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var header = jwtHeader(urgentToken) ?? [:]
        header["kid"] = "no-such-kid"
        let forged = [try JSONSerialization.data(withJSONObject: header).base64URLEncodedString(), parts[1], parts[2]].joined(separator: ".")
        let refused: Bool
        do { _ = try await rings[1].verify(forged); refused = false } catch { refused = true }
        #expect(refused, "a token naming an unknown kid is refused")
    }
}
