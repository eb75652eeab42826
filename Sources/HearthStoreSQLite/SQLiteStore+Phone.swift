import Foundation
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Phone verifications (issue 40)

    public func insertPhoneVerification(_ record: PhoneVerificationRecord) async throws {
        try await transaction { [self] db in try db.execute(StoreSQL.insertPhoneVerification(stamped(record))) }
    }

    public func phoneVerification(idHash: String) async throws -> PhoneVerificationRecord? {
        try await read { [self] db in
            try db.row(StoreSQL.phoneVerification(idHash: idHash, tenant: tenantKey)).map(PhoneVerificationRecord.init(row:))
        }
    }

    /// The writer connection serializes the conditional update and the read of the counted row.
    public func countPhoneCodeAttempt(idHash: String, maxAttempts: Int, now: Date) async throws -> PhoneVerificationRecord? {
        try await transaction { [self] db in
            guard try db.execute(StoreSQL.countPhoneCodeAttempt(idHash: idHash, tenant: tenantKey, maxAttempts: maxAttempts, now: now)) == 1 else {
                return nil
            }
            return try db.row(StoreSQL.phoneVerification(idHash: idHash, tenant: tenantKey)).map(PhoneVerificationRecord.init(row:))
        }
    }

    public func deletePhoneVerification(idHash: String) async throws -> Bool {
        try await transaction { [self] db in try db.execute(StoreSQL.deletePhoneVerification(idHash: idHash, tenant: tenantKey)) == 1 }
    }

    // MARK: The SMS outbox

    public func enqueueSms(_ sms: OutboxSms) async throws {
        try await transaction { db in try db.execute(StoreSQL.enqueueSms(sms)) }
    }

    public func claimDueSms(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxSms] {
        try await claimDueOutbox(.sms, now: now, leaseUntil: leaseUntil, limit: limit) { try OutboxSms(row: $0) }
    }

    public func rescheduleSms(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await transaction { db in
            try db.execute(StoreSQL.rescheduleOutbox(.sms, id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError))
        }
    }

    public func deleteSms(id: String) async throws {
        try await transaction { db in try db.execute(StoreSQL.deleteOutbox(.sms, id: id)) }
    }

    public func smsOutboxCount() async throws -> Int {
        try await read { db in try db.row(StoreSQL.outboxCount(.sms))?.int("n") ?? 0 }
    }

    // MARK: Rate-limit counters, read

    public func rateLimitCount(key: String, window: Int64) async throws -> RateLimitWindowCounts {
        try await read { db in try StoreSQL.windowCounts(db.rows(StoreSQL.rateLimitWindows(key: key, window: window)), window: window) }
    }
}
