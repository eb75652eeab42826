import Foundation
import GRDB
import HearthCore
import HearthStore
@testable import HearthStorePostgres
@testable import HearthStoreSQLite
import Synchronization
import Testing

/// Issue 41 (a million users): pages read whole in a few statements, lists walked by key, the refresh-token clean-up
/// in chunks, and the statements that run at scale served by an index on both engines.
@Suite struct ScaleReadTests {
    /// Users with everything a page has to carry: federated identities, a phone number, second factors, claims.
    static func richUsers() -> [UserRecord] {
        (0..<12).map { index in
            var identities: [ProviderIdentity] = []
            if index % 2 == 0 { identities.append(ProviderIdentity(providerId: "google.com", federatedId: "g-\(index)", email: "g\(index)@gmail.com", displayName: "G \(index)")) }
            if index % 3 == 0 { identities.append(ProviderIdentity(providerId: "microsoft.com", federatedId: "m-\(index)", photoUrl: "https://example.com/\(index).png")) }
            var user = makeUser(String(format: "page-%02d", index), email: index % 4 == 3 ? nil : "page\(index)@example.com", identities: identities)
            if index % 5 == 1 { user.phoneNumber = "+1555555\(String(format: "%04d", index))" }
            if index % 4 == 1 {
                user.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "f-\(index)", displayName: "Phone", enrolledAt: t0,
                                                                           phoneNumber: "+1555666\(String(format: "%04d", index))")])
            }
            user.createdAt = t0.addingTimeInterval(Double(index / 3))
            return user
        }
    }

    /// Issue 41, item 2 (listing): a page of users is the same users, field for field, as one lookup per user —
    /// identities (in provider order), phone numbers and second factors included — on every store.
    @Test(arguments: StoreKind.allCases)
    func listedPagesAreTheUsersWhole(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for user in Self.richUsers() { try await store.createUser(user) }
            var one: [UserRecord] = []
            for user in Self.richUsers() { one.append(try #require(try await store.user(localId: user.localId))) }
            #expect(one.contains { $0.identities.count == 2 } && one.contains { $0.phoneNumber != nil } && one.contains { !$0.mfa.isEmpty })
            let first = try await store.listUsers(after: nil, limit: 5)
            let rest = try await store.listUsers(after: first.last?.localId, limit: 100)
            #expect(first + rest == one)
            let queried = try await store.queryUsers(UserQuery(sortBy: .userId, limit: 100))
            #expect(queried.users == one && queried.total == 12)
        }
    }

    /// Issue 41, item 2 (listing): SQLite reads a page of 300 users with one users statement and one identities
    /// statement — not two statements per user (601 before).
    @Test func sqliteReadsAPageWithTwoStatements() async throws {
        let store = try await SQLiteStore.inMemory()
        try await store.importUsers((0..<300).map { makeUser(String(format: "bulk-%03d", $0), email: "bulk\($0)@example.com") })
        var linked = makeUser("bulk-150x", identities: [ProviderIdentity(providerId: "google.com", federatedId: "g-150")])
        linked.phoneNumber = "+15555550150"
        try await store.createUser(linked)
        let statements = StatementCount()
        // The in-memory store is one connection: trace it, list, stop tracing.
        try await store.writer.writeWithoutTransaction { db in db.trace { _ in statements.add() } }
        let page = try await store.listUsers(after: nil, limit: 1000)
        let queried = try await store.queryUsers(UserQuery(sortBy: .createdAt, ascending: false, limit: 500, countsTotal: false))
        try await store.writer.writeWithoutTransaction { db in db.trace(nil) }
        #expect(page.count == 301 && queried.users.count == 301 && queried.total == 0)
        #expect(page.first { $0.localId == "bulk-150x" }?.identities.map(\.providerId) == ["google.com", "phone"])
        // Per call: the users page and the identities, plus the read transaction's own few (GRDB's BEGIN, COMMIT,
        // query_only pragmas) — 603 per call before (one users statement, then two per user).
        #expect(statements.value <= 16, "\(statements.value) statements for two pages")
        try await store.close()
    }

    final class StatementCount: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Issue 41, item 2 (keyset paging): newest first by creation time, paged by (createdAt, uid) — users that share a
    /// creation time are neither skipped nor repeated, in both directions, and nothing is counted.
    @Test(arguments: StoreKind.allCases)
    func pagesByCreationTimeWalkEveryUserOnce(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let users = Self.richUsers()
            for user in users { try await store.createUser(user) }
            let expected = users.sorted { ($0.createdAt, $0.localId) > ($1.createdAt, $1.localId) }.map(\.localId)
            var walked: [String] = []
            var after: UserQuery.Cursor?
            while true {
                let page = try await store.queryUsers(UserQuery(sortBy: .createdAt, ascending: false, limit: 5, after: after, countsTotal: false))
                #expect(page.total == 0)
                walked += page.users.map(\.localId)
                guard page.users.count == 5, let last = page.users.last else { break }
                after = UserQuery.Cursor(createdAt: last.createdAt, localId: last.localId)
            }
            #expect(walked == expected)
            // Back: the 5 users before the 8th, the other way.
            let eighth = try #require(try await store.user(localId: expected[7]))
            let back = try await store.queryUsers(UserQuery(sortBy: .createdAt, ascending: true, limit: 5,
                                                            after: UserQuery.Cursor(createdAt: eighth.createdAt, localId: eighth.localId), countsTotal: false))
            #expect(back.users.reversed().map(\.localId) == Array(expected[2..<7]))
        }
    }

    /// Issue 41, item 2 (query by email): `accounts:query` by email, uid or phone number finds its users through their
    /// indexes (in the tenant) and still sorts them, on both stores.
    @Test(arguments: StoreKind.allCases)
    func filteredQueriesSortAfterTheirLookups(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for user in Self.richUsers() { try await store.createUser(user) }
            let found = try await store.queryUsers(UserQuery(emails: ["page10@example.com", "page2@example.com"], phoneNumbers: ["+15555550006"],
                                                             localIds: ["page-00"], sortBy: .createdAt, ascending: false))
            #expect(found.total == 4)
            #expect(found.users.map(\.localId) == ["page-10", "page-06", "page-02", "page-00"])
            // The phone lookup stays in the store's tenant.
            #expect(try await store.bound(toTenant: "other").queryUsers(UserQuery(phoneNumbers: ["+15555550006"])).total == 0)
        }
    }

    /// Issue 41, item 4: the clean-up deletes exactly the refresh tokens rotated, or revoked, before the cutoff —
    /// across several chunks of ``StoreSQL/pruneChunkSize`` — and keeps live, recently rotated and recently revoked ones.
    @Test(arguments: StoreKind.allCases)
    func pruneDeletesExactlyTheDeadTokensAcrossChunks(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let old = t0.addingTimeInterval(-40 * 86_400)
            let cutoff = t0.addingTimeInterval(-30 * 86_400)
            func token(_ index: Int, rotatedAt: Date? = nil, revoked: Bool = false, createdAt: Date = old) -> RefreshTokenRecord {
                var record = RefreshTokenRecord.issue(localId: "u\(index % 7)", authTime: createdAt, signInProvider: "password", now: createdAt).record
                record.rotatedAt = rotatedAt
                record.revoked = revoked
                return record
            }
            let deadRotated = (0..<(StoreSQL.pruneChunkSize * 2 + 37)).map { token($0, rotatedAt: old) }
            let deadRevoked = (0..<(StoreSQL.pruneChunkSize + 3)).map { token($0, revoked: true) }
            let kept = [token(1), token(2, rotatedAt: t0), token(3, revoked: true, createdAt: t0), token(4, rotatedAt: cutoff.addingTimeInterval(1)),
                        token(5, revoked: true, createdAt: cutoff.addingTimeInterval(1))]
            try await Self.insert(deadRotated + deadRevoked + kept, into: store)
            #expect(try await store.pruneRefreshTokens(before: cutoff) == deadRotated.count + deadRevoked.count)
            for record in kept { #expect(try await store.refreshToken(hash: record.tokenHash)?.tokenHash == record.tokenHash) }
            for record in [deadRotated.first!, deadRotated.last!, deadRevoked.first!, deadRevoked.last!] {
                #expect(try await store.refreshToken(hash: record.tokenHash) == nil)
            }
            #expect(try await store.pruneRefreshTokens(before: cutoff) == 0)
        }
    }

    /// Many refresh tokens at once (one transaction on each engine).
    static func insert(_ records: [RefreshTokenRecord], into store: any HearthStore) async throws {
        if let sqlite = store as? SQLiteStore {
            try await sqlite.transaction { db in for record in records { try db.execute(StoreSQL.insertRefreshToken(record)) } }
        } else if let postgres = store as? PostgresStore {
            try await postgres.transaction { db in for record in records { try await db.execute(StoreSQL.insertRefreshToken(record)) } }
        }
    }

    /// What each statement that runs at scale is expected to read, as the engine's plan shows it.
    static let plans: [(statement: SQLStatement, index: String)] = [
        (StoreSQL.pruneRefreshTokenChunk(rotated: true, before: t0), "refresh_tokens_rotated"),
        (StoreSQL.pruneRefreshTokenChunk(rotated: false, before: t0), "refresh_tokens_revoked"),
        (StoreSQL.usersWithSealedSecrets(after: nil, limit: 500), "users_mfa"),
        ("SELECT * FROM users " + StoreSQL.userFilter(UserQuery(sortBy: .createdAt, ascending: false, after: .init(createdAt: t0, localId: "x")), tenant: ""),
         "users_created_at"),
        ("SELECT * FROM users " + StoreSQL.userFilter(UserQuery(emails: ["a@example.com"]), tenant: "")
            + " " + StoreSQL.userOrder(UserQuery(emails: ["a@example.com"]), dialect: .sqlite), "users_email"),
    ]

    /// Issue 41, items 4 and 6: on SQLite the refresh-token clean-up's chunks, the sealed-secret census of start-up
    /// (users with second factors only), the console's newest-first pages and a query by email each read one index
    /// range — none scans a table.
    @Test func sqliteServesTheScaleStatementsFromIndexes() async throws {
        let store = try await SQLiteStore.inMemory()
        for (statement, index) in Self.plans {
            let plan = try await store.read { db in
                try db.rows("EXPLAIN QUERY PLAN " + statement, cached: false).compactMap { $0.string("detail") }.joined(separator: "\n")
            }
            #expect(plan.contains("USING INDEX \(index)") || plan.contains("USING COVERING INDEX \(index)"), "\(index): \(plan)")
            #expect(!plan.contains("SCAN users") && !plan.contains("SCAN refresh_tokens"), "\(plan)")
        }
        try await store.close()
    }

    /// Issue 41, items 4 and 6: the same statements on PostgreSQL can be served by their indexes (with sequential
    /// scans priced out, as they are on a large table).
    @Test func postgresServesTheScaleStatementsFromIndexes() async throws {
        guard StoreKind.allCases.contains(.postgres) else { return }
        try await StoreKind.postgres.with { store in
            let postgres = try #require(store as? PostgresStore)
            for (statement, index) in Self.plans.filter({ !$0.index.hasPrefix("users_email") }) {
                let plan = try await postgres.transaction { db in
                    _ = try await db.execute("SET LOCAL enable_seqscan = off")
                    return try await db.rows("EXPLAIN " + statement).compactMap { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                }
                #expect(plan.contains(index), "\(index): \(plan)")
            }
        }
    }
}
