import Foundation
import HearthCore
import HearthStore

extension PostgresStore {
    // MARK: Passkeys

    public func insertPasskey(_ passkey: PasskeyCredential) async throws -> Bool {
        // ON CONFLICT on the key: two replicas registering one credential id insert one row.
        try await single { db in try await db.execute(StoreSQL.insertPasskey(passkey)) == 1 }
    }

    public func passkey(credentialId: String) async throws -> PasskeyCredential? {
        try await single { db in try await db.row(StoreSQL.passkey(credentialId: credentialId)).map(PasskeyCredential.init(row:)) }
    }

    public func passkeys(localId: String) async throws -> [PasskeyCredential] {
        try await single { db in try await db.rows(StoreSQL.passkeys(localId: localId)).map(PasskeyCredential.init(row:)) }
    }

    public func recordPasskeyUse(credentialId: String, expected: Int64, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool {
        try await single { db in
            try await db.execute(StoreSQL.recordPasskeyUse(credentialId: credentialId, expected: expected, signCount: signCount, backedUp: backedUp, at: at)) == 1
        }
    }

    public func deletePasskey(credentialId: String, localId: String) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.deletePasskey(credentialId: credentialId, localId: localId)) == 1 }
    }

    public func insertPasskeyChallenge(_ challenge: PasskeyChallenge, keepingNewest limit: Int?) async throws {
        guard let limit, let localId = challenge.localId else {
            try await single { db in try await db.execute(StoreSQL.insertPasskeyChallenge(challenge)) }
            return
        }
        try await transaction { db in
            // The user's row lock serializes the user's starts on every replica: each trim sees the inserts before
            // it (read committed), so a concurrent burst leaves `limit` rows, not `limit` per connection.
            _ = try await db.row(StoreSQL.userExists(localId: localId) + " FOR UPDATE")
            try await db.execute(StoreSQL.insertPasskeyChallenge(challenge))
            try await db.execute(StoreSQL.trimPasskeyChallenges(kind: challenge.kind, localId: localId, keeping: challenge.challengeHash, limit: limit))
        }
    }

    public func takePasskeyChallenge(hash: String) async throws -> PasskeyChallenge? {
        try await transaction { db in
            // The row lock orders two replicas taking one challenge; the DELETE's count picks the one winner.
            guard let challenge = try await db.row(StoreSQL.passkeyChallenge(hash: hash, forUpdate: true)).map(PasskeyChallenge.init(row:)),
                  try await db.execute(StoreSQL.deletePasskeyChallenge(hash: hash)) == 1
            else { return nil }
            return challenge
        }
    }
}
