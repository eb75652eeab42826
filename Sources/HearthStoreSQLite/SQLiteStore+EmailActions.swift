import Foundation
import HearthCore
import HearthStore
import HearthWire

extension SQLiteStore {
    // MARK: Email action codes

    public func insertOobCode(_ record: OobCodeRecord) async throws {
        try await transaction { [self] db in try db.execute(StoreSQL.insertOobCode(stamped(record))) }
    }

    public func oobCode(hash: String) async throws -> OobCodeRecord? {
        try await read { [self] db in try db.row(StoreSQL.oobCode(hash: hash, tenant: tenantKey)).map(OobCodeRecord.init(row:)) }
    }

    public func consumeOobCode(hash: String, now: Date) async throws -> OobCodeConsumeOutcome {
        try await transaction { [self] db in
            let record = try db.row(StoreSQL.oobCode(hash: hash, tenant: tenantKey)).map(OobCodeRecord.init(row:))
            if let refused = StoreSQL.consumeOutcome(record, now: now) { return refused }
            guard let record, try db.execute(StoreSQL.markOobCodeUsed(hash: hash, now: now)) == 1 else { return .used }
            return .consumed(record)
        }
    }

    public func releaseOobCode(hash: String) async throws {
        try await transaction { db in try db.execute(StoreSQL.releaseOobCode(hash: hash)) }
    }

    public func revokeOobCodes(localId: String, types: [OobRequestType], createdSince: Date?, now: Date) async throws {
        try await transaction { db in
            try db.execute(StoreSQL.revokeOobCodes(localId: localId, types: types, createdSince: createdSince, now: now), cached: false)
        }
    }

    public func pruneOobCodes(before cutoff: Date) async throws -> Int {
        try await transaction { db in try db.execute(StoreSQL.pruneOobCodes(before: cutoff)) }
    }

    // MARK: The outbox (mail here, text messages in SQLiteStore+Phone.swift)

    public func enqueueMail(_ mail: OutboxMail) async throws {
        let statement = try StoreSQL.enqueueMail(mail)
        try await transaction { db in try db.execute(statement) }
    }

    public func claimDueMail(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try await claimDueOutbox(.mail, now: now, leaseUntil: leaseUntil, limit: limit) { try OutboxMail(row: $0) }
    }

    /// Leases the channel's due messages, one conditional update each (the writer connection serializes replicas'
    /// processes on one file).
    func claimDueOutbox<Message: Sendable>(_ channel: StoreSQL.OutboxChannel, now: Date, leaseUntil: Date, limit: Int,
                                           _ make: @escaping @Sendable (SQLiteRow) throws -> Message) async throws -> [Message] {
        try await transaction { db in
            let ids = try db.rows(StoreSQL.dueOutbox(channel, now: now, limit: limit, dialect: .sqlite)).compactMap { $0.string("id") }
            return try ids.compactMap { id in
                guard try db.execute(StoreSQL.leaseOutbox(id: id, now: now, until: leaseUntil)) == 1 else { return nil }
                return try db.row(StoreSQL.outboxRow(channel, id: id)).map(make)
            }
        }
    }

    public func deleteMail(id: String) async throws {
        try await transaction { db in try db.execute(StoreSQL.deleteOutbox(.mail, id: id)) }
    }

    public func rescheduleMail(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await transaction { db in
            try db.execute(StoreSQL.rescheduleOutbox(.mail, id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError))
        }
    }

    public func outboxCount() async throws -> Int {
        try await read { db in try db.row(StoreSQL.outboxCount(.mail))?.int("n") ?? 0 }
    }
}
