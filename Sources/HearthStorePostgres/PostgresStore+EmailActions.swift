import Foundation
import HearthCore
import HearthStore
import HearthWire

extension PostgresStore {
    // MARK: Email action codes

    public func insertOobCode(_ record: OobCodeRecord) async throws {
        try await single { [self] db in try await db.execute(StoreSQL.insertOobCode(stamped(record))) }
    }

    public func oobCode(hash: String) async throws -> OobCodeRecord? {
        try await single { [self] db in try await db.row(StoreSQL.oobCode(hash: hash, tenant: tenantKey)).map(OobCodeRecord.init(row:)) }
    }

    public func consumeOobCode(hash: String, now: Date) async throws -> OobCodeConsumeOutcome {
        try await transaction { [self] db in
            // The row lock orders two replicas' clicks on one link; the conditional update picks the one winner.
            let record = try await db.row(StoreSQL.oobCode(hash: hash, tenant: tenantKey, forUpdate: true)).map(OobCodeRecord.init(row:))
            if let refused = StoreSQL.consumeOutcome(record, now: now) { return refused }
            guard let record, try await db.execute(StoreSQL.markOobCodeUsed(hash: hash, now: now)) == 1 else { return .used }
            return .consumed(record)
        }
    }

    public func releaseOobCode(hash: String) async throws {
        try await single { db in try await db.execute(StoreSQL.releaseOobCode(hash: hash)) }
    }

    public func revokeOobCodes(localId: String, types: [OobRequestType], createdSince: Date?, now: Date) async throws {
        try await single { db in try await db.execute(StoreSQL.revokeOobCodes(localId: localId, types: types, createdSince: createdSince, now: now)) }
    }

    public func pruneOobCodes(before cutoff: Date) async throws -> Int {
        try await single { db in try await db.execute(StoreSQL.pruneOobCodes(before: cutoff)) }
    }

    // MARK: The outbox (mail here, text messages in PostgresStore+Phone.swift)

    public func enqueueMail(_ mail: OutboxMail) async throws {
        let statement = try StoreSQL.enqueueMail(mail)
        try await single { db in try await db.execute(statement) }
    }

    public func claimDueMail(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try await claimDueOutbox(.mail, now: now, leaseUntil: leaseUntil, limit: limit) { try OutboxMail(row: $0) }
    }

    /// Leases the channel's due messages: rows another replica is leasing are skipped (`SKIP LOCKED`), and each
    /// lease is a conditional update.
    func claimDueOutbox<Message: Sendable>(_ channel: StoreSQL.OutboxChannel, now: Date, leaseUntil: Date, limit: Int,
                                           _ make: @escaping @Sendable (PostgresStoreRow) throws -> Message) async throws -> [Message] {
        try await transaction { db in
            var claimed: [Message] = []
            for row in try await db.rows(StoreSQL.dueOutbox(channel, now: now, limit: limit, dialect: .postgres)) {
                guard let id = try row.string("id"), try await db.execute(StoreSQL.leaseOutbox(id: id, now: now, until: leaseUntil)) == 1,
                      let message = try await db.row(StoreSQL.outboxRow(channel, id: id)).map(make)
                else { continue }
                claimed.append(message)
            }
            return claimed
        }
    }

    public func deleteMail(id: String) async throws {
        try await single { db in try await db.execute(StoreSQL.deleteOutbox(.mail, id: id)) }
    }

    public func rescheduleMail(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await single { db in
            try await db.execute(StoreSQL.rescheduleOutbox(.mail, id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError))
        }
    }

    public func outboxCount() async throws -> Int {
        try await single { db in try await db.row(StoreSQL.outboxCount(.mail))?.int("n") ?? 0 }
    }
}
