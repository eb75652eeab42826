import Foundation
import HTTPTypes
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Issue 38: Identity Platform tenants on the wire — sign-up, password, custom token and refresh inside a tenant,
/// the tenant taken from the token where the SDKs send none, and every way of crossing from one tenant (or the
/// project) into another refused, on both stores.
@Suite struct TenantTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// A tenant with password sign-up on (a new tenant's flags are off, as at Identity Platform).
    static func addTenant(_ h: HearthHarness, _ id: String, settings: TenantSettings = TenantSettings(allowPasswordSignup: true)) async throws {
        try await h.store.insertTenant(TenantRecord(id: id, displayName: "Tenant \(id)", settings: settings, createdAt: h.clock.now))
    }

    static func signUp(_ h: HearthHarness, _ email: String, tenant: String?) async throws -> SignUpResponse {
        var request = SignUpRequest(email: email, password: "correct horse")
        request.tenantId = tenant
        let reply = try await h.post(WirePaths.accounts("signUp"), request)
        guard reply.status == 200 else { throw HarnessError("signUp in \(tenant ?? "project") failed: \(reply.text)") }
        return try reply.decode()
    }

    static func tenantClaim(_ idToken: String?) -> String? {
        (jwtPayload(idToken ?? "")?["firebase"] as? [String: Any])?["tenant"] as? String
    }

    /// Issue 38, item 2: inside a tenant a user signs up, signs in and refreshes; the ID token carries
    /// `firebase.tenant` and keeps it on refresh; a lookup with the token alone (no tenantId, as the SDKs send it)
    /// answers `users[].tenantId`. The same email in the project and in another tenant is three users.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsUsersSignUpSignInAndRefreshInsideIt(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            try await Self.addTenant(h, "beta-bbbbb")
            let acme = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            let beta = try await Self.signUp(h, "ada@example.com", tenant: "beta-bbbbb")
            let project = try await h.signUp(email: "ada@example.com")
            #expect(Set([acme.localId, beta.localId, project.localId]).count == 3)
            #expect(Self.tenantClaim(acme.idToken) == "acme-aaaaa")
            #expect(Self.tenantClaim(beta.idToken) == "beta-bbbbb")
            #expect(Self.tenantClaim(project.idToken) == nil)

            let lookup = try await h.lookup(acme.idToken ?? "")
            #expect(lookup.status == 200)
            let users = try #require(lookup.json?["users"] as? [[String: Any]])
            #expect(users.first?["tenantId"] as? String == "acme-aaaaa")
            #expect(users.first?["localId"] as? String == acme.localId)

            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse")
            signIn.tenantId = "beta-bbbbb"
            let signedIn = try await h.post(WirePaths.accounts("signInWithPassword"), signIn)
            #expect(signedIn.status == 200)
            #expect(signedIn.json?["localId"] as? String == beta.localId)

            let refreshed = try await h.refresh(acme.refreshToken ?? "")
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(Self.tenantClaim(refreshed.json?["id_token"] as? String) == "acme-aaaaa")
            #expect(refreshed.json?["user_id"] as? String == acme.localId)
            // The project's own refresh is unchanged.
            let projectRefresh = try await h.refresh(project.refreshToken ?? "")
            #expect(Self.tenantClaim(projectRefresh.json?["id_token"] as? String) == nil)
        }
    }

    /// Issue 38, items 1 and 3: a new tenant's sign-in methods are off; an unknown or malformed tenant is
    /// `TENANT_NOT_FOUND`; `disableAuth` stops every call in the tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsOwnSettingsDecide(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "closed-ccccc", settings: TenantSettings())
            var request = SignUpRequest(email: "ada@example.com", password: "correct horse")
            request.tenantId = "closed-ccccc"
            #expect(try await h.post(WirePaths.accounts("signUp"), request).errorCode == "OPERATION_NOT_ALLOWED")
            for unknown in ["nope-zzzzz", "ACME", "a\u{0}bcdef", String(repeating: "t", count: 300)] {
                request.tenantId = unknown
                let reply = try await h.post(WirePaths.accounts("signUp"), request)
                // A NUL is refused before anything reads the request; every other one names the missing tenant.
                #expect(reply.status == 400 && reply.errorCode == (unknown.contains("\u{0}") ? "INVALID_ARGUMENT" : "TENANT_NOT_FOUND"), "\(reply.text.prefix(200))")
            }
            try await Self.addTenant(h, "acme-aaaaa")
            let user = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            var tenant = try #require(try await h.store.tenant(id: "acme-aaaaa"))
            tenant.settings.disableAuth = true
            #expect(try await h.store.updateTenant(tenant))
            #expect(try await h.lookup(user.idToken ?? "").errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await h.refresh(user.refreshToken ?? "").status == 400)
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Issue 38, item 3: a token of one tenant (or of the project) presented for another is refused with
    /// `TENANT_ID_MISMATCH` — never looked up there, never changing anything.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func anotherTenantsIDTokenIsRefused(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            try await Self.addTenant(h, "beta-bbbbb")
            let acme = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            let project = try await h.signUp(email: "bob@example.com")
            for (token, tenant) in [(acme.idToken, "beta-bbbbb"), (project.idToken, "acme-aaaaa")] {
                var update = UpdateRequest(idToken: token)
                update.displayName = "Mallory"
                update.tenantId = tenant
                let reply = try await h.post(WirePaths.accounts("update"), update)
                #expect(reply.errorCode == "TENANT_ID_MISMATCH", "\(reply.text.prefix(200))")
            }
            // An acme token explicitly for the project.
            let lookup = try await h.post(WirePaths.accounts("lookup"), raw: #"{"idToken":"\#(acme.idToken ?? "")","tenantId":""}"#)
            #expect(lookup.status == 200, "an empty tenantId is no tenant: the token decides")
            // A token whose tenant claim was rewritten to another tenant fails its signature.
            let parts = (acme.idToken ?? "").split(separator: ".").map(String.init)
            var payload = try #require(jwtPayload(acme.idToken ?? ""))
            var firebase = try #require(payload["firebase"] as? [String: Any])
            firebase["tenant"] = "beta-bbbbb"
            payload["firebase"] = firebase
            let forgedPayload = try JSONSerialization.data(withJSONObject: payload).base64URLEncodedString()
            let forged = [parts[0], forgedPayload, parts[2]].joined(separator: ".")
            #expect(try await h.lookup(forged).errorCode == "INVALID_ID_TOKEN")
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: acme.localId)?.displayName == nil)
            #expect(try await h.store.user(localId: project.localId)?.displayName == nil)
        }
    }

    /// Issue 38, item 2: the admin API's tenant paths act on the tenant's users only; a body `tenantId` that differs
    /// from the path's is `TENANT_ID_MISMATCH`; a tenant's user is invisible from the project and another tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func adminTenantPathsSeeOnlyTheirTenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            try await Self.addTenant(h, "beta-bbbbb")
            let acme = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            let base = "\(WirePaths.identityToolkitV1)/projects/demo-hearth"
            func lookup(_ path: String, _ body: String) async throws -> HearthHarness.Reply {
                try await h.send(.post, path, body: body, headers: Self.owner)
            }
            let inTenant = try await lookup("\(base)/tenants/acme-aaaaa/accounts:lookup", #"{"localId":["\#(acme.localId)"]}"#)
            #expect((inTenant.json?["users"] as? [[String: Any]])?.first?["tenantId"] as? String == "acme-aaaaa")
            for path in ["\(base)/accounts:lookup", "\(base)/tenants/beta-bbbbb/accounts:lookup"] {
                let reply = try await lookup(path, #"{"localId":["\#(acme.localId)"],"email":["ada@example.com"]}"#)
                #expect(reply.status == 200 && reply.json?["users"] == nil, "\(path): \(reply.text.prefix(200))")
            }
            let mismatch = try await lookup("\(base)/tenants/acme-aaaaa/accounts:lookup", #"{"localId":["\#(acme.localId)"],"tenantId":"beta-bbbbb"}"#)
            #expect(mismatch.errorCode == "TENANT_ID_MISMATCH")
            let unknown = try await lookup("\(base)/tenants/nope-zzzzz/accounts:lookup", #"{"localId":["\#(acme.localId)"]}"#)
            #expect(unknown.errorCode == "TENANT_NOT_FOUND")
            // Deleting through another tenant's path deletes nothing.
            let delete = try await h.send(.post, "\(base)/tenants/beta-bbbbb/accounts:delete", body: #"{"localId":"\#(acme.localId)"}"#, headers: Self.owner)
            #expect(delete.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: acme.localId) != nil)
        }
    }

    /// Issue 38, items 2 and 3: a custom token for a tenant (`tenant_id`) signs in there only.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aCustomTokenSignsInToItsOwnTenantOnly(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            let account = try TestServiceAccount()
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            var claims = CustomTokenClaims(serviceAccount: account.email, uid: "alice", issuedAt: h.clock.now)
            claims.tenantId = "acme-aaaaa"
            let token = try await account.sign(claims)
            func signIn(tenant: String?) async throws -> HearthHarness.Reply {
                var request = SignInWithCustomTokenRequest(token: token)
                request.tenantId = tenant
                return try await h.post(WirePaths.accounts("signInWithCustomToken"), request)
            }
            #expect(try await signIn(tenant: nil).errorCode == "TENANT_ID_MISMATCH")
            let signedIn = try await signIn(tenant: "acme-aaaaa")
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(Self.tenantClaim(signedIn.json?["idToken"] as? String) == "acme-aaaaa")
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: "alice") != nil)
            #expect(try await h.store.user(localId: "alice") == nil)

            // The same uid for the project: uids are unique across the server, so it is refused in words (not a
            // sign-in as tenant A's alice, not a second alice).
            let projectToken = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "alice", issuedAt: h.clock.now))
            let refused = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: projectToken))
            #expect(refused.status == 400 && refused.errorCode == "USER_NOT_FOUND", "\(refused.text)")
            #expect(refused.text.contains("uids are unique across a Hearth server's tenants"), "\(refused.text)")
            #expect(try await h.store.user(localId: "alice") == nil)
        }
    }

    /// Issue 38, item 3: a deleted tenant stops signing in at once and its users, tokens and codes go with it.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aDeletedTenantStopsAtOnce(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            let acme = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            let project = try await h.signUp(email: "ada@example.com")
            #expect(try await h.store.deleteTenant(id: "acme-aaaaa"))
            #expect(try await h.refresh(acme.refreshToken ?? "").errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await h.lookup(acme.idToken ?? "").errorCode == "TENANT_NOT_FOUND")
            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse")
            signIn.tenantId = "acme-aaaaa"
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).errorCode == "TENANT_NOT_FOUND")
            #expect(try await h.refresh(project.refreshToken ?? "").status == 200)
        }
    }

    /// Issue 38, item 3: an action code made in one tenant is unknown in another and in the project; its link names
    /// its tenant, and it works there.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func anActionCodeWorksInItsTenantOnly(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            try await Self.addTenant(h, "beta-bbbbb")
            _ = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            _ = try await Self.signUp(h, "ada@example.com", tenant: "beta-bbbbb")
            var send = SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com")
            send.tenantId = "acme-aaaaa"
            #expect(try await h.post(EmailActionTests.sendPath, send).status == 200)
            let code = try EmailActionTests.lastCode(h, .passwordReset)
            #expect(code.oobLink.contains("tenantId=acme-aaaaa"), "\(code.oobLink)")
            for tenant in ["beta-bbbbb", nil] {
                var reset = ResetPasswordRequest(oobCode: code.oobCode, newPassword: "another secret")
                reset.tenantId = tenant
                let reply = try await h.post(EmailActionTests.resetPath, reset)
                #expect(reply.errorCode == "INVALID_OOB_CODE", "\(tenant ?? "project"): \(reply.text.prefix(200))")
            }
            var reset = ResetPasswordRequest(oobCode: code.oobCode, newPassword: "another secret")
            reset.tenantId = "acme-aaaaa"
            #expect(try await h.post(EmailActionTests.resetPath, reset).status == 200)
            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "another secret")
            signIn.tenantId = "acme-aaaaa"
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).status == 200)
            signIn.tenantId = "beta-bbbbb"
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    /// Issue 38, item 3: a session cookie is made in the path's tenant only, from that tenant's ID token.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aSessionCookieIsMadeInItsTenantOnly(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenant(h, "acme-aaaaa")
            let acme = try await Self.signUp(h, "ada@example.com", tenant: "acme-aaaaa")
            let project = try await h.signUp(email: "bob@example.com")
            let base = "\(WirePaths.identityToolkitV1)/projects/demo-hearth"
            func cookie(_ path: String, _ token: String?) async throws -> HearthHarness.Reply {
                try await h.send(.post, path, body: #"{"idToken":"\#(token ?? "")","validDuration":"3600"}"#, headers: Self.owner)
            }
            #expect(try await cookie("\(base)/tenants/acme-aaaaa:createSessionCookie", project.idToken).errorCode == "TENANT_ID_MISMATCH")
            #expect(try await cookie("\(base):createSessionCookie", acme.idToken).errorCode == "TENANT_ID_MISMATCH")
            let made = try await cookie("\(base)/tenants/acme-aaaaa:createSessionCookie", acme.idToken)
            #expect(made.status == 200, "\(made.text.prefix(200))")
            #expect(Self.tenantClaim(made.json?["sessionCookie"] as? String) == "acme-aaaaa")
        }
    }

    /// Issue 38, item 1: a tenant's second factors are checked by the project's rules (found by schemathesis: a
    /// tenant was created with `adjacentIntervals` 11).
    @Test func aTenantsSecondFactorsFollowTheProjectsRules() async throws {
        try await HearthHarness.run { h in
            let path = "\(WirePaths.identityToolkitV2)/projects/demo-hearth/tenants"
            for mfa in [#"{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":11}}]}"#,
                        #"{"state":"MANDATORY"}"#, #"{"enabledProviders":["EMAIL_OTP"]}"#] {
                let reply = try await h.send(.post, path, body: #"{"displayName":"acme","mfaConfig":\#(mfa)}"#, headers: Self.owner)
                #expect(reply.errorCode == "INVALID_CONFIG", "\(mfa): \(reply.text.prefix(200))")
            }
            #expect(try await h.store.tenants(after: nil, limit: 10).isEmpty)
            let ok = try await h.send(.post, path, body: #"{"displayName":"acme","mfaConfig":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":5}}]}}"#, headers: Self.owner)
            #expect(ok.status == 200, "\(ok.text.prefix(200))")
        }
    }
}
