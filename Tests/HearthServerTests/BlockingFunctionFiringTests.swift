import Foundation
import HTTPTypes
import HearthAdmin
import HearthCore
import HearthDevIdP
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Issue 39, items 3 and 4: the project's blocking functions at the two exits and on the mail path, against a real
/// server and a strict loopback function (``HookEndpoint``, which verifies every JWT against the server's published
/// keys): what an answer does (claims, session claims, a disabled flag, a refusal or a fault stopping the operation
/// with nothing written) and when each event fires (once, with the right `sign_in_method`, on every sign-in path).
@Suite struct BlockingFunctionFiringTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let signUpPath = WirePaths.accounts("signUp")

    /// A harness server (on `store`) and a hook endpoint for it; the server may call the loopback endpoint.
    static func run(store: HearthHarness.StoreChoice = .sqlite, devIdPs: Bool = false,
                    configure: @escaping @Sendable (inout HearthServerConfiguration) -> Void = { _ in },
                    _ body: @Sendable @escaping (HearthHarness, HookEndpoint) async throws -> Void) async throws {
        try await HearthHarness.run(store: store, configure: { configuration in
            configuration.blockingFunctions.development = true  // `--dev`: http to the loopback endpoint
            configure(&configuration)
        }, devIdPs: devIdPs) { h in
            if devIdPs { try await h.enableDevProviders() }
            try await h.withHookEndpoint { hooks in
                try await body(h, hooks)
                #expect(hooks.rejections.isEmpty, "the endpoint refused requests: \(hooks.rejections)")
            }
        }
    }

    /// Points the project's `events` at the endpoint (the admin API's `blockingFunctions`).
    static func install(_ h: HearthHarness, _ hooks: HookEndpoint, _ events: BlockingEventType..., forwardTokens: Bool = false) async throws {
        let triggers = events.map { #""\#($0.rawValue)":{"functionUri":"\#(hooks.url(for: $0))"}"# }.joined(separator: ",")
        let forward = forwardTokens ? #","forwardInboundCredentials":{"idToken":true,"accessToken":true,"refreshToken":true}"# : ""
        let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                                     body: #"{"blockingFunctions":{"triggers":{\#(triggers)}\#(forward)}}"#, headers: owner)
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// The events received, as `event:sign_in_method` (`beforeSendEmail:EMAIL_TYPE`), in order; then forgotten.
    static func take(_ hooks: HookEndpoint) -> [String] {
        let seen = hooks.events.map { event in
            "\(event.eventType.rawValue):\(event.emailType?.rawValue ?? event.signInMethod ?? "-")"
        }
        hooks.reset()
        return seen
    }

    static func claims(_ idToken: String?) -> [String: Any] { idToken.flatMap(jwtPayload) ?? [:] }

    static func signUp(_ h: HearthHarness, _ email: String) async throws -> HearthHarness.Reply {
        try await h.post(signUpPath, SignUpRequest(email: email, password: "correct horse"))
    }

    static func expectRefused(_ reply: HearthHarness.Reply, _ words: String? = nil, status: Int = 400,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(reply.text)", sourceLocation: sourceLocation)
        if let words { #expect(reply.text.contains(words), "\(reply.text)", sourceLocation: sourceLocation) }
        #expect(reply.json?["idToken"] == nil && reply.json?["refreshToken"] == nil, sourceLocation: sourceLocation)
    }

    // MARK: Item 3: the answer

    /// Issue 39, item 3: a refused sign-up stores nothing — refused by beforeCreate, or by the beforeSignIn that
    /// follows it — and the client gets BLOCKING_FUNCTION_ERROR_RESPONSE with the function's message.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aRefusedSignUpStoresNothing(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            let before = try await h.store.userCount()
            hooks.answer(.beforeCreate, with: .refuse("only acme.com addresses may sign up"))
            Self.expectRefused(try await Self.signUp(h, "eve@evil.example"), "only acme.com addresses may sign up")
            #expect(try await h.store.user(email: "eve@evil.example") == nil)
            #expect(try await h.store.userCount() == before)
            // beforeSignIn is not asked about a user that will not be created.
            #expect(Self.take(hooks) == ["beforeCreate:password"])

            hooks.answer(.beforeCreate, with: .allow)
            hooks.answer(.beforeSignIn, with: .refuse("not today"))
            Self.expectRefused(try await Self.signUp(h, "eve@evil.example"), "not today")
            #expect(try await h.store.user(email: "eve@evil.example") == nil)
            #expect(try await h.store.userCount() == before)
            #expect(Self.take(hooks) == ["beforeCreate:password", "beforeSignIn:password"])

            // The same address signs up once the function allows it.
            hooks.answer(.beforeSignIn, with: .allow)
            #expect(try await Self.signUp(h, "eve@evil.example").status == 200)
            #expect(try await h.store.userCount() == before + 1)
        }
    }

    /// Issue 39, item 3: what beforeCreate sets (custom claims, a display name) is stored with the new user and in its
    /// first ID token; beforeSignIn (after it) sees those changes.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func claimsAddedAtCreationAreInTheTokenAndStored(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            hooks.answer(.beforeCreate, with: .update(BlockingFunctionResponse(displayName: "Ada L.", customClaims: ["role": .string("admin"), "level": .number(3)])))
            let reply = try await Self.signUp(h, "ada@acme.example")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignUpResponse.self)
            let token = Self.claims(body.idToken)
            #expect(token["role"] as? String == "admin")
            #expect(token["level"] as? Int == 3)
            #expect(token["name"] as? String == "Ada L.")
            #expect(body.displayName == "Ada L.")
            let stored = try #require(try await h.store.user(localId: body.localId))
            #expect(stored.customClaims == ["role": .string("admin"), "level": .number(3)])
            #expect(stored.displayName == "Ada L.")
            // beforeSignIn saw the user as beforeCreate left it.
            let signIn = try #require(hooks.events(.beforeSignIn).first)
            #expect(signIn.user?.customClaims?["role"] == .string("admin"))
            #expect(signIn.user?.displayName == "Ada L.")
            #expect(signIn.user?.uid == body.localId)
            // A refreshed token and a later sign-in keep them (they are the user's).
            let refreshed = try await h.refresh(try #require(body.refreshToken)).decode(GrantTokenResponse.self)
            #expect(Self.claims(refreshed.idToken)["role"] as? String == "admin")
            let again = try await h.signIn(email: "ada@acme.example").decode(SignInWithPasswordResponse.self)
            #expect(Self.claims(again.idToken)["role"] as? String == "admin")
        }
    }

    /// Issue 39, item 3: session claims go into this sign-in's tokens only — over a custom claim of the same name,
    /// never stored, kept by refresh, gone at the next sign-in; beforeCreate may not set them.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func sessionClaimsStayInTheSessionAndSurviveRefresh(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let ada = try await h.signUp(email: "ada@acme.example")
            var user = try #require(try await h.store.user(localId: ada.localId))
            user.customClaims = ["tier": .string("gold")]
            try await h.store.updateUser(user)
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            hooks.answerNext(.beforeSignIn, with: .sessionClaims(["tier": .string("platinum"), "risk": .string("low")]))
            let signedIn = try await h.signIn(email: "ada@acme.example").decode(SignInWithPasswordResponse.self)
            let token = Self.claims(signedIn.idToken)
            #expect(token["tier"] as? String == "platinum")
            #expect(token["risk"] as? String == "low")
            let stored = try #require(try await h.store.user(localId: ada.localId))
            #expect(stored.customClaims == ["tier": .string("gold")])
            let refreshed = try await h.refresh(try #require(signedIn.refreshToken)).decode(GrantTokenResponse.self)
            #expect(Self.claims(refreshed.idToken)["tier"] as? String == "platinum")
            #expect(Self.claims(refreshed.idToken)["risk"] as? String == "low")
            #expect(Self.claims(refreshed.idToken)["sub"] as? String == ada.localId)
            // The next sign-in is another session: the function said nothing this time.
            let next = try await h.signIn(email: "ada@acme.example").decode(SignInWithPasswordResponse.self)
            #expect(Self.claims(next.idToken)["tier"] as? String == "gold")
            #expect(Self.claims(next.idToken)["risk"] == nil)
            // The beforeSignIn of a new user puts its session claims into the first session too.
            hooks.answerNext(.beforeSignIn, with: .sessionClaims(["welcome": .bool(true)]))
            let bob = try await Self.signUp(h, "bob@acme.example").decode(SignUpResponse.self)
            #expect(Self.claims(bob.idToken)["welcome"] as? Bool == true)
            let bobRefreshed = try await h.refresh(try #require(bob.refreshToken)).decode(GrantTokenResponse.self)
            #expect(Self.claims(bobRefreshed.idToken)["welcome"] as? Bool == true)
            #expect(try await h.store.user(localId: bob.localId)?.customClaims.isEmpty == true)
            // Session claims from beforeCreate are refused (Firebase: beforeSignIn only), and nothing is created.
            hooks.answerNext(.beforeCreate, with: .json(#"{"userRecord":{"updateMask":"sessionClaims","sessionClaims":{"x":1}}}"#))
            Self.expectRefused(try await Self.signUp(h, "carol@acme.example"))
            #expect(try await h.store.user(email: "carol@acme.example") == nil)
        }
    }

    /// Issue 39, item 3: `disabled: true` is stored and the sign-in refused with USER_DISABLED (no session): on a
    /// returning user's sign-in, and at creation (the user is created disabled and not signed in).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aDisablingAnswerIsStoredAndRefusesTheSignIn(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let ada = try await h.signUp(email: "ada@acme.example")
            let lastLogin = try #require(try await h.store.user(localId: ada.localId)?.lastLoginAt)
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            h.clock.advance(by: 5)
            hooks.answerNext(.beforeSignIn, with: .disable)
            let refused = try await h.signIn(email: "ada@acme.example")
            #expect(refused.errorCode == "USER_DISABLED", "\(refused.text)")
            let stored = try #require(try await h.store.user(localId: ada.localId))
            #expect(stored.disabled)
            #expect(stored.lastLoginAt == lastLogin)
            // The account's earlier session ends with it.
            #expect(try await h.refresh(try #require(ada.refreshToken)).errorCode == "USER_DISABLED")
            #expect(Self.take(hooks) == ["beforeSignIn:password"])
            // Disabled, the user is refused before any function is asked.
            #expect(try await h.signIn(email: "ada@acme.example").errorCode == "USER_DISABLED")
            #expect(Self.take(hooks).isEmpty)

            // At creation: stored disabled, USER_DISABLED, and no beforeSignIn for a user that cannot sign in.
            hooks.answerNext(.beforeCreate, with: .disable)
            let created = try await Self.signUp(h, "bob@acme.example")
            #expect(created.errorCode == "USER_DISABLED", "\(created.text)")
            #expect(try await h.store.user(email: "bob@acme.example")?.disabled == true)
            #expect(Self.take(hooks) == ["beforeCreate:password"])
            // The beforeSignIn of a new user may disable it too.
            hooks.answerNext(.beforeSignIn, with: .disable)
            #expect(try await Self.signUp(h, "carol@acme.example").errorCode == "USER_DISABLED")
            #expect(try await h.store.user(email: "carol@acme.example")?.disabled == true)
        }
    }

    /// Issue 39, item 3: a function that answers 500, garbage, an oversized answer, claims over the size limit or a
    /// reserved claim name stops the sign-up or sign-in: BLOCKING_FUNCTION_ERROR_RESPONSE, nothing created, nothing
    /// recorded for the returning user.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aFaultyFunctionStopsTheOperationWithNothingWritten(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let ada = try await h.signUp(email: "ada@acme.example")
            let before = try #require(try await h.store.user(localId: ada.localId))
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            h.clock.advance(by: 5)
            let faults: [(String, HookEndpoint.Reply)] = [
                ("500", .serverError),
                ("garbage", .garbage),
                ("oversized", .oversized(bytes: 70_000)),
                ("large claims", .json(#"{"userRecord":{"updateMask":"customClaims","customClaims":{"blob":"\#(String(repeating: "x", count: 1001))"}}}"#)),
                ("reserved claim", .json(#"{"userRecord":{"updateMask":"customClaims","customClaims":{"iss":"https://evil.example"}}}"#)),
                ("reserved firebase", .json(#"{"userRecord":{"updateMask":"sessionClaims","sessionClaims":{"firebase":{"sign_in_provider":"custom"}}}}"#)),
                ("redirect", .redirect(to: "https://example.com/elsewhere", status: 307)),
            ]
            for (name, fault) in faults {
                hooks.answerNext(.beforeCreate, with: fault)
                let email = "new-\(name.replacingOccurrences(of: " ", with: "-"))@acme.example"
                let created = try await Self.signUp(h, email)
                #expect(created.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(name): \(created.text)")
                #expect(try await h.store.user(email: email) == nil, "\(name)")
                hooks.answerNext(.beforeSignIn, with: fault)
                let signedIn = try await h.signIn(email: "ada@acme.example")
                #expect(signedIn.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(name): \(signedIn.text)")
                #expect(signedIn.json?["idToken"] == nil)
            }
            let after = try #require(try await h.store.user(localId: ada.localId))
            #expect(after.lastLoginAt == before.lastLoginAt)
            #expect(after.customClaims.isEmpty)
            #expect(after.version == before.version)
        }
    }

    /// Issue 39, item 3: a function that does not answer within the deadline fails the sign-up (nothing created)
    /// and the sign-in with a message naming the function and the deadline.
    @Test func aFunctionThatTimesOutStopsTheOperation() async throws {
        try await Self.run(configure: { $0.blockingFunctions.deadline = .seconds(1) }) { h, hooks in
            _ = try await h.signUp(email: "ada@acme.example")
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            hooks.answerNext(.beforeCreate, with: .sleep(5))
            let created = try await Self.signUp(h, "slow@acme.example")
            Self.expectRefused(created, "did not answer within 1 second", status: 503)
            #expect(created.text.contains("beforeCreate"), "\(created.text)")
            #expect(try await h.store.user(email: "slow@acme.example") == nil)
            hooks.answerNext(.beforeSignIn, with: .sleep(5))
            Self.expectRefused(try await h.signIn(email: "ada@acme.example"), "did not answer within 1 second", status: 503)
        }
    }

    // MARK: Item 4: when they fire

    /// Issue 39, item 4: password sign-up fires beforeCreate then beforeSignIn once each, a password sign-in (or a
    /// reauthentication, which is one) beforeSignIn once; anonymous sign-up, custom tokens and refresh fire nothing;
    /// the event carries the uid, the project's issuer and the request's facts.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func passwordAnonymousCustomTokenAndRefresh(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let account = try TestServiceAccount()
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn, .beforeSendEmail)
            let ada = try await Self.signUp(h, "ada@acme.example").decode(SignUpResponse.self)
            #expect(Self.take(hooks) == ["beforeCreate:password", "beforeSignIn:password"])
            let signedIn = try await h.signIn(email: "ada@acme.example").decode(SignInWithPasswordResponse.self)
            let events = hooks.events
            #expect(Self.take(hooks) == ["beforeSignIn:password"])
            #expect(events.first?.user?.uid == ada.localId)
            #expect(events.first?.claims.sub == ada.localId)
            #expect(events.first?.claims.iss == "https://securetoken.google.com/\(h.projectId)")
            #expect(events.first?.ipAddress == "127.0.0.1")
            _ = try await h.refresh(try #require(signedIn.refreshToken)).decode(GrantTokenResponse.self)
            #expect(try await h.post(Self.signUpPath, raw: "{}").status == 200)  // anonymous
            let token = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "app-user-1", issuedAt: h.clock.now))
            let custom = WirePaths.accounts("signInWithCustomToken")
            #expect(try await h.post(custom, SignInWithCustomTokenRequest(token: token)).status == 200)  // created
            #expect(try await h.post(custom, SignInWithCustomTokenRequest(token: token)).status == 200)  // signed in
            #expect(Self.take(hooks).isEmpty)
        }
    }

    /// Issue 39, item 4: an email-link sign-in fires beforeCreate + beforeSignIn for a new user and beforeSignIn for
    /// a returning one, with sign_in_method `emailLink`; sending the link fires beforeSendEmail (EMAIL_SIGN_IN).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func emailLinkNewAndReturning(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn, .beforeSendEmail)
            func signIn() async throws -> SignInWithEmailLinkResponse {
                _ = try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@acme.example"))
                let code = try EmailActionTests.lastCode(h, .emailSignIn).oobCode
                let reply = try await h.post(EmailActionTests.linkPath, SignInWithEmailLinkRequest(email: "ada@acme.example", oobCode: code))
                #expect(reply.status == 200, "\(reply.text)")
                return try reply.decode()
            }
            #expect(try await signIn().isNewUser)
            #expect(Self.take(hooks) == ["beforeSendEmail:EMAIL_SIGN_IN", "beforeCreate:emailLink", "beforeSignIn:emailLink"])
            #expect(try await signIn().isNewUser == false)
            #expect(Self.take(hooks) == ["beforeSendEmail:EMAIL_SIGN_IN", "beforeSignIn:emailLink"])
        }
    }

    /// Issue 39, item 4: federated sign-ins through the dev IdPs — the web auth handler's path and the native
    /// `signInWithIdp` with an `id_token` — fire beforeCreate + beforeSignIn for a new user and beforeSignIn for a
    /// returning one (sign_in_method the provider, its profile as raw_user_info); a reauthentication fires
    /// beforeSignIn; linking a provider fires beforeSignIn, and a refused link links nothing.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func federatedWebNativeReauthAndLink(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store, devIdPs: true) { h, hooks in
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn, forwardTokens: true)
            // The web path: the auth handler, the provider's form, signInWithIdp with the requestUri.
            let web = try await h.federatedSignIn(providerId: "microsoft.com", email: "web@contoso.com", name: "Web User")
            #expect(web.status == 200, "\(web.text)")
            let webUser = try web.decode(SignInWithIdpResponse.self)
            #expect(webUser.isNewUser == true)
            let created = hooks.events
            #expect(Self.take(hooks) == ["beforeCreate:microsoft.com", "beforeSignIn:microsoft.com"])
            #expect(created.first?.additionalUserInfo.providerId == "microsoft.com")
            #expect(created.first?.claims.rawUserInfo?.contains("web@contoso.com") == true)
            #expect(created.first?.additionalUserInfo.isNewUser == true)
            // The provider's tokens, forwarded as the configuration allows.
            #expect(created.first?.credential?.idToken?.isEmpty == false)
            #expect(created.first?.credential?.accessToken?.isEmpty == false)
            let again = try await h.federatedSignIn(providerId: "microsoft.com", email: "web@contoso.com")
            #expect(try again.decode(SignInWithIdpResponse.self).isNewUser == false)
            #expect(Self.take(hooks) == ["beforeSignIn:microsoft.com"])

            // The native path: an ID token the app obtained itself.
            func native(_ email: String, idToken: String? = nil, autoCreate: Bool? = nil) async throws -> HearthHarness.Reply {
                let raw = RandomID.token(byteCount: 16)
                let tokens = try await h.nativeProviderTokens(.yahoo, email: email, nonce: NativeIDTokenTests.sha256Hex(raw))
                return try await NativeIDTokenTests.signIn(h, providerId: "yahoo.com", postBody: [("id_token", tokens.idToken), ("nonce", raw)],
                                                           idToken: idToken, autoCreate: autoCreate)
            }
            let nativeNew = try await native("app@yahoo.example")
            #expect(try nativeNew.decode(SignInWithIdpResponse.self).isNewUser == true, "\(nativeNew.text)")
            #expect(hooks.events.first?.claims.rawUserInfo?.contains("app@yahoo.example") == true)
            #expect(hooks.events.first?.credential?.idToken?.isEmpty == false)
            #expect(Self.take(hooks) == ["beforeCreate:yahoo.com", "beforeSignIn:yahoo.com"])
            #expect(try await native("app@yahoo.example").decode(SignInWithIdpResponse.self).isNewUser == false)
            #expect(Self.take(hooks) == ["beforeSignIn:yahoo.com"])

            // Reauthentication (autoCreate false, as the SDKs' reauthenticateWithPopup/Credential send it).
            let reauth = try await h.federatedSignIn(providerId: "microsoft.com", email: "web@contoso.com", autoCreate: false)
            #expect(reauth.status == 200, "\(reauth.text)")
            #expect(Self.take(hooks) == ["beforeSignIn:microsoft.com"])

            // Linking a provider to a signed-in password user: refused first (nothing linked), then allowed.
            let ada = try await h.signUp(email: "ada@acme.example")
            #expect(Self.take(hooks) == ["beforeCreate:password", "beforeSignIn:password"])
            hooks.answerNext(.beforeSignIn, with: .refuse("no links on Fridays"))
            let refused = try await native("ada.link@yahoo.example", idToken: ada.idToken)
            Self.expectRefused(refused, "no links on Fridays")
            #expect(try await h.store.user(localId: ada.localId)?.identities.isEmpty == true)
            #expect(Self.take(hooks) == ["beforeSignIn:yahoo.com"])
            hooks.answerNext(.beforeSignIn, with: .update(BlockingFunctionResponse(customClaims: ["linked": .bool(true)], sessionClaims: ["via": .string("yahoo")])))
            let linked = try await native("ada.link@yahoo.example", idToken: ada.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            let linkEvent = try #require(hooks.events.first)
            #expect(Self.take(hooks) == ["beforeSignIn:yahoo.com"])
            // The function saw the account with the identity being linked.
            #expect(linkEvent.user?.uid == ada.localId)
            #expect(linkEvent.user?.providerData.contains { $0.providerId == "yahoo.com" } == true)
            let stored = try #require(try await h.store.user(localId: ada.localId))
            #expect(stored.identities.map(\.providerId) == ["yahoo.com"])
            #expect(stored.customClaims == ["linked": .bool(true)])
            let token = Self.claims(try linked.decode(SignInWithIdpResponse.self).idToken)
            #expect(token["linked"] as? Bool == true && token["via"] as? String == "yahoo")
            // The session goes on: its sign-in time stays.
            #expect(token["auth_time"] as? Int == Self.claims(ada.idToken)["auth_time"] as? Int)
        }
    }

    /// Issue 39, item 4: a passkey sign-in fires beforeSignIn once (sign_in_method `passkey`); enrolling it fires
    /// nothing.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func passkeySignIn(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await PasskeyTests.enablePasskeys(h)
            let ada = try await h.signUp(email: "ada@acme.example")
            var laptop = SoftwarePasskey()
            _ = try await PasskeyTests.enroll(h, ada.idToken, &laptop)
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            let assertion = try laptop.assert(try await PasskeyTests.signInOptions(h), origin: h.baseURL)
            hooks.answerNext(.beforeSignIn, with: .sessionClaims(["device": .string("laptop")]))
            let reply = try await PasskeyTests.finalizeSignIn(h, assertion)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.claims(try reply.decode(PasskeySessionResponse.self).idToken)["device"] as? String == "laptop")
            #expect(Self.take(hooks) == ["beforeSignIn:passkey"])
            hooks.answerNext(.beforeSignIn, with: .refuse("passkeys are off today"))
            Self.expectRefused(try await PasskeyTests.finalizeSignIn(h, try laptop.assert(try await PasskeyTests.signInOptions(h), origin: h.baseURL)))
        }
    }

    /// Issue 39, item 4: with a TOTP second factor, beforeSignIn fires after the second factor (once, with the
    /// first factor's method), not at the first; a refusal there gives no session.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theSecondFactorFiresAfterItNotAtTheFirst(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await MultiFactorTests.enableTOTP(h)
            let ada = try await MultiFactorTests.verifiedUser(h, "ada@acme.example")
            let signedIn = try await h.signIn(email: "ada@acme.example").decode(SignInWithPasswordResponse.self)
            _ = ada
            let enrolled = try await MultiFactorTests.enroll(h, idToken: try #require(signedIn.idToken))
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            h.clock.advance(by: 31)
            let pending = try await MultiFactorTests.pendingPasswordSignIn(h, "ada@acme.example", factor: enrolled.enrollmentId)
            #expect(Self.take(hooks).isEmpty)
            hooks.answerNext(.beforeSignIn, with: .sessionClaims(["mfa": .string("yes")]))
            let finished = try await MultiFactorTests.finalize(h, pending, enrolled.enrollmentId, code: enrolled.generator.code(at: h.clock.now))
            #expect(finished.status == 200, "\(finished.text)")
            let token = Self.claims(try finished.decode(FinalizeMFASignInResponse.self).idToken)
            #expect(token["mfa"] as? String == "yes")
            #expect((token["firebase"] as? [String: Any])?["sign_in_second_factor"] as? String == "totp")
            #expect(hooks.events.first?.claims.signInSecondFactor == "totp")
            #expect(Self.take(hooks) == ["beforeSignIn:password"])

            h.clock.advance(by: 31)
            let again = try await MultiFactorTests.pendingPasswordSignIn(h, "ada@acme.example", factor: enrolled.enrollmentId)
            hooks.answerNext(.beforeSignIn, with: .refuse("second thoughts"))
            Self.expectRefused(try await MultiFactorTests.finalize(h, again, enrolled.enrollmentId, code: enrolled.generator.code(at: h.clock.now)),
                               "second thoughts")
            #expect(Self.take(hooks) == ["beforeSignIn:password"])
        }
    }

    /// Issue 39, item 4: beforeSendEmail fires before every email action message (password reset, verification,
    /// sign-in link, verify-and-change, and the recover-email notice), with the email type and the recipient; a
    /// refusal fails sendOobCode with BLOCKING_FUNCTION_ERROR_RESPONSE and sends nothing.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func beforeSendEmailForEachActionAndARefusalSendsNothing(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let ada = try await h.signUp(email: "ada@acme.example")
            try await Self.install(h, hooks, .beforeSendEmail)
            let mailbox = try #require(h.server.emailActions.mailer.devMailbox)
            // A refusal: no code, no mail.
            hooks.answer(.beforeSendEmail, with: .refuse("mail goes through our own service"))
            for request in [SendOobCodeRequest(requestType: .passwordReset, email: "ada@acme.example"),
                            SendOobCodeRequest(requestType: .verifyEmail, idToken: ada.idToken),
                            SendOobCodeRequest(requestType: .emailSignIn, email: "ada@acme.example"),
                            SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: "ada2@acme.example", idToken: ada.idToken)] {
                let reply = try await EmailActionTests.send(h, request)
                Self.expectRefused(reply, "mail goes through our own service")
            }
            #expect(mailbox.messages.isEmpty)
            #expect(Self.take(hooks) == ["beforeSendEmail:PASSWORD_RESET", "beforeSendEmail:VERIFY_EMAIL", "beforeSendEmail:EMAIL_SIGN_IN",
                                         "beforeSendEmail:VERIFY_AND_CHANGE_EMAIL"])

            // Allowed: each message is sent, after its event.
            hooks.answer(.beforeSendEmail, with: .allow)
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@acme.example")).status == 200)
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .verifyEmail, idToken: ada.idToken)).status == 200)
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@acme.example")).status == 200)
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: "ada2@acme.example",
                                                                          idToken: ada.idToken)).status == 200)
            #expect(mailbox.messages.count == 4)
            let events = hooks.events
            #expect(Self.take(hooks) == ["beforeSendEmail:PASSWORD_RESET", "beforeSendEmail:VERIFY_EMAIL", "beforeSendEmail:EMAIL_SIGN_IN",
                                         "beforeSendEmail:VERIFY_AND_CHANGE_EMAIL"])
            #expect(events.map(\.email) == ["ada@acme.example", "ada@acme.example", "ada@acme.example", "ada2@acme.example"])
            // Applying the change sends the old address its undo link: RECOVER_EMAIL.
            h.clock.advance(by: 2)
            var apply = UpdateRequest(idToken: nil, returnSecureToken: nil)
            apply.oobCode = try EmailActionTests.lastCode(h, .verifyAndChangeEmail).oobCode
            #expect(try await h.post(EmailActionTests.updatePath, apply).status == 200)
            #expect(Self.take(hooks) == ["beforeSendEmail:RECOVER_EMAIL"])
            #expect(mailbox.messages.count == 5)
            // A link the administrator asks for (returnOobLink) sends no mail: no event.
            let link = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "sendOobCode"),
                                        body: #"{"requestType":"PASSWORD_RESET","email":"ada2@acme.example","returnOobLink":true}"#, headers: Self.owner)
            #expect(link.status == 200, "\(link.text)")
            #expect(Self.take(hooks).isEmpty)
        }
    }
    /// Issue 39, item 4: with email enumeration protection, a password reset is answered before its mail is made (a
    /// known address must not answer differently from an unknown one): beforeSendEmail is still asked before the
    /// code is made, and its refusal sends nothing while the answer stays the one every address gets.
    @Test func withEnumerationProtectionARefusedResetSendsNothingAndAnswersAlike() async throws {
        try await Self.run(configure: { $0.initialProjectConfig = ProjectConfig(projectId: "demo-hearth", emailEnumerationProtection: true) }) { h, hooks in
            _ = try await h.signUp(email: "ada@acme.example")
            try await Self.install(h, hooks, .beforeSendEmail)
            hooks.answer(.beforeSendEmail, with: .refuse("no resets"))
            let refused = try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@acme.example"))
            #expect(refused.status == 200, "\(refused.text)")
            await h.server.emailActions.settle()
            #expect(h.server.emailActions.mailer.devMailbox?.messages.isEmpty == true)
            #expect(Self.take(hooks) == ["beforeSendEmail:PASSWORD_RESET"])
            hooks.answer(.beforeSendEmail, with: .allow)
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@acme.example")).status == 200)
            await h.server.emailActions.settle()
            #expect(h.server.emailActions.mailer.devMailbox?.messages.count == 1)
        }
    }
    /// Issue 39, item 4: an administrator's create and an import fire nothing (as the Auth emulator: privileged
    /// sign-up and accounts:batchCreate), even with every function configured to refuse.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func administratorCreationAndImportFireNothing(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn, .beforeSendEmail)
            hooks.answerAll(with: .refuse("nobody"))
            let users = WirePaths.adminAccounts(projectId: h.projectId)
            let created = try await h.send(.post, users, body: #"{"localId":"made-by-admin","email":"admin-made@acme.example","password":"secret12"}"#,
                                           headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            let imported = try await h.send(.post, users + ":batchCreate", body: #"{"users":[{"localId":"imported-1","email":"imported@acme.example"}]}"#,
                                            headers: Self.owner)
            #expect(imported.status == 200, "\(imported.text)")
            #expect(try await h.store.user(localId: "made-by-admin") != nil)
            #expect(try await h.store.user(localId: "imported-1") != nil)
            #expect(Self.take(hooks).isEmpty)
            // The administrator's user signing in is an ordinary sign-in: the function decides.
            Self.expectRefused(try await h.signIn(email: "admin-made@acme.example", password: "secret12"), "nobody")
        }
    }
    /// Issue 39, item 4: a tenant's users go through the project's functions (as at Identity Platform), the event
    /// naming the tenant; the tenant's new user is refused or changed like the project's.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsUsersGoThroughTheProjectsFunctions(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await TenantTests.addTenant(h, "acme-x1y2z")
            try await Self.install(h, hooks, .beforeCreate, .beforeSignIn)
            hooks.answer(.beforeCreate, with: .customClaims(["org": .string("acme")]))
            let created = try await TenantTests.signUp(h, "ada@acme.example", tenant: "acme-x1y2z")
            #expect(TenantTests.tenantClaim(created.idToken) == "acme-x1y2z")
            #expect(Self.claims(created.idToken)["org"] as? String == "acme")
            let events = hooks.events
            #expect(Self.take(hooks) == ["beforeCreate:password", "beforeSignIn:password"])
            #expect(events.allSatisfy { $0.tenantId == "acme-x1y2z" && $0.user?.tenantId == "acme-x1y2z" })
            hooks.answer(.beforeCreate, with: .refuse("tenant full"))
            var request = SignUpRequest(email: "bob@acme.example", password: "correct horse")
            request.tenantId = "acme-x1y2z"
            Self.expectRefused(try await h.post(Self.signUpPath, request), "tenant full")
            #expect(try await h.server.accounts.scopes.resolve(tenantId: "acme-x1y2z").store.user(email: "bob@acme.example") == nil)
        }
    }
}
