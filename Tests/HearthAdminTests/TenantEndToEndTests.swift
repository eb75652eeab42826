import Foundation
import HearthAdmin
import HearthAuth
import HearthTesting
import HearthWire
import Hummingbird
import Testing

/// Issue 38 end to end: a tenant made through a real server's v2 admin API; HearthAuth with `Auth.tenantID` signs
/// up, signs in and refreshes in it; HearthAdmin verifies the real tenant tokens, finds the user through the tenant's
/// admin client only, and mints custom tokens that sign in in their tenant only. (TenantSDKTests and
/// TenantAdminTests check each side against recorded or re-signed answers; this one joins them on the real wire.)
@Suite struct TenantEndToEndTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// A tenant made with `POST …/v2/projects/{p}/tenants`, then password sign-up switched on with a patch (a new
    /// tenant's flags are off); its id.
    static func createTenant(_ h: HearthHarness, _ displayName: String) async throws -> String {
        let base = "\(WirePaths.identityToolkitV2)/projects/\(h.projectId)/tenants"
        let created = try await h.send(.post, base, body: #"{"displayName":"\#(displayName)"}"#, headers: owner)
        let name = try #require(created.json?["name"] as? String, "\(created.text)")
        let id = String(try #require(name.split(separator: "/").last))
        #expect(name == "projects/\(h.projectId)/tenants/\(id)" && id.hasPrefix(displayName + "-"))
        #expect(created.json?["allowPasswordSignup"] as? Bool != true)
        let patched = try await h.send(.patch, "\(base)/\(id)?updateMask=allowPasswordSignup", body: #"{"allowPasswordSignup":true}"#, headers: owner)
        #expect(patched.json?["allowPasswordSignup"] as? Bool == true, "\(patched.text)")
        return id
    }

    /// A HearthAuth instance of its own (a fresh API key: its own state) on the harness's server, in `tenant`.
    static func makeAuth(_ h: HearthHarness, tenant: String?) -> Auth {
        let auth = Auth(configuration: AuthConfiguration(serverURL: URL(string: h.baseURL)!, apiKey: "key-\(UUID().uuidString.prefix(8))",
                                                         projectId: h.projectId, appId: "hearth-tests", persistence: InMemoryUserPersistence()))
        auth.tenantID = tenant
        return auth
    }

    /// An ID token's `firebase.tenant`.
    static func tenantClaim(_ token: String) -> String? {
        (jwtPayload(token)?["firebase"] as? [String: Any])?["tenant"] as? String
    }

    /// Issue 38, items 2 and 4 (HearthAuth end to end): `Auth.tenantID = t` signs up and signs in with a password in a
    /// tenant made through the server's admin API; `user.tenantID` and the ID token's `firebase.tenant` are `t`, and a
    /// refresh keeps both; the same email with no tenant is another user.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func authSignsUpSignsInAndRefreshesInATenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let tenant = try await Self.createTenant(h, "acme")
            let auth = Self.makeAuth(h, tenant: tenant)
            let created = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            #expect(created.tenantID == tenant)
            try auth.signOut()
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse").user
            #expect(user.uid == created.uid && user.tenantID == tenant)
            let token = try await user.getIDToken()
            #expect(Self.tenantClaim(token) == tenant && jwtPayload(token)?["sub"] as? String == user.uid)

            h.clock.advance(by: 10)
            let refreshed = try await user.getIDToken(forcingRefresh: true)
            #expect(refreshed != token, "the refresh reached the server")
            #expect((jwtPayload(refreshed)?["iat"] as? Int ?? 0) >= (jwtPayload(token)?["iat"] as? Int ?? 0) + 10)
            #expect(Self.tenantClaim(refreshed) == tenant && user.tenantID == tenant && auth.currentUser?.tenantID == tenant)

            // The same email in the project is another user; the tenant's password is not the project's.
            let project = Self.makeAuth(h, tenant: nil)
            await #expect(throws: (any Error).self) { try await project.signIn(withEmail: "ada@example.com", password: "correct horse") }
            let projectUser = try await project.createUser(withEmail: "ada@example.com", password: "another horse").user
            #expect(projectUser.uid != user.uid && projectUser.tenantID == nil)
            #expect(Self.tenantClaim(try await projectUser.getIDToken()) == nil)
        }
    }

    /// Issue 38, item 4 (HearthAdmin end to end): a real tenant token is accepted by `forTenant(t)` and `.tenant(t)`
    /// and by a project-level verifier (exposing the tenant), refused (`wrongTenant`) by `.projectOnly` and another
    /// tenant's verifier; the revocation check finds the user in its tenant; `AdminClient.forTenant(t).getUser` finds
    /// the user, the project's admin client and another tenant's do not.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func adminVerifiesAndFindsARealTenantUser(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let tenant = try await Self.createTenant(h, "acme")
            let other = try await Self.createTenant(h, "globex")
            let auth = Self.makeAuth(h, tenant: tenant)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            let token = try await user.getIDToken()
            let projectToken = try await Self.makeAuth(h, tenant: nil).createUser(withEmail: "bob@example.com", password: "correct horse").user.getIDToken()

            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL), now: { h.clock.now })
            #expect(try await verifier.verifyIDToken(token).tenant == tenant)
            let verified = try await verifier.forTenant(tenant).verifyIDToken(token)
            #expect(verified.uid == user.uid && verified.tenant == tenant && verified.email == "ada@example.com")
            #expect(try await verifier.verifyIDToken(token, tenant: .tenant(tenant)).uid == user.uid)
            await TenantAdminTests.expectWrongTenant { try await verifier.verifyIDToken(token, tenant: .projectOnly) }
            await TenantAdminTests.expectWrongTenant { try await TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL), tenant: .projectOnly,
                                                                   now: { h.clock.now }).verifyIDToken(token) }
            await TenantAdminTests.expectWrongTenant { try await verifier.forTenant(other).verifyIDToken(token) }
            await TenantAdminTests.expectWrongTenant { try await verifier.forTenant(tenant).verifyIDToken(projectToken) }
            #expect(try await verifier.verifyIDToken(projectToken, tenant: .projectOnly).tenant == nil)

            let admin = AdminClient(baseURL: h.baseURL, projectId: h.projectId, credentials: .emulatorOwner)
            let found = try await admin.forTenant(tenant).getUser(uid: user.uid)
            #expect(found?.localId == user.uid && found?.tenantId == tenant && found?.email == "ada@example.com")
            #expect(try await admin.forTenant(tenant).getUser(email: "ada@example.com")?.localId == user.uid)
            #expect(try await admin.getUser(uid: user.uid) == nil)
            #expect(try await admin.getUser(email: "ada@example.com") == nil)
            #expect(try await admin.forTenant(other).getUser(uid: user.uid) == nil)
            // The revocation check looks the user up in the token's tenant, on the real server: found, then revoked.
            #expect(try await verifier.verifyIDToken(token, checkRevokedWith: admin).uid == user.uid)
            #expect(try await verifier.forTenant(tenant).verifyIDToken(token, checkRevokedWith: try admin.forTenant(tenant)).uid == user.uid)
            h.clock.advance(by: 2)
            try await admin.forTenant(tenant).revokeRefreshTokens(uid: user.uid, now: h.clock.now)
            do {
                _ = try await verifier.verifyIDToken(token, checkRevokedWith: admin)
                Issue.record("a revoked tenant token verified")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .revoked, "\(error)")
            }
        }
    }

    /// Issue 38, item 4 (custom tokens end to end): a custom token minted with `tenant_id` (by the service account
    /// and by a tenant's admin client) signs in only through an `Auth` whose `tenantID` is that tenant; the project's
    /// `Auth` and another tenant's are refused (`tenantIDMismatch`) and sign nobody in.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func customTokensWithTenantIdSignInOnlyInTheirTenant(store: HearthHarness.StoreChoice) async throws {
        let account = try TestServiceAccount(email: "backend@demo-hearth.iam.gserviceaccount.com")
        try await HearthHarness.run(store: store) { h in
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            let tenant = try await Self.createTenant(h, "acme")
            let other = try await Self.createTenant(h, "globex")
            let serviceAccount = try await ServiceAccount(json: HearthAdminTests.serviceAccountJSON(account, projectId: h.projectId,
                                                                                                    tokenURI: h.baseURL + WirePaths.oauth2Token))
            let admin = AdminClient(baseURL: h.baseURL, projectId: h.projectId, credentials: .serviceAccount(serviceAccount))
            let minted = [try await serviceAccount.createCustomToken(uid: "custom-1", tenantId: tenant, now: h.clock.now),
                          try await admin.forTenant(tenant).createCustomToken(uid: "custom-1", now: h.clock.now)]
            for token in minted {
                #expect(jwtPayload(token)?["tenant_id"] as? String == tenant)
                for wrong in [nil, other] {
                    let auth = Self.makeAuth(h, tenant: wrong)
                    await #expect { try await auth.signIn(withCustomToken: token) } throws: { error in
                        (error as NSError).code == AuthErrorCode.tenantIDMismatch.rawValue
                    }
                    #expect(auth.currentUser == nil)
                }
                let auth = Self.makeAuth(h, tenant: tenant)
                let user = try await auth.signIn(withCustomToken: token).user
                #expect(user.uid == "custom-1" && user.tenantID == tenant)
                #expect(Self.tenantClaim(try await user.getIDToken()) == tenant)
            }
            // The user exists in the tenant only.
            let project = AdminClient(baseURL: h.baseURL, projectId: h.projectId, credentials: .emulatorOwner)
            #expect(try await project.forTenant(tenant).getUser(uid: "custom-1")?.tenantId == tenant)
            #expect(try await project.getUser(uid: "custom-1") == nil)
            #expect(try await project.forTenant(other).getUser(uid: "custom-1") == nil)
        }
    }
}
