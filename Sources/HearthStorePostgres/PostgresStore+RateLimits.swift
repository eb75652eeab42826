import Foundation
import HearthStore
import PostgresNIO

// Rate-limit counters shared by every replica on the database: one row per key and fixed window.
extension PostgresStore {
    /// Schema for the rate-limit counters (migration 4).
    static let rateLimitMigrationStatements: [String] = [
        """
        CREATE TABLE rate_limits (
            key TEXT NOT NULL,
            window_index BIGINT NOT NULL,
            count BIGINT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (key, window_index)
        )
        """,
        "CREATE INDEX rate_limits_expiry ON rate_limits(expires_at)",
    ]

    public func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) async throws -> RateLimitWindowCounts {
        // One statement (atomic on its own): the upsert's new count, and the previous window's count.
        try await single { db in
            let row = try await db.row("""
                WITH hit AS (
                    INSERT INTO rate_limits (key, window_index, count, expires_at) VALUES (?, ?, 1, ?)
                    ON CONFLICT (key, window_index) DO UPDATE SET count = rate_limits.count + 1
                    RETURNING count
                )
                SELECT (SELECT count FROM hit) AS current,
                       (SELECT count FROM rate_limits WHERE key = ? AND window_index = ?) AS previous
                """, [.text(key), .integer(window), .date(expiresAt), .text(key), .integer(window - 1)])
            return RateLimitWindowCounts(current: try row?.int("current") ?? 0, previous: try row?.int("previous") ?? 0)
        }
    }

    @discardableResult
    public func pruneRateLimits(now: Date) async throws -> Int {
        try await single { db in
            try await db.rows("DELETE FROM rate_limits WHERE expires_at < ? RETURNING 1", [.date(now)]).count
        }
    }
}
