import Foundation
import HearthCore
import HearthStore
@testable import HearthStoreSQLite
import Testing

/// The file store reads on reader connections beside the single writer: a read never waits for a write.
@Suite struct ReaderWriterTests {
    @Test func readsDoNotWaitForAnOpenWriteTransaction() async throws {
        try await StoreKind.sqliteFile.with { store in
            let sqlite = try #require(store as? SQLiteStore)
            try await store.createUser(makeUser("reader", email: "reader@example.com"))
            let original = try await store.user(localId: "reader")?.displayName
            // A write transaction that changes the user and then holds the write lock for 1.5 s.
            let writer = Task {
                try await sqlite.transaction { db in
                    try db.execute("UPDATE users SET display_name = 'changed' WHERE local_id = 'reader'")
                    Thread.sleep(forTimeInterval: 1.5)
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let start = clock.now
            let during = try await store.user(localId: "reader")
            let elapsed = clock.now - start
            #expect(elapsed < .milliseconds(800), "a read waited \(elapsed) for the writer")
            // It read the last committed state, not the open transaction's change.
            #expect(during?.displayName == original)
            try await writer.value
            #expect(try await store.user(localId: "reader")?.displayName == "changed")
        }
    }
}
