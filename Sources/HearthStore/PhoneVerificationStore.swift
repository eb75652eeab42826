import Foundation
import HearthCore

/// Phone verifications in progress (SMS codes and temporary proofs, stored by the hash of what the client holds,
/// tenant-bound like action codes) and the outbox of text messages for the SMS gateway (the mail outbox's table,
/// channel `sms`). Any replica on the database can check a code; a code completes once.
public protocol PhoneVerificationStore: Sendable {
    /// Stores the record; its `tenantId` is the store's binding (whatever the record says).
    func insertPhoneVerification(_ record: PhoneVerificationRecord) async throws
    /// The record, expired or not, until it is pruned; nil when unknown or another tenant's.
    func phoneVerification(idHash: String) async throws -> PhoneVerificationRecord?
    /// Counts one code check before the comparison, atomically across replicas: `attempts + 1` if the record is
    /// this tenant's, has fewer than `maxAttempts` attempts and has not expired at `now`; answers the record as
    /// counted (`attempts` includes this one). nil: unknown, another tenant's, expired or out of attempts (read the
    /// record to tell which). A burst of parallel checks gets at most `maxAttempts` records back.
    func countPhoneCodeAttempt(idHash: String, maxAttempts: Int, now: Date) async throws -> PhoneVerificationRecord?
    /// Deletes the record (this tenant's only): true for the one caller that deleted it, so it completes once.
    func deletePhoneVerification(idHash: String) async throws -> Bool

    /// Adds a text message to the outbox.
    func enqueueSms(_ sms: OutboxSms) async throws
    /// Leases up to `limit` due messages (`nextAttemptAt <= now`, not leased by another replica) until
    /// `leaseUntil`, oldest first; nobody else gets them until then.
    func claimDueSms(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxSms]
    /// A failed attempt: tried again at `nextAttemptAt`.
    func rescheduleSms(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    /// Delivered, given up or expired: the message leaves the outbox.
    func deleteSms(id: String) async throws
    /// Text messages waiting (for the console and `/metrics`).
    func smsOutboxCount() async throws -> Int
}

extension PhoneVerificationRecord: TenantOwned {}
