import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The email action pages (`/__/auth/action`) over loopback HTTP, as a browser without JavaScript uses them: a
/// GET shows, only the form's POST acts; codes of another kind, used, unknown or expired codes; the forms' CSRF
/// token; `continueUrl` only to allowed places; bad links; escaping. And the dev mailbox page.
@Suite struct ActionPagesTests {
    /// A page the test has opened: its reply, the form token's cookie and the token in its forms.
    struct Opened {
        var reply: HearthHarness.Reply
        var cookie: String?
        var token: String?
        var text: String { reply.text }
    }

    static let path = WirePaths.actionHandler

    /// A fresh code of `type` (the admin API's `returnOobLink`).
    func code(_ h: HearthHarness, _ type: OobRequestType, email: String, newEmail: String? = nil, continueUrl: String? = nil) async throws -> String {
        var request = SendOobCodeRequest(requestType: type, email: email, newEmail: newEmail, returnOobLink: true)
        request.continueUrl = continueUrl
        return try #require(try await h.server.emailActions.sendOobCode(request, admin: true, in: h.scope).oobCode)
    }

    static func query(_ mode: String, _ code: String, _ extra: [(String, String)] = []) -> String {
        path + "?" + FormEncoding.encode([("mode", mode), ("oobCode", code), ("apiKey", "fake-api-key")] + extra + [("lang", "en")])
    }

    func open(_ h: HearthHarness, _ mode: String, _ code: String, _ extra: [(String, String)] = [], cookie: String? = nil) async throws -> Opened {
        let reply = try await h.send(.get, Self.query(mode, code, extra), headers: cookie.map { [.cookie: $0] } ?? [:])
        return Opened(reply: reply, cookie: ConsoleTests.cookieValue(reply, "hearth_action").map { "hearth_action=\($0)" } ?? cookie,
                      token: Self.hidden("token", in: reply.text))
    }

    static func hidden(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: #"name="\#(name)" value=""#) else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Posts the page's form back with `fields` (mode and code included by the caller).
    func submit(_ h: HearthHarness, _ page: Opened, _ fields: [(String, String)], headers extra: HTTPFields = [:], token: String? = nil) async throws -> HearthHarness.Reply {
        var headers = extra
        if let cookie = page.cookie { headers[.cookie] = cookie }
        let body = FormEncoding.encode(fields + [("token", token ?? page.token ?? "")])
        return try await h.send(.post, Self.path, body: body, contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    func user(_ h: HearthHarness, _ email: String) async throws -> UserRecord { try #require(try await h.store.user(email: email)) }

    // MARK: Password reset

    @Test func resetPasswordShowsTheFormThenChangesThePasswordOnce() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "reset@example.com", password: "old password")
            let oob = try await code(h, .passwordReset, email: "reset@example.com")
            let page = try await open(h, "resetPassword", oob)
            #expect(page.reply.status == 200)
            #expect(page.text.contains("reset@example.com"))
            #expect(page.text.contains(#"name="newPassword""#) && page.text.contains(#"minlength="\#(PasswordHasher.minimumLength)""#))
            #expect(page.text.contains("At least \(PasswordHasher.minimumLength) characters, at most \(PasswordHasher.maximumByteCount) bytes."))
            #expect(!page.text.contains("<script"), "no script on the page")
            // The pages' headers: no referrer (the code is in the address), no framing, no script, no caching.
            #expect(page.reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(page.reply.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(page.reply.headers[.cacheControl] == "no-store")
            let csp = try #require(page.reply.headers[.contentSecurityPolicy])
            #expect(csp.contains("default-src 'none'") && csp.contains("form-action 'self'") && !csp.contains("script-src"))
            let setCookie = try #require(ConsoleTests.setCookies(page.reply).first { $0.hasPrefix("hearth_action=") })
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/__/auth/action"))
            // Opening it again (a scanner, a second tab) changes nothing and keeps the token.
            let again = try await open(h, "resetPassword", oob, cookie: page.cookie)
            #expect(again.reply.status == 200 && again.token == page.token)

            let fields = [("mode", "resetPassword"), ("oobCode", oob)]
            let differ = try await submit(h, page, fields + [("newPassword", "new password 1"), ("confirmPassword", "new password 2")])
            #expect(differ.status == 400 && differ.text.contains("The two passwords differ"))
            let weak = try await submit(h, page, fields + [("newPassword", "abc"), ("confirmPassword", "abc")])
            #expect(weak.status == 400)
            #expect(weak.text.contains("Password should be at least \(PasswordHasher.minimumLength) characters"))
            let tooLong = String(repeating: "é", count: PasswordHasher.maximumByteCount / 2 + 1)
            #expect(try await submit(h, page, fields + [("newPassword", tooLong), ("confirmPassword", tooLong)]).text.contains("at most \(PasswordHasher.maximumByteCount) bytes"))
            #expect(try await h.signIn(email: "reset@example.com", password: "old password").status == 200, "refused attempts change nothing")

            let done = try await submit(h, page, fields + [("newPassword", "brand new secret"), ("confirmPassword", "brand new secret")])
            #expect(done.status == 200)
            #expect(done.text.contains("Password changed"))
            #expect(!done.text.contains("Continue"), "no continueUrl, no Continue link")
            #expect(try await h.signIn(email: "reset@example.com", password: "brand new secret").status == 200)
            #expect(try await h.signIn(email: "reset@example.com", password: "old password").status == 400)

            // The same form sent again (a double click, a replay): the code is used.
            let replay = try await submit(h, page, fields + [("newPassword", "third secret!"), ("confirmPassword", "third secret!")])
            #expect(replay.status == 400 && replay.text.contains("This link was already used or is not valid"))
            #expect(try await h.signIn(email: "reset@example.com", password: "third secret!").status == 400)
            let reopened = try await open(h, "resetPassword", oob)
            #expect(reopened.reply.status == 400 && reopened.text.contains("already used"))
        }
    }

    @Test func continueUrlIsLinkedOnlyWhenAllowedAtClickTime() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "cont@example.com")
            let allowed = "http://localhost:3000/after-reset"
            let oob = try await code(h, .passwordReset, email: "cont@example.com", continueUrl: allowed)
            let page = try await open(h, "resetPassword", oob, [("continueUrl", allowed)])
            let fields = [("mode", "resetPassword"), ("oobCode", oob), ("continueUrl", allowed)]
            let done = try await submit(h, page, fields + [("newPassword", "new secret 1"), ("confirmPassword", "new secret 1")])
            #expect(done.text.contains(#"href="\#(allowed)""#) && done.text.contains(">Continue<"))

            // A link edited to lead elsewhere: the action works, no link leads there.
            let other = try await code(h, .passwordReset, email: "cont@example.com")
            let evil = "https://evil.example/phish"
            let edited = try await open(h, "resetPassword", other, [("continueUrl", evil)])
            let result = try await submit(h, edited, [("mode", "resetPassword"), ("oobCode", other), ("continueUrl", evil),
                                                      ("newPassword", "new secret 2"), ("confirmPassword", "new secret 2")])
            #expect(result.status == 200 && result.text.contains("Password changed"))
            #expect(!result.text.contains("href=\"https://evil.example"))
            #expect(result.text.contains("Nothing is wrong with the action itself."))

            // A domain removed after the mail went out is not followed either.
            var config = try await h.scope.config()
            let third = try await code(h, .passwordReset, email: "cont@example.com", continueUrl: allowed)
            config.authorizedDomains = ["127.0.0.1"]
            try await h.store.saveProjectConfig(config)
            let late = try await open(h, "resetPassword", third, [("continueUrl", allowed)])
            let lateDone = try await submit(h, late, [("mode", "resetPassword"), ("oobCode", third), ("continueUrl", allowed),
                                                      ("newPassword", "new secret 3"), ("confirmPassword", "new secret 3")])
            #expect(lateDone.text.contains("Password changed") && !lateDone.text.contains("href=\"http://localhost:3000"))
        }
    }

    @Test func expiredOrForeignCodesAreRefusedAndANewLinkCanBeAskedFor() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "late@example.com")
            let mailbox = try #require(h.server.emailActions.mailer.devMailbox)
            let oob = try await code(h, .passwordReset, email: "late@example.com")
            // A reset code opened as another action is not valid there, and stays unused.
            let foreign = try await open(h, "verifyEmail", oob)
            #expect(foreign.reply.status == 400 && foreign.text.contains("This link was already used or is not valid"))
            let forced = try await submit(h, try await open(h, "resetPassword", oob), [("mode", "verifyEmail"), ("oobCode", oob)])
            #expect(forced.status == 400)
            #expect(try await user(h, "late@example.com").emailVerified == false)
            #expect(try await open(h, "resetPassword", oob).reply.status == 200, "the reset code still works")

            h.clock.advance(by: OobCodeLifetimes.defaultReset + 1)
            let expired = try await open(h, "resetPassword", oob)
            #expect(expired.reply.status == 400)
            #expect(expired.text.contains("This link has expired"))
            #expect(expired.text.contains(#"name="email""#) && expired.text.contains("Send me a new link"))
            let posted = try await submit(h, expired, [("mode", "resetPassword"), ("oobCode", oob), ("newPassword", "x123456"), ("confirmPassword", "x123456")])
            #expect(posted.status == 400 && posted.text.contains("This link has expired"))

            mailbox.clear()
            let resend = [("mode", "resetPassword"), ("oobCode", oob), ("action", "resend")]
            let sent = try await submit(h, expired, resend + [("email", "late@example.com")])
            #expect(sent.status == 200 && sent.text.contains("Check your email"))
            #expect(mailbox.messages.count == 1)
            #expect(mailbox.messages.first?.code?.requestType == OobRequestType.passwordReset.rawValue && mailbox.messages.first?.mail.to == "late@example.com")
            // An unknown address: the same answer, nothing sent.
            let unknown = try await submit(h, expired, resend + [("email", "nobody@example.com")])
            #expect(unknown.status == 200 && unknown.text.contains("Check your email") && unknown.text.contains("nobody@example.com"))
            #expect(mailbox.messages.count == 1)
            let notAnAddress = try await submit(h, expired, resend + [("email", "not an address")])
            #expect(notAnAddress.status == 400 && notAnAddress.text.contains("That is not an email address."))
            // The new link works.
            let fresh = try #require(mailbox.messages.first?.code?.oobCode)
            #expect(try await open(h, "resetPassword", fresh).reply.status == 200)
        }
    }

    // MARK: Verification, change and recovery

    @Test func verifyEmailOnlyOnThePost() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "verify@example.com")
            let oob = try await code(h, .verifyEmail, email: "verify@example.com")
            let page = try await open(h, "verifyEmail", oob)
            #expect(page.reply.status == 200 && page.text.contains("Verify my email") && page.text.contains("verify@example.com"))
            _ = try await open(h, "verifyEmail", oob)
            #expect(try await user(h, "verify@example.com").emailVerified == false, "a GET (a scanner, a preview) applies nothing")
            let done = try await submit(h, page, [("mode", "verifyEmail"), ("oobCode", oob)])
            #expect(done.status == 200 && done.text.contains("Email verified"))
            #expect(try await user(h, "verify@example.com").emailVerified == true)
            let replay = try await submit(h, page, [("mode", "verifyEmail"), ("oobCode", oob)])
            #expect(replay.status == 400 && replay.text.contains("already used"))
            #expect(replay.text.contains("ask for a new verification email"))
        }
    }

    @Test func changeEmailThenRestoreItAndAskForAReset() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "old@example.com")
            let mailbox = try #require(h.server.emailActions.mailer.devMailbox)
            let oob = try await code(h, .verifyAndChangeEmail, email: "old@example.com", newEmail: "new@example.com")
            let page = try await open(h, "verifyAndChangeEmail", oob)
            #expect(page.text.contains("Change my email to new@example.com"))
            #expect(try await h.store.user(email: "new@example.com") == nil)
            let changed = try await submit(h, page, [("mode", "verifyAndChangeEmail"), ("oobCode", oob)])
            #expect(changed.status == 200 && changed.text.contains("Email changed") && changed.text.contains("new@example.com"))
            #expect(try await h.store.user(email: "new@example.com") != nil)

            // The old address got a recover link.
            let recover = try #require(mailbox.messages.first(where: { $0.code?.requestType == OobRequestType.recoverEmail.rawValue })?.code?.oobCode)
            let restorePage = try await open(h, "recoverEmail", recover)
            #expect(restorePage.text.contains("Restore my email old@example.com"))
            #expect(try await h.store.user(email: "old@example.com") == nil, "the GET restores nothing")
            let restored = try await submit(h, restorePage, [("mode", "recoverEmail"), ("oobCode", recover)])
            #expect(restored.status == 200 && restored.text.contains("Email restored"))
            #expect(restored.text.contains("Send me a password reset email"))
            #expect(try await h.store.user(email: "old@example.com") != nil)

            mailbox.clear()
            let email = try #require(Self.hidden("email", in: restored.text))
            let sent = try await submit(h, restorePage, [("mode", "recoverEmail"), ("oobCode", recover), ("action", "resend"), ("email", email)],
                                        token: Self.hidden("token", in: restored.text))
            #expect(sent.text.contains("Check your email"))
            #expect(mailbox.messages.first?.code?.requestType == OobRequestType.passwordReset.rawValue && mailbox.messages.first?.mail.to == "old@example.com")
        }
    }

    // MARK: Email-link sign-in

    @Test func signInHandsTheCodeToAnAllowedContinueUrlWithoutUsingIt() async throws {
        try await HearthHarness.run { h in
            let target = "http://localhost:5173/finish"
            let oob = try await code(h, .emailSignIn, email: "link@example.com", continueUrl: target)
            let reply = try await h.send(.get, Self.query("signIn", oob, [("continueUrl", target)]))
            #expect(reply.status == 303)
            let location = try #require(reply.headers[.location])
            #expect(location.hasPrefix(target + "?") && location.contains("mode=signIn") && location.contains("oobCode=\(oob)"))
            #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            // The code is the app's to use.
            let signedIn = try await h.post(WirePaths.accounts("signInWithEmailLink"), SignInWithEmailLinkRequest(email: "link@example.com", oobCode: oob))
            #expect(signedIn.status == 200)

            let bare = try await code(h, .emailSignIn, email: "link@example.com")
            let page = try await h.send(.get, Self.query("signIn", bare))
            #expect(page.status == 200 && page.text.contains("Open this link in the app"))
            let evil = try await h.send(.get, Self.query("signIn", bare, [("continueUrl", "https://evil.example/x")]))
            #expect(evil.status == 200 && evil.headers[.location] == nil && !evil.text.contains("evil.example"))
            #expect(try await h.post(WirePaths.accounts("signInWithEmailLink"), SignInWithEmailLinkRequest(email: "link@example.com", oobCode: bare)).status == 200)
        }
    }

    // MARK: Attacks and bad input

    @Test func formsNeedTheirTokenAndThisSite() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "csrf@example.com")
            let oob = try await code(h, .verifyEmail, email: "csrf@example.com")
            let page = try await open(h, "verifyEmail", oob)
            let fields = [("mode", "verifyEmail"), ("oobCode", oob)]
            var noCookie = page
            noCookie.cookie = nil
            let refusals = [
                try await submit(h, page, fields, token: "wrong-token-wrong-token-wrong-token"),
                try await submit(h, noCookie, fields),
                try await submit(h, page, fields, headers: [.origin: "https://evil.example"]),
                try await submit(h, page, fields, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]),
            ]
            for reply in refusals {
                #expect(reply.status == 403 && reply.text.contains("Request refused"))
            }
            #expect(try await user(h, "csrf@example.com").emailVerified == false)
            // This site's own form (browsers send Origin: null under no-referrer) goes through.
            let own = try await submit(h, page, fields, headers: [.origin: "null", HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(own.status == 200)
            #expect(try await user(h, "csrf@example.com").emailVerified == true)
        }
    }

    @Test func badLinksGetAPlainPageNeverA500() async throws {
        try await HearthHarness.run { h in
            let evil = "<script>alert(1)</script>"
            let cases: [(String, String)] = [
                (Self.path, "names no action"),
                (Self.path + "?oobCode=abc", "names no action"),
                (Self.path + "?mode=" + FormEncoding.escape(evil) + "&oobCode=abc", "&lt;script&gt;alert(1)&lt;/script&gt;"),
                (Self.path + "?mode=resetPassword", "has no action code"),
                (Self.query("resetPassword", "abc", [("continueUrl", "https://a.example/" + String(repeating: "a", count: 5000))]), "too long"),
                (Self.query("resetPassword", String(repeating: "A", count: 5000)), "too long"),
                (Self.path + "?mode=resetPassword&oobCode=ab%00c", "NUL"),
                (Self.query("resetPassword", "not-a-real-code"), "already used or is not valid"),
                (Self.query("verifyEmail", "abc$%^"), "already used or is not valid"),
            ]
            for (path, expected) in cases {
                let reply = try await h.send(.get, path)
                #expect(reply.status == 400, "\(path)")
                #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(reply.text.contains(expected), "\(path): \(reply.text)")
                #expect(!reply.text.contains(evil))
            }
            let posted = try await h.send(.post, Self.path, body: "mode=resetPassword&token=x", contentType: "application/x-www-form-urlencoded")
            #expect(posted.status == 403)
            let test = try await h.send(.get, Self.path + "?mode=test&oobCode=TEST")
            #expect(test.status == 200 && test.text.contains("This is a test link"))
        }
    }

    // MARK: The dev mailbox

    @Test func devMailboxListsEscapesAndClears() async throws {
        try await HearthHarness.run { h in
            let evil = "<script>alert('x')</script>"
            let session = try await ConsoleTests().signIn(h)
            // A template whose subject and HTML body hold markup: escaped on the page, the HTML only in a sandbox.
            let saved = try await h.send(.post, "/console/templates", body: ConsoleTests.form([
                ("csrf", session.csrf), ("kind", "verifyEmail"), ("do", "save"), ("subject", "Hi " + evil),
                ("body", "<p>Hello " + evil + " %LINK%</p>"), ("bodyFormat", "HTML"),
            ]), contentType: "application/x-www-form-urlencoded", headers: session.headers)
            #expect(saved.status == 303)
            _ = try await h.signUp(email: "mail@example.com")
            _ = try await h.server.emailActions.sendOobCode(SendOobCodeRequest(requestType: .verifyEmail, email: "mail@example.com"), admin: true, in: h.scope)

            let page = try await h.send(.get, WirePaths.devMail)
            #expect(page.status == 200)
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.text.contains("mail@example.com") && page.text.contains("verifyEmail"))
            #expect(page.text.contains("Hi &lt;script&gt;"))
            #expect(!page.text.contains(evil), "nothing from a message reaches the page as markup")
            #expect(page.text.contains(#"<iframe sandbox srcdoc="&lt;p&gt;Hello"#))
            let link = try #require(h.server.emailActions.mailer.devMailbox?.messages.first?.code?.oobLink)
            #expect(page.text.contains(#"href="\#(link.replacingOccurrences(of: "&", with: "&amp;"))""#))

            let token = try #require(Self.hidden("token", in: page.text))
            let cookie = try #require(ConsoleTests.cookieValue(page, "hearth_dev_mail"))
            let forged = try await h.send(.post, WirePaths.devMail, body: "token=other", contentType: "application/x-www-form-urlencoded",
                                          headers: [.cookie: "hearth_dev_mail=\(cookie)"])
            #expect(forged.status == 403)
            #expect(h.server.emailActions.mailer.devMailbox?.messages.isEmpty == false)
            let cleared = try await h.send(.post, WirePaths.devMail, body: "token=\(token)", contentType: "application/x-www-form-urlencoded",
                                           headers: [.cookie: "hearth_dev_mail=\(cookie)"])
            #expect(cleared.status == 303)
            #expect(h.server.emailActions.mailer.devMailbox?.messages.isEmpty == true)
            #expect(try await h.send(.get, WirePaths.devMail).text.contains("No messages yet."))
        }
    }

    @Test func noDevMailboxNoPage() async throws {
        try await HearthHarness.run(configure: { $0.mail.devMailbox = false }) { (h: HearthHarness) async throws in
            let reply = try await h.send(.get, WirePaths.devMail)
            #expect(reply.status == 404)
        }
    }
}
