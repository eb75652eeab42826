import Foundation
import GRDB
import HearthStore

// Password attempts, reserved before the check (see `SignInThrottleStore`). One writer connection serializes the
// check and the insert, so a burst of parallel attempts is counted one after another.
extension SQLiteStore {
    /// Schema for the password attempts and the provider ID tokens already used (migration 7).
    static let throttleMigrationStatements: [String] = [
        "CREATE TABLE used_id_tokens (key_hash TEXT PRIMARY KEY NOT NULL, expires_at REAL NOT NULL)",
        "CREATE INDEX used_id_tokens_expiry ON used_id_tokens(expires_at)",
        "CREATE TABLE throttle_attempts (key TEXT NOT NULL, at REAL NOT NULL, attempt_id TEXT NOT NULL)",
        "CREATE INDEX throttle_attempts_key ON throttle_attempts(key, at)",
        "CREATE INDEX throttle_attempts_attempt ON throttle_attempts(attempt_id)",
    ]

    public func reserveThrottleAttempt(keys: [ThrottleKey], attemptId: String, at moment: Date, since: Date) async throws -> Bool {
        try await transaction { db in
            for key in keys {
                let count = try db.row("SELECT COUNT(*) AS n FROM throttle_attempts WHERE key = ? AND at >= ?",
                                       [.text(key.key), .date(since)])?.int("n") ?? 0
                if count >= key.limit { return false }
            }
            for key in keys {
                try db.execute("DELETE FROM throttle_attempts WHERE key = ? AND at < ?", [.text(key.key), .date(since)])
                try db.execute("INSERT INTO throttle_attempts (key, at, attempt_id) VALUES (?, ?, ?)",
                               [.text(key.key), .date(moment), .text(attemptId)])
            }
            return true
        }
    }

    public func settleThrottleAttempt(attemptId: String, clearing key: String) async throws {
        try await transaction { db in
            try db.execute("DELETE FROM throttle_attempts WHERE attempt_id = ? OR key = ?", [.text(attemptId), .text(key)])
        }
    }
}
