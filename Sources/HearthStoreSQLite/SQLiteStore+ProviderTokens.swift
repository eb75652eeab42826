import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteStore {
    /// Migration 6: the provider token vault's sealed tokens, one row per user and provider.
    static let providerTokenMigrationStatements = [
        """
        CREATE TABLE provider_tokens (
            local_id TEXT NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
            provider_id TEXT NOT NULL,
            federated_id TEXT NOT NULL,
            key_id TEXT NOT NULL,
            sealed TEXT NOT NULL,
            access_expires_at REAL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (local_id, provider_id)
        )
        """,
        "CREATE INDEX provider_tokens_provider ON provider_tokens(provider_id)",
    ]

    public func saveProviderTokens(_ record: ProviderTokenRecord) async throws -> Bool {
        try await transaction { db in
            // Only while the identity is linked: an unlink or deletion that committed first wins.
            try db.execute("""
                INSERT INTO provider_tokens (local_id, provider_id, federated_id, key_id, sealed, access_expires_at, updated_at)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (
                    SELECT 1 FROM provider_identities WHERE local_id = ? AND provider_id = ? AND federated_id = ?)
                ON CONFLICT(local_id, provider_id) DO UPDATE SET federated_id = excluded.federated_id, key_id = excluded.key_id,
                    sealed = excluded.sealed, access_expires_at = excluded.access_expires_at, updated_at = excluded.updated_at
                """, Self.providerTokenBinds(record) + [.text(record.localId), .text(record.providerId), .text(record.federatedId)])
            return db.changes() > 0
        }
    }

    public func providerTokens(localId: String, providerId: String) async throws -> ProviderTokenRecord? {
        try await read { db in
            try db.row("SELECT * FROM provider_tokens WHERE local_id = ? AND provider_id = ?", [.text(localId), .text(providerId)])
                .map(Self.providerTokenRecord)
        }
    }

    public func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("""
                UPDATE provider_tokens SET key_id = ?, sealed = ?, access_expires_at = ?, updated_at = ?
                WHERE local_id = ? AND provider_id = ? AND federated_id = ? AND sealed = ?
                """, [.text(record.keyId), .text(record.sealed), .optionalDate(record.accessTokenExpiresAt), .date(record.updatedAt),
                      .text(record.localId), .text(record.providerId), .text(record.federatedId), .text(expectedSealed)])
            return db.changes() > 0
        }
    }

    public func deleteProviderTokens(localId: String, providerId: String?) async throws -> Int {
        try await transaction { db in
            if let providerId {
                try db.execute("DELETE FROM provider_tokens WHERE local_id = ? AND provider_id = ?", [.text(localId), .text(providerId)])
            } else {
                try db.execute("DELETE FROM provider_tokens WHERE local_id = ?", [.text(localId)])
            }
            return db.changes()
        }
    }

    public func deleteProviderTokens(providerId: String) async throws -> Int {
        try await transaction { db in
            try db.execute("DELETE FROM provider_tokens WHERE provider_id = ?", [.text(providerId)])
            return db.changes()
        }
    }

    public func providerTokenRecords(after: ProviderTokenKey?, limit: Int) async throws -> [ProviderTokenRecord] {
        try await read { db in
            if let after {
                return try db.rows("""
                    SELECT * FROM provider_tokens WHERE local_id > ? OR (local_id = ? AND provider_id > ?)
                    ORDER BY local_id, provider_id LIMIT ?
                    """, [.text(after.localId), .text(after.localId), .text(after.providerId), .integer(max(0, limit))])
                    .map(Self.providerTokenRecord)
            }
            return try db.rows("SELECT * FROM provider_tokens ORDER BY local_id, provider_id LIMIT ?", [.integer(max(0, limit))])
                .map(Self.providerTokenRecord)
        }
    }

    /// After an update rewrote the identities: tokens whose identity is no longer linked go.
    static func deleteUnlinkedProviderTokens(localId: String, db: Executor) throws {
        try db.execute("""
            DELETE FROM provider_tokens WHERE local_id = ? AND NOT EXISTS (
                SELECT 1 FROM provider_identities i
                WHERE i.local_id = provider_tokens.local_id AND i.provider_id = provider_tokens.provider_id
                    AND i.federated_id = provider_tokens.federated_id)
            """, [.text(localId)])
    }

    static func providerTokenBinds(_ record: ProviderTokenRecord) -> [SQLValue] {
        [.text(record.localId), .text(record.providerId), .text(record.federatedId), .text(record.keyId), .text(record.sealed),
         .optionalDate(record.accessTokenExpiresAt), .date(record.updatedAt)]
    }

    static func providerTokenRecord(_ row: Row) -> ProviderTokenRecord {
        ProviderTokenRecord(localId: row.string("local_id") ?? "", providerId: row.string("provider_id") ?? "",
                            federatedId: row.string("federated_id") ?? "", keyId: row.string("key_id") ?? "",
                            sealed: row.string("sealed") ?? "", accessTokenExpiresAt: row.date("access_expires_at"),
                            updatedAt: row.date("updated_at") ?? .distantPast)
    }
}
