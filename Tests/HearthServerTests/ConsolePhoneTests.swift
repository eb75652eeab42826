import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's Phone page, the users list's phone column and the Overview's SMS banners (issue 40, item 5): the
/// forms save through the admin service (its checks and `config.update` audit), a refusal comes back beside its
/// form with what was typed, the reCAPTCHA secret never reaches a page, CSRF guards every form. Both stores.
@Suite struct ConsolePhoneTests {
    let console = ConsoleTests()
    static let page = "/console/phone"

    func post(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await console.post(h, path, session, pairs)
    }

    /// Issue 40, item 5: the Phone page shows the switches, today's count against the budget, the limits, app
    /// verification ("not needed" in a demo project) and the gateway; each form saves through the admin service
    /// (audited as console:owner with the changed paths); a bad test number, a bad region and a bad budget come back
    /// beside their form (HTTP 400, nothing saved); the secret is stored, shown only as set, and survives a save
    /// that leaves its field empty; a form without the session's CSRF token is refused.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func phoneSettingsAreSavedFromThePhonePage(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions = BlockingFunctionSettings(development: true) }) { h in
            let session = try await console.signIn(h)
            let empty = try await h.send(.get, Self.page, headers: session.headers)
            #expect(empty.status == 200)
            #expect(empty.text.contains(#"<a href="/console/phone" aria-current="page">Phone</a>"#))
            #expect(empty.text.contains("0 of 1000 today (UTC)") && empty.text.contains("not needed (a demo project or a --dev server)"), "\(empty.text)")
            #expect(empty.text.contains("No test numbers."))

            let saved = try await post(h, Self.page, session, [("csrf", session.csrf), ("mfa", "true")])
            #expect(saved.status == 303 && saved.headers[.location] == Self.page + "?ok=phone", "\(saved.text.prefix(300))")
            var config = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(!config.phoneSignInEnabled && config.isPhoneMFAEnabled)
            let entry = try #require(try await h.store.auditEntries(before: nil, limit: 5).first { $0.action == "config.update" })
            #expect(entry.actor == "console:owner" && entry.detail == "signIn.phoneNumber.enabled,mfa.state,mfa.enabledProviders", "\(entry)")

            // Test numbers: added (normalised), refused beside the form as typed, removed.
            let added = try await post(h, Self.page + "/test-numbers", session, [("csrf", session.csrf), ("number", "+1 555-555-0100"), ("code", "123456")])
            #expect(added.status == 303, "\(added.text.prefix(300))")
            for (number, code, words) in [("555-0100", "123456", "is not a phone number"), ("+15555550101", "12x456", "must be 6 digits")] {
                let refused = try await post(h, Self.page + "/test-numbers", session, [("csrf", session.csrf), ("number", number), ("code", code)])
                #expect(refused.status == 400 && refused.text.contains(#"id="test-number-error""#) && refused.text.contains(words), "\(refused.text)")
                #expect(refused.text.contains(#"value="\#(number)""#), "the form as typed")
            }
            config = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(config.testPhoneNumbers == ["+15555550100": "123456"])
            #expect(try await h.send(.get, Self.page, headers: session.headers).text.contains("<code>+15555550100</code>"))
            let removed = try await post(h, Self.page + "/test-numbers", session, [("csrf", session.csrf), ("remove", "+15555550100")])
            #expect(removed.status == 303)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.testPhoneNumbers.isEmpty == true)

            // Region policy.
            let badRegion = try await post(h, Self.page + "/regions", session, [("csrf", session.csrf), ("mode", "allowlistOnly"), ("regions", "US, XX")])
            #expect(badRegion.status == 400 && badRegion.text.contains("XX is not a region code") && badRegion.text.contains(#"value="US, XX""#))
            let regions = try await post(h, Self.page + "/regions", session, [("csrf", session.csrf), ("mode", "allowlistOnly"), ("regions", "us, ca")])
            #expect(regions.status == 303)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.smsRegionConfig == SmsRegionConfig(allowlistOnly: .init(allowedRegions: ["US", "CA"])))

            // Budget, limits, app verification; the secret kept when its field is left empty.
            let secret = "rc-" + RandomID.token(byteCount: 10)
            let badLimits = try await post(h, Self.page + "/limits", session, [("csrf", session.csrf), ("dailyBudget", "-3"), ("recaptchaSecret", secret)])
            #expect(badLimits.status == 400 && badLimits.text.contains("Nothing was saved: sms.dailyBudget must be between 0") && !badLimits.text.contains(secret),
                    "\(badLimits.text)")
            let limits = try await post(h, Self.page + "/limits", session, [("csrf", session.csrf), ("dailyBudget", "40"), ("perNumberPerHour", ""),
                                                                             ("recaptchaSecret", secret), ("verifyUrl", "http://127.0.0.1:9/v"), ("minScore", "0.3")])
            #expect(limits.status == 303, "\(limits.text.prefix(400))")
            let again = try await post(h, Self.page + "/limits", session, [("csrf", session.csrf), ("dailyBudget", "40"), ("recaptchaSecret", ""),
                                                                            ("verifyUrl", "http://127.0.0.1:9/v"), ("minScore", "0.3")])
            #expect(again.status == 303)
            config = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(config.sms == SmsSettings(dailyBudget: 40, recaptcha: .init(secretKey: secret, verifyUrl: "http://127.0.0.1:9/v", minScore: 0.3)))
            let shown = try await h.send(.get, Self.page, headers: session.headers)
            #expect(!shown.text.contains(secret) && shown.text.contains("A secret is set.") && shown.text.contains("0 of 40 today (UTC)"), "\(shown.text)")

            let forged = try await post(h, Self.page, session, [("csrf", "x" + session.csrf.dropFirst()), ("enabled", "true")])
            #expect(forged.status == 403)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.phoneSignInEnabled == false)
        }
    }

    /// Issue 40, item 5: the Overview warns when sends stop — a production project (not demo, no --dev) without app
    /// verification or a gateway, and the daily budget used up — and says so once app verification is turned off
    /// explicitly; nothing is shown while phone sign-in and SMS factors are off. The users list has a Phone column.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theOverviewWarnsWhenSmsSendsStop(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.projectId = "prod-project" }) { h in
            let session = try await console.signIn(h)
            let quiet = try await h.send(.get, "/console", headers: session.headers)
            #expect(quiet.status == 200 && !quiet.text.contains("<strong>SMS:</strong>"), "phone sign-in is off in a production project")

            let admin = h.server.admin
            try await admin.updateProjectSettings([.phoneSignIn(true)], by: .emulatorOwner, in: h.scope)
            let warned = try await h.send(.get, "/console", headers: session.headers).text
            #expect(warned.contains("app verification is not configured: this production project refuses every SMS"), "\(warned)")
            #expect(warned.contains("this server has no SMS gateway (sms.url)"))
            let phonePage = try await h.send(.get, Self.page, headers: session.headers).text
            #expect(phonePage.contains("not configured: every send is refused"))

            try await admin.updateProjectSettings([.smsAppVerificationDisabled(true), .smsDailyBudget(0)], by: .emulatorOwner, in: h.scope)
            let after = try await h.send(.get, "/console", headers: session.headers).text
            #expect(after.contains("app verification is turned off") && !after.contains("app verification is not configured"), "\(after)")
            #expect(after.contains("the daily SMS budget (0) is used up"), "\(after)")

            _ = try await admin.createUser(AdminCreateUserRequest(phoneNumber: "+1 202 555 0123"), by: .emulatorOwner, in: h.scope)
            let users = try await h.send(.get, "/console/users", headers: session.headers).text
            #expect(users.contains(#"<th scope="col">Phone</th>"#) && users.contains(#"<td data-label="Phone">+12025550123</td>"#), "\(users)")
        }
    }
}
