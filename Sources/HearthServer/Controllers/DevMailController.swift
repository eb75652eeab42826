import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// `/__dev/mail` (only with the dev mailbox: `--dev`, `demo-*` projects): the messages the server sent, newest
/// first, with their links; a message's HTML part is shown escaped and rendered only in a sandboxed frame.
struct DevMailController {
    let mailbox: DevMailbox
    let publicURL: PublicBaseURL
    let summary: String
    /// Waits for mail still being made after its request was answered (``EmailActionService/settle()``).
    let settle: @Sendable () async -> Void

    func register(on router: Router<HearthRequestContext>) {
        DevSinkPage(path: WirePaths.devMail, cookieName: "hearth_dev_mail", publicURL: publicURL, clear: mailbox.clear) { [mailbox, summary, settle] clear in
            await settle()
            let messages = mailbox.messages.map { entry in
                Pages.DevMail(time: entry.at.formatted(.iso8601), from: entry.mail.from, to: entry.mail.to, subject: entry.mail.subject, kind: entry.kind,
                              link: entry.code?.oobLink ?? Self.firstLink(in: entry.mail.text), text: entry.mail.text, html: entry.mail.html)
            }
            return Pages.devMailbox(messages, summary: "\(messages.count) message(s), kept in memory only. Mail goes to \(summary).",
                                    clear: clear("Clear the mailbox"))
        }.register(on: router)
    }

    /// The first `http(s)` link of a text (a test email's sample link).
    static func firstLink(in text: String) -> String? {
        guard let start = text.range(of: "https://") ?? text.range(of: "http://") else { return nil }
        return String(text[start.lowerBound...].prefix { !$0.isWhitespace })
    }
}

/// A dev page of what the server sent (`/__dev/mail`, `/__dev/sms`): `GET` renders the list, `POST` empties it. The
/// "Clear" form carries the same double-submit token as the action pages' forms.
struct DevSinkPage: Sendable {
    let path: String
    let cookieName: String
    let publicURL: PublicBaseURL
    let clear: @Sendable () -> Void
    /// The page, given a maker of the "Clear" form (its button's words).
    let render: @Sendable (_ clearForm: @Sendable (String) -> Pages.Form) async -> String

    var guardian: FormGuard { FormGuard(cookieName: cookieName, path: path, publicURL: publicURL) }

    func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(path)) { request, _ in
            let token = guardian.token(request)
            let page = await render { button in Pages.Form(action: path, hidden: [.init(FormGuard.field, token)], button: button, secondary: true) }
            return guardian.page(page, token: token)
        }
        router.post(RouterPath(path)) { request, _ in
            let form = try await ConsoleForm.read(request, limit: 4096)
            guard guardian.admits(request, submitted: form[FormGuard.field]) else { return guardian.refusal(again: path) }
            clear()
            return Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
        }
    }
}
