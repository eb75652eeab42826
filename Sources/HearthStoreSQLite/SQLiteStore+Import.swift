import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteStore {
    /// Bulk path: inserts many users (without identities) in one transaction, 500 rows per statement, without
    /// the per-user checks of ``createUser(_:)``: a duplicate `localId` or email fails the whole import
    /// (``StoreError/backend(_:)``) and nothing is written. For imports and benchmarks (seeding a million users),
    /// not for the request path.
    public func importUsers(_ users: [UserRecord]) async throws {
        try await transaction { db in
            var start = users.startIndex
            while start < users.endIndex {
                let end = min(start + 500, users.endIndex)
                let rows = users[start..<end]
                let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)", count: rows.count).joined(separator: ", ")
                try db.executeOnce("""
                    INSERT INTO users (local_id, email, email_verified, display_name, photo_url, password_hash,
                        password_updated_at, disabled, created_at, last_login_at, last_refresh_at, valid_since,
                        custom_claims, custom_auth, version)
                    VALUES \(placeholders)
                    """, rows.flatMap(Self.userBinds))
                start = end
            }
        }
    }
}
