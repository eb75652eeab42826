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

    // MARK: The mail outbox

    public func enqueueMail(_ mail: OutboxMail) async throws {
        let statement = try StoreSQL.enqueueMail(mail)
        try await single { db in try await db.execute(statement) }
    }

    public func claimDueMail(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try await transaction { db in
            var claimed: [OutboxMail] = []
            for row in try await db.rows(StoreSQL.dueMail(now: now, limit: limit, dialect: .postgres)) {
                guard let id = try row.string("id"), try await db.execute(StoreSQL.leaseMail(id: id, now: now, until: leaseUntil)) == 1,
                      let mail = try await db.row(StoreSQL.mail(id: id)).map(OutboxMail.init(row:))
                else { continue }
                claimed.append(mail)
            }
            return claimed
        }
    }

    public func deleteMail(id: String) async throws {
        try await single { db in try await db.execute(StoreSQL.deleteMail(id: id)) }
    }

    public func rescheduleMail(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await single { db in
            try await db.execute(StoreSQL.rescheduleMail(id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError))
        }
    }

    public func outboxCount() async throws -> Int {
        try await single { db in try await db.row(StoreSQL.outboxCount)?.int("n") ?? 0 }
    }
}
