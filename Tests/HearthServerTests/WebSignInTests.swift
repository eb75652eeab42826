import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// Issue 36: the Firebase JS SDK's popup and redirect flow over real HTTP (the browser's part scripted; the pages'
/// scripts themselves run in headless Chromium in Tests/e2e/web_sdk.py): the handler with the SDK's query, the
/// authorized-domain and same-site rules, the result page's event, signInWithIdp with the event's requestUri and
/// session id, link and reauthentication by authType, the helper iframe's framing policy, and the attacks.
@Suite struct WebSignInTests {
    static let app = "http://127.0.0.1:5173/app?page=1#top"

    /// The handler URL the JS SDK opens.
    static func handlerURL(_ h: HearthHarness, providerId: String, authType: String = "signInViaPopup", eventId: String? = "6286514847",
                           redirectUrl: String = app, customParameters: String? = nil, scopes: String? = nil,
                           path: String = "/emulator/auth/handler") -> String {
        var fields: [(String, String)] = [("apiKey", "fake-api-key"), ("appName", "[DEFAULT]"), ("authType", authType),
                                          ("redirectUrl", redirectUrl), ("v", "12.3.0")]
        if let eventId { fields.append(("eventId", eventId)) }
        fields.append(("providerId", providerId))
        if let customParameters { fields.append(("customParameters", customParameters)) }
        if let scopes { fields.append(("scopes", scopes)) }
        return h.baseURL + path + "?" + FormEncoding.encode(fields)
    }

    /// What the result page hands to the iframe.
    struct Delivered: Decodable {
        var popup: Bool
        var apiKey: String
        var appName: String
        var appOrigin: String
        var redirectUrl: String
        var event: WebAuthEvent
    }

    struct Flow {
        var delivered: Delivered?
        var callbackURL: String?
        var resultPage: Browser.Page?
        var refusal: Browser.Page?
    }

    /// The browser's part: the handler, the dev IdP's form, the callback and its result page.
    static func run(_ h: HearthHarness, _ url: String, email: String, cancel: Bool = false) async throws -> Flow {
        var flow = Flow()
        let start = try await Browser.get(url)
        guard start.status == 302, let authorize = start.location else {
            flow.refusal = start
            return flow
        }
        if authorize.hasPrefix(h.baseURL + "/__/auth") || !authorize.hasPrefix("http") { throw HarnessError("unexpected redirect \(authorize)") }
        let form = try await Browser.get(authorize)
        let requestId = try #require(HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body), "\(form.body.prefix(300))")
        let action = try #require(HearthHarness.capture(#"action="([^"]+)""#, in: form.body))
        let submitted = try await Browser.post(action.hasPrefix("http") ? action : h.baseURL + action,
                                               form: [("request_id", requestId), ("email", email), ("name", "Ada"), ("action", cancel ? "cancel" : "login")])
        let callback = try #require(submitted.location)
        flow.callbackURL = callback
        let page = try await Browser.get(callback)
        flow.resultPage = page
        if let json = HearthHarness.capture(#"<script type="application/json" id="hearth-web-result">([^<]*)</script>"#, in: page.body) {
            flow.delivered = try JSONDecoder().decode(Delivered.self, from: Data(json.utf8))
        }
        return flow
    }

    static func signInWithIdp(_ h: HearthHarness, _ event: WebAuthEvent?, idToken: String? = nil, sessionId: String? = nil) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
            requestUri: event?.urlResponse, postBody: nil, sessionId: sessionId ?? event?.sessionId, idToken: idToken,
            returnSecureToken: true, returnIdpCredential: true))
    }

    /// Issue 36, deliver 1 and 3: a popup sign-in with the SDK's query — Microsoft with its tenant and a scope — ends in
    /// the result page's event (the SDK's shape, its eventId echoed), which signs in once.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aPopupSignInHandsTheEventToTheAppAndSignsInOnce(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, devIdPs: true) { h in
            let url = Self.handlerURL(h, providerId: "microsoft.com", customParameters: #"{"tenant":"common"}"#, scopes: "User.Read")
            let flow = try await Self.run(h, url, email: "ada@outlook.com")
            let delivered = try #require(flow.delivered, "\(flow.resultPage?.body.prefix(400) ?? "")")
            #expect(delivered.popup && delivered.apiKey == "fake-api-key" && delivered.appName == "[DEFAULT]")
            #expect(delivered.appOrigin == "http://127.0.0.1:5173")
            #expect(delivered.event.type == "signInViaPopup" && delivered.event.eventId == "6286514847" && delivered.event.error == nil)
            let sessionId = try #require(delivered.event.sessionId)
            #expect(sessionId.count >= 40)
            // The page: its script from Hearth's origin, no Cross-Origin-Opener-Policy (it would cut the popup off).
            let page = try #require(flow.resultPage)
            #expect(page.status == 200 && page.body.contains(#"<script src="/__/auth/web-result.js">"#))
            let signedIn = try await Self.signInWithIdp(h, delivered.event)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let answer = try signedIn.decode(SignInWithIdpResponse.self)
            #expect(answer.idToken != nil && answer.providerId == "microsoft.com" && answer.email == "ada@outlook.com")
            #expect(signedIn.json?["needConfirmation"] == nil && signedIn.json?["errorMessage"] == nil, "the JS SDK throws on either key")
            // Replayed: refused, on the store's single use.
            let replay = try await Self.signInWithIdp(h, delivered.event)
            #expect(replay.errorCode == "INVALID_IDP_RESPONSE", "\(replay.text)")
        }
    }

    /// Issue 36, deliver 4: none of the pages on the popup's path sends a Cross-Origin-Opener-Policy, and the helper
    /// iframe is framed only by the authorized domains (`scheme://host:*` forms, subdomains too).
    @Test func theIframeIsFramedOnlyByAuthorizedDomainsAndNoPageSeversThePopup() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            for path in ["/emulator/auth/iframe", "/__/auth/iframe"] {
                let reply = try await h.send(.get, path + "?apiKey=fake-api-key&appName=%5BDEFAULT%5D&v=12.3.0&eid=p")
                #expect(reply.status == 200)
                let policy = try #require(reply.headers[.contentSecurityPolicy])
                #expect(policy.contains("frame-ancestors http://localhost:* https://localhost:* http://*.localhost:* https://*.localhost:* http://127.0.0.1:* https://127.0.0.1:*"), "\(policy)")
                #expect(!policy.contains("frame-ancestors *") && !policy.contains("*.127.0.0.1"))
                #expect(reply.headers[.init("X-Frame-Options")!] == nil)
                #expect(reply.text.contains(#"<script src="/__/auth/iframe.js"></script><script src="https://apis.google.com/js/api.js"></script>"#))
            }
            for script in ["/__/auth/iframe.js", "/__/auth/web-result.js"] {
                let reply = try await h.send(.get, script)
                #expect(reply.status == 200 && reply.headers[.contentType]?.hasPrefix("text/javascript") == true)
            }
            let handler = try await h.send(.get, String(Self.handlerURL(h, providerId: "microsoft.com").dropFirst(h.baseURL.count)))
            #expect(handler.status == 302)
            #expect(handler.headers[.init("Cross-Origin-Opener-Policy")!] == nil)
            let flow = try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com"), email: "ada@yahoo.com")
            let result = try #require(flow.resultPage)
            #expect(result.status == 200 && !result.body.contains("Cross-Origin-Opener-Policy"))
            let page = try await h.send(.get, String(try #require(flow.callbackURL).dropFirst(h.baseURL.count)))
            #expect(page.headers[.init("Cross-Origin-Opener-Policy")!] == nil)
        }
    }

    /// Issue 36, deliver 5 and 6: a page on a domain that is not authorized gets Hearth's refusal page and no sign-in
    /// starts; a subdomain of an authorized domain is accepted; a redirect sign-in across sites stops at Hearth's
    /// explanation (the storage that carries its result would be partitioned), while the same site works.
    @Test func authorizedDomainsAndTheSameSiteRuleAreEnforced() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            for foreign in ["https://evil.example/app", "http://127.0.0.2:5173/", "http://localhost.evil.example/", "javascript:alert(1)", ""] {
                let reply = try await Browser.get(Self.handlerURL(h, providerId: "microsoft.com", redirectUrl: foreign))
                #expect(reply.status == 400 && reply.location == nil, "\(foreign): \(reply.status) \(reply.location ?? "")")
            }
            let refused = try await Browser.get(Self.handlerURL(h, providerId: "microsoft.com", redirectUrl: "https://evil.example/app"))
            #expect(refused.body.contains("This site is not an authorized domain"))
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let saved = try await h.send(.patch, MultiFactorTests.configPath(h) + "?updateMask=authorizedDomains",
                                         body: #"{"authorizedDomains":["localhost","127.0.0.1","example.com"]}"#, headers: owner)
            #expect(saved.status == 200, "\(saved.text)")
            let sub = try await Browser.get(Self.handlerURL(h, providerId: "microsoft.com", redirectUrl: "https://app.example.com/login"))
            #expect(sub.status == 302)
            // Redirect: across sites (the server is 127.0.0.1, the page localhost), explained; the same site works.
            let cross = try await Browser.get(Self.handlerURL(h, providerId: "microsoft.com", authType: "signInViaRedirect", eventId: nil,
                                                               redirectUrl: "http://localhost:5173/"))
            #expect(cross.status == 400 && cross.body.contains("Redirect sign-in cannot work here") && cross.body.contains("reverse"))
            #expect(cross.body.contains(#"<script src="/__/auth/web-result.js">"#), "the explanation also goes to the console")
            let popupCrossSite = try await Browser.get(Self.handlerURL(h, providerId: "microsoft.com", redirectUrl: "http://localhost:5173/"))
            #expect(popupCrossSite.status == 302, "popups work across sites")
            let flow = try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", authType: "signInViaRedirect", eventId: nil),
                                          email: "ada@outlook.com")
            let delivered = try #require(flow.delivered)
            #expect(!delivered.popup && delivered.event.type == "signInViaRedirect" && delivered.event.eventId == nil)
            #expect(delivered.redirectUrl == Self.app, "the redirect returns to the page exactly")
            #expect(try await Self.signInWithIdp(h, delivered.event).status == 200)
        }
    }

    /// Issue 36, the attacks: a requestUri with another sign-in's session id, another provider's code on this
    /// sign-in's state, a link without the user's idToken, a sign-in carrying one, a reauthentication by an unknown
    /// account (no account made: user-mismatch for the SDK), and a provider's refusal as an error event.
    @Test func mixUpsAndMisusesAreRefused() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let first = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", eventId: "1111111111"), email: "ada@outlook.com").delivered)
            let second = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", eventId: "2222222222"), email: "bob@outlook.com").delivered)
            let mixed = try await Self.signInWithIdp(h, first.event, sessionId: second.event.sessionId)
            #expect(mixed.errorCode == "INVALID_IDP_RESPONSE", "\(mixed.text)")
            #expect(try await Self.signInWithIdp(h, first.event).status == 400, "a mismatched session id burns the sign-in")
            // Yahoo's code on Microsoft's state: the exchange at Microsoft refuses it.
            let yahoo = try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com", eventId: "3333333333"), email: "cy@yahoo.com")
            let microsoft = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", eventId: "4444444444"), email: "dee@outlook.com").delivered)
            let yahooCallback = try #require(yahoo.callbackURL)
            let microsoftResponse = try #require(microsoft.event.urlResponse)
            let yahooCode = try #require(Browser.query(yahooCallback, "code"))
            let microsoftState = try #require(Browser.query(microsoftResponse, "state"))
            var forged = microsoft.event
            forged.urlResponse = h.baseURL + "/__/auth/handler?" + FormEncoding.encode([("code", yahooCode), ("state", microsoftState)])
            let crossed = try await Self.signInWithIdp(h, forged)
            #expect(crossed.status == 400 && crossed.json?["idToken"] == nil, "\(crossed.text)")
            // Link and reauthentication go by the authType the sign-in started with.
            let ada = try await h.signUp(email: "ada@example.com")
            let link = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com", authType: "linkViaPopup", eventId: "5555555555"), email: "ada@yahoo.com").delivered)
            #expect(try await Self.signInWithIdp(h, link.event).errorCode == "INVALID_IDP_RESPONSE", "a link without the user's idToken")
            let link2 = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com", authType: "linkViaPopup", eventId: "5555555556"), email: "ada@yahoo.com").delivered)
            let linked = try await Self.signInWithIdp(h, link2.event, idToken: ada.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(try linked.decode(SignInWithIdpResponse.self).localId == ada.localId)
            let signIn = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com", eventId: "6666666666"), email: "ada@yahoo.com").delivered)
            #expect(try await Self.signInWithIdp(h, signIn.event, idToken: ada.idToken).errorCode == "INVALID_IDP_RESPONSE", "a sign-in is no link")
            let before = try await h.store.userCount()
            let reauth = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", authType: "reauthViaPopup", eventId: "7777777777"), email: "nobody@outlook.com").delivered)
            let mismatch = try await Self.signInWithIdp(h, reauth.event)
            #expect(mismatch.errorCode == "EMAIL_NOT_FOUND", "\(mismatch.text)")
            #expect(try await h.store.userCount() == before)
            let reauthLinked = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "yahoo.com", authType: "reauthViaPopup", eventId: "7777777778"), email: "ada@yahoo.com").delivered)
            #expect(try await Self.signInWithIdp(h, reauthLinked.event).decode(SignInWithIdpResponse.self).localId == ada.localId)
            // The user cancels at the provider: an error event with the JS SDK's code, nothing to sign in with.
            let cancelled = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com", eventId: "8888888888"), email: "x@outlook.com", cancel: true).delivered)
            #expect(cancelled.event.error?.code == "auth/user-cancelled" && cancelled.event.urlResponse == nil && cancelled.event.sessionId == nil)
            #expect(cancelled.event.eventId == "8888888888")
        }
    }

    /// Issue 36: the account-exists answer the JS SDK turns into `auth/account-exists-with-different-credential`
    /// carries what `OAuthProvider.credentialFromError` needs (providerId, a provider token, the pending token).
    @Test func accountExistsCarriesWhatCredentialFromErrorNeeds() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            _ = try await h.signUp(email: "ada@outlook.com")
            let delivered = try #require(try await Self.run(h, Self.handlerURL(h, providerId: "microsoft.com"), email: "ada@outlook.com").delivered)
            let reply = try await Self.signInWithIdp(h, delivered.event)
            #expect(reply.status == 200)
            #expect(reply.json?["needConfirmation"] as? Bool == true && reply.json?["providerId"] as? String == "microsoft.com")
            #expect(reply.json?["oauthAccessToken"] != nil || reply.json?["oauthIdToken"] != nil)
            #expect(reply.json?["pendingToken"] as? String != nil && reply.json?["idToken"] == nil)
        }
    }
}
