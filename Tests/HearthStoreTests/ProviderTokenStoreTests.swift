import Foundation
import HearthCore
import HearthStore
import HearthTesting
import Testing

/// The provider token vault's rows on every store: kept only for linked identities, compare-and-swap, paging, and
/// gone with the link, the user, a revocation or the provider's vault setting.
@Suite struct ProviderTokenStoreTests {
    static let identity = ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-1", email: "ada@contoso.com", displayName: "Ada")

    func record(_ localId: String, provider: String = "microsoft.com", federatedId: String = "oid-1", sealed: String = "box-1",
                keyId: String = "k1") -> ProviderTokenRecord {
        ProviderTokenRecord(localId: localId, providerId: provider, federatedId: federatedId, keyId: keyId, sealed: sealed,
                            accessTokenExpiresAt: t0.addingTimeInterval(600), updatedAt: t0)
    }

    @Test(arguments: StoreKind.allCases)
    func keptOnlyForALinkedIdentityAndReplacedByCompareAndSwap(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1", identities: [Self.identity]))
            // Not linked: another federated id, another provider, an unknown user.
            #expect(try await store.saveProviderTokens(record("u1", federatedId: "oid-2")) == false)
            #expect(try await store.saveProviderTokens(record("u1", provider: "yahoo.com")) == false)
            #expect(try await store.saveProviderTokens(record("nobody")) == false)
            #expect(try await store.providerTokens(localId: "u1", providerId: "microsoft.com") == nil)

            #expect(try await store.saveProviderTokens(record("u1")) == true)
            let stored = try #require(try await store.providerTokens(localId: "u1", providerId: "microsoft.com"))
            #expect(stored == record("u1"))
            // A second save replaces (a new sign-in).
            #expect(try await store.saveProviderTokens(record("u1", sealed: "box-2", keyId: "k2")) == true)
            #expect(try await store.providerTokens(localId: "u1", providerId: "microsoft.com")?.sealed == "box-2")

            // Compare-and-swap: the stale expectation loses, the current one wins once.
            var next = record("u1", sealed: "box-3")
            next.accessTokenExpiresAt = nil
            #expect(try await store.replaceProviderTokens(next, expectedSealed: "box-1") == false)
            #expect(try await store.replaceProviderTokens(next, expectedSealed: "box-2") == true)
            #expect(try await store.replaceProviderTokens(record("u1", sealed: "box-4"), expectedSealed: "box-2") == false)
            let replaced = try #require(try await store.providerTokens(localId: "u1", providerId: "microsoft.com"))
            #expect(replaced.sealed == "box-3" && replaced.keyId == "k1" && replaced.accessTokenExpiresAt == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func goneWithUnlinkDeletionRevocationAndTheProviderSetting(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let yahoo = ProviderIdentity(providerId: "yahoo.com", federatedId: "guid-1", email: nil, displayName: nil)
            for id in ["u1", "u2", "u3", "u4"] {
                try await store.createUser(makeUser(id, identities: [
                    ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-\(id)", email: nil, displayName: nil),
                    ProviderIdentity(providerId: "yahoo.com", federatedId: "guid-\(id)", email: nil, displayName: nil),
                ]))
                #expect(try await store.saveProviderTokens(record(id, federatedId: "oid-\(id)")))
                #expect(try await store.saveProviderTokens(record(id, provider: "yahoo.com", federatedId: "guid-\(id)")))
            }
            _ = yahoo

            // Unlink microsoft.com from u1: only that provider's tokens go; an unrelated update keeps them.
            var u1 = try #require(try await store.user(localId: "u1"))
            u1.displayName = "renamed"
            u1 = try await store.updateUser(u1)
            #expect(try await store.providerTokens(localId: "u1", providerId: "microsoft.com") != nil)
            u1.identities.removeAll { $0.providerId == "microsoft.com" }
            try await store.updateUser(u1)
            #expect(try await store.providerTokens(localId: "u1", providerId: "microsoft.com") == nil)
            #expect(try await store.providerTokens(localId: "u1", providerId: "yahoo.com") != nil)

            // Relinking another account of the provider does not revive the old account's tokens.
            var u1again = try #require(try await store.user(localId: "u1"))
            u1again.identities.removeAll { $0.providerId == "yahoo.com" }
            u1again.identities.append(ProviderIdentity(providerId: "yahoo.com", federatedId: "guid-other", email: nil, displayName: nil))
            try await store.updateUser(u1again)
            #expect(try await store.providerTokens(localId: "u1", providerId: "yahoo.com") == nil)

            // Deleting the user, revoking its sessions.
            #expect(try await store.deleteUser(localId: "u2"))
            #expect(try await store.providerTokens(localId: "u2", providerId: "microsoft.com") == nil)
            #expect(try await store.providerTokens(localId: "u2", providerId: "yahoo.com") == nil)
            try await store.revokeRefreshTokens(localId: "u3")
            #expect(try await store.providerTokens(localId: "u3", providerId: "microsoft.com") == nil)
            #expect(try await store.providerTokens(localId: "u3", providerId: "yahoo.com") == nil)

            // The vault turned off for a provider; one user's one provider.
            #expect(try await store.deleteProviderTokens(providerId: "yahoo.com") == 1)
            #expect(try await store.providerTokens(localId: "u4", providerId: "microsoft.com") != nil)
            #expect(try await store.deleteProviderTokens(localId: "u4", providerId: "microsoft.com") == 1)
            #expect(try await store.deleteProviderTokens(localId: "u4", providerId: nil) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesInKeyOrder(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var expected: [String] = []
            for id in ["a", "b", "c"] {
                try await store.createUser(makeUser(id, identities: [
                    ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-\(id)", email: nil, displayName: nil),
                    ProviderIdentity(providerId: "oidc.x", federatedId: "sub-\(id)", email: nil, displayName: nil),
                ]))
                #expect(try await store.saveProviderTokens(record(id, federatedId: "oid-\(id)")))
                #expect(try await store.saveProviderTokens(record(id, provider: "oidc.x", federatedId: "sub-\(id)")))
                expected += ["\(id)/microsoft.com", "\(id)/oidc.x"]
            }
            var seen: [String] = []
            var after: ProviderTokenKey?
            while true {
                let page = try await store.providerTokenRecords(after: after, limit: 4)
                guard let last = page.last else { break }
                #expect(page.count <= 4)
                seen += page.map { "\($0.localId)/\($0.providerId)" }
                after = ProviderTokenKey(localId: last.localId, providerId: last.providerId)
            }
            #expect(seen == expected)
        }
    }
}
