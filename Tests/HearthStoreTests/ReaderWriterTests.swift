import Dispatch
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
            // A write transaction that changes the user, then holds the write lock until the read below is done
            // (at most 10 s). If reads waited for the writer, the read would only finish after that timeout and
            // would see the change.
            let updated = DispatchSemaphore(value: 0)
            let readDone = DispatchSemaphore(value: 0)
            let writer = Task {
                try await sqlite.transaction { db in
                    try db.execute("UPDATE users SET display_name = 'changed' WHERE local_id = 'reader'")
                    updated.signal()
                    _ = readDone.wait(timeout: .now() + 10)
                }
            }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { updated.wait(); done.resume() }
            }
            let clock = ContinuousClock()
            let start = clock.now
            let during = try await store.user(localId: "reader")
            let elapsed = clock.now - start
            readDone.signal()
            #expect(elapsed < .seconds(5), "a read waited \(elapsed) for the writer")
            // It read the last committed state, not the open transaction's change.
            #expect(during?.displayName == original)
            try await writer.value
            #expect(try await store.user(localId: "reader")?.displayName == "changed")
        }
    }
}
