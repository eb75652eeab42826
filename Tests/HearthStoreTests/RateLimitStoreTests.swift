import Foundation
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import Testing

/// The rate-limit counters (``RateLimitStore``) on every store.
@Suite struct RateLimitStoreTests {
    /// One counted request: [current, previous].
    static func hit(_ store: any HearthStore, _ key: String, _ window: Int64, _ expiry: Date) async throws -> [Int] {
        let counts = try await store.countRateLimitedRequest(key: key, window: window, expiresAt: expiry)
        return [counts.current, counts.previous]
    }

    @Test(arguments: StoreKind.allCases)
    func countsPerKeyAndWindow(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let expiry = t0.addingTimeInterval(120)
            #expect(try await Self.hit(store, "signUp|address|a", 10, expiry) == [1, 0])
            #expect(try await Self.hit(store, "signUp|address|a", 10, expiry) == [2, 0])
            // Another key and another window count separately; the next window sees this one as its previous.
            #expect(try await Self.hit(store, "signUp|address|b", 10, expiry) == [1, 0])
            #expect(try await Self.hit(store, "signUp|address|a", 11, expiry) == [1, 2])
            // Two windows later the old one is not "previous" any more.
            #expect(try await Self.hit(store, "signUp|address|a", 13, expiry.addingTimeInterval(180)) == [1, 0])
            // Pruning drops expired counters only.
            let pruned = try await store.pruneRateLimits(now: expiry.addingTimeInterval(1))
            #expect(pruned == 3)
            #expect(try await Self.hit(store, "signUp|address|a", 13, expiry) == [2, 0])
            #expect(try await Self.hit(store, "signUp|address|a", 11, expiry) == [1, 0])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentRequestsAreEachCountedOnce(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await store.countRateLimitedRequest(key: "k", window: 1, expiresAt: t0).current }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Every request saw a distinct count: none lost, none double-counted.
            #expect(counts.sorted() == Array(1...200))
        }
    }

    /// Two replicas (two store handles on one PostgreSQL database) share one count.
    @Test(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
    func replicasShareTheCounts() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let a = try await PostgresStore.open(configuration)
            let b = try await PostgresStore.open(configuration)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask { try await (index % 2 == 0 ? a : b).countRateLimitedRequest(key: "shared", window: 7, expiresAt: t0).current }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.sorted() == Array(1...100))
            try await a.close()
            try await b.close()
        }
    }
}
