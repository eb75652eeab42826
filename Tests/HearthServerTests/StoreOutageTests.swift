import Foundation
import GRDB
import HearthCore
@testable import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// Issue 18.1, the embedded store's equivalents of a database outage: a full disk and a read-only database answer a
/// clear `503 UNAVAILABLE` (with Retry-After), never a 500; reads keep working; writes work again once fixed.
/// (The PostgreSQL outages — stopped, full, stalled — are `OutageTests` in HearthCLITests, on a cluster of their own.)
@Suite struct StoreOutageTests {
    static func expectUnavailable(_ reply: HearthHarness.Reply, naming reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 503, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "UNAVAILABLE", sourceLocation: sourceLocation)
        #expect(reply.envelope?.error.message.contains(reason) == true, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers[.retryAfter] == "1", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["full", "read-only"])
    func aFullDiskOrAReadOnlyDatabaseIsA503(_ failure: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-outage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await HearthHarness.run(databasePath: directory + "/hearth.sqlite") { h in
            let ada = try await h.signUp(email: "ada@example.com")
            let sqlite = try #require(h.store as? SQLiteStore)
            // A full disk: the file may not grow (SQLITE_FULL); read-only: the connection may not write (SQLITE_READONLY).
            let pragma = failure == "full" ? "PRAGMA max_page_count = 1" : "PRAGMA query_only = 1"
            try await sqlite.writer.writeWithoutTransaction { db in try db.execute(sql: pragma) }
            let reason = failure == "full" ? "the disk holding the database is full" : "the database file is read-only"
            var created = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "new@example.com", password: "correct horse"))
            if failure == "full", created.status == 200 {
                // SQLite fills the pages it has first: keep writing until the file must grow.
                for index in 0..<200 where created.status == 200 {
                    created = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "fill\(index)@example.com", password: "correct horse"))
                }
            }
            Self.expectUnavailable(created, naming: reason)
            // Reads still answer.
            #expect(try await h.lookup(try #require(ada.idToken)).status == 200)
            #expect(try await h.send(.get, "/readyz").status == 200)
            // Fixed: writes work again.
            let fix = failure == "full" ? "PRAGMA max_page_count = 1073741823" : "PRAGMA query_only = 0"
            try await sqlite.writer.writeWithoutTransaction { db in try db.execute(sql: fix) }
            #expect(try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "after@example.com", password: "correct horse")).status == 200)
        }
    }
}
