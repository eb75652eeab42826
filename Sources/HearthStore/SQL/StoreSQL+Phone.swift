import Foundation
import HearthCore

extension StoreSQL {
    // MARK: Phone verifications (issue 40)

    package static func insertPhoneVerification(_ r: PhoneVerificationRecord) -> SQLStatement {
        """
        INSERT INTO phone_verifications (id_hash, tenant_id, kind, purpose, phone_number, code_hash, local_id, binding, attempts,
            created_at, expires_at)
        VALUES (\(r.idHash), \(r.tenantId ?? ""), \(r.kind.rawValue), \(r.purpose.rawValue), \(r.phoneNumber), \(r.codeHash), \(r.localId),
            \(r.binding), \(r.attempts), \(r.createdAt), \(r.expiresAt))
        """
    }

    /// The record, if it was made in `tenant` (another tenant's is unknown here).
    package static func phoneVerification(idHash: String, tenant: String) -> SQLStatement {
        "SELECT * FROM phone_verifications WHERE id_hash = \(idHash) AND tenant_id = \(tenant)"
    }

    /// Counts a check before the comparison: one conditional update, so parallel checks (on any replica) are
    /// counted one after another and none passes the limit.
    package static func countPhoneCodeAttempt(idHash: String, tenant: String, maxAttempts: Int, now: Date) -> SQLStatement {
        """
        UPDATE phone_verifications SET attempts = attempts + 1
        WHERE id_hash = \(idHash) AND tenant_id = \(tenant) AND attempts < \(maxAttempts) AND expires_at > \(now)
        """
    }

    /// Deletes the record: one row for the one caller that completes it.
    package static func deletePhoneVerification(idHash: String, tenant: String) -> SQLStatement {
        "DELETE FROM phone_verifications WHERE id_hash = \(idHash) AND tenant_id = \(tenant)"
    }

    /// Expired verifications and text messages whose code expired (what ``pruneExpiredFlows(now:throttleTable:)`` adds).
    package static func prunePhoneFlows(now: Date) -> [SQLStatement] {
        [
            "DELETE FROM phone_verifications WHERE expires_at < \(now)",
            "DELETE FROM mail_outbox WHERE channel = \(OutboxChannel.sms.rawValue) AND expires_at < \(now)",
        ]
    }

    // MARK: The SMS outbox (the mail outbox's statements, channel `sms`)

    package static func enqueueSms(_ m: OutboxSms) -> SQLStatement {
        enqueueOutbox(.sms, id: m.id, recipient: "", payload: m.body, createdAt: m.createdAt, nextAttemptAt: m.nextAttemptAt,
                      attempts: m.attempts, expiresAt: m.expiresAt, lastError: m.lastError)
    }

    // MARK: Rate-limit counters, read without counting

    /// A key's counts in `window` and the one before (the console's "today's count").
    package static func rateLimitWindows(key: String, window: Int64) -> SQLStatement {
        "SELECT window_index, count FROM rate_limits WHERE key = \(key) AND window_index IN (\(window), \(window - 1))"
    }

    /// The counts of ``rateLimitWindows(key:window:)``'s rows.
    package static func windowCounts(_ rows: [some SQLRow], window: Int64) throws -> RateLimitWindowCounts {
        var counts = RateLimitWindowCounts(current: 0, previous: 0)
        for row in rows {
            if try row.int("window_index") == Int(window) { counts.current = try row.int("count") ?? 0 } else { counts.previous = try row.int("count") ?? 0 }
        }
        return counts
    }
}

extension StoreSchema {
    /// Phone verifications (hashed `sessionInfo`/`temporaryProof`, tenant-bound) and the outbox's channel column
    /// (mail rows keep `mail`; text messages are `sms`).
    package var phone: [String] {
        [
            """
            CREATE TABLE phone_verifications (
                id_hash TEXT\(d.bytewise) \(d.key),
                tenant_id TEXT\(d.bytewise) NOT NULL DEFAULT '',
                kind TEXT NOT NULL,
                purpose TEXT NOT NULL,
                phone_number TEXT NOT NULL,
                code_hash TEXT,
                local_id TEXT,
                binding TEXT,
                attempts \(d.integer) NOT NULL,
                created_at \(d.time) NOT NULL,
                expires_at \(d.time) NOT NULL
            )
            """,
            "CREATE INDEX phone_verifications_expiry ON phone_verifications(expires_at)",
            "ALTER TABLE mail_outbox ADD COLUMN channel TEXT NOT NULL DEFAULT 'mail'",
            "DROP INDEX mail_outbox_due",
            "CREATE INDEX mail_outbox_due ON mail_outbox(channel, next_attempt_at)",
        ]
    }
}

extension PhoneVerificationRecord {
    /// A `phone_verifications` row.
    package init(row: some SQLRow) throws {
        guard let kind = Kind(rawValue: try row.string("kind") ?? ""), let purpose = PhoneCodePurpose(rawValue: try row.string("purpose") ?? "") else {
            throw StoreError.backend("unknown kind or purpose in phone_verifications")
        }
        self.init(idHash: try row.string("id_hash") ?? "", kind: kind, purpose: purpose, phoneNumber: try row.string("phone_number") ?? "",
                  codeHash: try row.string("code_hash"), localId: try row.string("local_id"), binding: try row.string("binding"),
                  attempts: try row.int("attempts") ?? 0, createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                  expiresAt: try row.date("expires_at") ?? Date(timeIntervalSince1970: 0), tenantId: try row.tenant())
    }
}

extension OutboxSms {
    /// A `mail_outbox` row of channel `sms`.
    package init(row: some SQLRow) throws {
        self.init(id: try row.string("id") ?? "", body: try row.string("message_json") ?? "",
                  createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                  expiresAt: try row.date("expires_at") ?? Date(timeIntervalSince1970: 0),
                  attempts: try row.int("attempts") ?? 0, lastError: try row.string("last_error"))
        nextAttemptAt = try row.date("next_attempt_at") ?? createdAt
    }
}
