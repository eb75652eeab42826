import Foundation
import HearthCore
import HearthStore

extension PostgresStore {
    // MARK: Phone verifications (issue 40)

    public func insertPhoneVerification(_ record: PhoneVerificationRecord) async throws {
        try await single { [self] db in try await db.execute(StoreSQL.insertPhoneVerification(stamped(record))) }
    }

    public func phoneVerification(idHash: String) async throws -> PhoneVerificationRecord? {
        try await single { [self] db in
            try await db.row(StoreSQL.phoneVerification(idHash: idHash, tenant: tenantKey)).map(PhoneVerificationRecord.init(row:))
        }
    }

    /// The update takes the row's lock: a parallel check waits, then re-evaluates `attempts < max` on the counted
    /// row, so no burst passes the limit; the read in the same transaction sees this call's count.
    public func countPhoneCodeAttempt(idHash: String, maxAttempts: Int, now: Date) async throws -> PhoneVerificationRecord? {
        try await transaction { [self] db in
            guard try await db.execute(StoreSQL.countPhoneCodeAttempt(idHash: idHash, tenant: tenantKey, maxAttempts: maxAttempts, now: now)) == 1 else {
                return nil
            }
            return try await db.row(StoreSQL.phoneVerification(idHash: idHash, tenant: tenantKey)).map(PhoneVerificationRecord.init(row:))
        }
    }

    public func deletePhoneVerification(idHash: String) async throws -> Bool {
        try await single { [self] db in try await db.execute(StoreSQL.deletePhoneVerification(idHash: idHash, tenant: tenantKey)) == 1 }
    }

    // MARK: The SMS outbox

    public func enqueueSms(_ sms: OutboxSms) async throws {
        try await single { db in try await db.execute(StoreSQL.enqueueSms(sms)) }
    }

    public func claimDueSms(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxSms] {
        try await claimDueOutbox(.sms, now: now, leaseUntil: leaseUntil, limit: limit) { try OutboxSms(row: $0) }
    }

    public func rescheduleSms(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await single { db in
            try await db.execute(StoreSQL.rescheduleOutbox(.sms, id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError))
        }
    }

    public func deleteSms(id: String) async throws {
        try await single { db in try await db.execute(StoreSQL.deleteOutbox(.sms, id: id)) }
    }

    public func smsOutboxCount() async throws -> Int {
        try await single { db in try await db.row(StoreSQL.outboxCount(.sms))?.int("n") ?? 0 }
    }

    // MARK: Rate-limit counters, read

    public func rateLimitCount(key: String, window: Int64) async throws -> RateLimitWindowCounts {
        try await single { db in try StoreSQL.windowCounts(try await db.rows(StoreSQL.rateLimitWindows(key: key, window: window)), window: window) }
    }
}
