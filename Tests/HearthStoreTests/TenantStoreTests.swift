import Foundation
import HearthCore
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Identity Platform tenants in the store: the `tenants` table and a store bound to a tenant
/// (``HearthStore/bound(toTenant:)``), on every engine.
@Suite struct TenantStoreTests {
    static func tenant(_ id: String) -> TenantRecord {
        TenantRecord(id: id, displayName: "Tenant \(id.prefix(4))", settings: TenantSettings(allowPasswordSignup: true), createdAt: t0)
    }

    /// Issue 38, item 5: tenants are created, read, listed in pages, updated and deleted; an id is taken once.
    @Test(arguments: StoreKind.allCases)
    func tenantsAreKeptAndListedInPages(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for id in ["acme-aaaaa", "beta-bbbbb", "corp-ccccc"] { try await store.insertTenant(Self.tenant(id)) }
            await #expect(throws: StoreError.tenantExists) { try await store.insertTenant(Self.tenant("acme-aaaaa")) }
            #expect(try await store.tenant(id: "acme-aaaaa") == Self.tenant("acme-aaaaa"))
            #expect(try await store.tenant(id: "nope-zzzzz") == nil)
            #expect(try await store.tenants(after: nil, limit: 2).map(\.id) == ["acme-aaaaa", "beta-bbbbb"])
            #expect(try await store.tenants(after: "beta-bbbbb", limit: 2).map(\.id) == ["corp-ccccc"])
            var changed = Self.tenant("beta-bbbbb")
            changed.displayName = "Renamed"
            changed.settings.enableEmailLinkSignin = true
            #expect(try await store.updateTenant(changed))
            #expect(try await store.tenant(id: "beta-bbbbb") == changed)
            #expect(try await !store.updateTenant(Self.tenant("nope-zzzzz")))
            #expect(try await store.deleteTenant(id: "acme-aaaaa"))
            #expect(try await !store.deleteTenant(id: "acme-aaaaa"))
            #expect(try await store.tenants(after: nil, limit: 10).map(\.id) == ["beta-bbbbb", "corp-ccccc"])
        }
    }

    /// Issue 38, items 2 and 3: the same email and the same federated account are two users in two tenants; a store
    /// bound to a tenant sees, changes and deletes only that tenant's users, and writes its tenant into them.
    @Test(arguments: StoreKind.allCases)
    func aBoundStoreSeesOnlyItsTenantsUsers(_ kind: StoreKind) async throws {
        try await kind.with { root in
            try await root.insertTenant(Self.tenant("acme-aaaaa"))
            try await root.insertTenant(Self.tenant("beta-bbbbb"))
            let acme = root.bound(toTenant: "acme-aaaaa")
            let beta = root.bound(toTenant: "beta-bbbbb")
            #expect(acme.tenantId == "acme-aaaaa" && root.tenantId == nil)
            let microsoft = ProviderIdentity(providerId: "microsoft.com", federatedId: "ms-1", email: "ada@example.com")
            // A record claiming another tenant is written in the store's own.
            var claimed = makeUser("a1", email: "ada@example.com", identities: [microsoft])
            claimed.tenantId = "beta-bbbbb"
            try await acme.createUser(claimed)
            try await beta.createUser(makeUser("b1", email: "ada@example.com", identities: [microsoft]))
            try await root.createUser(makeUser("p1", email: "ada@example.com", identities: [microsoft]))
            // A second account with the email inside one tenant is still refused.
            await #expect(throws: StoreError.emailExists) { try await acme.createUser(makeUser("a2", email: "ada@example.com")) }
            await #expect(throws: StoreError.duplicateLocalId) { try await acme.createUser(makeUser("b1")) }

            #expect(try await acme.user(email: "ada@example.com")?.localId == "a1")
            #expect(try await beta.user(email: "ada@example.com")?.localId == "b1")
            #expect(try await root.user(email: "ada@example.com")?.localId == "p1")
            #expect(try await acme.user(providerId: "microsoft.com", federatedId: "ms-1")?.localId == "a1")
            #expect(try await beta.user(providerId: "microsoft.com", federatedId: "ms-1")?.localId == "b1")
            #expect(try await acme.user(localId: "a1")?.tenantId == "acme-aaaaa")
            #expect(try await root.user(localId: "p1")?.tenantId == nil)
            // Another tenant's user, by key, does not exist here.
            #expect(try await acme.user(localId: "b1") == nil)
            #expect(try await root.user(localId: "a1") == nil)
            #expect(try await beta.user(localId: "p1") == nil)
            #expect(try await acme.listUsers(after: nil, limit: 10).map(\.localId) == ["a1"])
            #expect(try await root.listUsers(after: nil, limit: 10).map(\.localId) == ["p1"])
            #expect(try await acme.queryUsers(UserQuery(limit: 10)).total == 1)
            #expect(try await beta.queryUsers(UserQuery(emails: ["ada@example.com"], limit: 10)).users.map(\.localId) == ["b1"])
            #expect(try await acme.userCount() == 1)
            #expect(try await root.userCount() == 1)

            // Writes through the wrong tenant change nothing.
            var stranger = try #require(try await beta.user(localId: "b1"))
            stranger.displayName = "Changed from acme"
            await #expect(throws: StoreError.notFound) { try await acme.updateUser(stranger) }
            #expect(try await !acme.deleteUser(localId: "b1"))
            #expect(try await acme.recordSignIn(localId: "b1", at: t0, identity: nil, passwordRehash: nil, refreshToken: nil) == nil)
            #expect(try await beta.user(localId: "b1")?.displayName == "User b1")
            #expect(try await acme.deleteAllUsers() == 1)
            #expect(try await beta.user(localId: "b1") != nil)
            #expect(try await root.user(localId: "p1") != nil)
        }
    }

    /// Issue 38, item 3: a refresh token, an action code, a pending credential and a provider sign-in are usable in
    /// their own tenant only; a refresh in another tenant names the token's tenant and writes nothing.
    @Test(arguments: StoreKind.allCases)
    func tokensCodesAndFlowsStayInTheirTenant(_ kind: StoreKind) async throws {
        try await kind.with { root in
            try await root.insertTenant(Self.tenant("acme-aaaaa"))
            let acme = root.bound(toTenant: "acme-aaaaa")
            try await acme.createUser(makeUser("a1", email: "ada@example.com"))
            let (_, record) = RefreshTokenRecord.issue(localId: "a1", authTime: t0, signInProvider: "password", now: t0)
            try await acme.insertRefreshToken(record)
            #expect(try await root.refreshToken(hash: record.tokenHash)?.tenantId == "acme-aaaaa")
            let (_, replacement) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0)
            #expect(try await root.refreshSession(presentedHash: record.tokenHash, replacement: replacement, now: t0, graceWindow: 5)
                    == .inTenant("acme-aaaaa"))
            #expect(try await root.refreshToken(hash: record.tokenHash)?.rotatedAt == nil)
            guard case .refreshed(_, let user) = try await acme.refreshSession(presentedHash: record.tokenHash, replacement: replacement,
                                                                             now: t0, graceWindow: 5) else {
                Issue.record("the token's own tenant refreshes it")
                return
            }
            #expect(user.tenantId == "acme-aaaaa")
            #expect(try await root.refreshToken(hash: replacement.tokenHash)?.tenantId == "acme-aaaaa")

            let (_, code) = OobCodeRecord.issue(.passwordReset, localId: "a1", email: "ada@example.com", now: t0, lifetime: 3600)
            try await acme.insertOobCode(code)
            #expect(try await root.oobCode(hash: code.codeHash) == nil)
            #expect(try await root.consumeOobCode(hash: code.codeHash, now: t0) == .unknown)
            #expect(try await acme.oobCode(hash: code.codeHash)?.tenantId == "acme-aaaaa")

            let pending = PendingCredential(tokenHash: "pending-1", identity: ProviderIdentity(providerId: "microsoft.com", federatedId: "ms-9"),
                                            emailVerified: true, rawUserInfo: nil, createdAt: t0, expiresAt: t0.addingTimeInterval(600))
            try await acme.insertPendingCredential(pending)
            // Presented in the project it is refused, and burned.
            #expect(try await root.takePendingCredential(tokenHash: "pending-1", now: t0) == nil)
            #expect(try await acme.takePendingCredential(tokenHash: "pending-1", now: t0) == nil)

            let session = AuthorizationSession(state: "state-1", providerId: "microsoft.com", nonce: "n", codeVerifier: nil, sessionIdHash: "h",
                                               eventId: "e", authType: "signInViaRedirect", entraTenantOrHostedDomain: nil,
                                               redirect: .web(WebAppTarget(redirectUrl: "https://app.example.com/", apiKey: "k", appName: "[DEFAULT]")), redirectUri: "https://hearth.example.com/__/auth/handler",
                                               scopes: [], createdAt: t0, expiresAt: t0.addingTimeInterval(600))
            try await acme.insertAuthorizationSession(session)
            #expect(try await root.authorizationSession(state: "state-1")?.tenantId == "acme-aaaaa")
            #expect(try await root.consumeAuthorizationSession(state: "state-1", sessionIdHash: "h", now: t0) == .unknown)
            #expect(try await acme.consumeAuthorizationSession(state: "state-1", sessionIdHash: "h", now: t0) == .alreadyUsed)
        }
    }

    /// Issue 38, items 2 and 3: provider configurations and audit entries are per tenant.
    @Test(arguments: StoreKind.allCases)
    func providersAndAuditEntriesArePerTenant(_ kind: StoreKind) async throws {
        try await kind.with { root in
            try await root.insertTenant(Self.tenant("acme-aaaaa"))
            let acme = root.bound(toTenant: "acme-aaaaa")
            try await acme.saveIdPConfig(IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: "acme-client", clientSecret: "s1"))
            try await root.saveIdPConfig(IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: "project-client", clientSecret: "s2"))
            #expect(try await acme.idpConfig(providerId: "microsoft.com")?.clientId == "acme-client")
            #expect(try await root.idpConfig(providerId: "microsoft.com")?.clientId == "project-client")
            #expect(try await acme.idpConfigs().map(\.clientId) == ["acme-client"])
            #expect(try await root.deleteIdPConfig(providerId: "microsoft.com"))
            #expect(try await acme.idpConfig(providerId: "microsoft.com")?.clientId == "acme-client")

            try await acme.appendAuditEntry(AuditEntry(time: t0, actor: "admin", action: "user.create", target: "a1", detail: nil))
            try await root.appendAuditEntry(AuditEntry(time: t0, actor: "admin", action: "user.create", target: "p1", detail: nil))
            #expect(try await acme.auditEntries(before: nil, limit: 10).map(\.target) == ["a1"])
            #expect(try await root.auditEntries(before: nil, limit: 10).map(\.target) == ["p1"])
        }
    }

    /// Issue 38, item 3: deleting a tenant deletes its users and everything hanging off them, its providers and its
    /// flows, in one transaction — and nothing of another tenant or the project.
    @Test(arguments: StoreKind.allCases)
    func deletingATenantTakesItsDataAndNothingElse(_ kind: StoreKind) async throws {
        try await kind.with { root in
            try await root.insertTenant(Self.tenant("acme-aaaaa"))
            try await root.insertTenant(Self.tenant("beta-bbbbb"))
            let microsoft = ProviderIdentity(providerId: "microsoft.com", federatedId: "ms-1")
            var refreshHashes: [String: String] = [:]
            for (store, id) in [(root.bound(toTenant: "acme-aaaaa"), "a1"), (root.bound(toTenant: "beta-bbbbb"), "b1"), (root, "p1")] {
                try await store.createUser(makeUser(id, email: "ada@example.com", identities: [microsoft]))
                let (_, token) = RefreshTokenRecord.issue(localId: id, authTime: t0, signInProvider: "password", now: t0)
                try await store.insertRefreshToken(token)
                refreshHashes[id] = token.tokenHash
                try await store.insertOobCode(OobCodeRecord.issue(.verifyEmail, localId: id, email: "ada@example.com", now: t0, lifetime: 60).record)
                try await store.saveIdPConfig(IdPConfig(providerId: "yahoo.com", kind: .yahoo, clientId: "c-\(id)", clientSecret: "s"))
                #expect(try await store.insertPasskey(PasskeyStoreTests.passkey("cred-\(id)", user: id, at: t0)))
            }
            #expect(try await root.deleteTenant(id: "acme-aaaaa"))
            #expect(try await root.tenant(id: "acme-aaaaa") == nil)
            let acme = root.bound(toTenant: "acme-aaaaa")
            #expect(try await acme.listUsers(after: nil, limit: 10).isEmpty)
            #expect(try await root.refreshToken(hash: refreshHashes["a1"]!) == nil)
            #expect(try await root.passkey(credentialId: "cred-a1") == nil)
            #expect(try await acme.idpConfigs().isEmpty)
            // The other tenant and the project keep everything.
            let beta = root.bound(toTenant: "beta-bbbbb")
            #expect(try await beta.user(localId: "b1")?.identities == [microsoft])
            #expect(try await root.user(localId: "p1")?.identities == [microsoft])
            #expect(try await root.refreshToken(hash: refreshHashes["b1"]!) != nil)
            #expect(try await root.refreshToken(hash: refreshHashes["p1"]!) != nil)
            #expect(try await root.passkey(credentialId: "cred-b1") != nil)
            #expect(try await root.passkey(credentialId: "cred-p1") != nil)
            #expect(try await beta.idpConfigs().map(\.clientId) == ["c-b1"])
            #expect(try await root.idpConfigs().map(\.clientId) == ["c-p1"])
        }
    }
}
