import Foundation
import HearthCore
import HearthPages
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 36: web apps on Hearth — the parts of the browser dev loop: unsigned emulator custom tokens from a web app's
/// page (item 7) and the `/__dev/try/web` page (item 9).
@Suite struct WebDevLoopTests {
    static let customToken = WirePaths.accounts("signInWithCustomToken") + "?key=k"

    /// firebase-admin's emulator-mode custom token: `alg: none`, an empty signature, the usual claims.
    static func unsignedToken(uid: String, now: Date = Date()) throws -> String {
        let seconds = Int(now.timeIntervalSince1970)
        return try rawJWT(header: ["alg": "none", "typ": "JWT"],
                          payload: ["iss": "firebase-auth-emulator@example.com", "sub": "firebase-auth-emulator@example.com",
                                    "aud": CustomTokenClaims.audience, "iat": seconds, "exp": seconds + 3600, "uid": uid])
    }

    static func signIn(_ h: HearthHarness, _ token: String, headers: HTTPFields) async throws -> HearthHarness.Reply {
        try await h.send(.post, customToken, body: "{\"token\":\"\(token)\",\"returnSecureToken\":true}", headers: headers)
    }

    /// Issue 36, item 7: a demo project accepts firebase-admin's unsigned custom token from a web page on this machine
    /// (an `Origin` header, as the JS SDK's `signInWithCustomToken` sends) when the page is on an authorized domain —
    /// `localhost`, a subdomain of it, `127.0.0.1`, a domain added later — and still refuses a page on any other site
    /// (the drive-by page of AdminAttackTests), an opaque `null` origin, and a page behind a proxy.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aDemoProjectAcceptsUnsignedCustomTokensFromItsWebApps(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let token = try Self.unsignedToken(uid: "web-user", now: h.clock.now)
            for origin in ["http://localhost:5173", "http://app.localhost:3000", "http://127.0.0.1:8080"] {
                let reply = try await Self.signIn(h, token, headers: [.origin: origin])
                #expect(reply.status == 200, "\(origin): \(reply.text)")
                let body = try reply.decode(SignInWithCustomTokenResponse.self)
                #expect(jwtPayload(try #require(body.idToken))?["sub"] as? String == "web-user")
            }
            #expect(try await h.store.user(localId: "web-user")?.customAuth == true)

            let evil = try Self.unsignedToken(uid: "victim", now: h.clock.now)
            let refused = try await Self.signIn(h, evil, headers: [.origin: "https://evil.example"])
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(refused.text.contains("authorized domain of project demo-hearth"), "\(refused.text)")
            #expect(refused.text.contains("hearth project domains --add evil.example"), "\(refused.text)")
            let opaque = try await Self.signIn(h, evil, headers: [.origin: "null"])
            #expect(opaque.errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(opaque.text.contains("not an http(s) origin"), "\(opaque.text)")
            let proxied = try await Self.signIn(h, evil, headers: [.origin: "http://localhost:5173",
                                                                   HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
            #expect(proxied.errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(proxied.text.contains("from web pages there on an authorized domain"), "\(proxied.text)")
            #expect(try await h.store.user(localId: "victim") == nil)

            // Once the administrator authorizes the app's domain, its page is accepted.
            var config = try await h.scope.config()
            config.authorizedDomains.append("app.example.com")
            try await h.store.saveProjectConfig(config)
            let added = try await Self.signIn(h, evil, headers: [.origin: "https://www.app.example.com"])
            #expect(added.status == 200, "\(added.text)")
            // A signed-looking token with alg none is still refused from a page, as from a program.
            let tampered = try await Self.signIn(h, token + "AAAA", headers: [.origin: "http://localhost:5173"])
            #expect(tampered.errorCode == "INVALID_CUSTOM_TOKEN")
        }
    }

    /// Issue 36, item 7: a production project keeps refusing unsigned custom tokens from web pages — also with
    /// `--emulator-admin`, which lets programs on this machine (no `Origin`) use them.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aProductionProjectRefusesUnsignedCustomTokensFromWebPages(store: HearthHarness.StoreChoice) async throws {
        for flag in [false, true] {
            try await HearthHarness.run(store: store, configure: {
                $0.projectId = "hearth-prod"
                $0.apiKeys = ["k"]
                $0.emulatorAdminFlag = flag
            }) { h in
                let token = try Self.unsignedToken(uid: "web-user", now: h.clock.now)
                let page = try await Self.signIn(h, token, headers: [.origin: "http://localhost:5173"])
                #expect(page.status == 400, "flag \(flag): \(page.text)")
                #expect(page.errorCode == "INVALID_CUSTOM_TOKEN")
                if flag {
                    #expect(page.text.contains("from web pages only for demo-* projects"), "\(page.text)")
                    // The program on this machine (no Origin) is accepted with --emulator-admin.
                    let program = try await Self.signIn(h, token, headers: [:])
                    #expect(program.status == 200, "\(program.text)")
                } else {
                    #expect(page.text.contains("must be signed with RS256"), "\(page.text)")
                    #expect(try await h.store.userCount() == 0)
                }
            }
        }
    }

    /// Issue 36, item 9: `/__dev/try/web` (with `--dev` only) is the JS SDK's popup flow on Hearth's own page: its
    /// script is a same-origin file (no inline script, no inline handler), the CSP allows only that script and
    /// requests to this origin, no Cross-Origin-Opener-Policy severs the popup's opener, the script gets the handler
    /// the SDK opens (`/emulator/auth/handler`) and `accounts:signInWithIdp`, the query prefills the form (escaped),
    /// and the page links to the app flow; the server's home page links to it.
    @Test func theWebTryPageIsServedUnderDevWithItsScript() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let page = try await h.send(.get, "/__dev/try/web?provider=yahoo.com&scopes=openid,profile&customParameters=" +
                                              "%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(page.status == 200, "\(page.text)")
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp == Pages.devTryWebContentSecurityPolicy)
            #expect(csp.contains("script-src 'self';") && csp.contains("connect-src 'self';") && csp.contains("frame-ancestors 'none'"))
            #expect(!csp.contains("'unsafe-inline'; script") && !csp.contains("script-src 'unsafe"))
            #expect(page.headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] == nil)
            let html = page.text
            #expect(html.contains("<script src=\"/__dev/try/web.js\"></script>"))
            #expect(html.components(separatedBy: "<script").count == 2, "one script element, the file")
            #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "no inline event handler")
            #expect(html.contains("data-handler=\"\(h.baseURL)/emulator/auth/handler\""), "\(html)")
            #expect(html.contains("data-sign-in=\"\(h.baseURL)/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key="))
            #expect(html.contains("data-origin=\"\(h.baseURL)\""))
            #expect(html.contains("<option value=\"yahoo.com\" selected>yahoo.com</option>"))
            #expect(html.contains("<option value=\"microsoft.com\">"))
            #expect(html.contains("value=\"openid,profile\""))
            #expect(!html.contains("<script>alert"), "the query is escaped")
            #expect(html.contains("href=\"/__dev/try?provider=microsoft.com\""))
            #expect(!html.contains("not an authorized domain"))

            let script = try await h.send(.get, "/__dev/try/web.js")
            #expect(script.status == 200)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            for piece in ["'signInViaPopup'", "'redirectUrl', location.href", "hearthAuthEvent", "requestUri: event.urlResponse",
                          "sessionId: event.sessionId", "message.origin !== location.origin", "message.source !== pending.popup",
                          "event.eventId !== pending.eventId"] {
                #expect(script.text.contains(piece), "the script lacks \(piece)")
            }

            let home = try await h.send(.get, "/", headers: [.accept: "text/html"])
            #expect(home.text.contains("href=\"/__dev/try/web\""), "\(home.text)")

            // A public host that is not an authorized domain is named before anyone clicks.
            var config = try await h.scope.config()
            config.authorizedDomains = ["localhost"]
            try await h.store.saveProjectConfig(config)
            let warned = try await h.send(.get, "/__dev/try/web")
            #expect(warned.text.contains("This server&#39;s host, 127.0.0.1, is not an authorized domain of project demo-hearth")
                    || warned.text.contains("This server's host, 127.0.0.1, is not an authorized domain of project demo-hearth"), "\(warned.text)")
            #expect(warned.text.contains("hearth project domains --add 127.0.0.1"))
        }
        // Without --dev neither the page nor its script exists.
        try await HearthHarness.run { h in
            let page = try await h.send(.get, "/__dev/try/web")
            let script = try await h.send(.get, "/__dev/try/web.js")
            #expect(page.status == 404)
            #expect(script.status == 404)
        }
    }

    /// Issue 36, item 5: the console's Settings page says what authorized domains now gate — web sign-in's
    /// `redirectUrl` and the helper iframe's embedding — beside the list it edits.
    @Test func theConsoleSettingsSayAuthorizedDomainsGateWebSignIn() async throws {
        try await HearthHarness.run { h in
            let session = try await ConsoleTests().signIn(h)
            let page = try await h.send(.get, "/console/settings", headers: session.headers)
            #expect(page.status == 200)
            #expect(page.text.contains("may sign in with the Firebase JS SDK: Hearth refuses a popup's or redirect's <code>redirectUrl</code> anywhere else"),
                    "\(page.text)")
            #expect(page.text.contains("its helper iframe (<code>/emulator/auth/iframe</code>) may be embedded only by their pages"))
            #expect(page.text.contains("Domains allowed as sign-in redirect targets and web sign-in origins"))
        }
    }
}
