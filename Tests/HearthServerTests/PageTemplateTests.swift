import Foundation
import HearthPages
@testable import HearthServer
import HearthStore
import Testing

/// Every page template (`Sources/HearthPages/Templates`) rendered with a sample view model: the page is whole (its
/// partials and body are there, no mustache tag is left), has its title, and user input comes out escaped.
@Suite struct PageTemplateTests {
    /// User input that must never reach a page as markup.
    static let evil = "<script>alert('x')</script> & \"q\""
    /// `evil` as the templates escape it.
    static let escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"

    struct Sample: Sendable {
        var name: String
        var page: any ConsolePage
        var signedIn = true
        var flash: String?
        var error: String?
        /// A text of the page's body that shows the template rendered with the model.
        var marker: String
    }

    static func overviewChart() -> OverviewPage.Chart {
        let days = (0..<30).map { String(format: "2025-01-%02d", $0 + 1) }
        let counts = [DailyCount(day: "2025-01-03", kind: "signIn", key: "microsoft.com", count: 3),
                      DailyCount(day: "2025-01-03", kind: "signIn", key: "password", count: 7),
                      DailyCount(day: "2025-01-30", kind: "signIn", key: "password", count: 1),
                      DailyCount(day: "2025-01-12", kind: "signIn", key: "oidc.<x>&\"", count: 2)]
        let providers = Array(Set(counts.map(\.key))).sorted()
        let colors = Dictionary(uniqueKeysWithValues: providers.enumerated().map { ($1, ["#c2410c", "#1d4ed8", "#15803d"][$0 % 3]) })
        return ConsoleController.chart(days: days, counts: counts, providers: providers, colors: colors)
    }

    static let provider = ProviderPage(
        pageTitle: "Configure Microsoft", providerId: "microsoft.com", isNew: false, isOIDC: false, isMicrosoft: true,
        redirectURI: "http://localhost:9099/__/auth/handler", hint: "hint " + evil, clientId: evil, issuer: "", displayName: "",
        secretSet: true, secretState: "set; never shown", enabled: true, tokenVault: false, vaultKeys: false, nativeClientIds: "a, b",
        allowedEntraTenants: "contoso.com", canTest: true)

    static let refusedProvider = ProviderPage(
        pageTitle: "Configure Microsoft", providerId: "oidc.", isNew: true, isOIDC: true, isMicrosoft: false,
        redirectURI: "http://localhost:9099/__/auth/handler", hint: "hint " + evil, clientId: evil, issuer: "", displayName: "",
        secretSet: false, secretState: "set; never shown", enabled: false, tokenVault: true, vaultKeys: true, nativeClientIds: "a, b",
        allowedEntraTenants: "contoso.com", canTest: false, formError: "Nothing was saved: " + evil, providerIdError: "bad id " + evil,
        issuerError: "iss", clientIdError: "cid", clientSecretError: "sec", nativeClientIdsError: "nat")

    static var tenantsRefused: ProviderPage {
        var page = provider
        page.allowedEntraTenantsError = "tenants " + evil
        return page
    }

    static var googleProvider: ProviderPage {
        var page = provider
        page.providerId = "google.com"
        page.isGoogle = true
        page.allowedHostedDomains = evil
        page.allowedHostedDomainsError = "domains " + evil
        page.nativeClientIdsLabel = "Native " + evil
        return page
    }

    static let appleProvider = AppleProviderPage(
        pageTitle: "Configure Apple", returnURL: "https://auth.example.com/__/auth/handler", domain: "auth.example.com", httpsWarning: nil,
        servicesId: evil, teamId: "TEAM123456", keyId: "KEY1234567", keyOnFile: true, keyState: "key on file (key ID \(evil))",
        bundleIds: "com.example.one\ncom.example.two", enabled: true, tokenVault: true, vaultKeys: true, canTest: true)

    static let refusedApple = AppleProviderPage(
        pageTitle: "Configure Apple", returnURL: "http://localhost:9099/__/auth/handler", domain: "localhost", httpsWarning: "http " + evil,
        servicesId: "", teamId: evil, keyId: "", keyOnFile: false, keyState: "no key on file: native sign-in only", bundleIds: evil,
        enabled: false, tokenVault: false, vaultKeys: false, canTest: false, formError: "Nothing was saved: " + evil,
        servicesIdError: "sid", teamIdError: "team", keyIdError: "kid", privateKeyError: "key " + evil, bundleIdsError: "bundles")

    /// One or more samples per console template.
    static let samples: [Sample] = [
        Sample(name: "signed-in", page: SignedInPage(adminName: evil), signedIn: false, marker: "You are signed in to the console as " + escaped),
        Sample(name: "blank", page: BlankPage(), error: "oops " + evil, marker: "Nothing was changed."),
        Sample(name: "login", page: ConsoleLoginPage(loginCsrf: "lc"), signedIn: false, flash: "You are logged out.", error: evil,
               marker: #"name="csrf" value="lc""#),
        Sample(name: "overview1", page: OverviewPage(
            usersTotal: "3", usersNew: "2", signInsTotal: "5", refusedTotal: "1", chart: overviewChart(),
            legend: [.init(provider: "microsoft.com", color: "#c2410c", count: "4"), .init(provider: evil, color: "#1d4ed8", count: "1")],
            refusals: [.init(reason: evil, count: "1")]), marker: "<title>2025-01-12 oidc.&lt;x&gt;&amp;&quot;: 2</title>"),
        Sample(name: "overview2", page: OverviewPage(
            usersTotal: "0", usersNew: "0", signInsTotal: "0", refusedTotal: "0",
            chart: ConsoleController.chart(days: ["2025-01-01", "2025-01-02"], counts: [], providers: [], colors: [:]), legend: [], refusals: []),
               marker: "No refused sign-ins in the last 30 days."),
        Sample(name: "users1", page: UsersPage(
            caption: "Users 1–2 of 2",
            users: [.init(index: 0, uid: "u1", href: "/console/user?uid=u1", identifier: evil, disabled: true, providers: ["password", "google.com"],
                          created: "2025-01-01 10:00", lastSignIn: "—"),
                    .init(index: 1, uid: "u2", href: "/console/user?uid=u2", identifier: "b@example.com", disabled: false, providers: ["anonymous"],
                          created: "2025-01-02 10:00", lastSignIn: "2025-01-03 10:00", secondFactor: true)],
            query: evil, previous: "/console/users?page=0", next: "/console/users?page=2&q=x"), flash: "User added.",
               marker: #"aria-label="Copy UID of \#(escaped)""#),
        Sample(name: "users2", page: UsersPage(caption: "No users yet.", users: [], query: nil, previous: nil, next: nil),
               marker: "<caption>No users yet.</caption>"),
        Sample(name: "user1", page: UserPage(
            pageTitle: evil, uid: "u1", disabled: true, deleteHref: "/console/user/delete?uid=u1",
            facts: [.init(label: "UID", value: "u1"), .init(label: "Display name", value: evil)],
            providers: [.init(providerId: "microsoft.com", detail: "a@b · uid 123")], claims: "{\n  \"admin\" : true\n}"),
               marker: "<dt>Display name</dt><dd>\(escaped)</dd>"),
        Sample(name: "user2", page: UserPage(pageTitle: nil, uid: "u2", disabled: false, deleteHref: "/d", facts: [.init(label: "UID", value: "u2")],
                                             providers: [], claims: ""), marker: "None (anonymous or custom-token user)."),
        Sample(name: "user3", page: UserPage(
            pageTitle: nil, uid: "u3", disabled: false, deleteHref: "/d", facts: [.init(label: "UID", value: "u3")], providers: [], claims: "",
            secondFactors: [.init(displayName: evil, enrolledAt: "2026-11-24 06:00", enrollmentId: "enr-1"),
                            .init(displayName: "Authenticator app", enrolledAt: "2026-11-24 07:00", enrollmentId: "enr-2")],
            recoveryCodes: "7 recovery codes left (3 used)"),
               marker: #"<input type="hidden" name="uid" value="u3"><input type="hidden" name="factor" value="enr-1">"#),
        Sample(name: "user4", page: UserPage(
            pageTitle: nil, uid: "u4", disabled: false, deleteHref: "/d", facts: [], providers: [], claims: "",
            secondFactors: [.init(displayName: "Phone", enrolledAt: "2026-11-24 06:00", enrollmentId: "enr-9")]),
               marker: #"aria-label="Remove Phone (enr-9)""#),
        Sample(name: "user5", page: UserPage(
            pageTitle: nil, uid: "u5", disabled: false, deleteHref: "/d", facts: [], providers: [], claims: "",
            passkeys: [.init(name: evil, credentialId: "-_-_AQ", shortId: "-_-_AQ", registered: "2026-11-24 06:00", lastUsed: "never", storage: "synced")]),
               marker: #"<input type="hidden" name="uid" value="u5"><input type="hidden" name="credentialId" value="-_-_AQ">"#),
        // Issue 38, item 4: the Tenants page, a tenant's page and its delete confirmation.
        Sample(name: "tenants1", page: TenantsPage(
            caption: "1 tenant, by ID", tenants: [.init(index: 0, id: "acme-x7k2p", displayName: evil, href: "/console/tenant?id=acme-x7k2p",
                                                         usersHref: "/console/t/acme-x7k2p/users", providersHref: "/console/t/acme-x7k2p/providers",
                                                         signIn: ["Email/password"], authDisabled: true, created: "2026-11-28 06:00")],
            next: "/console/tenants?after=acme-x7k2p",
            form: TenantForm(displayName: evil, allowPasswordSignup: true, formError: "Nothing was saved: correct the field marked below.",
                             displayNameError: "name " + evil)),
               marker: #"<p class="field-error" id="display-name-error">name \#(escaped)</p>"#),
        Sample(name: "tenants2", page: TenantsPage(caption: "No tenants yet: every user is the project's.", tenants: [], form: TenantForm()),
               marker: #"<form method="post" action="/console/tenants" class="card"><input type="hidden" name="csrf" value="csrf-token">"#),
        Sample(name: "tenant", page: TenantPage(
            pageTitle: "Tenant Acme", id: "acme-x7k2p", created: "2026-11-28 06:00", usersHref: "/console/t/acme-x7k2p/users",
            providersHref: "/console/t/acme-x7k2p/providers", deleteHref: "/console/tenant/delete?id=acme-x7k2p",
            form: TenantForm(displayName: "Acme", enableAnonymousUser: true, disableAuth: true)),
               marker: #"<input type="hidden" name="csrf" value="csrf-token"><input type="hidden" name="id" value="acme-x7k2p">"#),
        Sample(name: "confirm-delete-tenant", page: ConfirmDeleteTenantPage(id: "acme-x7k2p", displayName: evil, users: "Its 3 users",
                                                                            backHref: "/console/tenant?id=acme-x7k2p"),
               marker: "Its 3 users and their\ndata go with it"),
        Sample(name: "confirm-delete", page: ConfirmDeletePage(uid: "u1", identifier: evil, backHref: "/console/user?uid=u1"),
               marker: "Delete <strong>\(escaped)</strong>"),
        Sample(name: "providers", page: ProvidersPage(providers: [
            .init(name: "Email/Password", providerId: "password", enabled: true, toggle: true, status: "Enabled", editHref: nil),
            .init(name: "Microsoft", providerId: "microsoft.com", enabled: false, toggle: false, status: "Not configured",
                  editHref: "/console/provider?id=microsoft.com"),
            .init(name: evil, providerId: "oidc.x", enabled: false, toggle: true, status: "Disabled", editHref: "/console/provider?id=oidc.x"),
            .init(name: "Google", providerId: "google.com", enabled: true, toggle: true, status: "Enabled", detail: "hosted domains: " + evil,
                  editHref: "/console/provider?id=google.com"),
        ]), marker: #"aria-label="Enable \#(escaped)""#),
        Sample(name: "provider1", page: provider, marker: #"id="client-id" type="text" name="clientId" value="\#(escaped)""#),
        Sample(name: "provider2", page: refusedProvider, marker: #"<p class="field-error" id="provider-id-error">bad id \#(escaped)</p>"#),
        Sample(name: "provider3", page: tenantsRefused, marker: #"<p class="field-error" id="allowed-tenants-error">tenants \#(escaped)</p>"#),
        Sample(name: "provider4", page: googleProvider,
               marker: #"<p class="field-error" id="allowed-hosted-domains-error">domains \#(escaped)</p>"#),
        Sample(name: "provider-apple1", page: appleProvider, marker: "Private key: <strong>key on file (key ID \(escaped))</strong>"),
        Sample(name: "provider-apple2", page: refusedApple, marker: #"<p class="field-error" id="private-key-error">key \#(escaped)</p>"#),
        Sample(name: "provider-test1", page: ProviderTestPage(
            pageTitle: "Test x", providerId: "oidc.x", ok: false, backHref: "/console/provider?id=oidc.x", summary: "problems",
            checks: [.init(name: "Discovery", status: "ok", detail: "fine", passed: true, failed: false, fix: nil),
                     .init(name: "Secret", status: "failed", detail: evil, passed: false, failed: true, fix: "fix " + evil),
                     .init(name: "Other", status: "skipped", detail: "d", passed: false, failed: false, fix: nil)]),
               marker: #"<p class="note">Fix: fix \#(escaped)</p>"#),
        Sample(name: "provider-test2", page: ProviderTestPage(pageTitle: "Test x", providerId: "oidc.x", ok: true, backHref: "/b", summary: "good",
                                                              checks: []), marker: #"<section class="card " role="status">"#),
        Sample(name: "settings1", page: SettingsPage(onePerEmail: true, enumeration: false, signupAllowed: true, deletionAllowed: false,
                                                     domains: [.init(domain: "localhost"), .init(domain: evil)]),
               marker: #"aria-label="Remove \#(escaped)""#),
        Sample(name: "settings2", page: SettingsPage(onePerEmail: false, enumeration: true, signupAllowed: false, deletionAllowed: true, domains: []),
               marker: #"name="linking" value="multiple" checked"#),
        Sample(name: "settings3", page: SettingsPage(
            onePerEmail: true, enumeration: false, signupAllowed: true, deletionAllowed: true, domains: [],
            secondFactors: .init(enabled: true, adjacentIntervals: 3, window: "window " + evil, clock: .init(
                qrSVG: try! QRCode(text: "otpauth://totp/x:clock-check?secret=AB").svg(label: evil), uri: "otpauth://" + evil, key: "KEY",
                nonce: "n0nce", result: .init(ok: false, message: "result " + evil)))),
               marker: #"<p class="clock-bad" role="status">result \#(escaped)</p>"#),
        Sample(name: "apps", page: AppsPage(caption: "2 app(s)", apps: [
            .init(id: "apple:com.x", name: evil, kind: "Apple app", redirect: "app-1-x://"),
            .init(id: "cli", name: "cli", kind: "Desktop / CLI", redirect: "http://127.0.0.1:<port>/… (loopback, RFC 8252)"),
        ]), marker: "<code>http://127.0.0.1:&lt;port&gt;/… (loopback, RFC 8252)</code>"),
        Sample(name: "service-accounts", page: ServiceAccountsPage(caption: "1 key(s)", keys: [.init(email: evil, keyId: "k1", created: "2025-01-01 00:00")]),
               marker: #"placeholder="admin@demo-project.iam.gserviceaccount.com""#),
        Sample(name: "keys", page: SigningKeysPage(rotationHours: "24", prepublishMinutes: "60", keys: [
            .init(kid: "k1", state: "active", created: "c", activates: "a"), .init(kid: "k2", state: "next", created: "c2", activates: "a2"),
        ]), marker: "Keys rotate every 24 hours; the next key is published 60 minutes before it signs."),
        Sample(name: "audit1", page: AuditPage(entries: [.init(time: "2025-01-01 00:00", actor: evil, action: "user.update", target: "u1", detail: "")],
                                               next: "/console/audit?before=abc"), marker: #"<a class="button secondary" href="/console/audit?before=abc" rel="next">"#),
        Sample(name: "audit2", page: AuditPage(entries: [], next: nil), marker: #"<div class="actions"></div>"#),
        // Issue 39, item 1: the Blocking functions page — a refused URL beside its field, a test event's answer, a failing
        // function's last error (all escaped); in a tenant, read-only with the project's functions.
        Sample(name: "blocking-functions1", page: BlockingFunctionsPage(
            events: [
                .init(name: "beforeCreate", title: "Before a user is created", when: "when " + evil, functionUri: "https://hooks.example.com/" + evil,
                      configured: true, updated: "2026-11-28 10:02", error: "url " + evil,
                      health: .init(ok: false, summary: "3 failures in a row", lastError: "error " + evil, lastSuccess: "never"),
                      test: .init(ok: false, status: "HTTP 500", duration: "12 ms", summary: "summary " + evil, detail: "detail " + evil)),
                .init(name: "beforeSignIn", title: "Before a user signs in", when: "w", functionUri: "", configured: false),
            ],
            forwardIdToken: true, forwardAccessToken: false, forwardRefreshToken: true, editable: true,
            policy: "policy " + evil, formError: "Nothing was saved: correct the field marked below.", outage: "outage " + evil),
               marker: #"<p class="field-error" id="hook-beforeCreate-error">url \#(escaped)</p>"#),
        Sample(name: "blocking-functions2", page: BlockingFunctionsPage(
            events: [.init(name: "beforeSignIn", title: "Before a user signs in", when: "w", functionUri: "https://hooks.example.com/in",
                           configured: true, health: .init(ok: true, summary: "Answered HTTP 200 in 84 ms."))],
            forwardIdToken: false, forwardAccessToken: false, forwardRefreshToken: false, editable: false,
            tenantNote: "tenant " + evil, policy: "p"),
               marker: #"<p>tenant \#(escaped) <a href="/console/blocking-functions">Change them on the project's page</a>.</p>"#),
        // Issue 40, item 5: the Phone page — banners, facts, a test number and the refusals beside their forms (all
        // escaped); the secret is never a field's value.
        Sample(name: "phone", page: PhonePage(
            enabled: true, mfaEnabled: true, alerts: ["alert " + evil], facts: [.init(label: "label " + evil, value: "value " + evil, problem: true)],
            testNumbers: [.init(number: "+15555550100", code: "123456")], typedNumber: evil, typedCode: "12", testNumberError: "number " + evil,
            allowByDefault: false, regions: evil, regionError: "region " + evil, dailyBudget: "5", recaptchaSecretSet: true,
            recaptchaVerifyUrl: evil, limitsError: "limits " + evil),
               marker: #"<p class="field-error" id="test-number-error" role="alert">number \#(escaped)</p>"#),
        Sample(name: "templates", page: TemplatesPage(
            mail: MailStatus(summary: "the dev mailbox", tone: "warning", warning: evil, devMailbox: true), appName: evil,
            templates: [.init(kind: "resetPassword", title: "Password reset", customized: true, sender: "\"A\" <a@example.com>", senderDisplayName: evil,
                              senderLocalPart: "", replyTo: "", subject: evil, body: evil, html: true, open: true, error: evil, testTo: "")]),
               marker: #"<p class="field-error" role="alert">Nothing was done: \#(escaped)</p>"#),
    ]

    static func render(_ sample: Sample) -> String {
        ConsolePages.render(sample.page, title: "Title " + evil, projectId: "demo-project", current: "/console/users",
                            adminName: sample.signedIn ? "admin " + evil : nil, csrf: sample.signedIn ? "csrf-token" : nil,
                            flash: sample.flash, error: sample.error)
    }

    @Test func everyConsoleTemplateHasASample() {
        let covered = Set(Self.samples.map { type(of: $0.page).template })
        #expect(covered == Set(ConsoleTemplate.allCases), "templates without a sample: \(Set(ConsoleTemplate.allCases).subtracting(covered))")
    }

    @Test(arguments: PageTemplateTests.samples.map(\.name)) func consolePageRendersWholeAndEscaped(_ name: String) throws {
        let sample = try #require(Self.samples.first { $0.name == name })
        let html = Self.render(sample)
        let title = sample.page.pageTitle.map { $0 == Self.evil ? Self.escaped : $0 } ?? "Title " + Self.escaped
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.hasSuffix("</main></body></html>"))
        #expect(html.contains("<title>\(title) · Hearth console</title>"), "\(html)")
        #expect(html.contains("<h1>\(title)</h1>"))
        // (`}}` alone is CSS: the end of an @media block.)
        #expect(!html.contains("{{"), "an unrendered mustache tag: \(html)")
        #expect(!html.contains("<script>alert"), "unescaped user input: \(html)")
        #expect(html.contains(sample.marker), "the body is missing \(sample.marker): \(html)")
        // The layout: the navigation and the CSRF token only for a signed-in administrator.
        #expect(html.contains(#"aria-label="Console sections""#) == sample.signedIn)
        #expect(html.contains("Signed in as admin \(Self.escaped)") == sample.signedIn)
        if let flash = sample.flash { #expect(html.contains(#"<p class="card success" role="status">\#(flash)</p>"#)) }
        if let error = sample.error {
            #expect(html.contains(#"<p class="card error" role="alert">\#(error.replacingOccurrences(of: Self.evil, with: Self.escaped))</p>"#))
        }
    }

    @Test func secondFactorsShowOnTheSettingsUserAndUsersPages() throws {
        func html(_ name: String) throws -> String { Self.render(try #require(Self.samples.first { $0.name == name })) }
        let settings = try html("settings3")
        // The QR code is inline markup (no image request under `default-src 'none'`), its label escaped.
        #expect(settings.contains(#"<div class="qr"><svg xmlns="http://www.w3.org/2000/svg""#))
        #expect(settings.contains(#"role="img" aria-label="\#(Self.escaped)""#))
        #expect(settings.contains(#"name="adjacentIntervals" min="0" max="10" step="1" required value="3""#))
        #expect(settings.contains(#"<p class="note" id="mfa-window">window \#(Self.escaped)</p>"#))
        #expect(settings.contains(#"<input type="hidden" name="nonce" value="n0nce">"#))
        #expect(settings.contains(#"name="enabled" value="true" checked"#))
        #expect(!(try html("settings1")).contains("Two-step verification"))
        let user = try html("user3")
        // One Remove per factor and Remove all, each a POST with the CSRF token behind a confirmation.
        #expect(user.components(separatedBy: #"action="/console/user/mfa/remove""#).count - 1 == 3)
        #expect(user.components(separatedBy: #"<input type="hidden" name="csrf" value="csrf-token"><input type="hidden" name="uid" value="u3"><input type="hidden" name="factor" value="enr-"#).count - 1 == 2)
        #expect(user.contains(#"recovery code of this user? Their sessions end and they are told by email."><input type="hidden" name="csrf" value="csrf-token"><input type="hidden" name="uid" value="u3">"#))
        #expect(user.contains("data-confirm=\"Remove \(Self.escaped) from this user?"))
        #expect(user.contains("7 recovery codes left (3 used)"))
        #expect(try html("user2").contains("None: this user signs in with one factor."))
        let users = try html("users1")
        #expect(users.components(separatedBy: ">2FA</span>").count - 1 == 1)
    }

    @Test func theAppleFormNeverFillsTheKeyAndSaysWhatIsOnFile() throws {
        let onFile = Self.render(try #require(Self.samples.first { $0.name == "provider-apple1" }))
        #expect(onFile.contains(#"<textarea id="private-key" name="privateKey""#))
        #expect(onFile.contains(#"placeholder="Leave empty to keep the key on file"></textarea>"#), "the key's field is always empty")
        #expect(onFile.contains(#"name="removeKey""#))
        #expect(onFile.contains(#"value="https://auth.example.com/__/auth/handler""#))
        #expect(onFile.contains("Apple requires HTTPS and a verified domain"))
        #expect(onFile.contains(">com.example.one\ncom.example.two</textarea>"))
        #expect(onFile.contains(#"action="/console/provider/test""#))
        let refused = Self.render(try #require(Self.samples.first { $0.name == "provider-apple2" }))
        #expect(!refused.contains(#"name="removeKey""#), "nothing to remove without a key")
        #expect(refused.contains(#"<p class="field-error" role="alert">http \#(Self.escaped)</p>"#))
        #expect(refused.contains(#"id="team-id" type="text" name="teamId" value="\#(Self.escaped)""#))
        #expect(!refused.contains(#"action="/console/provider/test""#))
        let google = Self.render(try #require(Self.samples.first { $0.name == "provider4" }))
        #expect(google.contains("never widen it"))
        #expect(google.contains(#"<label for="native-client-ids">Native \#(Self.escaped)</label>"#))
        let microsoft = Self.render(try #require(Self.samples.first { $0.name == "provider1" }))
        #expect(!microsoft.contains("allowed-hosted-domains"), "the hosted domains are Google's")
    }

    @Test func theChartIsAnSVGOfStackedBars() throws {
        let html = Self.render(try #require(Self.samples.first { $0.name == "overview1" }))
        #expect(html.contains(#"<svg role="img" aria-labelledby="chart-title" viewBox="0 0 640 200""#))
        #expect(html.contains(#"<line x1="32.0" y1="178.0" x2="640.0" y2="178.0""#))
        #expect(html.contains(#"<text x="0" y="12">10</text>"#), "the tallest day's total labels the axis")
        #expect(html.components(separatedBy: "<rect ").count - 1 == 4)
        // Every seventh day from the last is labelled; the last label ends inside the chart.
        #expect(html.contains(#"<text x="640.0" y="194" text-anchor="end">01-30</text>"#))
        #expect(html.components(separatedBy: #"text-anchor="end""#).count - 1 == 5)
    }

    @Test func messagePagesAreWholeAndEscaped() {
        let html = Pages.message(title: "T " + Self.evil, message: "one\n\ntwo " + Self.evil, tone: .warning,
                                 facts: [("A", Self.evil)], items: ["i1", Self.evil], detail: "d " + Self.evil,
                                 links: [Pages.Link("L1", href: "/a?b=1&c=2"), Pages.Link("L2", href: "/x")], badge: "dev mode")
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains("<title>T \(Self.escaped) · Hearth</title>"))
        #expect(html.contains("<header>Hearth · dev mode</header>"))
        #expect(html.contains(#"<section class="card warning"><h1>T \#(Self.escaped)</h1><p>one</p><p>two \#(Self.escaped)</p>"#))
        #expect(html.contains("<dl><dt>A</dt><dd>\(Self.escaped)</dd></dl>"))
        #expect(html.contains("<ul><li>i1</li><li>\(Self.escaped)</li></ul>"))
        #expect(html.contains(#"<p class="note">d \#(Self.escaped)</p>"#))
        #expect(html.contains(#"<a class="button" href="/a?b=1&amp;c=2">L1</a><a class="button secondary" href="/x">L2</a>"#))
        #expect(!html.contains("<script>") && !html.contains("{{"))
        // Empty parts are left out, not drawn empty.
        let plain = Pages.message(title: "Plain", message: "Only", detail: "", badge: "")
        #expect(plain.contains("<header>Hearth</header>"))
        #expect(!plain.contains("<dl>") && !plain.contains("<ul>") && !plain.contains(#"class="note""#) && !plain.contains(#"class="actions""#))
    }

    @Test func actionPagesAreWholeAndEscaped() {
        let form = Pages.Form(action: "/__/auth/action", hidden: [.init("oobCode", Self.evil)],
                              inputs: [.init(id: "p", label: "New password", name: "newPassword", type: "password", autocomplete: "new-password",
                                             minLength: 6, hint: "hint " + Self.evil)], button: "Save " + Self.evil)
        let html = Pages.action(title: "T " + Self.evil, message: "m " + Self.evil, tone: .error, facts: [("Account", Self.evil)], error: Self.evil,
                                forms: [form], note: "n", links: [Pages.Link("Continue", href: "https://a.example/?x=1&y=2")])
        #expect(html.hasPrefix("<!doctype html>") && html.hasSuffix("</section></main></body></html>"))
        #expect(html.contains(#"<input type="hidden" name="oobCode" value="\#(Self.escaped)">"#))
        #expect(html.contains(#"minlength="6" required aria-describedby="p-hint">"#))
        #expect(html.contains(#"<p class="error-text" role="alert">\#(Self.escaped)</p>"#))
        #expect(html.contains(#"href="https://a.example/?x=1&amp;y=2" rel="noreferrer">Continue</a>"#))
        #expect(!html.contains("<script>") && !html.contains("{{"))
        let mail = Pages.devMailbox([Pages.DevMail(time: "t", from: "f", to: Self.evil, subject: Self.evil, kind: "verifyEmail", link: nil,
                                                   text: Self.evil, html: "<b>" + Self.evil + "</b>")],
                                    summary: "1", clear: Pages.Form(action: "/__dev/mail", hidden: [], button: "Clear"))
        #expect(mail.contains(#"<iframe sandbox srcdoc="&lt;b&gt;\#(Self.escaped)&lt;/b&gt;""#))
        #expect(!mail.contains("<script>") && !mail.contains("<b>") && !mail.contains("Open the link"))
    }

    @Test func devLoginPageIsWholeAndEscaped() {
        let html = Pages.login(provider: "Microsoft", action: "/a", requestId: "r1", email: Self.evil, name: "N", entraTenant: "contoso", error: Self.evil)
        #expect(html.contains("<title>Sign in to Microsoft · Hearth</title>"))
        #expect(html.contains("<header>Hearth · development provider</header>"))
        #expect(html.contains(#"name="email" value="\#(Self.escaped)""#))
        #expect(html.contains(#"<p class="error-text" role="alert">\#(Self.escaped)</p>"#))
        #expect(html.contains("Tenant: <code>contoso</code>."))
        #expect(!html.contains("<script>") && !html.contains("{{"))
        let bare = Pages.login(provider: "Yahoo", action: "/b", requestId: "r2", email: "", name: "", entraTenant: nil, error: "")
        #expect(!bare.contains("Tenant:") && !bare.contains(#"<p class="error-text""#))
    }

    /// Issue 38, item 4: the scope picker lists the project and the tenants (labels escaped), marks the current
    /// one, and in a tenant the Users and Sign-in method links and the page's own links and forms carry
    /// `/console/t/<tenant>`; the project's sections keep their addresses; the tenant's forms keep the CSRF token.
    @Test func theScopePickerScopesUsersAndSignInMethod() throws {
        let bar = ConsoleScopeBar(
            base: "/console/t/acme-x7k2p",
            choices: [.init(id: "", label: "Project demo-project", selected: false), .init(id: "acme-x7k2p", label: Self.evil, selected: true)],
            section: "users", note: "note " + Self.evil, tenantLabel: "Acme · acme-x7k2p", more: true)
        let page = UserPage(uid: "u1", disabled: false, deleteHref: "/console/t/acme-x7k2p/user/delete?uid=u1", facts: [], providers: [], claims: "")
        let html = ConsolePages.render(page, title: "User", projectId: "demo-project", current: "/console/users", adminName: "owner",
                                       csrf: "csrf-token", scope: bar)
        #expect(html.contains(#"<form method="get" action="/console/switch"><label for="scope-picker">Scope</label>"#))
        #expect(html.contains(#"<option value="">Project demo-project</option><option value="acme-x7k2p" selected>\#(Self.escaped)</option>"#))
        #expect(html.contains(#"<input type="hidden" name="to" value="users">"#))
        #expect(html.contains(#"<span class="tag tenant">Tenant Acme · acme-x7k2p</span>"#))
        #expect(html.contains("note \(Self.escaped) The picker lists the first 100 tenants"))
        #expect(html.contains(#"<a href="/console/t/acme-x7k2p/users" aria-current="page">Users</a>"#))
        #expect(html.contains(#"<a href="/console/t/acme-x7k2p/providers">Sign-in method</a>"#))
        #expect(html.contains(#"<a href="/console/settings">Settings</a>"#) && html.contains(#"<a href="/console/tenants">Tenants</a>"#))
        #expect(html.contains(#"action="/console/t/acme-x7k2p/user/disable""#) && html.contains(#"action="/console/t/acme-x7k2p/user/claims""#))
        #expect(!html.contains(#"action="/console/user"#), "no form of the page leaves the tenant")
        #expect(!html.contains("<script>alert"))
        // Without a picker (the login page, the project's pages rendered without one), no scope bar.
        let plain = ConsolePages.render(page, title: "User", projectId: "demo-project", current: "/console/users", adminName: "owner", csrf: "csrf-token")
        #expect(!plain.contains("scope-picker") && plain.contains(#"action="/console/user/disable""#))
    }

    @Test func theStylesheetsAndScriptAreTheTemplateFiles() {
        #expect(Pages.stylesheet.hasPrefix(":root{color-scheme:light dark;"))
        #expect(!Pages.stylesheet.hasSuffix("\n"))
        #expect(ConsolePages.script.hasPrefix("document.addEventListener('click'"))
        let page = Self.render(Self.samples[0])
        #expect(page.contains("<style>\(Pages.stylesheet)\nbody.console{padding:0}"))
    }
}
