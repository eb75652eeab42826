import Foundation
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Provider token vault

    public func saveProviderTokens(_ record: ProviderTokenRecord) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.saveProviderTokens(record)) > 0 }
    }

    public func providerTokens(localId: String, providerId: String) async throws -> ProviderTokenRecord? {
        try await read { db in try db.row(StoreSQL.providerTokens(localId: localId, providerId: providerId)).map(ProviderTokenRecord.init(row:)) }
    }

    public func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.replaceProviderTokens(record, expectedSealed: expectedSealed)) > 0 }
    }

    public func deleteProviderTokens(localId: String, providerId: String?) async throws -> Int {
        try await transaction { db in try db.execute(StoreSQL.deleteProviderTokens(localId: localId, providerId: providerId)) }
    }

    public func deleteProviderTokens(providerId: String) async throws -> Int {
        try await transaction { [self] db in try db.execute(StoreSQL.deleteProviderTokens(providerId: providerId, tenant: tenantKey)) }
    }

    public func providerTokenRecords(after: ProviderTokenKey?, limit: Int) async throws -> [ProviderTokenRecord] {
        try await read { db in try db.rows(StoreSQL.providerTokenRecords(after: after, limit: limit)).map(ProviderTokenRecord.init(row:)) }
    }

    // MARK: Rate limits

    public func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) async throws -> RateLimitWindowCounts {
        try await transaction { db in
            try db.execute(StoreSQL.countRateLimitedRequest(key: key, window: window, expiresAt: expiresAt))
            return try StoreSQL.windowCounts(db.rows(StoreSQL.rateLimitWindows(key: key, window: window)), window: window)
        }
    }

    @discardableResult
    public func pruneRateLimits(now: Date) async throws -> Int {
        try await transaction { db in try db.execute(StoreSQL.pruneRateLimits(now: now)) }
    }

    // MARK: Password attempts

    /// Reserved before the check (see `SignInThrottleStore`). One writer connection serializes the check and the
    /// insert, so a burst of parallel attempts is counted one after another.
    public func reserveThrottleAttempt(keys: [ThrottleKey], attemptId: String, at moment: Date, since: Date) async throws -> Bool {
        try await transaction { db in
            for key in keys {
                let count = try db.row("SELECT COUNT(*) AS n FROM throttle_attempts WHERE key = \(key.key) AND at >= \(since)")?.int("n") ?? 0
                if count >= key.limit { return false }
            }
            for key in keys {
                for statement in StoreSQL.recordThrottleAttempt(key, attemptId: attemptId, at: moment, since: since, table: "throttle_attempts") {
                    try db.execute(statement)
                }
            }
            return true
        }
    }

    public func settleThrottleAttempt(attemptId: String, clearing key: String) async throws {
        try await transaction { db in
            try db.execute(StoreSQL.settleThrottleAttempt(attemptId: attemptId, clearing: key, table: "throttle_attempts"))
        }
    }
}
