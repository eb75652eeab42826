import Foundation
import HearthCore
import HearthDevIdP
import HearthOIDC
import HearthTesting
import HearthWire
import Testing

/// Each relying-party check, shown refusing the attack it exists for.
@Suite struct FederatedAttackTests {
    /// Runs a Microsoft or Yahoo sign-in whose provider misbehaves as told; returns signInWithIdp's reply.
    func signInWithMisbehaving(_ provider: DevIdentityProviders.Provider, email: String = "ada@outlook.com",
                               customParameters: [String: String]? = nil,
                               _ misbehavior: DevMisbehavior) async throws -> HearthHarness.Reply? {
        try await HearthHarness.run(devIdPs: true) { h in
            await h.devIdPs!.setMisbehavior(provider, misbehavior)
            let providerId = provider == .microsoft ? "microsoft.com" : "yahoo.com"
            let flow = try await h.browserSignIn(providerId: providerId, email: email, customParameters: customParameters)
            let result = try await h.signInWithIdp(flow, providerId: providerId)
            #expect(try await h.store.userCount() == 0, "no account may be created by a refused sign-in")
            return result
        }
    }

    func expectRefused(_ reply: HearthHarness.Reply?, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply?.status == 400, "\(reply?.text ?? "")", sourceLocation: sourceLocation)
        #expect(reply?.errorCode == "INVALID_IDP_RESPONSE", sourceLocation: sourceLocation)
        #expect(reply?.envelope?.error.message.contains(text) == true, "\(reply?.text ?? "")", sourceLocation: sourceLocation)
    }

    @Test func wrongNonce() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["nonce"] = .string("attacker-nonce") }
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "nonce")
    }

    @Test func missingNonce() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["nonce"] = nil }
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "nonce")
    }

    @Test func wrongAudience() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["aud"] = .string("another-apps-client-id") }
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "another client")
    }

    @Test func severalAudiencesWithoutAuthorizedParty() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { claims in claims["aud"] = .array([claims["aud"]!, .string("other")]) }
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "authorized party")
    }

    @Test func wrongIssuer() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["iss"] = .string("https://evil.example.com") }
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "issuer")
    }

    @Test func microsoftIssuerOfAnotherTenantThanTid() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["tid"] = .string("11111111-2222-3333-4444-555555555555") }
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "issuer")
    }

    @Test func microsoftTokenOfAnotherTenantThanRequested() async throws {
        // The app asked for contoso.com; the provider answers with a consistent token of another tenant.
        var m = DevMisbehavior()
        m.mutateClaims = { claims in
            let other = "11111111-2222-3333-4444-555555555555"
            claims["tid"] = .string(other)
            if let issuer = claims["iss"]?.stringValue, let range = issuer.range(of: #"/[0-9a-f-]{36}/v2.0$"#, options: .regularExpression) {
                claims["iss"] = .string(issuer.replacingCharacters(in: range, with: "/\(other)/v2.0"))
            }
        }
        expectRefused(try await signInWithMisbehaving(.microsoft, email: "grace@contoso.com", customParameters: ["tenant": "contoso.com"], m), containing: "issuer")
    }

    @Test func microsoftOrganizationsRefusesConsumerTenant() async throws {
        // `organizations` must not accept a personal (consumer tenant) token even if the provider sends one.
        var m = DevMisbehavior()
        m.mutateClaims = { claims in
            let consumers = "9188040d-6c67-4c5b-b112-36a304b66dad"
            claims["tid"] = .string(consumers)
            if let issuer = claims["iss"]?.stringValue, let range = issuer.range(of: #"/[0-9a-f-]{36}/v2.0$"#, options: .regularExpression) {
                claims["iss"] = .string(issuer.replacingCharacters(in: range, with: "/\(consumers)/v2.0"))
            }
        }
        expectRefused(try await signInWithMisbehaving(.microsoft, email: "grace@contoso.com", customParameters: ["tenant": "organizations"], m), containing: "not allowed")
    }

    @Test func badSignature() async throws {
        var m = DevMisbehavior()
        m.corruptSignature = true
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "signature")
    }

    @Test func badES256Signature() async throws {
        var m = DevMisbehavior()
        m.corruptSignature = true
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "signature")
    }

    @Test func algNone() async throws {
        var m = DevMisbehavior()
        m.unsignedTokens = true
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "algorithm none is not accepted")
    }

    @Test func keyTheProviderNeverPublished() async throws {
        var m = DevMisbehavior()
        m.signWithUnpublishedKey = true
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "does not publish")
    }

    @Test func expiredIDToken() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { claims in
            claims["iat"] = .number(Date().timeIntervalSince1970 - 7200)
            claims["exp"] = .number(Date().timeIntervalSince1970 - 3600)
        }
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "expired")
    }

    @Test func userInfoSubjectMismatch() async throws {
        var m = DevMisbehavior()
        m.profileSubject = "SOMEONEELSE0000000000000000"
        expectRefused(try await signInWithMisbehaving(.yahoo, email: "ada@yahoo.com", m), containing: "UserInfo subject")
    }

    @Test func graphProfileOfAnotherAccount() async throws {
        var m = DevMisbehavior()
        m.profileSubject = "ffffffffffffffff"
        expectRefused(try await signInWithMisbehaving(.microsoft, m), containing: "Graph profile")
    }

    @Test func providerRotatedKeysIsFineThanksToRefetch() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com").status == 200)
            try await h.devIdPs!.rotateKeys(.microsoft)
            // The cached key set lacks the new kid: Hearth refetches once and accepts.
            let after = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            #expect(after.status == 200, "\(after.text)")
        }
    }

    @Test func forgedAndReplayedState() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // A callback with a state Hearth never issued: an error page, no redirect.
            let forged = try await Browser.get(h.baseURL + "/__/auth/handler?code=abc&state=forged-state")
            #expect(forged.status == 400)
            #expect(forged.location == nil)
            #expect(forged.body.contains("Unknown sign-in"))
            // The same callback twice: the second gets an error page, no redirect.
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let callback = try #require(flow.callbackURL)
            let replay = try await Browser.get(callback)
            #expect(replay.status == 400)
            #expect(replay.location == nil)
            // signInWithIdp with a state that was never issued.
            let fake = try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
                requestUri: h.baseURL + "/__/auth/handler?code=abc&state=forged-state", postBody: "providerId=microsoft.com", sessionId: flow.rawSessionId))
            #expect(fake.errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    @Test func replayedLinkAndReplayedCode() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let first = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            #expect(try await h.signInWithIdp(first, providerId: "microsoft.com").status == 200)
            // The same link again: the session was consumed.
            let again = try await h.signInWithIdp(first, providerId: "microsoft.com")
            #expect(again.errorCode == "INVALID_IDP_RESPONSE")
            #expect(again.envelope?.error.message.contains("already completed") == true)
            // The old code inside a fresh sign-in session: the provider refuses the redeemed code.
            let second = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let oldCode = try #require(Browser.query(first.link!, "code"))
            let newState = try #require(Browser.query(second.link!, "state"))
            var spliced = second
            spliced.link = h.baseURL + "/__/auth/handler?code=\(FormEncoding.escape(oldCode))&state=\(FormEncoding.escape(newState))"
            let replayed = try await h.signInWithIdp(spliced, providerId: "microsoft.com")
            #expect(replayed.errorCode == "INVALID_IDP_RESPONSE")
            #expect(replayed.envelope?.error.message.contains("AADSTS54005") == true, "\(replayed.text)")
        }
    }

    @Test func interceptedCodeIsUselessWithoutTheVerifier() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let code = try #require(Browser.query(flow.link!, "code"))
            let dev = h.devIdPs!
            // Even with the client secret, redeeming the code without the PKCE verifier fails.
            let page = try await Browser.post(dev.microsoftBase + "/common/oauth2/v2.0/token", form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", h.baseURL + "/__/auth/handler"),
                ("client_id", dev.microsoftClient.id), ("client_secret", dev.microsoftClient.secret),
            ])
            #expect(page.status == 400)
            #expect(page.body.contains("AADSTS501481"))
        }
    }

    @Test func wrongSessionIdBurnsTheSession() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "ada@yahoo.com")
            let wrong = try await h.signInWithIdp(flow, providerId: "yahoo.com", sessionId: "ZZZZZZZZZZ")
            #expect(wrong.errorCode == "INVALID_IDP_RESPONSE")
            #expect(wrong.envelope?.error.message.contains("sessionId") == true)
            // Whoever stole the link cannot try again, and neither can the rightful app: start over.
            #expect(try await h.signInWithIdp(flow, providerId: "yahoo.com").errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func expiredSession() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "ada@yahoo.com")
            h.clock.advance(by: 601)
            let reply = try await h.signInWithIdp(flow, providerId: "yahoo.com")
            #expect(reply.envelope?.error.message.contains("expired") == true)
        }
    }

    @Test func mixUpAnotherProvidersSession() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let reply = try await h.signInWithIdp(flow, providerId: "yahoo.com")
            #expect(reply.errorCode == "INVALID_IDP_RESPONSE")
            #expect(reply.envelope?.error.message.contains("another provider") == true)
        }
    }

    @Test func reservedCustomParameters() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            for key in ["client_id", "response_type", "redirect_uri", "state", "scope", "response_mode"] {
                let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", customParameters: [key: "x"])
                #expect(flow.link == nil)
                #expect(flow.firebaseError?["message"]?.contains("may not set \(key)") == true, "\(key): \(flow.firebaseError ?? [:])")
            }
            let badTenant = try await h.browserSignIn(providerId: "microsoft.com", email: "a@outlook.com", customParameters: ["tenant": "../../evil"])
            #expect(badTenant.firebaseError?["message"]?.contains("tenant") == true, "\(badTenant.appURL ?? "") \(badTenant.errorPage?.body ?? "")")
        }
    }

    @Test func openRedirectsAreRefused() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            for target in ["https://evil.example.com/steal", "http://127.0.0.1.evil.example.com:80/x", "http://localhost:8080/x",
                           "http://127.0.0.1/no-port", "javascript:alert(1)", "http://user@127.0.0.1:9/x"] {
                let page = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", redirectUrl: target))
                #expect(page.status == 400, "\(target)")
                #expect(page.location == nil, "\(target)")
            }
            // Without acceptAnyApp, unregistered Apple and desktop apps are refused too.
            var project = try await h.scope.config()
            project.chooseAcceptAnyApp(false)
            try await h.store.saveProjectConfig(project)
            let apple = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", apple: ("com.evil", "1:1:ios:1")))
            #expect(apple.status == 400)
            #expect(apple.location == nil)
            // An unregistered desktop app gets no sign-in: only the error, on its own loopback address (issue 18: the
            // app waiting there learns at once what to do).
            let desktop = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ"))
            #expect(desktop.status == 302)
            let delivered = try #require(desktop.location)
            #expect(delivered.hasPrefix("http://127.0.0.1:65000/callback?"))
            #expect(Browser.query(delivered, "link") == nil)
            #expect(Browser.query(delivered, "firebaseError")?.contains("auth/app-not-authorized") == true)
            #expect(Browser.query(delivered, "firebaseError")?.contains("hearth apps add-desktop --id") == true)
            // Registered apps pass.
            try await h.store.saveApp(AppRegistration(id: "ios-1", kind: .apple, bundleId: "com.example.app", appId: "1:1234:ios:abcd"))
            try await h.store.saveApp(AppRegistration(id: "cli", kind: .desktop))
            let registeredApple = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", apple: ("com.example.app", "1:1234:ios:abcd")))
            #expect(registeredApple.status == 302)
            let registeredDesktop = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", extra: [("appId", "cli")]))
            #expect(registeredDesktop.status == 302)
            // The provider itself only ever redirects to Hearth's registered handler URL.
            let start = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", extra: [("appId", "cli")]))
            let authorize = try #require(start.location).replacingOccurrences(of: FormEncoding.escape(h.baseURL + "/__/auth/handler"), with: FormEncoding.escape("https://evil.example.com/"))
            let evil = try await Browser.get(authorize)
            #expect(evil.status == 400)
            #expect(evil.location == nil)
        }
    }

    @Test func bareAccessTokenIsNeverACredential() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let cases: [SignInWithIdpRequest] = [
                SignInWithIdpRequest(requestUri: "http://localhost", postBody: "providerId=microsoft.com&access_token=eyJ0eXAi.stolen.token", sessionId: nil),
                SignInWithIdpRequest(requestUri: "http://localhost#access_token=abc&state=x", postBody: "providerId=microsoft.com", sessionId: "ABCDEFGHIJ"),
                SignInWithIdpRequest(requestUri: "http://localhost?id_token=abc", postBody: "providerId=yahoo.com", sessionId: "ABCDEFGHIJ"),
            ]
            for request in cases {
                let reply = try await h.post(WirePaths.accounts("signInWithIdp"), request)
                #expect(reply.status == 400)
                #expect(reply.errorCode == "INVALID_IDP_RESPONSE")
                #expect(reply.envelope?.error.message.contains("not accepted as a credential") == true)
            }
            // An id_token in postBody is a native ID-token sign-in (NativeIDTokenTests): a made-up one fails its checks.
            let forged = try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: "providerId=yahoo.com&id_token=eyJhbGciOi.stolen.token", sessionId: nil))
            #expect(forged.status == 400)
            #expect(forged.errorCode == "INVALID_IDP_RESPONSE")
            #expect(forged.envelope?.error.message.contains("the ID token is not a JWT") == true)
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func handlerInputErrors() async throws {
        try await HearthHarness.run(configure: { $0.apiKeys = ["good-key"] }, devIdPs: true) { h in
            let badKey = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", apiKey: "bad"))
            #expect(badKey.status == 400)
            #expect(badKey.body.contains("Invalid API key"))
            let unknownProvider = try await Browser.get(h.handlerURL(providerId: "facebook.com", rawSessionId: "ABCDEFGHIJ", apiKey: "good-key"))
            #expect(unknownProvider.status == 400)
            let badSession = try await Browser.get(h.baseURL + "/__/auth/handler?apiKey=good-key&providerId=microsoft.com&sessionId=short&eventId=E&redirectUrl=http://127.0.0.1:9/x")
            #expect(badSession.status == 400)
            let badJSON = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", apiKey: "good-key", extra: [("customParameters", "{not json")]))
            #expect(Browser.query(badJSON.location ?? "", "firebaseError")?.contains("customParameters") == true)
            let missing = try await h.post(WirePaths.accounts("signInWithIdp"), raw: #"{"postBody":"providerId=microsoft.com"}"#, query: "key=good-key")
            #expect(missing.errorCode == "MISSING_REQUEST_URI")
            let noSession = try await h.post(WirePaths.accounts("signInWithIdp"), raw: #"{"requestUri":"http://localhost/__/auth/handler?code=a&state=b"}"#, query: "key=good-key")
            #expect(noSession.errorCode == "MISSING_SESSION_ID")
        }
    }
}
