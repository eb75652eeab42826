import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// `/__dev/mail` (only with the dev mailbox: `--dev`, `demo-*` projects): the messages the server sent, newest
/// first, with their links; a message's HTML part is shown escaped and rendered only in a sandboxed frame. The
/// "Clear" form carries the same double-submit token as the action pages' forms.
struct DevMailController {
    let mailbox: DevMailbox
    let publicURL: PublicBaseURL
    let summary: String
    /// Waits for mail still being made after its request was answered (``EmailActionService/settle()``).
    let settle: @Sendable () async -> Void
    var guardian: FormGuard { FormGuard(cookieName: "hearth_dev_mail", path: WirePaths.devMail, publicURL: publicURL) }

    func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(WirePaths.devMail)) { request, _ in
            let token = guardian.token(request)
            await settle()
            let messages = mailbox.messages.map { entry in
                Pages.DevMail(time: entry.at.formatted(.iso8601), from: entry.mail.from, to: entry.mail.to, subject: entry.mail.subject, kind: entry.kind,
                              link: entry.code?.oobLink ?? Self.firstLink(in: entry.mail.text), text: entry.mail.text, html: entry.mail.html)
            }
            let clear = Pages.Form(action: WirePaths.devMail, hidden: [.init(FormGuard.field, token)], button: "Clear the mailbox", secondary: true)
            return guardian.page(Pages.devMailbox(messages, summary: "\(messages.count) message(s), kept in memory only. Mail goes to \(summary).", clear: clear),
                                 token: token)
        }
        router.post(RouterPath(WirePaths.devMail)) { request, _ in
            let form = try await ConsoleForm.read(request, limit: 4096)
            guard guardian.admits(request, submitted: form[FormGuard.field]) else { return guardian.refusal(again: WirePaths.devMail) }
            mailbox.clear()
            return Response(status: .seeOther, headers: [.location: WirePaths.devMail, .cacheControl: "no-store"])
        }
    }

    /// The first `http(s)` link of a text (a test email's sample link).
    static func firstLink(in text: String) -> String? {
        guard let start = text.range(of: "https://") ?? text.range(of: "http://") else { return nil }
        return String(text[start.lowerBound...].prefix { !$0.isWhitespace })
    }
}
