import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresStore {
    // MARK: Provider token vault

    public func saveProviderTokens(_ record: ProviderTokenRecord) async throws -> Bool {
        try await single { db in
            // Only while the identity is linked: an unlink or deletion that committed first wins. One statement:
            // the identity check and the write see one snapshot, and the row lock of the upsert orders it.
            try await db.execute("""
                INSERT INTO provider_tokens (local_id, provider_id, federated_id, key_id, sealed, access_expires_at, updated_at)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (
                    SELECT 1 FROM provider_identities WHERE local_id = ? AND provider_id = ? AND federated_id = ? FOR KEY SHARE)
                ON CONFLICT (local_id, provider_id) DO UPDATE SET federated_id = excluded.federated_id, key_id = excluded.key_id,
                    sealed = excluded.sealed, access_expires_at = excluded.access_expires_at, updated_at = excluded.updated_at
                RETURNING 1
                """, Self.providerTokenBinds(record) + [.text(record.localId), .text(record.providerId), .text(record.federatedId)]) > 0
        }
    }

    public func providerTokens(localId: String, providerId: String) async throws -> ProviderTokenRecord? {
        try await single { db in
            try await db.row("SELECT * FROM provider_tokens WHERE local_id = ? AND provider_id = ?", [.text(localId), .text(providerId)])
                .map(Self.providerTokenRecord)
        }
    }

    public func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) async throws -> Bool {
        try await single { db in
            try await db.execute("""
                UPDATE provider_tokens SET key_id = ?, sealed = ?, access_expires_at = ?, updated_at = ?
                WHERE local_id = ? AND provider_id = ? AND federated_id = ? AND sealed = ? RETURNING 1
                """, [.text(record.keyId), .text(record.sealed), .optionalDate(record.accessTokenExpiresAt), .date(record.updatedAt),
                      .text(record.localId), .text(record.providerId), .text(record.federatedId), .text(expectedSealed)]) > 0
        }
    }

    public func deleteProviderTokens(localId: String, providerId: String?) async throws -> Int {
        try await single { db in
            if let providerId {
                return try await db.execute("DELETE FROM provider_tokens WHERE local_id = ? AND provider_id = ? RETURNING 1",
                                            [.text(localId), .text(providerId)])
            }
            return try await db.execute("DELETE FROM provider_tokens WHERE local_id = ? RETURNING 1", [.text(localId)])
        }
    }

    public func deleteProviderTokens(providerId: String) async throws -> Int {
        try await single { db in
            try await db.execute("DELETE FROM provider_tokens WHERE provider_id = ? RETURNING 1", [.text(providerId)])
        }
    }

    public func providerTokenRecords(after: ProviderTokenKey?, limit: Int) async throws -> [ProviderTokenRecord] {
        try await single { db in
            if let after {
                return try await db.rows("""
                    SELECT * FROM provider_tokens WHERE (local_id, provider_id) > (?, ?) ORDER BY local_id, provider_id LIMIT ?
                    """, [.text(after.localId), .text(after.providerId), .int(max(0, limit))]).map(Self.providerTokenRecord)
            }
            return try await db.rows("SELECT * FROM provider_tokens ORDER BY local_id, provider_id LIMIT ?", [.int(max(0, limit))])
                .map(Self.providerTokenRecord)
        }
    }

    /// After an update rewrote the identities: tokens whose identity is no longer linked go.
    static func deleteUnlinkedProviderTokens(localId: String, db: Executor) async throws {
        try await db.execute("""
            DELETE FROM provider_tokens WHERE local_id = ? AND NOT EXISTS (
                SELECT 1 FROM provider_identities i
                WHERE i.local_id = provider_tokens.local_id AND i.provider_id = provider_tokens.provider_id
                    AND i.federated_id = provider_tokens.federated_id)
            """, [.text(localId)])
    }

    static func providerTokenBinds(_ record: ProviderTokenRecord) -> [PGValue] {
        [.text(record.localId), .text(record.providerId), .text(record.federatedId), .text(record.keyId), .text(record.sealed),
         .optionalDate(record.accessTokenExpiresAt), .date(record.updatedAt)]
    }

    static func providerTokenRecord(_ row: PostgresRandomAccessRow) throws -> ProviderTokenRecord {
        ProviderTokenRecord(localId: try row.string("local_id") ?? "", providerId: try row.string("provider_id") ?? "",
                            federatedId: try row.string("federated_id") ?? "", keyId: try row.string("key_id") ?? "",
                            sealed: try row.string("sealed") ?? "", accessTokenExpiresAt: try row.date("access_expires_at"),
                            updatedAt: try row.date("updated_at") ?? .distantPast)
    }
}
