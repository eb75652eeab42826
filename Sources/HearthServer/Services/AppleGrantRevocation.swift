import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import Logging

/// Revokes the Sign in with Apple grants of deleted users (Apple's rule for apps that let people delete their
/// account): before the deletion, the Apple refresh tokens the token vault keeps for them are opened; after it,
/// each one whose user is really gone is revoked at Apple with a minted client secret. Best effort: a failure is
/// logged (never with a token) and never blocks or undoes a deletion.
public struct AppleGrantRevocation: Sendable {
    /// One Apple refresh token of a user about to be deleted, and the client (services id or bundle id) it was
    /// issued to.
    struct Grant: Sendable {
        let localId: String
        let refreshToken: String
        let clientId: String
    }

    let store: any HearthStore
    let relyingParty: RelyingParty
    let keys: ProviderTokenKeys?
    let devProviders: (any DevelopmentProviders)?
    let logger: Logger

    /// Revocations run this many at a time (a batch deletion of many Apple users).
    static let concurrency = 8

    public init(store: any HearthStore, relyingParty: RelyingParty, keys: ProviderTokenKeys?, devProviders: (any DevelopmentProviders)?,
                logger: Logger) {
        self.store = store
        self.relyingParty = relyingParty
        self.keys = keys
        self.devProviders = devProviders
        self.logger = logger
    }

    /// Runs `delete` (which deletes some of `localIds`) and then revokes the Apple grants of those it deleted.
    func deleting<T: Sendable>(_ localIds: [String], in store: any HearthStore, _ delete: () async throws -> T) async throws -> T {
        let grants = await grants(of: localIds)
        let result = try await delete()
        await revoke(grants, in: store)
        return result
    }

    /// The Apple refresh tokens the vault keeps for `localIds` (none without vault keys).
    func grants(of localIds: [String]) async -> [Grant] {
        guard let keys else { return [] }
        var grants: [Grant] = []
        for localId in localIds {
            guard let record = try? await store.providerTokens(localId: localId, providerId: Self.providerId) else { continue }
            do {
                let tokens = try keys.open(sealed: record.sealed, keyId: record.keyId, localId: localId, providerId: Self.providerId)
                if let refreshToken = tokens.refreshToken, !refreshToken.isEmpty {
                    grants.append(Grant(localId: localId, refreshToken: refreshToken, clientId: tokens.clientId))
                }
            } catch {
                logger.error("a deleted user's Apple grant cannot be revoked: its vault record does not open", metadata: [
                    "uid": "\(localId)", "key_id": "\(record.keyId)",
                ])
            }
        }
        return grants
    }

    /// Revokes each grant whose user no longer exists.
    func revoke(_ grants: [Grant], in store: any HearthStore) async {
        guard !grants.isEmpty else { return }
        guard let config = await appleConfig(in: store) else {
            logger.error("deleted users' Apple grants were not revoked: apple.com has no usable code-flow key", metadata: ["count": "\(grants.count)"])
            return
        }
        var gone: [Grant] = []
        for grant in grants where (try? await store.user(localId: grant.localId)) == nil { gone.append(grant) }
        let relyingParty = relyingParty
        let logger = logger
        await withTaskGroup(of: Void.self) { group in
            for (index, grant) in gone.enumerated() {
                if index >= Self.concurrency { await group.next() }
                group.addTask {
                    do {
                        try await relyingParty.revokeApple(config, token: grant.refreshToken, clientId: grant.clientId)
                        logger.info("deleted user's Apple grant revoked", metadata: ["uid": "\(grant.localId)"])
                    } catch {
                        logger.warning("could not revoke a deleted user's Apple grant", metadata: [
                            "uid": "\(grant.localId)", "reason": "\((error as? RelyingPartyError)?.message ?? "\(type(of: error))")",
                        ])
                    }
                }
            }
        }
    }

    static let providerId = "apple.com"

    /// apple.com's configuration with its code-flow key, enabled or not (a disabled provider's grants are still
    /// revoked): the stored one, else the dev provider's.
    func appleConfig(in store: any HearthStore) async -> IdPConfig? {
        if let stored = try? await store.idpConfig(providerId: Self.providerId), !stored.isDevLeftover {
            return stored.hasAppleCodeFlow && ProviderTokenKeys.sealingKeyId(stored.clientSecret) == nil ? stored : nil
        }
        return devProviders?.config(Self.providerId).flatMap { $0.hasAppleCodeFlow ? $0 : nil }
    }
}

extension AccountService {
    /// Runs a deletion of `localIds`, revoking the Apple grants of the users it deleted when this server can.
    /// `scope`'s store decides which users were deleted and whose apple.com configuration revokes their grants.
    func deletingUsers<T: Sendable>(_ localIds: [String], in scope: Scope, _ delete: () async throws -> T) async throws -> T {
        guard let appleRevocation else { return try await delete() }
        return try await appleRevocation.deleting(localIds, in: scope.store, delete)
    }
}
