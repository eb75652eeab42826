import Foundation
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Passkeys

    public func insertPasskey(_ passkey: PasskeyCredential) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.insertPasskey(passkey)) == 1 }
    }

    public func passkey(credentialId: String) async throws -> PasskeyCredential? {
        try await read { db in try db.row(StoreSQL.passkey(credentialId: credentialId)).map(PasskeyCredential.init(row:)) }
    }

    public func passkeys(localId: String) async throws -> [PasskeyCredential] {
        try await read { db in try db.rows(StoreSQL.passkeys(localId: localId)).map(PasskeyCredential.init(row:)) }
    }

    /// The user and their passkeys in one read transaction (a lookup's one store access).
    public func userWithPasskeys(localId: String) async throws -> (user: UserRecord, passkeys: [PasskeyCredential])? {
        try await read { [self] db in
            guard let user = try loadUser(localId: localId, db: db) else { return nil }
            return (user, try db.rows(StoreSQL.passkeys(localId: localId)).map(PasskeyCredential.init(row:)))
        }
    }

    public func recordPasskeyUse(credentialId: String, expected: Int64, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool {
        try await transaction { db in
            try db.execute(StoreSQL.recordPasskeyUse(credentialId: credentialId, expected: expected, signCount: signCount, backedUp: backedUp, at: at)) == 1
        }
    }

    public func deletePasskey(credentialId: String, localId: String) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.deletePasskey(credentialId: credentialId, localId: localId)) == 1 }
    }

    public func insertPasskeyChallenge(_ challenge: PasskeyChallenge, keepingNewest limit: Int?) async throws {
        // One writer: the insert and the trim of the user's older challenges are never interleaved with another's.
        try await transaction { db in
            try db.execute(StoreSQL.insertPasskeyChallenge(challenge))
            if let limit, let localId = challenge.localId {
                try db.execute(StoreSQL.trimPasskeyChallenges(kind: challenge.kind, localId: localId, keeping: challenge.challengeHash, limit: limit))
            }
        }
    }

    public func takePasskeyChallenge(hash: String) async throws -> PasskeyChallenge? {
        try await transaction { db in
            guard let challenge = try db.row(StoreSQL.passkeyChallenge(hash: hash)).map(PasskeyChallenge.init(row:)),
                  try db.execute(StoreSQL.deletePasskeyChallenge(hash: hash)) == 1
            else { return nil }
            return challenge
        }
    }
}
