import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's Templates page: saving, resetting and testing a template (the test lands in the dev mailbox),
/// refusals shown beside the form, escaping, CSRF; and the mail banner.
@Suite struct ConsoleTemplatesTests {
    func post(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await ConsoleTests().post(h, path, session, pairs)
    }

    @Test func saveTestAndResetATemplate() async throws {
        try await HearthHarness.run { h in
            let session = try await ConsoleTests().signIn(h)
            let mailbox = try #require(h.server.emailActions.mailer.devMailbox)
            let page = try await h.send(.get, "/console/templates", headers: session.headers)
            #expect(page.status == 200)
            for kind in EmailTemplates.Kind.allCases { #expect(page.text.contains(kind.title), "\(kind)") }
            #expect(page.text.contains(#"aria-current="page">Templates</a>"#))
            #expect(page.text.contains("Mail goes to the dev mailbox"))

            let saved = try await post(h, "/console/templates", session, [
                ("csrf", session.csrf), ("kind", "resetPassword"), ("do", "save"), ("senderDisplayName", "Acme Support"),
                ("subject", "Reset your Acme password"), ("body", "Hi %EMAIL%,\r\n\r\nopen %LINK%\r\n"), ("bodyFormat", "PLAIN_TEXT"),
            ])
            #expect(saved.status == 303)
            #expect(saved.headers[.location] == "/console/templates?ok=template-saved&kind=resetPassword#resetPassword")
            let stored = try #require(try await h.store.projectConfig(projectId: h.projectId)?.sendEmail?.resetPasswordTemplate)
            #expect(stored.subject == "Reset your Acme password" && stored.body == "Hi %EMAIL%,\n\nopen %LINK%", "line ends as \\n")
            let after = try await h.send(.get, "/console/templates?ok=template-saved&kind=resetPassword", headers: session.headers)
            #expect(after.text.contains("Template saved.") && after.text.contains(#"id="resetPassword" open"#))
            #expect(after.text.contains("customized"))

            mailbox.clear()
            let test = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "resetPassword"), ("do", "test"),
                                                                          ("testTo", "admin@example.com")])
            #expect(test.status == 303)
            let message = try #require(mailbox.messages.first)
            #expect(message.mail.to == "admin@example.com" && message.mail.subject == "[test] Reset your Acme password")
            #expect(message.mail.from.contains("Acme Support") && message.kind == "test")

            let reset = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "resetPassword"), ("do", "reset")])
            #expect(reset.status == 303)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.sendEmail?.resetPasswordTemplate == nil)

            let named = try await post(h, "/console/templates/app-name", session, [("csrf", session.csrf), ("appName", "Acme")])
            #expect(named.status == 303)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.sendEmail?.appName == "Acme")
        }
    }

    @Test func refusalsAreShownBesideTheFormAndInputIsEscaped() async throws {
        try await HearthHarness.run { h in
            let session = try await ConsoleTests().signIn(h)
            let evil = "<script>alert(1)</script>"
            let invalid = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "verifyEmail"), ("do", "save"),
                                                                             ("subject", "S " + evil), ("body", "no link here " + evil)])
            #expect(invalid.status == 400)
            #expect(invalid.text.contains("Nothing was done: the body must contain %LINK% (the action link)"))
            #expect(invalid.text.contains("no link here &lt;script&gt;"), "the form as typed")
            #expect(!invalid.text.contains(evil))
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.sendEmail?.verifyEmailTemplate == nil)

            let badTest = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "verifyEmail"), ("do", "test"), ("testTo", "nope")])
            #expect(badTest.status == 400 && badTest.text.contains("not an email address"))

            let forged = try await post(h, "/console/templates", session, [("kind", "verifyEmail"), ("do", "reset")])
            #expect(forged.status == 403)
            let unknownKind = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "nope"), ("do", "save")])
            #expect(unknownKind.status == 400)

            let saved = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "emailSignIn"), ("do", "save"),
                                                                           ("subject", evil), ("body", evil + " %LINK%")])
            #expect(saved.status == 303)
            let page = try await h.send(.get, "/console/templates", headers: session.headers)
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; %LINK%") && !page.text.contains(evil))
        }
    }

    @Test func theOverviewSaysWhereMailGoes() async throws {
        try await HearthHarness.run { h in
            let session = try await ConsoleTests().signIn(h)
            let overview = try await h.send(.get, "/console", headers: session.headers)
            #expect(overview.text.contains("<strong>Mail:</strong> the dev mailbox"))
        }
        try await HearthHarness.run(configure: { $0.projectId = "prod-project"; $0.mail.devMailbox = false }) { h in
            let session = try await ConsoleTests().signIn(h)
            let overview = try await h.send(.get, "/console", headers: session.headers)
            #expect(overview.text.contains("nowhere: no SMTP relay"))
            #expect(overview.text.contains("sendOobCode answers EMAIL_SENDING_NOT_CONFIGURED"))
            let test = try await post(h, "/console/templates", session, [("csrf", session.csrf), ("kind", "verifyEmail"), ("do", "test"),
                                                                          ("testTo", "a@example.com")])
            #expect(test.status == 400 && test.text.contains("smtp.url"))
        }
    }

    /// Issue 35, smaller things: the console's mail banner names the error code the server really answers when
    /// no relay is configured (it said EMAIL_NOT_CONFIGURED; `sendOobCode` answers EMAIL_SENDING_NOT_CONFIGURED).
    @Test func theMailBannerNamesTheCodeSendOobCodeAnswers() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "prod-project"; $0.apiKeys = ["test-key"]; $0.mail.devMailbox = false }) { h in
            let reply = try await h.post(WirePaths.accounts("sendOobCode"), SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            #expect(reply.status == 400)
            let code = try #require(reply.errorCode)
            #expect(code == ServerErrorCode.emailNotConfigured.rawValue)
            let session = try await ConsoleTests().signIn(h)
            for path in ["/console", "/console/templates"] {
                let page = try await h.send(.get, path, headers: session.headers)
                #expect(page.text.contains("sendOobCode answers \(code)."), "\(path)")
                #expect(!page.text.contains("EMAIL_NOT_CONFIGURED"), "\(path)")
            }
        }
    }
}
