import Foundation
import HearthCore

/// Passkeys and their ceremonies' challenges, shared by every replica on one database.
public protocol PasskeyStore: Sendable {
    /// Registers a credential: false when its id is registered already (to anyone).
    func insertPasskey(_ passkey: PasskeyCredential) async throws -> Bool
    /// The credential with this id (unpadded base64url).
    func passkey(credentialId: String) async throws -> PasskeyCredential?
    /// The user's passkeys, oldest first.
    func passkeys(localId: String) async throws -> [PasskeyCredential]
    /// The user and their passkeys, read together (a default reads them one after the other, see the extension).
    func userWithPasskeys(localId: String) async throws -> (user: UserRecord, passkeys: [PasskeyCredential])?
    /// Records a use: the counter moves from `expected` to `signCount` (compare-and-set: false when another use
    /// got there first — the caller treats that as a replay or a clone) and `lastUsedAt` is set.
    func recordPasskeyUse(credentialId: String, expected: Int64, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool
    /// Removes the user's passkey: false when the user has no such passkey.
    func deletePasskey(credentialId: String, localId: String) async throws -> Bool
    /// Stores a ceremony's challenge. With `keepingNewest` and a challenge of a user (`localId`), the user's other
    /// challenges of the same kind beyond the newest `keepingNewest - 1` are deleted in the same transaction (and,
    /// on a shared database, serialized per user): a user holds at most `keepingNewest` open ceremonies of a kind,
    /// and the one just stored is always among them.
    func insertPasskeyChallenge(_ challenge: PasskeyChallenge, keepingNewest: Int?) async throws
    /// Takes the challenge once: the first caller gets it (expired or not — the caller checks), later ones nil.
    func takePasskeyChallenge(hash: String) async throws -> PasskeyChallenge?
}

extension PasskeyStore where Self: UserStore {
    /// The user (``UserStore/user(localId:)``, in the store's tenant) and their passkeys (``passkeys(localId:)``):
    /// what `accounts:lookup` answers. Nil when there is no such user. A store may read both at once (SQLite: one
    /// read transaction instead of two).
    public func userWithPasskeys(localId: String) async throws -> (user: UserRecord, passkeys: [PasskeyCredential])? {
        guard let user = try await user(localId: localId) else { return nil }
        return (user, try await passkeys(localId: localId))
    }
}

extension PasskeyStore {
    /// Stores a ceremony's challenge, however many the user holds.
    public func insertPasskeyChallenge(_ challenge: PasskeyChallenge) async throws {
        try await insertPasskeyChallenge(challenge, keepingNewest: nil)
    }
}
