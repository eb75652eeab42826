import Foundation
import HearthCore
import HearthWire

extension StoreSQL {
    // MARK: Email action codes

    package static func insertOobCode(_ r: OobCodeRecord) -> SQLStatement {
        """
        INSERT INTO oob_codes (code_hash, request_type, local_id, email, new_email, continue_url, created_at, expires_at, used_at, tenant_id)
        VALUES (\(r.codeHash), \(r.requestType.rawValue), \(r.localId), \(r.email), \(r.newEmail), \(r.continueURL), \(r.createdAt),
            \(r.expiresAt), \(r.usedAt), \(r.tenantId ?? ""))
        """
    }

    /// The code, if it was made in `tenant` (a code presented in another tenant is unknown there).
    package static func oobCode(hash: String, tenant: String, forUpdate: Bool = false) -> SQLStatement {
        "SELECT * FROM oob_codes WHERE code_hash = \(hash) AND tenant_id = \(tenant)\(unescaped: forUpdate ? " FOR UPDATE" : "")"
    }

    /// Marks the code used if nobody has: one row for the one winner.
    package static func markOobCodeUsed(hash: String, now: Date) -> SQLStatement {
        "UPDATE oob_codes SET used_at = \(now) WHERE code_hash = \(hash) AND used_at IS NULL"
    }

    package static func releaseOobCode(hash: String) -> SQLStatement { "UPDATE oob_codes SET used_at = NULL WHERE code_hash = \(hash)" }

    package static func revokeOobCodes(localId: String, types: [OobRequestType], createdSince: Date?, now: Date) -> SQLStatement {
        """
        UPDATE oob_codes SET used_at = \(now)
        WHERE local_id = \(localId) AND used_at IS NULL AND request_type IN (\(list: types.map(\.rawValue)))
            AND created_at >= \(createdSince ?? Date(timeIntervalSince1970: 0))
        """
    }

    package static func pruneOobCodes(before cutoff: Date) -> SQLStatement { "DELETE FROM oob_codes WHERE expires_at < \(cutoff)" }

    /// What a consume found, decided once for both engines from the row read inside the transaction.
    package static func consumeOutcome(_ record: OobCodeRecord?, now: Date) -> OobCodeConsumeOutcome? {
        guard let record else { return .unknown }
        if record.usedAt != nil { return .used }
        if record.expiresAt <= now { return .expired }
        return nil
    }

    // MARK: The outbox (mail and text messages)

    /// What an outbox row carries: an email (`OutboxMail`) or a text message (`OutboxSms`). One table, one set of
    /// statements; every statement names its channel.
    package enum OutboxChannel: String, Sendable {
        case mail
        case sms
    }

    /// One outbox row; `payload` is the message (JSON, or sealed text), `recipient` shown to operators (empty for SMS).
    package static func enqueueOutbox(_ channel: OutboxChannel, id: String, recipient: String, payload: String, createdAt: Date,
                                      nextAttemptAt: Date, attempts: Int, expiresAt: Date, lastError: String?) -> SQLStatement {
        """
        INSERT INTO mail_outbox (id, channel, recipient, message_json, created_at, next_attempt_at, lease_until, attempts, expires_at, last_error)
        VALUES (\(id), \(channel.rawValue), \(recipient), \(payload), \(createdAt), \(nextAttemptAt), \(nil as Date?), \(attempts), \(expiresAt),
            \(lastError))
        """
    }

    package static func enqueueMail(_ m: OutboxMail) throws -> SQLStatement {
        enqueueOutbox(.mail, id: m.id, recipient: m.recipient, payload: try StoreJSON.encode(m.message), createdAt: m.createdAt,
                      nextAttemptAt: m.nextAttemptAt, attempts: m.attempts, expiresAt: m.expiresAt, lastError: m.lastError)
    }

    /// The ids of the channel's due, unleased messages, oldest first; PostgreSQL skips rows another replica is leasing.
    package static func dueOutbox(_ channel: OutboxChannel, now: Date, limit: Int, dialect: SQLDialect) -> SQLStatement {
        """
        SELECT id FROM mail_outbox WHERE channel = \(channel.rawValue) AND next_attempt_at <= \(now)
            AND (lease_until IS NULL OR lease_until <= \(now))
        ORDER BY next_attempt_at LIMIT \(limit)\(unescaped: dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : "")
        """
    }

    package static func leaseOutbox(id: String, now: Date, until: Date) -> SQLStatement {
        "UPDATE mail_outbox SET lease_until = \(until) WHERE id = \(id) AND (lease_until IS NULL OR lease_until <= \(now))"
    }

    package static func outboxRow(_ channel: OutboxChannel, id: String) -> SQLStatement {
        "SELECT * FROM mail_outbox WHERE id = \(id) AND channel = \(channel.rawValue)"
    }

    package static func deleteOutbox(_ channel: OutboxChannel, id: String) -> SQLStatement {
        "DELETE FROM mail_outbox WHERE id = \(id) AND channel = \(channel.rawValue)"
    }

    package static func rescheduleOutbox(_ channel: OutboxChannel, id: String, attempts: Int, nextAttemptAt: Date, lastError: String) -> SQLStatement {
        """
        UPDATE mail_outbox SET attempts = \(attempts), next_attempt_at = \(nextAttemptAt), lease_until = NULL,
            last_error = \(String(lastError.prefix(500)))
        WHERE id = \(id) AND channel = \(channel.rawValue)
        """
    }

    package static func outboxCount(_ channel: OutboxChannel) -> SQLStatement {
        "SELECT COUNT(*) AS n FROM mail_outbox WHERE channel = \(channel.rawValue)"
    }

    // MARK: Copying (`hearth migrate`)

    package static func oobCodes(after afterHash: String?, limit: Int) -> SQLStatement {
        "SELECT * FROM oob_codes WHERE code_hash > \(afterHash ?? "") ORDER BY code_hash LIMIT \(max(0, limit))"
    }

    package static func outboxMail(after afterId: String?, limit: Int) -> SQLStatement {
        "SELECT * FROM mail_outbox WHERE channel = 'mail' AND id > \(afterId ?? "") ORDER BY id LIMIT \(max(0, limit))"
    }
}

extension OobCodeRecord {
    /// An `oob_codes` row.
    package init(row: some SQLRow) throws {
        guard let type = OobRequestType(rawValue: try row.string("request_type") ?? "") else {
            throw StoreError.backend("unknown action code type in oob_codes")
        }
        self.init(codeHash: try row.string("code_hash") ?? "", requestType: type, localId: try row.string("local_id"),
                  email: try row.string("email") ?? "", newEmail: try row.string("new_email"), continueURL: try row.string("continue_url"),
                  createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                  expiresAt: try row.date("expires_at") ?? Date(timeIntervalSince1970: 0), usedAt: try row.date("used_at"))
        tenantId = try row.tenant()
    }
}

extension OutboxMail {
    /// A `mail_outbox` row.
    package init(row: some SQLRow) throws {
        self.init(id: try row.string("id") ?? "", recipient: try row.string("recipient") ?? "",
                  message: try row.json(OutgoingMail.self, "message_json"),
                  createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                  expiresAt: try row.date("expires_at") ?? Date(timeIntervalSince1970: 0),
                  attempts: try row.int("attempts") ?? 0, lastError: try row.string("last_error"))
        nextAttemptAt = try row.date("next_attempt_at") ?? createdAt
    }
}
