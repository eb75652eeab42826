import Foundation
import HearthCore

extension StoreSQL {
    // MARK: Passkeys

    /// Inserts the credential, or nothing when its id is registered already (the key decides a race).
    package static func insertPasskey(_ p: PasskeyCredential) -> SQLStatement {
        """
        INSERT INTO passkeys (credential_id, local_id, user_handle, public_key, algorithm, sign_count, name, transports,
            backup_eligible, backed_up, created_at, last_used_at)
        VALUES (\(p.credentialId), \(p.localId), \(p.userHandle), \(p.publicKey), \(p.algorithm), \(p.signCount), \(p.name),
            \(p.transports.isEmpty ? nil : p.transports.joined(separator: ",")), \(p.backupEligible), \(p.backedUp), \(p.createdAt),
            \(p.lastUsedAt))
        ON CONFLICT (credential_id) DO NOTHING
        """
    }

    package static func passkey(credentialId: String) -> SQLStatement { "SELECT * FROM passkeys WHERE credential_id = \(credentialId)" }

    /// A page of every passkey (`hearth migrate`).
    package static func passkeys(after afterId: String?, limit: Int) -> SQLStatement {
        "SELECT * FROM passkeys WHERE credential_id > \(afterId ?? "") ORDER BY credential_id LIMIT \(max(0, limit))"
    }

    package static func passkeys(localId: String) -> SQLStatement {
        "SELECT * FROM passkeys WHERE local_id = \(localId) ORDER BY created_at, credential_id"
    }

    /// The counter moves only from the value the caller verified against: one row for the one use that wins.
    package static func recordPasskeyUse(credentialId: String, expected: Int64, signCount: Int64, backedUp: Bool, at: Date) -> SQLStatement {
        """
        UPDATE passkeys SET sign_count = \(signCount), backed_up = \(backedUp), last_used_at = \(at)
        WHERE credential_id = \(credentialId) AND sign_count = \(expected)
        """
    }

    package static func deletePasskey(credentialId: String, localId: String) -> SQLStatement {
        "DELETE FROM passkeys WHERE credential_id = \(credentialId) AND local_id = \(localId)"
    }

    /// Every passkey of a user (the user is being deleted; PostgreSQL's foreign key cascades too).
    package static func deletePasskeys(localId: String) -> SQLStatement { "DELETE FROM passkeys WHERE local_id = \(localId)" }

    package static func insertPasskeyChallenge(_ c: PasskeyChallenge) -> SQLStatement {
        """
        INSERT INTO passkey_challenges (challenge_hash, kind, local_id, user_handle, created_at, expires_at)
        VALUES (\(c.challengeHash), \(c.kind.rawValue), \(c.localId), \(c.userHandle), \(c.createdAt), \(c.expiresAt))
        """
    }

    /// Deletes the user's challenges of `kind` beyond the newest `limit`, the challenge `keeping` counted first
    /// (whatever its time): run after inserting it, in the same transaction.
    package static func trimPasskeyChallenges(kind: PasskeyChallenge.Kind, localId: String, keeping hash: String, limit: Int) -> SQLStatement {
        """
        DELETE FROM passkey_challenges
        WHERE kind = \(kind.rawValue) AND local_id = \(localId) AND challenge_hash NOT IN (
            SELECT challenge_hash FROM passkey_challenges WHERE kind = \(kind.rawValue) AND local_id = \(localId)
            ORDER BY CASE WHEN challenge_hash = \(hash) THEN 0 ELSE 1 END, created_at DESC, challenge_hash
            LIMIT \(max(1, limit))
        )
        """
    }

    package static func passkeyChallenge(hash: String, forUpdate: Bool = false) -> SQLStatement {
        "SELECT * FROM passkey_challenges WHERE challenge_hash = \(hash)\(unescaped: forUpdate ? " FOR UPDATE" : "")"
    }

    package static func deletePasskeyChallenge(hash: String) -> SQLStatement {
        "DELETE FROM passkey_challenges WHERE challenge_hash = \(hash)"
    }
}
