import Foundation
import HearthCore
import HearthServer
import HearthStore
@testable import HearthStorePostgres
@testable import HearthStoreSQLite
import HearthTesting
import Testing

/// Issue 41, item 6: start-up at a million users does no work per user — the stored-email rewrite of older
/// databases runs once (its marker), and never on a database this version created.
@Suite struct StartUpScaleTests {
    static let legacy = "zoe\u{301}@example.com"

    /// A store prepared by `seed`, then a server started on it.
    static func started(_ choice: HearthHarness.StoreChoice, seed: @Sendable (any HearthStore) async throws -> Void,
                        _ body: @Sendable (HearthHarness) async throws -> Void) async throws {
        switch choice {
        case .sqlite:
            let store = try await SQLiteStore.inMemory()
            try await seed(store)
            try await HearthHarness.run(openedStore: store, body)
        case .postgres:
            try await PostgresTestDatabase.withDatabase { database in
                let store = try await PostgresStore.open(database)
                try await seed(store)
                try await HearthHarness.run(openedStore: store, body)
            }
        }
    }

    /// A user whose email an older version stored decomposed (NFD), as the rewrite finds it.
    static func seedLegacyEmail(_ store: any HearthStore) async throws {
        try await store.createUser(UserRecord(localId: "old-1", email: "zoe@example.com", createdAt: Date(), validSince: Date()))
        let email = legacy
        if let sqlite = store as? SQLiteStore {
            try await sqlite.transaction { db in try db.execute("UPDATE users SET email = \(email) WHERE local_id = 'old-1'") }
        } else if let postgres = store as? PostgresStore {
            try await postgres.single { db in try await db.execute("UPDATE users SET email = \(email) WHERE local_id = 'old-1'") }
        }
    }

    /// Whether the row holds the decomposed bytes (a record read through the store is canonical whatever the row holds).
    static func storedEmailIsDecomposed(_ h: HearthHarness) async throws -> Bool {
        let stored: String? = if let sqlite = h.store as? SQLiteStore {
            try await sqlite.read { db in try db.row("SELECT email FROM users WHERE local_id = 'old-1'")?.string("email") }
        } else if let postgres = h.store as? PostgresStore {
            try await postgres.single { db in try await db.row("SELECT email FROM users WHERE local_id = 'old-1'")?.string("email") }
        } else {
            nil
        }
        return try #require(stored).utf8.elementsEqual(legacy.utf8)
    }

    /// Issue 41, item 6: a database an older version served (its project configuration without the marker) has its
    /// stored emails rewritten at the first start and marked; a database never served (no project configuration:
    /// created by this version, e.g. by `hearth users import` into a new data directory) is marked at once — the
    /// start-up reads none of its users.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func storedEmailsAreScannedOnlyForAnOlderDatabase(_ choice: HearthHarness.StoreChoice) async throws {
        try await Self.started(choice, seed: { store in
            try await store.saveProjectConfig(ProjectConfig(projectId: "demo-hearth"))
            try await Self.seedLegacyEmail(store)
        }, { h in
            let decomposed = try await Self.storedEmailIsDecomposed(h)
            let marked = try await h.store.projectConfig(projectId: "demo-hearth")?.emailsCanonical
            #expect(!decomposed, "an older database is rewritten")
            #expect(marked == true)
        })
        try await Self.started(choice, seed: { store in try await Self.seedLegacyEmail(store) }, { h in
            let decomposed = try await Self.storedEmailIsDecomposed(h)
            let marked = try await h.store.projectConfig(projectId: "demo-hearth")?.emailsCanonical
            #expect(decomposed, "a database without a project configuration is not scanned")
            #expect(marked == true)
        })
    }
}
