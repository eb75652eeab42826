import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The web console over loopback HTTP: login links, administrators, the session cookie's flags, the idle
/// timeout, CSRF refusals, audited changes and write-only secrets.
@Suite struct ConsoleTests {
    /// A signed-in console session: its cookie header and the CSRF token its pages carry.
    struct Session {
        var cookie: String
        var csrf: String
        var headers: HTTPFields { [.cookie: cookie] }
    }

    func token(of link: String) -> String { link.split(separator: "=").last.map(String.init) ?? "" }

    static func setCookies(_ reply: HearthHarness.Reply) -> [String] { reply.headers[values: .setCookie] }

    static func cookieValue(_ reply: HearthHarness.Reply, _ name: String) -> String? {
        for header in setCookies(reply) where header.hasPrefix(name + "=") {
            return String(header.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }

    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: #"name="csrf" value=""#) else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    static func form(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    func post(_ h: HearthHarness, _ path: String, _ session: Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await h.send(.post, path, body: Self.form(pairs), contentType: "application/x-www-form-urlencoded", headers: session.headers)
    }

    /// Opens a fresh login link and returns the session it starts.
    func signIn(_ h: HearthHarness) async throws -> Session {
        let link = try await ConsoleAccess.issueLoginLink(store: h.store, publicURL: h.baseURL, now: h.clock.now)
        let reply = try await h.send(.get, String(link.dropFirst(h.baseURL.count)))
        #expect(reply.status == 200)
        let token = try #require(Self.cookieValue(reply, ConsoleAccess.cookieName))
        let cookie = "\(ConsoleAccess.cookieName)=\(token)"
        let page = try await h.send(.get, "/console/users", headers: [.cookie: cookie])
        #expect(page.status == 200)
        return Session(cookie: cookie, csrf: try #require(Self.csrf(in: page.text)))
    }

    @Test func loginLinkWorksOnceAndSetsAHardenedCookie() async throws {
        try await HearthHarness.run { h in
            let link = try await ConsoleAccess.issueLoginLink(store: h.store, publicURL: h.baseURL, now: h.clock.now)
            let path = String(link.dropFirst(h.baseURL.count))
            let first = try await h.send(.get, path)
            // A page that moves on to /console by itself (same-site navigation, so the Strict cookie is sent).
            #expect(first.status == 200)
            #expect(first.text.contains(#"<meta http-equiv="refresh" content="0;url=/console">"#))
            #expect(!first.text.contains(token(of: link)), "the page does not repeat the token")
            let cookie = try #require(Self.setCookies(first).first { $0.hasPrefix(ConsoleAccess.cookieName + "=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/console"))
            #expect(!cookie.contains("Secure"), "plain HTTP: no Secure attribute")
            // The token is stored hashed: the database never holds the link's token.
            #expect(try await h.store.takeConsoleLoginLink(tokenHash: token(of: link), now: h.clock.now) == nil)
            let second = try await h.send(.get, path)
            #expect(second.status == 401, "a login link works once")
            #expect(second.text.contains("used already or has expired"))
            #expect(Self.cookieValue(second, ConsoleAccess.cookieName) == nil)
        }
    }

    @Test func expiredLoginLinkIsRefused() async throws {
        try await HearthHarness.run { h in
            let link = try await ConsoleAccess.issueLoginLink(store: h.store, publicURL: h.baseURL, lifetime: 60, now: h.clock.now)
            h.clock.advance(by: 61)
            let reply = try await h.send(.get, String(link.dropFirst(h.baseURL.count)))
            #expect(reply.status == 401)
            #expect(Self.cookieValue(reply, ConsoleAccess.cookieName) == nil)
        }
    }

    @Test func cookieIsSecureOverHTTPS() async throws {
        try await HearthHarness.run { h in
            let base = h.baseURL
            h.server.configuration.publicURL.set("https://auth.example.com")
            let link = try await ConsoleAccess.issueLoginLink(store: h.store, publicURL: "https://auth.example.com", now: h.clock.now)
            let reply = try await h.send(.get, String(link.dropFirst("https://auth.example.com".count)))
            let cookie = try #require(Self.setCookies(reply).first { $0.hasPrefix(ConsoleAccess.cookieName + "=") })
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            h.server.configuration.publicURL.set(base)
        }
    }

    @Test func pagesNeedASessionAndIdleSessionsEnd() async throws {
        try await HearthHarness.run { h in
            for path in ["/console", "/console/users", "/console/providers", "/console/settings", "/console/audit"] {
                let reply = try await h.send(.get, path)
                #expect(reply.status == 303, "\(path)")
                #expect(reply.headers[.location] == "/console/login")
            }
            let forged = try await h.send(.get, "/console", headers: [.cookie: "\(ConsoleAccess.cookieName)=forged"])
            #expect(forged.headers[.location] == "/console/login?expired=1")

            let session = try await signIn(h)
            h.clock.advance(by: 29 * 60)
            #expect(try await h.send(.get, "/console", headers: session.headers).status == 200, "activity keeps the session alive")
            h.clock.advance(by: 31 * 60)
            let idle = try await h.send(.get, "/console", headers: session.headers)
            #expect(idle.status == 303)
            #expect(idle.headers[.location] == "/console/login?expired=1")
            let login = try await h.send(.get, "/console/login?expired=1")
            #expect(login.text.contains("Your console session has ended"))
        }
    }

    @Test func formsWithoutTheCSRFTokenAreRefused() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let missing = try await post(h, "/console/users", session, [("email", "csrf@example.com"), ("password", "correct horse")])
            #expect(missing.status == 403)
            let wrong = try await post(h, "/console/users", session, [("csrf", (session.csrf.first == "x" ? "y" : "x") + session.csrf.dropFirst()), ("email", "csrf@example.com"),
                                                                      ("password", "correct horse")])
            #expect(wrong.status == 403)
            #expect(try await h.store.user(email: "csrf@example.com") == nil, "a refused form changes nothing")
            // Another session's token is refused too.
            let other = try await signIn(h)
            #expect(try await post(h, "/console/users", session, [("csrf", other.csrf), ("email", "csrf@example.com"),
                                                                  ("password", "correct horse")]).status == 403)

            let created = try await post(h, "/console/users", session, [("csrf", session.csrf), ("email", "csrf@example.com"),
                                                                        ("password", "correct horse")])
            #expect(created.status == 303, "\(created.text)")
            let user = try #require(try await h.store.user(email: "csrf@example.com"))
            let entries = try await h.store.auditEntries(before: nil, limit: 10)
            #expect(entries.contains { $0.actor == "console:owner" && $0.action == "accounts.create" && $0.target == user.localId })
        }
    }

    @Test func userActionsGoThroughTheAdminService() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            _ = try await h.signUp(email: "ada@example.com")
            let user = try #require(try await h.store.user(email: "ada@example.com"))
            let search = try await h.send(.get, "/console/users?q=ada%40example.com", headers: session.headers)
            #expect(search.text.contains(user.localId))
            #expect(try await post(h, "/console/user/disable", session, [("csrf", session.csrf), ("uid", user.localId)]).status == 303)
            #expect(try await h.signIn(email: "ada@example.com").errorCode == "USER_DISABLED")
            let badClaims = try await post(h, "/console/user/claims", session, [("csrf", session.csrf), ("uid", user.localId), ("claims", "{not json")])
            #expect(badClaims.status == 400)
            #expect(badClaims.text.contains("INVALID_CLAIMS"))
            let claims = try await post(h, "/console/user/claims", session, [("csrf", session.csrf), ("uid", user.localId), ("claims", #"{"role":"admin"}"#)])
            #expect(claims.status == 303)
            #expect(try await h.store.user(localId: user.localId)?.customClaims["role"] == .string("admin"))
            #expect(try await post(h, "/console/user/delete", session, [("csrf", session.csrf), ("uid", user.localId)]).status == 303)
            #expect(try await h.store.user(localId: user.localId) == nil)
            let actions = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.actor == "console:owner" }.map(\.action)
            #expect(actions.contains("accounts.update") && actions.contains("accounts.delete"))
        }
    }

    @Test func providerSecretsAreWriteOnly() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let secret = "console-secret-Zq81"
            let saved = try await post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"),
                                                                         ("clientId", "client-123"), ("clientSecret", secret), ("enabled", "true")])
            #expect(saved.status == 303, "\(saved.text)")
            let stored = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(stored.clientSecret == secret && stored.clientId == "client-123" && stored.enabled)
            let page = try await h.send(.get, "/console/provider?id=microsoft.com", headers: session.headers)
            #expect(page.text.contains(h.server.configuration.publicURL.authHandlerURL), "the redirect URI to register")
            #expect(page.text.contains("set; never shown"))
            // Saving without a secret keeps it; disabling keeps the settings.
            _ = try await post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "client-456"),
                                                                 ("clientSecret", ""), ("enabled", "true")])
            _ = try await post(h, "/console/providers/builtin", session, [("csrf", session.csrf), ("provider", "microsoft.com"), ("enabled", "false")])
            let after = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(after.clientSecret == secret && after.clientId == "client-456" && !after.enabled)
            for path in ["/console/provider?id=microsoft.com", "/console/providers", "/console/audit", "/console"] {
                let reply = try await h.send(.get, path, headers: session.headers)
                #expect(reply.status == 200, "\(path)")
                #expect(!reply.text.contains(secret), "\(path) must not show the secret")
            }
            let entries = try await h.store.auditEntries(before: nil, limit: 10)
            #expect(entries.contains { $0.actor == "console:owner" && $0.action == "defaultSupportedIdpConfigs.create" })
        }
    }

    @Test func providerDialogSetsTheTokenVaultAndNativeClientIds() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let fields: [(String, String)] = [("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "client-123"),
                                              ("clientSecret", "s"), ("enabled", "true"), ("vaultFields", "1"),
                                              ("nativeClientIds", "msal-ios, msal-android")]
            #expect(try await post(h, "/console/provider", session, fields).status == 303)
            var stored = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(stored.keepsProviderTokens == false, "the unchecked box turns the vault off")
            #expect(stored.nativeClientIds == ["msal-ios", "msal-android"])
            let page = try await h.send(.get, "/console/provider?id=microsoft.com", headers: session.headers)
            #expect(page.text.contains("value=\"msal-ios, msal-android\""))
            #expect(page.text.contains("this server has no vault keys yet"))
            _ = try await post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "client-123"),
                                                                 ("enabled", "true"), ("vaultFields", "1"), ("tokenVault", "true"), ("nativeClientIds", "")])
            stored = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(stored.keepsProviderTokens && stored.nativeClientIds == nil)
            // A form without the vault fields changes neither.
            _ = try await post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "client-9"), ("enabled", "true")])
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.keepsProviderTokens == true)
        }
    }

    @Test func namedAdministratorsSignInWithPasswordAndLogOut() async throws {
        try await HearthHarness.run { h in
            let hash = try PasswordHasher(parameters: HearthHarness.fastPasswords).hash("a long console password")
            try await h.store.saveConsoleAdmin(ConsoleAdmin(name: "grace", passwordHash: hash, createdAt: h.clock.now))
            let page = try await h.send(.get, "/console/login")
            let loginToken = try #require(Self.cookieValue(page, ConsoleAccess.loginCookieName))
            let csrf = try #require(Self.csrf(in: page.text))
            #expect(csrf == loginToken)
            let loginCookie: HTTPFields = [.cookie: "\(ConsoleAccess.loginCookieName)=\(loginToken)"]
            func login(_ pairs: [(String, String)], headers: HTTPFields) async throws -> HearthHarness.Reply {
                try await h.send(.post, "/console/login", body: Self.form(pairs), contentType: "application/x-www-form-urlencoded", headers: headers)
            }
            #expect(try await login([("name", "grace"), ("password", "a long console password")], headers: loginCookie).status == 403,
                    "no CSRF token")
            #expect(try await login([("csrf", csrf), ("name", "grace"), ("password", "a long console password")], headers: [:]).status == 403,
                    "no login cookie")
            #expect(try await login([("csrf", csrf), ("name", "grace"), ("password", "wrong password!")], headers: loginCookie).status == 401)
            #expect(try await login([("csrf", csrf), ("name", "nobody"), ("password", "a long console password")], headers: loginCookie).status == 401)
            let ok = try await login([("csrf", csrf), ("name", "grace"), ("password", "a long console password")], headers: loginCookie)
            #expect(ok.status == 303)
            let token = try #require(Self.cookieValue(ok, ConsoleAccess.cookieName))
            let headers: HTTPFields = [.cookie: "\(ConsoleAccess.cookieName)=\(token)"]
            let overview = try await h.send(.get, "/console", headers: headers)
            #expect(overview.text.contains("Signed in as grace"))
            let sessionCsrf = try #require(Self.csrf(in: overview.text))
            let settings = try await h.send(.post, "/console/settings/domains", body: Self.form([("csrf", sessionCsrf), ("add", "app.example.com")]),
                                            contentType: "application/x-www-form-urlencoded", headers: headers)
            #expect(settings.status == 303)
            #expect(try await h.scope.config().authorizedDomains.contains("app.example.com"))
            #expect(try await h.store.auditEntries(before: nil, limit: 5).contains { $0.actor == "console:grace" && $0.action == "config.update" })

            let logout = try await h.send(.post, "/console/logout", body: Self.form([("csrf", sessionCsrf)]),
                                          contentType: "application/x-www-form-urlencoded", headers: headers)
            #expect(logout.status == 303)
            #expect(Self.setCookies(logout).contains { $0.hasPrefix(ConsoleAccess.cookieName + "=;") || $0.hasPrefix(ConsoleAccess.cookieName + "=") && $0.contains("Max-Age=0") })
            #expect(try await h.send(.get, "/console", headers: headers).status == 303, "the session is gone on the server too")

            // Removing an administrator ends its sessions.
            let again = try await login([("csrf", csrf), ("name", "grace"), ("password", "a long console password")], headers: loginCookie)
            let againHeaders: HTTPFields = [.cookie: "\(ConsoleAccess.cookieName)=\(try #require(Self.cookieValue(again, ConsoleAccess.cookieName)))"]
            #expect(try await h.send(.get, "/console", headers: againHeaders).status == 200)
            try await h.store.deleteConsoleAdmin(name: "grace")
            #expect(try await h.send(.get, "/console", headers: againHeaders).status == 303)
        }
    }

    @Test func overviewCountsSignInsAndRefusals() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "count@example.com")
            #expect(try await h.signIn(email: "count@example.com").status == 200)
            #expect(try await h.signIn(email: "count@example.com", password: "wrong password").status == 400)
            let counts = try await h.store.dailyCounts(sinceDay: AdminService.day(h.clock.now))
            #expect(counts.first { $0.kind == "signIn" && $0.key == "password" }?.count == 2, "sign-up and sign-in")
            #expect(counts.first { $0.kind == "refused" && ($0.key == "INVALID_PASSWORD" || $0.key == "INVALID_LOGIN_CREDENTIALS") }?.count == 1)
            let session = try await signIn(h)
            let page = try await h.send(.get, "/console", headers: session.headers)
            #expect(page.text.contains("<svg"))
            #expect(page.text.contains("password: 2"))
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"))
        }
    }
}

extension ConsoleTests {
    @Test func rotateNowPublishesTheNextKeyOnce() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let before = try await h.store.signingKeys()
            let rotated = try await post(h, "/console/keys/rotate", session, [("csrf", session.csrf)])
            #expect(rotated.status == 303, "\(rotated.text)")
            let after = try await h.store.signingKeys()
            #expect(after.count == before.count + 1)
            let newest = try #require(after.max { $0.generation < $1.generation })
            #expect(newest.activatesAt > h.clock.now, "published before it signs")
            let published = try await h.server.keyRing.published().keys.map(\.kid)
            #expect(published.contains(newest.kid))
            let page = try await h.send(.get, "/console/keys", headers: session.headers)
            #expect(page.text.contains(newest.kid) && page.text.contains(">next<"))
            #expect(try await post(h, "/console/keys/rotate", session, [("csrf", session.csrf)]).status == 400, "one pending key at a time")
            #expect(try await h.store.auditEntries(before: nil, limit: 5).contains { $0.action == "signingKeys.rotate" && $0.target == newest.kid })
        }
    }
}

extension ConsoleTests {
    @Test func administratorPasswordGuessingIsThrottled() async throws {
        try await HearthHarness.run(configure: { $0.throttle = ThrottleConfiguration(maxFailuresPerAccount: 3, maxFailuresPerAddress: 50, window: 900) }) { h in
            let hash = try PasswordHasher(parameters: HearthHarness.fastPasswords).hash("the right passphrase")
            try await h.store.saveConsoleAdmin(ConsoleAdmin(name: "grace", passwordHash: hash, createdAt: h.clock.now))
            let page = try await h.send(.get, "/console/login")
            let token = try #require(Self.cookieValue(page, ConsoleAccess.loginCookieName))
            func attempt(_ password: String) async throws -> Int {
                try await h.send(.post, "/console/login", body: Self.form([("csrf", token), ("name", "grace"), ("password", password)]),
                                 contentType: "application/x-www-form-urlencoded",
                                 headers: [.cookie: "\(ConsoleAccess.loginCookieName)=\(token)"]).status
            }
            for _ in 0..<3 { #expect(try await attempt("a wrong guess") == 401) }
            #expect(try await attempt("the right passphrase") == 429, "locked after 3 failures, even with the right password")
            h.clock.advance(by: 901)
            #expect(try await attempt("the right passphrase") == 303)
        }
    }
}

extension ConsoleTests {
    @Test func appsShowTheirURLSchemeAndDevProvidersAreLabelled() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.store.saveApp(AppRegistration(id: "ios-app", kind: .apple, bundleId: "com.example.app", appId: "1:1234:ios:abcd"))
            let session = try await signIn(h)
            let apps = try await h.send(.get, "/console/apps", headers: session.headers)
            #expect(apps.text.contains("app-1-1234-ios-abcd://"))
            let providers = try await h.send(.get, "/console/providers", headers: session.headers)
            #expect(providers.text.contains("Dev IdP (this process only"), "\(providers.text)")
        }
    }
}

extension ConsoleTests {
    @Test func usersArePagedAndFoundByUIDOrPhone() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            for index in 0..<30 {
                let body = index == 7 ? #"{"localId":"user-07","email":"u07@example.com","phoneNumber":"+15551230007"}"#
                    : #"{"localId":"user-\#(String(format: "%02d", index))"}"#
                let created = try await h.send(.post, WirePaths.adminAccounts(projectId: "demo-hearth"), body: body,
                                               headers: [.authorization: "Bearer owner"])
                #expect(created.status == 200, "\(created.text)")
            }
            let first = try await h.send(.get, "/console/users", headers: session.headers)
            #expect(first.text.contains("Users 1–25 of 30"))
            // Issue 41: the next page's link carries the last user's key (keyset paging); a bare page=1 still works.
            #expect(first.text.contains(#"href="/console/users?page=1&amp;after="#) && first.text.contains(#"" rel="next""#))
            let second = try await h.send(.get, "/console/users?page=1", headers: session.headers)
            #expect(second.text.contains("Users 26–30 of 30"))
            #expect(!second.text.contains(#"rel="next""#))
            #expect(second.text.contains(#"rel="prev""#))
            let byPhone = try await h.send(.get, "/console/users?q=%2B15551230007", headers: session.headers)
            #expect(byPhone.text.contains("Users 1–1 of 1") && byPhone.text.contains("u07@example.com"))
            let byUID = try await h.send(.get, "/console/users?q=user-12", headers: session.headers)
            #expect(byUID.text.contains("Users 1–1 of 1") && byUID.text.contains("user-12"))
            let none = try await h.send(.get, "/console/users?q=nobody%40example.com", headers: session.headers)
            #expect(none.text.contains("No user matches"))
        }
    }
}

extension ConsoleTests {
    @Test func appsAreRegisteredAndRemovedThroughTheAdminService() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let bad = try await post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.notes"),
                                                                   ("appId", "not-an-app-id")])
            #expect(bad.status == 400)
            #expect(try await h.store.apps().isEmpty)
            let added = try await post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.notes"),
                                                                     ("clientId", "1234-abcd.apps.googleusercontent.com")])
            #expect(added.status == 303, "\(added.text)")
            let app = try #require(try await h.store.apps().first)
            #expect(app.id == "apple:com.example.notes" && app.clientId == "1234-abcd.apps.googleusercontent.com")
            let page = try await h.send(.get, "/console/apps", headers: session.headers)
            #expect(page.text.contains("com.googleusercontent.apps.1234-abcd://"))
            #expect(try await post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.notes"),
                                                                 ("clientId", "1234-abcd.apps.googleusercontent.com")]).status == 409)
            #expect(try await post(h, "/console/apps/remove", session, [("id", app.id)]).status == 403, "no CSRF token")
            #expect(try await post(h, "/console/apps/remove", session, [("csrf", session.csrf), ("id", app.id)]).status == 303)
            #expect(try await h.store.apps().isEmpty)
            let actions = try await h.store.auditEntries(before: nil, limit: 10).filter { $0.actor == "console:owner" }.map(\.action)
            #expect(actions.contains("apps.create") && actions.contains("apps.delete"))
        }
    }
}

/// Issue 18.6: console forms validate as the CLI and the admin API do (one validator), and a refused form comes back
/// with what was typed and the error beside its field — not a separate page sending the user Back.
@Suite struct ConsoleFormTests {
    @Test func aRefusedProviderFormComesBackWithTheValuesAndTheErrorBesideTheField() async throws {
        try await HearthHarness.run { h in
            let console = ConsoleTests()
            let session = try await console.signIn(h)
            let spaced = try await console.post(h, "/console/provider", session, [
                ("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "1111 2222"), ("clientSecret", "a secret"),
                ("allowedTenants", "contoso.com"), ("enabled", "true"), ("vaultFields", "1")])
            #expect(spaced.status == 400)
            #expect(spaced.text.contains(#"id="client-id-error""#), "\(spaced.text)")
            #expect(spaced.text.contains("no spaces"))
            #expect(spaced.text.contains(#"value="1111 2222""#), "the typed value is kept")
            #expect(spaced.text.contains(#"value="contoso.com""#))
            #expect(!spaced.text.contains("Back button"))
            #expect(!spaced.text.contains("a secret"), "the secret is never echoed")
            #expect(try await h.store.idpConfig(providerId: "microsoft.com") == nil)
            // A tenant list is split on commas only: a mistyped entry is named whole.
            let tenants = try await console.post(h, "/console/provider", session, [
                ("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", "11112222"), ("clientSecret", "a secret"),
                ("allowedTenants", "contoso.com, not a tenant"), ("enabled", "true"), ("vaultFields", "1")])
            #expect(tenants.status == 400)
            #expect(tenants.text.contains(#"id="allowed-tenants-error""#), "\(tenants.text)")
            #expect(tenants.text.contains("not a tenant"))
            #expect(!tenants.text.contains("'not' is not"))
            // Fixed, it saves.
            let saved = try await console.post(h, "/console/provider", session, [
                ("csrf", session.csrf), ("provider", "microsoft.com"), ("clientId", " 11112222 "), ("clientSecret", "a secret"),
                ("allowedTenants", "contoso.com, consumers"), ("enabled", "true"), ("vaultFields", "1")])
            #expect(saved.status == 303 || saved.status == 302, "\(saved.status) \(saved.text.prefix(300))")
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.clientId == "11112222")
            // The admin API refuses the same client id (one validator).
            let api = try await h.send(.post, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/defaultSupportedIdpConfigs?idpId=yahoo.com",
                                       body: #"{"clientId":"has space","clientSecret":"s"}"#, headers: [.authorization: "Bearer owner"])
            #expect(api.status == 400)
            #expect(api.text.contains("no spaces"), "\(api.text)")
        }
    }
}
