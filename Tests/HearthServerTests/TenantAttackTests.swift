import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Issue 38, item 3: the isolation attacks that cross a tenant in the middle of a flow — a pending second factor, a
/// passkey challenge, a provider callback, a `tenantId` swapped between the steps of a sign-in, a burst of sign-ups
/// of one email into several tenants, and the failed-password throttle — each refused with its exact code and
/// status, through the real server on loopback, on both stores, and each leaving everything as it was (the
/// rightful flow still completes afterwards). The single-request crossings are in ``TenantTests``.
@Suite struct TenantAttackTests {
    static let acme = "acme-aaaaa"
    static let beta = "beta-bbbbb"
    static let totp = #"{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":1}}]}"#

    /// Tenants `acme-aaaaa` and `beta-bbbbb` with password sign-up, email links and TOTP on (the attacks must not be
    /// refused for a setting).
    static func addTenants(_ h: HearthHarness) async throws {
        let mfa = try JSONDecoder().decode(MultiFactorAuthConfig.self, from: Data(totp.utf8))
        for id in [acme, beta] {
            try await TenantTests.addTenant(h, id, settings: TenantSettings(allowPasswordSignup: true, enableEmailLinkSignin: true, mfa: mfa))
        }
    }

    /// A refusal: HTTP 400 with `code`, and no session in the answer.
    static func refused(_ reply: HearthHarness.Reply, _ code: String, _ what: String = "") {
        #expect(reply.status == 400 && reply.errorCode == code, "\(what) \(reply.status) \(reply.text.prefix(300))")
        #expect(reply.json?["idToken"] == nil && reply.json?["refreshToken"] == nil)
    }

    // MARK: Pending second factor

    /// Issue 38, item 3: a pending second-factor sign-in (`mfaPendingCredential`) from a tenant's password sign-in,
    /// finished with `mfaSignIn:finalize` in another tenant or in the project — and the project's in a tenant — is
    /// `INVALID_MFA_PENDING_CREDENTIAL` (it was `USER_NOT_FOUND`, which the SDKs read as a deleted account); no token
    /// is issued, the code is not spent and the pending sign-in still completes in its own tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aPendingSecondFactorIsFinishedInItsOwnTenantOnly(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenants(h)
            try await MultiFactorTests.enableTOTP(h)
            let acmeStore = h.store.bound(toTenant: Self.acme)
            let ada = try await TenantTests.signUp(h, "ada@example.com", tenant: Self.acme)
            var verified = try #require(try await acmeStore.user(localId: ada.localId))
            verified.emailVerified = true
            try await acmeStore.updateUser(verified)
            let adas = try await MultiFactorTests.enroll(h, idToken: try #require(ada.idToken))
            let bob = try await MultiFactorTests.verifiedUser(h, "bob@example.com")
            let bobs = try await MultiFactorTests.enroll(h, idToken: try #require(bob.idToken))
            h.clock.advance(by: 30)

            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse")
            signIn.tenantId = Self.acme
            let first = try await h.post(WirePaths.accounts("signInWithPassword"), signIn).decode(SignInWithPasswordResponse.self)
            let adaPending = try #require(first.mfaPendingCredential)
            #expect(first.idToken == nil)
            let bobPending = try await MultiFactorTests.pendingPasswordSignIn(h, "bob@example.com", factor: bobs.enrollmentId)
            let adaBefore = try #require(try await acmeStore.user(localId: ada.localId))
            let bobBefore = try #require(try await h.store.user(localId: bob.localId))

            func finalize(_ pending: String, _ enrolled: MultiFactorTests.Enrolled, tenant: String?) async throws -> HearthHarness.Reply {
                try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
                    mfaPendingCredential: pending, mfaEnrollmentId: enrolled.enrollmentId,
                    verificationCode: enrolled.generator.code(at: h.clock.now), tenantId: tenant))
            }
            for tenant in [Self.beta, nil] {
                let reply = try await finalize(adaPending, adas, tenant: tenant)
                Self.refused(reply, "INVALID_MFA_PENDING_CREDENTIAL", "acme's pending sign-in in \(tenant ?? "the project")")
                #expect(reply.text.contains("tenantId its first factor"), "\(reply.text.prefix(300))")
            }
            Self.refused(try await finalize(bobPending, bobs, tenant: Self.acme), "INVALID_MFA_PENDING_CREDENTIAL", "the project's pending sign-in in acme")
            // Nothing moved: no sign-in recorded, no code step spent; no refresh token for either user.
            #expect(try await acmeStore.user(localId: ada.localId) == adaBefore)
            #expect(try await h.store.user(localId: bob.localId) == bobBefore)

            let adaDone = try await finalize(adaPending, adas, tenant: Self.acme)
            #expect(adaDone.status == 200, "\(adaDone.text.prefix(300))")
            #expect(TenantTests.tenantClaim(adaDone.json?["idToken"] as? String) == Self.acme)
            let bobDone = try await finalize(bobPending, bobs, tenant: nil)
            #expect(bobDone.status == 200, "\(bobDone.text.prefix(300))")
            #expect(TenantTests.tenantClaim(bobDone.json?["idToken"] as? String) == nil)
        }
    }

    // MARK: Passkeys

    /// Issue 38, item 3: a passkey ceremony started in one tenant is an unknown challenge in another tenant and in
    /// the project (`INVALID_AUTHENTICATOR_RESPONSE`) and is not spent there: the same assertion then signs in in its
    /// own tenant. A tenant's user's passkey, answering a challenge of another tenant or of the project, is
    /// `PASSKEY_ENROLLMENT_NOT_FOUND` — before its signature counter moves (it used to be checked after, with
    /// `USER_NOT_FOUND`).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aPasskeyChallengeAndAPasskeyStayInTheirTenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenants(h)
            try await PasskeyTests.enablePasskeys(h)
            let ada = try await TenantTests.signUp(h, "ada@example.com", tenant: Self.acme)
            var key = SoftwarePasskey()
            _ = try await PasskeyTests.enroll(h, ada.idToken, &key)
            let registered = try #require(try await h.store.passkeys(localId: ada.localId).first)
            let adaBefore = try #require(try await h.store.bound(toTenant: Self.acme).user(localId: ada.localId))

            func options(tenant: String?) async throws -> PasskeyRequestOptions {
                let reply = try await h.post(WirePaths.passkeySignInStart, StartPasskeySignInRequest(tenantId: tenant))
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                return try reply.decode(StartPasskeySignInResponse.self).credentialRequestOptions
            }
            func finalize(_ assertion: PasskeyAuthenticationResponse, tenant: String?) async throws -> HearthHarness.Reply {
                try await h.post(WirePaths.passkeySignInFinalize, FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: assertion, tenantId: tenant))
            }

            // Started in acme, finished in beta or in the project.
            let acmeAssertion = try key.assert(try await options(tenant: Self.acme), origin: h.baseURL)
            for tenant in [Self.beta, nil] {
                let reply = try await finalize(acmeAssertion, tenant: tenant)
                Self.refused(reply, "INVALID_AUTHENTICATOR_RESPONSE", "acme's challenge in \(tenant ?? "the project")")
                #expect(reply.text.contains("unknown or used challenge"), "\(reply.text.prefix(300))")
            }
            #expect(try await h.store.passkey(credentialId: registered.credentialId) == registered)

            // Acme's passkey answering beta's or the project's own challenge.
            for tenant in [Self.beta, nil] {
                let assertion = try key.assert(try await options(tenant: tenant), origin: h.baseURL)
                let reply = try await finalize(assertion, tenant: tenant)
                Self.refused(reply, "PASSKEY_ENROLLMENT_NOT_FOUND", "acme's passkey in \(tenant ?? "the project")")
            }
            #expect(try await h.store.passkey(credentialId: registered.credentialId) == registered, "the counter and last use did not move")
            #expect(try await h.store.bound(toTenant: Self.acme).user(localId: ada.localId) == adaBefore, "no sign-in recorded")

            // The challenge was not spent by the refusals: the first assertion signs in in acme.
            let signedIn = try await finalize(acmeAssertion, tenant: Self.acme)
            #expect(signedIn.status == 200, "\(signedIn.text.prefix(300))")
            #expect(signedIn.json?["localId"] as? String == ada.localId)
            #expect(TenantTests.tenantClaim(signedIn.json?["idToken"] as? String) == Self.acme)
        }
    }

    // MARK: Provider callback and a tenantId swapped mid-flow

    /// Issue 38, items 3 and 4: a provider sign-in started with `createAuthUri` and the auth handler in one tenant
    /// (`tid`), whose callback result (`requestUri` and `sessionId`) is presented to `signInWithIdp` in another tenant
    /// or with no tenant, is `INVALID_IDP_RESPONSE` (an unknown sign-in there) and creates no user anywhere. Like a
    /// wrong `sessionId`, the misdirected result burns the sign-in (the store's rule: a failed consumption spends it),
    /// so it is refused in its own tenant too; a new sign-in there completes, creating the user in that tenant only.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aProviderCallbackIsFinishedInItsOwnTenantOnly(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, devIdPs: true) { h in
            try await Self.addTenants(h)
            let dev = try #require(h.devIdPs)
            try await h.store.bound(toTenant: Self.acme).saveIdPConfig(IdPConfig(
                providerId: "microsoft.com", kind: .microsoft, clientId: dev.microsoftClient.id, clientSecret: dev.microsoftClient.secret,
                endpointBase: dev.microsoftBase, graphBase: dev.microsoftBase))
            var authUri = CreateAuthUriRequest(identifier: nil, providerId: "microsoft.com")
            authUri.tenantId = Self.acme
            let created = try await h.post(WirePaths.accounts("createAuthUri"), authUri)
            #expect(created.status == 200, "\(created.text.prefix(300))")
            let sessionId = try #require(created.json?["sessionId"] as? String)
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@contoso.com", rawSessionId: sessionId,
                                                 extra: [("tid", Self.acme)])
            #expect(flow.link != nil, "\(flow.firebaseError ?? [:]) \(flow.errorPage?.body.prefix(300) ?? "")")

            func signInWithIdp(_ flow: FlowResult, tenant: String?) async throws -> HearthHarness.Reply {
                var request = SignInWithIdpRequest(requestUri: flow.link, postBody: "providerId=microsoft.com", sessionId: flow.rawSessionId)
                request.tenantId = tenant
                return try await h.post(WirePaths.accounts("signInWithIdp"), request)
            }
            for tenant in [Self.beta, nil] {
                let reply = try await signInWithIdp(flow, tenant: tenant)
                Self.refused(reply, "INVALID_IDP_RESPONSE", "acme's callback in \(tenant ?? "the project")")
                #expect(reply.text.contains("unknown sign-in"), "\(reply.text.prefix(300))")
            }
            #expect(try await h.store.userCount() == 0)
            #expect(try await h.store.bound(toTenant: Self.beta).userCount() == 0)
            #expect(try await h.store.bound(toTenant: Self.acme).userCount() == 0)

            let burned = try await signInWithIdp(flow, tenant: Self.acme)
            Self.refused(burned, "INVALID_IDP_RESPONSE", "the misdirected sign-in is spent")
            #expect(burned.text.contains("already completed"), "\(burned.text.prefix(300))")
            #expect(try await h.store.bound(toTenant: Self.acme).userCount() == 0)

            let again = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@contoso.com", extra: [("tid", Self.acme)])
            let signedIn = try await signInWithIdp(again, tenant: Self.acme)
            #expect(signedIn.status == 200, "\(signedIn.text.prefix(300))")
            #expect(TenantTests.tenantClaim(signedIn.json?["idToken"] as? String) == Self.acme)
            #expect(try await h.store.bound(toTenant: Self.acme).userCount() == 1)
            #expect(try await h.store.userCount() == 0)
            #expect(try await h.store.bound(toTenant: Self.beta).userCount() == 0)
            // Completed in its tenant, it is spent there too, and still unknown elsewhere.
            Self.refused(try await signInWithIdp(again, tenant: Self.acme), "INVALID_IDP_RESPONSE")
            Self.refused(try await signInWithIdp(again, tenant: Self.beta), "INVALID_IDP_RESPONSE")
        }
    }

    /// Issue 38, item 3: a provider configured only in one tenant is not enabled in another tenant or in the project:
    /// `createAuthUri` there is `OPERATION_NOT_ALLOWED`, and it still answers in its own tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsProviderIsNotAnotherTenants(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenants(h)
            try await h.store.bound(toTenant: Self.acme).saveIdPConfig(IdPConfig(
                providerId: "microsoft.com", kind: .microsoft, clientId: "acme-client", clientSecret: "acme-secret",
                allowedEntraTenants: ["contoso.onmicrosoft.com"]))
            func createAuthUri(tenant: String?) async throws -> HearthHarness.Reply {
                var request = CreateAuthUriRequest(identifier: nil, providerId: "microsoft.com")
                request.tenantId = tenant
                return try await h.post(WirePaths.accounts("createAuthUri"), request)
            }
            let own = try await createAuthUri(tenant: Self.acme)
            #expect(own.status == 200 && own.json?["providerId"] as? String == "microsoft.com", "\(own.text.prefix(300))")
            for tenant in [Self.beta, nil] {
                let reply = try await createAuthUri(tenant: tenant)
                #expect(reply.status == 400 && reply.errorCode == "OPERATION_NOT_ALLOWED", "\(tenant ?? "project"): \(reply.text.prefix(300))")
            }
            #expect(try await h.store.idpConfig(providerId: "microsoft.com") == nil)
            #expect(try await h.store.bound(toTenant: Self.beta).idpConfig(providerId: "microsoft.com") == nil)
        }
    }

    /// Issue 38, item 4: a `tenantId` swapped between the steps of an email action — an email-link sign-in code sent
    /// in one tenant and used with another tenant or none, a password-reset code checked (`resetPassword` without
    /// `newPassword`, the SDKs' verifyPasswordResetCode) with another tenant — is `INVALID_OOB_CODE`; the code is not
    /// spent and creates no user there, and it works in its own tenant afterwards.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func anEmailActionCodeSwappedToAnotherTenantIsRefused(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.addTenants(h)
            var send = SendOobCodeRequest(requestType: .emailSignIn, email: "ada@example.com",
                                          settings: .init(continueUrl: "http://localhost/finish", canHandleCodeInApp: true))
            send.tenantId = Self.acme
            #expect(try await EmailActionTests.send(h, send).status == 200)
            let link = try EmailActionTests.lastCode(h, .emailSignIn)
            #expect(link.oobLink.contains("tenantId=\(Self.acme)"), "\(link.oobLink)")
            func signIn(tenant: String?) async throws -> HearthHarness.Reply {
                var request = SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: link.oobCode)
                request.tenantId = tenant
                return try await h.post(EmailActionTests.linkPath, request)
            }
            for tenant in [Self.beta, nil] {
                Self.refused(try await signIn(tenant: tenant), "INVALID_OOB_CODE", "acme's email link in \(tenant ?? "the project")")
            }
            #expect(try await h.store.userCount() == 0)
            #expect(try await h.store.bound(toTenant: Self.beta).userCount() == 0)
            let signedIn = try await signIn(tenant: Self.acme)
            #expect(signedIn.status == 200, "\(signedIn.text.prefix(300))")
            #expect(TenantTests.tenantClaim(signedIn.json?["idToken"] as? String) == Self.acme)
            let ada = try #require(signedIn.json?["localId"] as? String)

            // A reset code of acme, checked with beta's tenantId: unknown there, and not spent.
            _ = try await TenantTests.signUp(h, "ada@example.com", tenant: Self.beta)
            var reset = SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com")
            reset.tenantId = Self.acme
            #expect(try await EmailActionTests.send(h, reset).status == 200)
            let code = try EmailActionTests.lastCode(h, .passwordReset).oobCode
            var check = ResetPasswordRequest(oobCode: code)
            check.tenantId = Self.beta
            let checked = try await h.post(EmailActionTests.resetPath, check)
            Self.refused(checked, "INVALID_OOB_CODE")
            #expect(checked.json?["email"] == nil)
            check.tenantId = Self.acme
            let own = try await h.post(EmailActionTests.resetPath, check)
            #expect(own.status == 200 && own.json?["email"] as? String == "ada@example.com", "\(own.text.prefix(300))")
            var apply = ResetPasswordRequest(oobCode: code, newPassword: "another secret")
            apply.tenantId = Self.acme
            #expect(try await h.post(EmailActionTests.resetPath, apply).status == 200)
            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "another secret")
            signIn.tenantId = Self.acme
            let reply = try await h.post(WirePaths.accounts("signInWithPassword"), signIn)
            #expect(reply.status == 200 && reply.json?["localId"] as? String == ada, "\(reply.text.prefix(300))")
            signIn.tenantId = Self.beta
            Self.refused(try await h.post(WirePaths.accounts("signInWithPassword"), signIn), "INVALID_LOGIN_CREDENTIALS", "beta's password is unchanged")
        }
    }

    // MARK: Bursts and throttles

    /// Issue 38, item 3: failed passwords in one tenant throttle that tenant's account only: the same email in
    /// another tenant and in the project still signs in (`Scope.throttleAccount`).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func failedPasswordsInOneTenantDoNotLockTheSameEmailElsewhere(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: {
            $0.throttle = ThrottleConfiguration(maxFailuresPerAccount: 3, maxFailuresPerAddress: 100, window: 60)
        }) { h in
            try await Self.addTenants(h)
            for tenant in [Self.acme, Self.beta] { _ = try await TenantTests.signUp(h, "ada@example.com", tenant: tenant) }
            _ = try await h.signUp(email: "ada@example.com")
            func signIn(_ password: String, tenant: String?) async throws -> HearthHarness.Reply {
                var request = SignInWithPasswordRequest(email: "ada@example.com", password: password)
                request.tenantId = tenant
                return try await h.post(WirePaths.accounts("signInWithPassword"), request)
            }
            for _ in 0..<3 { Self.refused(try await signIn("wrong password", tenant: Self.acme), "INVALID_LOGIN_CREDENTIALS") }
            Self.refused(try await signIn("correct horse", tenant: Self.acme), "TOO_MANY_ATTEMPTS_TRY_LATER", "acme is throttled")
            for tenant in [Self.beta, nil] {
                let reply = try await signIn("correct horse", tenant: tenant)
                #expect(reply.status == 200, "\(tenant ?? "project"): \(reply.text.prefix(300))")
                #expect(TenantTests.tenantClaim(reply.json?["idToken"] as? String) == tenant)
            }
            // Beta's own failures count from zero: two more wrong ones do not lock it either.
            for _ in 0..<2 { Self.refused(try await signIn("wrong password", tenant: Self.beta), "INVALID_LOGIN_CREDENTIALS") }
            #expect(try await signIn("correct horse", tenant: Self.beta).status == 200)
            Self.refused(try await signIn("correct horse", tenant: Self.acme), "TOO_MANY_ATTEMPTS_TRY_LATER", "acme is still throttled")
        }
    }

    // MARK: Metrics

    /// Issue 38, item 4 (metrics labelled by tenant where cheap): `hearth_sign_ins_total` and
    /// `hearth_sign_ups_total` carry the tenant of the call's scope (empty for the project); a refusal in a tenant is
    /// counted there; an unknown tenant never becomes a label value.
    @Test func signInMetricsAreLabelledByTenant() async throws {
        try await HearthHarness.run { h in
            try await Self.addTenants(h)
            _ = try await TenantTests.signUp(h, "ada@example.com", tenant: Self.acme)
            _ = try await h.signUp(email: "bob@example.com")
            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse")
            signIn.tenantId = Self.acme
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).status == 200)
            signIn.password = "wrong password"
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).errorCode == "INVALID_LOGIN_CREDENTIALS")
            signIn.tenantId = "nope-zzzzz"
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).errorCode == "TENANT_NOT_FOUND")

            let reply = try await h.send(.get, "/metrics")
            #expect(reply.status == 200)
            let text = reply.text
            for line in [#"hearth_sign_ups_total{provider="password",tenant="acme-aaaaa"} 1"#,
                         #"hearth_sign_ups_total{provider="password",tenant=""} 1"#,
                         #"hearth_sign_ins_total{provider="password",result="success",tenant="acme-aaaaa"} 2"#,
                         #"hearth_sign_ins_total{provider="password",result="success",tenant=""} 1"#,
                         #"hearth_sign_ins_total{provider="password",result="refused",tenant="acme-aaaaa"} 1"#,
                         #"hearth_sign_ins_total{provider="password",result="refused",tenant=""} 1"#] {
                #expect(text.contains(line), "missing \(line)")
            }
            #expect(!text.contains("nope-zzzzz"), "an unknown tenant became a label value")
            let metrics = h.server.configuration.metrics
            #expect(metrics.counterValue(.signIns, ["password", "success", Self.acme]) == 2)
            #expect(metrics.counterValue(.signUps, ["password", Self.beta]) == nil)
        }
    }
}
