import Foundation
import HearthCore
import HearthStore
import Testing

/// Conformance tests for the console's tables: administrators, single-use login links, sessions, daily counts.
@Suite struct ConsoleStoreTests {
    @Test(arguments: StoreKind.allCases)
    func loginLinksWorkOnceAndExpire(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.insertConsoleLoginLink(tokenHash: "h1", adminName: "owner", expiresAt: t0.addingTimeInterval(60))
            try await store.insertConsoleLoginLink(tokenHash: "h2", adminName: "owner", expiresAt: t0.addingTimeInterval(60))
            #expect(try await store.takeConsoleLoginLink(tokenHash: "h1", now: t0) == "owner")
            #expect(try await store.takeConsoleLoginLink(tokenHash: "h1", now: t0) == nil, "single use")
            #expect(try await store.takeConsoleLoginLink(tokenHash: "h2", now: t0.addingTimeInterval(61)) == nil, "expired")
            #expect(try await store.takeConsoleLoginLink(tokenHash: "h2", now: t0) == nil, "an expired link is gone")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func removingAnAdministratorEndsItsSessions(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.saveConsoleAdmin(ConsoleAdmin(name: "grace", passwordHash: "hash1", createdAt: t0))
            try await store.saveConsoleAdmin(ConsoleAdmin(name: "grace", passwordHash: "hash2", createdAt: t0))
            #expect(try await store.consoleAdmins().map(\.passwordHash) == ["hash2"])
            let session = ConsoleSession(idHash: "s1", adminName: "grace", csrfToken: "c1", createdAt: t0, lastSeenAt: t0)
            try await store.insertConsoleSession(session)
            try await store.touchConsoleSession(idHash: "s1", at: t0.addingTimeInterval(10))
            #expect(try await store.consoleSession(idHash: "s1")?.lastSeenAt == t0.addingTimeInterval(10))
            #expect(try await store.deleteConsoleAdmin(name: "grace"))
            #expect(try await store.consoleSession(idHash: "s1") == nil)
            #expect(try await store.deleteConsoleAdmin(name: "grace") == false)

            try await store.insertConsoleSession(ConsoleSession(idHash: "s2", adminName: "owner", csrfToken: "c", createdAt: t0, lastSeenAt: t0))
            try await store.pruneConsoleSessions(idleBefore: t0.addingTimeInterval(1), now: t0)
            #expect(try await store.consoleSession(idHash: "s2") == nil, "idle sessions are pruned")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func dailyCountsAddUp(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for _ in 0..<3 { try await store.incrementDailyCount(day: "2026-11-20", kind: "signIn", key: "password") }
            try await store.incrementDailyCount(day: "2026-11-21", kind: "refused", key: "INVALID_PASSWORD")
            try await store.incrementDailyCount(day: "2026-10-01", kind: "signIn", key: "password")
            let counts = try await store.dailyCounts(sinceDay: "2026-11-01")
            #expect(counts == [DailyCount(day: "2026-11-20", kind: "signIn", key: "password", count: 3),
                               DailyCount(day: "2026-11-21", kind: "refused", key: "INVALID_PASSWORD", count: 1)])
        }
    }
}
