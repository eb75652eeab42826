import Crypto
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Logging
import Synchronization
import Testing

/// Issue 17: each attack a review found against a running server, shown refused. Every test here fails on the code
/// before the fix (the attack worked) and passes after it.
@Suite struct TrustTests {
    static func signUp(_ h: HearthHarness, _ body: SignUpRequest) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.accounts("signUp"), body)
    }

    // MARK: 1. signUp with an idToken

    /// The attack: an old session of a password account calls `signUp {idToken, email, password}` — which used to
    /// replace the email and password with no recent-login check and no revocation. Now refused; nothing changes.
    @Test func signUpWithAnIdTokenCannotRewriteAnAccountsCredentials() async throws {
        try await HearthHarness.run { h in
            let victim = try await h.signUp(email: "victim@example.com", password: "victim password")
            let idToken = try #require(victim.idToken)
            h.clock.advance(by: 600)
            // accounts:update applies the recent-login rule…
            let update = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: idToken, password: "attacker password"))
            #expect(update.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            // …and signUp is no way around it, with the idToken in either form.
            for path in [WirePaths.accounts("signUp"), WirePaths.v3("signupNewUser")] {
                let reply = try await h.post(path, SignUpRequest(email: "attacker@example.com", password: "attacker password", idToken: idToken))
                #expect(reply.status == 400)
                #expect(reply.errorCode == "PROVIDER_ALREADY_LINKED", "\(reply.text)")
            }
            #expect(try await h.signIn(email: "victim@example.com", password: "victim password").status == 200)
            #expect(try await h.signIn(email: "attacker@example.com", password: "attacker password").status == 400)
            #expect(try await h.store.user(localId: victim.localId)?.email == "victim@example.com")
            // Even a fresh session cannot use signUp to change a password (that is accounts:update's job).
            let fresh = try await h.signIn(email: "victim@example.com", password: "victim password").decode(SignInWithPasswordResponse.self)
            let again = try await Self.signUp(h, SignUpRequest(email: "victim@example.com", password: "another password", idToken: fresh.idToken))
            #expect(again.errorCode == "PROVIDER_ALREADY_LINKED")
        }
    }

    /// What signUp with an idToken is for: an anonymous user is upgraded (same uid, at any age of its session).
    @Test func anAnonymousUserIsUpgradedInPlace() async throws {
        try await HearthHarness.run { h in
            let anonymous = try await Self.signUp(h, SignUpRequest()).decode(SignUpResponse.self)
            h.clock.advance(by: 3000)
            let refreshed = try await h.refresh(try #require(anonymous.refreshToken)).decode(GrantTokenResponse.self)
            let reply = try await Self.signUp(h, SignUpRequest(email: "anon@example.com", password: "anon password", idToken: refreshed.idToken))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.decode(SignUpResponse.self).localId == anonymous.localId)
            #expect(try await h.signIn(email: "anon@example.com", password: "anon password").status == 200)
            // Linking an email that another account holds is EMAIL_EXISTS.
            let other = try await Self.signUp(h, SignUpRequest()).decode(SignUpResponse.self)
            let taken = try await Self.signUp(h, SignUpRequest(email: "anon@example.com", password: "x password", idToken: other.idToken))
            #expect(taken.errorCode == "EMAIL_EXISTS")
        }
    }

    /// A federated user linking a password (the Apple SDK's `link(with: EmailAuthProvider.credential…)` sends
    /// signUp with the idToken): a credential change — recent sign-in required, the user's other sessions end.
    @Test func linkingAPasswordToAFederatedUserNeedsARecentSignInAndRevokes() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let federated = try await h.federatedSignIn(providerId: "microsoft.com", email: "fed@contoso.com").decode(SignInWithIdpResponse.self)
            let otherSession = try await h.federatedSignIn(providerId: "microsoft.com", email: "fed@contoso.com").decode(SignInWithIdpResponse.self)
            h.clock.advance(by: 600)
            let stale = try await Self.signUp(h, SignUpRequest(email: "fed@contoso.com", password: "fed password", idToken: federated.idToken))
            #expect(stale.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let fresh = try await h.federatedSignIn(providerId: "microsoft.com", email: "fed@contoso.com").decode(SignInWithIdpResponse.self)
            h.clock.advance(by: 1)
            let linked = try await Self.signUp(h, SignUpRequest(email: "fed@contoso.com", password: "fed password", idToken: fresh.idToken))
            #expect(linked.status == 200, "\(linked.text)")
            let body = try linked.decode(SignUpResponse.self)
            #expect(body.localId == federated.localId)
            // The other sessions are over; the new tokens work.
            #expect(try await h.refresh(try #require(otherSession.refreshToken)).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.lookup(try #require(fresh.idToken)).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.lookup(try #require(body.idToken)).status == 200)
            #expect(try await h.signIn(email: "fed@contoso.com", password: "fed password").status == 200)
        }
    }

    // MARK: 2. nOAuth

    /// The attack: a work tenant's administrator sets `ceo@msn.com` as a user's email. Microsoft's domains used to
    /// make it `email_verified: true`. Now only the consumer tenant (on Microsoft's own domains) or `xms_edov` counts.
    @Test func microsoftEmailsAreVerifiedOnlyByTenantOrDomainOwnership() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let cases: [(email: String, verified: Bool)] = [
                ("ceo@msn.com", false),          // a work tenant claiming a Microsoft consumer domain (no xms_edov)
                ("someone@gmail.com", false),    // a work tenant claiming a public mail domain
                ("ada@outlook.com", true),       // a personal account: the consumer tenant, Microsoft's own domain
                ("boss@contoso.com", true),      // a work account whose tenant verified contoso.com (xms_edov)
            ]
            for item in cases {
                let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: item.email)
                let body = try reply.decode(SignInWithIdpResponse.self)
                #expect(body.emailVerified == item.verified, "\(item.email)")
                let localId = try #require(body.localId)
                let stored = try #require(try await h.store.user(localId: localId))
                #expect(stored.emailVerified == item.verified, "\(item.email)")
            }
        }
    }

    /// An unverified email never links to the account that has it: the sign-in asks for confirmation instead
    /// (and, with enumeration protection, does not name the account's methods).
    @Test func anUnverifiedMicrosoftEmailNeverTakesOverTheAccountWithThatEmail() async throws {
        try await HearthHarness.run(configure: {
            $0.initialProjectConfig = ProjectConfig(projectId: $0.projectId, emailEnumerationProtection: true)
        }, devIdPs: true) { h in
            try await h.enableDevProviders()
            let owner = try await h.signUp(email: "ceo@msn.com", password: "owner password")
            let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: "ceo@msn.com")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.needConfirmation == true)
            #expect(body.idToken == nil && body.localId == nil)
            #expect(body.verifiedProvider == nil)
            let user = try #require(try await h.store.user(localId: owner.localId))
            #expect(user.identities.isEmpty)
            #expect(try await h.store.userCount() == 1)
        }
    }

    // MARK: 3. The password-attempt race

    /// The attack: 40 parallel guesses at one account. The limit (10) used to be checked before scrypt and counted
    /// after, so every guess was evaluated. Now each is reserved first: exactly 10 are evaluated, 30 refused — and
    /// the right password, tried after the burst, is refused too. On both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aParallelBurstOfWrongPasswordsIsHeldToTheLimit(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            _ = try await h.signUp(email: "target@example.com", password: "the right password")
            let statuses = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<40 {
                    group.addTask { try await h.signIn(email: "target@example.com", password: "guess number \(index)").errorCode ?? "OK" }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == "INVALID_LOGIN_CREDENTIALS" }.count == 10, "\(statuses)")
            #expect(statuses.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count == 30)
            #expect(try await h.signIn(email: "target@example.com", password: "the right password").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // After the window the owner signs in, and a success clears the count.
            h.clock.advance(by: 901)
            #expect(try await h.signIn(email: "target@example.com", password: "the right password").status == 200)
        }
    }

    // MARK: 4. Rate limits and path spelling

    /// The attack: `accounts:signUp/` or `//identitytoolkit…` reached the route while the limiter compared path text.
    /// The limit is now a middleware of the route itself: every spelling the router matches is counted.
    @Test func aTrailingOrDoubledSlashDoesNotSkipTheRateLimit() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 3) }) { h in
            let body = String(decoding: try JSONEncoder().encode(SignUpRequest(email: "x@example.com", password: "p password")), as: UTF8.self)
            for index in 0..<3 {
                let reply = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "u\(index)@example.com", password: "p password"))
                #expect(reply.status == 200)
            }
            for path in [WirePaths.accounts("signUp") + "/", "/" + WirePaths.accounts("signUp"), WirePaths.accounts("signUp") + "//",
                         WirePaths.v3("signupNewUser") + "/", WirePaths.accounts("signUp")] {
                let reply = try await h.send(.post, path + "?key=test-key", body: body)
                #expect(reply.status != 200, "\(path) → \(reply.status)")
                #expect(reply.status == 429 || reply.status == 404, "\(path) → \(reply.status)")
            }
            #expect(try await h.store.userCount() == 3)
        }
    }

    // MARK: 5. Apple redirect scheme

    /// The attack: a registered app id with an unregistered `clientId=evil.attacker.com` used to deliver the sign-in
    /// to `com.attacker.evil://`. The scheme now comes only from the registered app record that matched.
    @Test func anUnregisteredClientIdDoesNotChooseTheCallbackScheme() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            var project = try await h.scope.config()
            project.chooseAcceptAnyApp(false)
            try await h.store.saveProjectConfig(project)
            try await h.store.saveApp(AppRegistration(id: "ios-1", kind: .apple, bundleId: "com.example.app", appId: "1:1234:ios:abcd"))
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", apple: ("com.example.app", "1:1234:ios:abcd"),
                                                 extra: [("clientId", "evil.attacker.com")])
            let appURL = try #require(flow.appURL)
            #expect(appURL.hasPrefix("app-1-1234-ios-abcd://firebaseauth/link?"), "\(appURL)")
            #expect(!appURL.contains("com.attacker.evil"))
            // A registered client id gives its reversed scheme; an unknown bundle id is refused with no redirect.
            try await h.store.saveApp(AppRegistration(id: "ios-2", kind: .apple, bundleId: "com.example.other", clientId: "123-abc.apps.googleusercontent.com"))
            let byClient = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", apple: ("com.example.other", ""),
                                                     extra: [("clientId", "123-abc.apps.googleusercontent.com")])
            #expect(byClient.appURL?.hasPrefix("com.googleusercontent.apps.123-abc://") == true, "\(byClient.appURL ?? "")")
            let unknown = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", apple: ("com.attacker", "1:1234:ios:abcd"))
            #expect(unknown.errorPage?.status == 400)
            #expect(unknown.appURL == nil)
        }
    }

    // MARK: 6. Provider ID tokens are not bearer credentials

    /// The attack: the `oauthIdToken` Hearth's own code flow returns, posted back as a native token, signed in again,
    /// any number of times. Now: its nonce is Hearth's own (refused on the native path, whatever raw nonce comes
    /// with it), a nonce needs its raw value, and a native token signs in once.
    @Test func aProviderIDTokenFromTheCodeFlowDoesNotReplay() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let web = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com").decode(SignInWithIdpResponse.self)
            let oauthIdToken = try #require(web.oauthIdToken)
            for postBody in [[("id_token", oauthIdToken)], [("id_token", oauthIdToken), ("nonce", "anything")]] {
                let replay = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: postBody)
                #expect(replay.status == 400, "\(replay.text)")
                #expect(replay.idToken == nil)
            }
            // A native token without a nonce (MSAL's, say) signs in once; its copy is a replay.
            let native = try await h.nativeProviderTokens(.microsoft, email: "ada@outlook.com", nonce: nil)
            let first = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", native.idToken)])
            #expect(first.status == 200, "\(first.text)")
            let second = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", native.idToken)])
            #expect(second.errorCode == "INVALID_IDP_RESPONSE")
            #expect(second.envelope?.error.message.contains("used already") == true, "\(second.text)")
            // A token with a nonce whose raw value the caller cannot name is refused.
            let other = try await h.nativeProviderTokens(.microsoft, email: "ada@outlook.com", nonce: "a-nonce-someone-else-chose")
            let noRaw = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", other.idToken)])
            #expect(noRaw.errorCode == "MISSING_OR_INVALID_NONCE", "\(noRaw.text)")
        }
    }

    /// A native token whose sign-in gave no session (an account to confirm first) is not used up: after the password
    /// sign-in it links, once.
    @Test func aNativeTokenThatGaveNoSessionCanStillLinkOnce() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let owner = try await h.signUp(email: "ada@outlook.com", password: "correct horse")
            let native = try await h.nativeProviderTokens(.microsoft, email: "ada@outlook.com", nonce: nil)
            let exists = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", native.idToken)])
            #expect(try exists.decode(SignInWithIdpResponse.self).needConfirmation == true, "\(exists.text)")
            let linked = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", native.idToken)],
                                                             idToken: owner.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(try linked.decode(SignInWithIdpResponse.self).localId == owner.localId)
            let again = try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", native.idToken)])
            #expect(again.envelope?.error.message.contains("used already") == true, "\(again.text)")
        }
    }

    /// The console's administrator attempts and the project's user attempts are counted apart on the same store: a
    /// user's successful sign-in never clears an administrator's failures (review finding).
    @Test func consoleAndUserAttemptsAreCountedApart() async throws {
        try await HearthHarness.run { h in
            let configuration = ThrottleConfiguration(maxFailuresPerAccount: 3, maxFailuresPerAddress: 100)
            let console = LoginThrottle(configuration: configuration, clock: h.server.configuration.clock, store: h.store, scope: "console")
            let users = LoginThrottle(configuration: configuration, clock: h.server.configuration.clock, store: h.store)
            for _ in 0..<3 { #expect(try await console.reserve(account: "admin@example.com", address: "203.0.113.9") != nil) }
            #expect(try await console.reserve(account: "admin@example.com", address: "203.0.113.9") == nil)
            let user = try #require(try await users.reserve(account: "admin@example.com", address: "203.0.113.9"))
            try await users.succeeded(user)
            #expect(try await console.reserve(account: "admin@example.com", address: "203.0.113.9") == nil, "a user's success cleared the console count")
        }
    }

    // MARK: 9. Log forging

    /// The attack: a newline in a value the server logs (an assertion's `iss`) wrote a fake log line. Every text
    /// log value now has its control characters escaped: one entry is one line.
    @Test func controlCharactersCannotForgeATextLogLine() {
        let lines = Mutex<[String]>([])
        let handler = HearthLogHandler(label: "hearth", format: .text, level: .info) { line in lines.withLock { $0.append(line) } }
        let logger = Logger(label: "hearth") { _ in handler }
        logger.notice("custom token refused\n2026-01-01T00:00:00Z critical hearth: admin granted",
                      metadata: ["iss": "evil\r\n2026-01-01T00:00:00Z info hearth: forged=1", "name": "a\u{2028}b\u{0}c\u{1B}[31m"])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = written.first ?? ""
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{2028}") && !line.contains("\u{0}") && !line.contains("\u{1B}"))
        #expect(line.contains("evil\\r\\n2026-01-01"))
        #expect(line.contains("refused\\n2026"))
    }

    // MARK: 10. NUL

    /// The attack: U+0000 was cut by SQLite (a name stored short, `uid\0x` finding `uid`) and made PostgreSQL answer
    /// 500. Every string field now refuses it with a 400, before any store.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func nulInAnyStringFieldIsA400(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, devIdPs: true) { h in
            try await h.enableDevProviders()
            let created = try await h.signUp(email: "ada@example.com")
            let bodies: [(String, String)] = [
                (WirePaths.accounts("signUp"), #"{"email":"nul@example.com","password":"correct horse","displayName":"A\u0000B"}"#),
                (WirePaths.accounts("signInWithPassword"), #"{"email":"ada@example.com\u0000x","password":"correct horse"}"#),
                (WirePaths.accounts("update"), #"{"idToken":"\#(created.idToken!)","displayName":"x\u0000y"}"#),
                (WirePaths.accounts("signInWithIdp"), #"{"requestUri":"http://localhost/__/auth/handler?state=%00&code=c","postBody":"providerId=microsoft.com","sessionId":"ABCDEFGHIJ"}"#),
                (WirePaths.accounts("signInWithIdp"), #"{"requestUri":"http://localhost","postBody":"providerId=microsoft.com&id_token=a%00b"}"#),
                (WirePaths.accounts("createAuthUri"), #"{"identifier":"ada@example.com","continueUri":"http://localhost/\u0000"}"#),
            ]
            for (path, body) in bodies {
                let reply = try await h.post(path, raw: body)
                #expect(reply.status == 400, "\(path) \(body) → \(reply.status) \(reply.text)")
            }
            // A raw zero byte, a form body and a query.
            let raw = try await h.send(.post, WirePaths.accounts("signUp") + "?key=test-key", body: "{\"email\":\"a\u{0}@example.com\",\"password\":\"correct horse\"}")
            #expect(raw.status == 400)
            let form = try await h.send(.post, WirePaths.secureToken + "?key=test-key", body: "grant_type=refresh_token&refresh_token=abc%00def",
                                        contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 400)
            #expect(form.errorCode == "INVALID_ARGUMENT")
            let handler = try await Browser.get(h.baseURL + "/__/auth/handler?state=abc%00&code=x")
            #expect(handler.status == 400)
            // An escaped backslash before u0000 is text, not a NUL.
            let literal = try await h.post(WirePaths.accounts("signUp"), raw: #"{"email":"lit@example.com","password":"correct horse","displayName":"back\\u0000slash"}"#)
            #expect(literal.status == 200, "\(literal.text)")
            #expect(try await h.store.userCount() == 2)
            #expect(try await h.store.user(email: "ada@example.com")?.displayName == nil)
        }
    }

    // MARK: 11. Unicode look-alike emails

    /// The attack: a composed and a decomposed `rené@example.com` made two accounts. Emails are NFC and lower-case
    /// everywhere: one account, found by every spelling. On both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func composedAndDecomposedEmailsAreOneAccount(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let first = try await h.signUp(email: "ren\u{E9}@example.com", password: "correct horse")
            let twin = try await Self.signUp(h, SignUpRequest(email: "rene\u{301}@example.com", password: "another horse"))
            #expect(twin.errorCode == "EMAIL_EXISTS")
            let upper = try await Self.signUp(h, SignUpRequest(email: "RENE\u{301}@Example.com", password: "another horse"))
            #expect(upper.errorCode == "EMAIL_EXISTS")
            let signIn = try await h.signIn(email: "RENE\u{301}@EXAMPLE.COM", password: "correct horse")
            #expect(signIn.status == 200)
            #expect(try signIn.decode(SignInWithPasswordResponse.self).localId == first.localId)
            #expect(try await h.store.userCount() == 1)
        }
    }

    // MARK: 12. Email enumeration protection by default

    /// A new non-demo project has email enumeration protection on (as at Firebase): createAuthUri says nothing of
    /// registration and password errors do not tell unknown from wrong. The account-exists flow still works.
    @Test func enumerationProtectionIsOnForNewProjects() async throws {
        #expect(ProjectConfig(projectId: "acme-prod").emailEnumerationProtection)
        #expect(!ProjectConfig(projectId: "demo-hearth").emailEnumerationProtection)
        try await HearthHarness.run(configure: { $0.projectId = "acme-prod"; $0.apiKeys = ["test-key"] }, devIdPs: true) { h in
            try await h.enableDevProviders()
            try await h.store.saveApp(AppRegistration(id: "cli", kind: .desktop))
            #expect(try await h.scope.config().emailEnumerationProtection)
            _ = try await h.signUp(email: "ada@outlook.com", password: "correct horse")
            let known = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "ada@outlook.com", continueUri: "http://localhost"))
            let unknown = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "nobody@outlook.com", continueUri: "http://localhost"))
            #expect(known.json?["registered"] == nil && known.json?["signinMethods"] == nil)
            #expect(known.json?.keys.sorted() == unknown.json?.keys.sorted())
            let unknownError = try await h.signIn(email: "nobody@outlook.com").errorCode
            let wrongError = try await h.signIn(email: "ada@outlook.com", password: "wrong one").errorCode
            #expect(unknownError == "INVALID_LOGIN_CREDENTIALS" && wrongError == unknownError)
            // The seeds' account-exists flow: needConfirmation with a pending credential, password sign-in, link.
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", extra: [("appId", "cli")])
            let exists = try await h.signInWithIdp(flow, providerId: "microsoft.com").decode(SignInWithIdpResponse.self)
            #expect(exists.needConfirmation == true)
            let pending = try #require(exists.pendingToken)
            let password = try await h.signIn(email: "ada@outlook.com", password: "correct horse").decode(SignInWithPasswordResponse.self)
            let linked = try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: nil, sessionId: nil, pendingToken: pending, idToken: password.idToken,
                returnSecureToken: true))
            #expect(linked.status == 200, "\(linked.text)")
            #expect(try linked.decode(SignInWithIdpResponse.self).localId == password.localId)
        }
    }
}

extension HearthHarness.Reply {
    /// The reply's `idToken`, if it has one.
    var idToken: String? { json?["idToken"] as? String }
}
