import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresStore {
    // MARK: Provider token vault

    /// One statement: the identity check and the write see one snapshot, and the row lock of the upsert orders it.
    public func saveProviderTokens(_ record: ProviderTokenRecord) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.saveProviderTokens(record, lock: " FOR KEY SHARE")) > 0 }
    }

    public func providerTokens(localId: String, providerId: String) async throws -> ProviderTokenRecord? {
        try await single { db in
            try await db.row(StoreSQL.providerTokens(localId: localId, providerId: providerId)).map(ProviderTokenRecord.init(row:))
        }
    }

    public func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.replaceProviderTokens(record, expectedSealed: expectedSealed)) > 0 }
    }

    public func deleteProviderTokens(localId: String, providerId: String?) async throws -> Int {
        try await single { db in try await db.execute(StoreSQL.deleteProviderTokens(localId: localId, providerId: providerId)) }
    }

    public func deleteProviderTokens(providerId: String) async throws -> Int {
        try await single { [self] db in try await db.execute(StoreSQL.deleteProviderTokens(providerId: providerId, tenant: tenantKey)) }
    }

    public func providerTokenRecords(after: ProviderTokenKey?, limit: Int) async throws -> [ProviderTokenRecord] {
        try await single { db in
            try await db.rows(StoreSQL.providerTokenRecords(after: after, limit: limit)).map(ProviderTokenRecord.init(row:))
        }
    }

    // MARK: Rate limits

    /// One statement (atomic on its own): the upsert's new count, and the previous window's count.
    public func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) async throws -> RateLimitWindowCounts {
        try await single { db in
            let row = try await db.row("""
                WITH hit AS (\(StoreSQL.countRateLimitedRequest(key: key, window: window, expiresAt: expiresAt)) RETURNING count)
                SELECT (SELECT count FROM hit) AS current,
                       (SELECT count FROM rate_limits WHERE key = \(key) AND window_index = \(window - 1)) AS previous
                """)
            return RateLimitWindowCounts(current: try row?.int("current") ?? 0, previous: try row?.int("previous") ?? 0)
        }
    }

    @discardableResult
    public func pruneRateLimits(now: Date) async throws -> Int {
        try await single { db in try await db.execute(StoreSQL.pruneRateLimits(now: now)) }
    }
}
