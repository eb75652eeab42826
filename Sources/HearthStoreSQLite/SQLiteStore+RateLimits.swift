import Foundation
import GRDB
import HearthStore

// Rate-limit counters: one row per key and fixed window.
extension SQLiteStore {
    /// Schema for the rate-limit counters (migration 5).
    static let rateLimitMigrationStatements: [String] = [
        """
        CREATE TABLE rate_limits (
            key TEXT NOT NULL,
            window_index INTEGER NOT NULL,
            count INTEGER NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY (key, window_index)
        )
        """,
        "CREATE INDEX rate_limits_expiry ON rate_limits(expires_at)",
    ]

    public func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) async throws -> RateLimitWindowCounts {
        try await transaction { db in
            try db.execute("""
                INSERT INTO rate_limits (key, window_index, count, expires_at) VALUES (?, ?, 1, ?)
                ON CONFLICT (key, window_index) DO UPDATE SET count = count + 1
                """, [.text(key), .integer(Int(window)), .date(expiresAt)])
            var counts = RateLimitWindowCounts(current: 0, previous: 0)
            for row in try db.rows("SELECT window_index, count FROM rate_limits WHERE key = ? AND window_index IN (?, ?)",
                                   [.text(key), .integer(Int(window)), .integer(Int(window) - 1)]) {
                if row.int("window_index") == Int(window) { counts.current = row.int("count") ?? 0 } else { counts.previous = row.int("count") ?? 0 }
            }
            return counts
        }
    }

    @discardableResult
    public func pruneRateLimits(now: Date) async throws -> Int {
        try await transaction { db in
            try db.execute("DELETE FROM rate_limits WHERE expires_at < ?", [.date(now)])
            return db.changes()
        }
    }
}
