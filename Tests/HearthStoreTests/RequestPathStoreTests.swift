import Foundation
import GRDB
import HearthCore
import HearthStore
@testable import HearthStoreSQLite
import Testing

/// Issue 41, item 3 (the per-request cost): the store's side of a lookup and of every read.
@Suite struct RequestPathStoreTests {
    /// Issue 41, item 3: `userWithPasskeys` answers what `user(localId:)` and `passkeys(localId:)` answer one after
    /// the other — the user with every field, their passkeys oldest first, nil for an unknown uid, nothing of a user
    /// of another tenant in a bound store — on every engine (SQLite reads both in one transaction).
    @Test(arguments: StoreKind.allCases)
    func userWithPasskeysEqualsTheTwoReads(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var rich = makeUser("u1", email: "ada@example.com",
                                identities: [ProviderIdentity(providerId: "google.com", federatedId: "g-1", email: "ada@gmail.com")])
            rich.phoneNumber = "+15555550100"
            rich.displayName = "Ada"
            try await store.createUser(rich)
            try await store.createUser(UserRecord(localId: "u2", createdAt: t0, validSince: t0))
            for (index, id) in ["cred-b", "cred-a"].enumerated() {
                #expect(try await store.insertPasskey(PasskeyStoreTests.passkey(id, user: "u1", at: t0.addingTimeInterval(Double(index)))))
            }
            let both = try #require(try await store.userWithPasskeys(localId: "u1"))
            #expect(both.user == (try await store.user(localId: "u1")))
            #expect(both.user.identities.contains { $0.federatedId == "g-1" } && both.user.phoneNumber == "+15555550100")
            #expect(both.passkeys == (try await store.passkeys(localId: "u1")))
            #expect(both.passkeys.map(\.credentialId) == ["cred-b", "cred-a"])
            let none = try #require(try await store.userWithPasskeys(localId: "u2"))
            #expect(none.user.localId == "u2" && none.passkeys.isEmpty)
            #expect(try await store.userWithPasskeys(localId: "nobody") == nil)
            try await store.insertTenant(TenantRecord(id: "acme-aaaaa", displayName: "Acme", createdAt: t0))
            #expect(try await store.bound(toTenant: "acme-aaaaa").userWithPasskeys(localId: "u1") == nil)
        }
    }

    /// Issue 41, item 3: SQLite rows are read by the exact column name (one column list per result) and fall back to
    /// GRDB's case-insensitive lookup, so every spelling answers as before; a missing column is nil.
    @Test func sqliteRowsReadByExactNameAnswerAsGRDB() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 'a' AS local_id, 2.5 AS created_at, 7 AS version, 1 AS disabled, NULL AS email, 'x' AS Mixed_Case"))
            let read = SQLiteRow(row: row, columns: Array(row.columnNames))
            #expect(read.string("local_id") == "a" && read.string("LOCAL_ID") == "a")
            #expect(read.double("created_at") == 2.5 && read.int("version") == 7 && read.bool("disabled"))
            #expect(read.string("email") == nil && !read.bool("email"))
            #expect(read.string("mixed_case") == "x" && read.string("Mixed_Case") == "x")
            #expect(read.string("no_such_column") == nil && read.int("no_such_column") == nil)
        }
    }
}
