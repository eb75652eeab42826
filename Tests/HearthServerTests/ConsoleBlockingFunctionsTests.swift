import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's Blocking functions page (issue 39, items 1 and 5): the URL per event and the forwarded credentials
/// saved through the admin service (its URL policy, `updateTime`, audit), "Send a test event" showing the function's
/// answer (verified by a strict endpoint against the server's keys, never the JWT on the page), a failing function
/// visible on the page and the overview, CSRF on both forms, and the page seen from a tenant. Both stores.
@Suite struct ConsoleBlockingFunctionsTests {
    let console = ConsoleTests()
    static let page = "/console/blocking-functions"

    /// A harness whose server accepts the loopback endpoint (`--dev`: http to a loopback host).
    static func run(store: HearthHarness.StoreChoice, _ body: @Sendable (HearthHarness, HookEndpoint) async throws -> Void) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions = BlockingFunctionSettings(development: true) }) { h in
            try await h.withHookEndpoint { hooks in try await body(h, hooks) }
        }
    }

    func get(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session) async throws -> HearthHarness.Reply {
        try await h.send(.get, path, headers: session.headers)
    }

    func post(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await console.post(h, path, session, pairs)
    }

    /// The save form with every field (as a browser sends it: empty URLs included, checked boxes only).
    static func form(_ session: ConsoleTests.Session, _ urls: [BlockingEventType: String], forward: Set<String> = []) -> [(String, String)] {
        [("csrf", session.csrf)] + BlockingEventType.allCases.map { ($0.rawValue, urls[$0] ?? "") } + forward.sorted().map { ($0, "true") }
    }

    static func functions(_ h: HearthHarness) async throws -> BlockingFunctionsConfig? {
        try await h.store.projectConfig(projectId: "demo-hearth")?.blockingFunctions
    }

    /// Issue 39, item 1: the page saves each event's URL and the forwarding flags through the admin service (only what
    /// changed: an unchanged URL keeps its updateTime; audited as config.update by console:<admin>); an http URL to
    /// another host and a private address are refused beside their field with the form as typed, nothing saved; an
    /// emptied field removes that function only.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func functionsAreSavedThroughTheAdminService(store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let session = try await console.signIn(h)
            let empty = try await get(h, Self.page, session)
            #expect(empty.status == 200)
            #expect(empty.text.contains(#"<a href="/console/blocking-functions" aria-current="page">Blocking functions</a>"#))
            #expect(empty.text.contains("Function URLs") && empty.text.contains(#"id="hook-beforeCreate" type="url" name="beforeCreate" value="""#))
            #expect(!empty.text.contains("Send a test event"), "no function, no test button")
            #expect(empty.text.contains("or http:// to a loopback host: this server runs with --dev"))

            for (url, words) in [("http://hooks.example.com/before-create", "http"), ("https://10.0.0.7/hook", "private")] {
                let refused = try await post(h, Self.page, session, Self.form(session, [.beforeCreate: url]))
                #expect(refused.status == 400, "\(url): \(refused.text.prefix(300))")
                #expect(refused.text.contains(#"<p class="field-error" id="hook-beforeCreate-error">"#), "beside its field: \(url)")
                #expect(refused.text.contains(#"value="\#(url)""#), "the form as typed")
                #expect(refused.text.lowercased().contains(words), "\(url): \(refused.text)")
                #expect(try await Self.functions(h) == nil, "nothing saved")
            }

            let saved = try await post(h, Self.page, session, Self.form(session, [.beforeCreate: hooks.url(for: .beforeCreate),
                                                                                    .beforeSignIn: hooks.url(for: .beforeSignIn)],
                                                                          forward: ["forwardIdToken"]))
            #expect(saved.status == 303, "\(saved.text.prefix(300))")
            #expect(saved.headers[.location] == Self.page + "?ok=hooks")
            let stored = try #require(try await Self.functions(h))
            #expect(stored.trigger(for: .beforeCreate)?.functionUri == hooks.url(for: .beforeCreate))
            #expect(stored.trigger(for: .beforeSignIn)?.functionUri == hooks.url(for: .beforeSignIn))
            #expect(stored.trigger(for: .beforeSendEmail) == nil && stored.trigger(for: .beforeSendSms) == nil)
            #expect(stored.forwardInboundCredentials == .init(idToken: true))
            let stamp = try #require(stored.trigger(for: .beforeCreate)?.updateTime)
            let audit = try await h.store.auditEntries(before: nil, limit: 10)
            let entry = try #require(audit.first { $0.action == "config.update" })
            #expect(entry.actor == "console:owner")
            #expect(entry.detail == "blockingFunctions.triggers.beforeCreate,blockingFunctions.triggers.beforeSignIn,blockingFunctions.forwardInboundCredentials.idToken",
                    "\(entry)")

            let shown = try await get(h, Self.page + "?ok=hooks", session)
            #expect(shown.text.contains("Blocking functions saved."))
            #expect(shown.text.contains(#"<code class="uri">\#(hooks.url(for: .beforeCreate))</code>"#))
            #expect(shown.text.contains(#"aria-label="Send a test event to beforeCreate""#) && shown.text.contains(#"aria-label="Send a test event to beforeSignIn""#))
            #expect(!shown.text.contains(#"aria-label="Send a test event to beforeSendEmail""#))
            #expect(shown.text.contains(#"name="forwardIdToken" value="true" checked"#) && !shown.text.contains(#"name="forwardAccessToken" value="true" checked"#))
            #expect(shown.text.contains("not called yet"))

            h.clock.advance(by: 60)
            let same = try await post(h, Self.page, session, Self.form(session, [.beforeCreate: hooks.url(for: .beforeCreate),
                                                                                   .beforeSignIn: hooks.url(for: .beforeSignIn)],
                                                                         forward: ["forwardIdToken"]))
            #expect(same.headers[.location] == Self.page + "?ok=hooks-unchanged")
            #expect(try await Self.functions(h)?.trigger(for: .beforeCreate)?.updateTime == stamp, "an unchanged URL keeps its updateTime")

            let removed = try await post(h, Self.page, session, Self.form(session, [.beforeSignIn: hooks.url(for: .beforeSignIn)]))
            #expect(removed.status == 303)
            let after = try #require(try await Self.functions(h))
            #expect(after.trigger(for: .beforeCreate) == nil && after.trigger(for: .beforeSignIn) != nil)
            #expect(after.forwardInboundCredentials == nil)
            #expect(hooks.calls.isEmpty, "saving calls no function")
        }
    }

    /// Issue 39, items 1 and 5: "Send a test event" posts a signed event (verified by the strict endpoint against the
    /// server's keys, a made-up user) and shows the answer — status, time, what it would set, the body — but never the
    /// JWT; a function answering 500 shows as failing on the page (its error, when) and on the overview, until it
    /// answers again; a refusal (403) is a working function; an unconfigured or unknown event is refused.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func testEventsShowTheAnswerAndAnOutageIsVisible(store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            let session = try await console.signIn(h)
            #expect(try await post(h, Self.page, session, Self.form(session, [.beforeCreate: hooks.url(for: .beforeCreate),
                                                                                .beforeSignIn: hooks.url(for: .beforeSignIn)])).status == 303)
            hooks.answer(.beforeCreate, with: .customClaims(["role": .string("tester")]))
            let tested = try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "beforeCreate")])
            #expect(tested.status == 200, "\(tested.text.prefix(400))")
            #expect(tested.text.contains("Test event sent to beforeCreate"))
            #expect(tested.text.contains("<strong>HTTP 200</strong> in "))
            #expect(tested.text.contains("The function allowed the event and would set customClaims."), "\(tested.text)")
            #expect(tested.text.contains("role") && tested.text.contains("tester"), "the answer's body")
            #expect(!tested.text.contains("eyJ"), "no JWT on the page")
            #expect(hooks.rejections.isEmpty, "the test event verifies against the server's keys: \(hooks.rejections)")
            let event = try #require(hooks.events(.beforeCreate).last)
            #expect(event.user?.uid == "hearth-test-event")
            #expect(try await h.store.userCount() == 0, "nothing stored")
            #expect(try await h.store.auditEntries(before: nil, limit: 5).contains {
                $0.action == "blockingFunctions.test" && $0.target == "beforeCreate" && $0.actor == "console:owner"
            })
            let calm = try await get(h, Self.page, session)
            #expect(calm.text.contains(#"<span class="tag on">OK</span> Answered HTTP 200 in"#))
            #expect(!calm.text.contains("A blocking function is failing"))

            // A dead function: 500. The page and the overview say so, with its error, until it answers again.
            hooks.answer(.beforeSignIn, with: .serverError)
            let failed = try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "beforeSignIn")])
            #expect(failed.status == 200)
            #expect(failed.text.contains(#"class="card error" id="test-result""#) && failed.text.contains("<strong>HTTP 500</strong>"), "\(failed.text)")
            #expect(failed.text.contains("Failed: HTTP Cloud Function returned an error"), "\(failed.text)")
            let outage = try await get(h, Self.page, session)
            #expect(outage.text.contains("A blocking function is failing.") && outage.text.contains("The last call to beforeSignIn failed"))
            #expect(outage.text.contains(#"<span class="tag off">Failing</span> The last call failed at"#) && outage.text.contains(" (HTTP 500)."), "\(outage.text)")
            #expect(outage.text.contains(#"<span class="error-text">HTTP Cloud Function returned an error"#))
            #expect(outage.text.contains("It has not worked since the server started."))
            // Failures in a row are counted.
            #expect(try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "beforeSignIn")]).status == 200)
            #expect(try await get(h, Self.page, session).text.contains(#"<span class="tag off">Failing</span> 2 calls in a row failed, the last at"#))
            let overview = try await get(h, "/console", session)
            #expect(overview.text.contains("A blocking function is failing.") && overview.text.contains("2 calls in a row to beforeSignIn failed, the last at"),
                    "\(overview.text)")
            #expect(overview.text.contains(#"<a href="/console/blocking-functions">Blocking functions</a></p></section>"#))

            // A refusal is the function working; then it answers again: no outage.
            hooks.answer(.beforeSignIn, with: .refuse("only staff"))
            let refused = try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "beforeSignIn")])
            #expect(refused.text.contains(#"class="card success" id="test-result""#) && refused.text.contains("<strong>HTTP 403</strong>"))
            #expect(refused.text.contains("The function refused the event") && refused.text.contains("only staff"))
            #expect(!(try await get(h, Self.page, session)).text.contains("A blocking function is failing"))
            #expect(!(try await get(h, "/console", session)).text.contains("A blocking function is failing"))

            let none = try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "beforeSendSms")])
            #expect(none.status == 404 && none.text.contains("no beforeSendSms function is configured"), "\(none.status) \(none.text.prefix(300))")
            let unknown = try await post(h, Self.page + "/test", session, [("csrf", session.csrf), ("event", "afterLunch")])
            #expect(unknown.status == 400 && unknown.text.contains("unknown event afterLunch"))
            #expect(hooks.events(.beforeSendSms).isEmpty)
        }
    }

    /// Issue 39, item 1: both forms are refused without the session's CSRF token (403; nothing saved, no function
    /// called); from a tenant the page shows the project's functions read-only and says that the tenant's users go
    /// through them; the scope picker keeps the page.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func formsNeedTheCSRFTokenAndATenantSeesTheProjectsFunctions(store: HearthHarness.StoreChoice) async throws {
        try await Self.run(store: store) { h, hooks in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            let session = try await console.signIn(h)
            let wrong = (session.csrf.first == "x" ? "y" : "x") + session.csrf.dropFirst()
            for csrf in [nil, wrong] {
                var sneaky = Self.form(session, [.beforeCreate: hooks.url(for: .beforeCreate)]).filter { $0.0 != "csrf" }
                if let csrf { sneaky.append(("csrf", csrf)) }
                #expect(try await post(h, Self.page, session, sneaky).status == 403)
                #expect(try await Self.functions(h) == nil)
            }
            #expect(try await post(h, Self.page, session, Self.form(session, [.beforeSignIn: hooks.url(for: .beforeSignIn)])).status == 303)
            for csrf in [nil, wrong] {
                let pairs = [("event", "beforeSignIn")] + (csrf.map { [("csrf", $0)] } ?? [])
                #expect(try await post(h, Self.page + "/test", session, pairs).status == 403)
            }
            #expect(hooks.calls.isEmpty, "a refused form calls no function")

            let tenant = try await get(h, "/console/t/acme-aaaaa/blocking-functions", session)
            #expect(tenant.status == 200)
            #expect(tenant.text.contains("the users of tenant Tenant acme-aaaaa (acme-aaaaa) go through the project&#39;s functions below"), "\(tenant.text)")
            #expect(tenant.text.contains(#"<a href="/console/blocking-functions">Change them on the project's page</a>"#))
            #expect(tenant.text.contains(#"<code class="uri">\#(hooks.url(for: .beforeSignIn))</code>"#))
            #expect(!tenant.text.contains(#"action="/console/blocking-functions""#) && !tenant.text.contains("Send a test event"), "read-only")
            #expect(tenant.text.contains(#"<a href="/console/t/acme-aaaaa/blocking-functions" aria-current="page">Blocking functions</a>"#))
            let switched = try await get(h, "/console/switch?tenant=acme-aaaaa&to=blocking-functions", session)
            #expect(switched.status == 303 && switched.headers[.location] == "/console/t/acme-aaaaa/blocking-functions")
            #expect(try await get(h, "/console/t/nope-zzzzz/blocking-functions", session).status == 404)
        }
    }
}
