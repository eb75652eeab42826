import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// The console's Templates page: the five email templates (save, reset, send a test email), `%APP_NAME%`, and
/// whether mail goes anywhere.
extension ConsoleController {
    func registerTemplates(on router: Router<HearthRequestContext>) {
        page(router, "/console/templates", title: "Email templates") { request, _ in
            try await templates(open: FormQuery(request.uri.query).get("kind"))
        }
        router.post("/console/templates") { request, _ in
            try await action(request) { session, form in
                guard let kind = EmailTemplates.Kind(rawValue: form["kind"] ?? "") else { throw HearthAPIError(.invalidConfig, "unknown template kind") }
                let typed = Self.template(from: form)
                do {
                    switch form["do"] {
                    case "reset":
                        try await service.saveEmailTemplate(nil, kind, by: principal(session))
                        return redirect("/console/templates?ok=template-reset&kind=\(kind.rawValue)#\(kind.rawValue)")
                    case "test":
                        let to = form.text("testTo") ?? ""
                        try await emailActions.sendTestEmail(kind, to: to)
                        try await service.audit(principal(session), "mail.test", target: to, detail: kind.rawValue, in: projectScope)
                        return redirect("/console/templates?ok=test-sent&kind=\(kind.rawValue)#\(kind.rawValue)")
                    default:
                        // The default's text saved as such stays the default (not a customized copy).
                        var plain = EmailTemplates.defaultTemplate(kind)
                        plain.customized = nil
                        try await service.saveEmailTemplate(typed == plain ? nil : typed, kind, by: principal(session))
                        return redirect("/console/templates?ok=template-saved&kind=\(kind.rawValue)#\(kind.rawValue)")
                    }
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    // The page again, the form as typed and the reason beside it.
                    let message = error.detail ?? error.description
                    let page = try await templates(open: kind.rawValue, typed: form["do"] == "test" ? nil : typed, error: message, testTo: form["testTo"] ?? "")
                    return html(await render(page, title: "Email templates", current: "/console/templates", session: session), status: .badRequest)
                }
            }
        }
        router.post("/console/templates/app-name") { request, _ in
            try await action(request) { session, form in
                try await service.saveEmailAppName(form.text("appName"), by: principal(session))
                return redirect("/console/templates?ok=app-name")
            }
        }
    }

    /// A template from the form: empty fields are unset (the default's), line ends as `\n`.
    static func template(from form: ConsoleForm) -> AdminProjectConfig.EmailTemplate {
        func field(_ name: String) -> String? { form.text(name)?.replacingOccurrences(of: "\r\n", with: "\n") }
        return AdminProjectConfig.EmailTemplate(
            senderLocalPart: field("senderLocalPart"), senderDisplayName: field("senderDisplayName"), subject: field("subject"),
            body: field("body"), bodyFormat: form["bodyFormat"] == "HTML" ? "HTML" : "PLAIN_TEXT", replyTo: field("replyTo"))
    }

    func templates(open: String?, typed: AdminProjectConfig.EmailTemplate? = nil, error: String? = nil, testTo: String = "") async throws -> TemplatesPage {
        let config = try await projectScope.config()
        return TemplatesPage(mail: mailStatus, appName: config.sendEmail?.appName ?? "", templates: EmailTemplates.Kind.allCases.map { kind in
            let saved = EmailTemplates.template(kind, in: config.sendEmail)
            let isOpen = kind.rawValue == open
            let shown = isOpen ? typed ?? saved : saved
            return TemplatesPage.Entry(
                kind: kind.rawValue, title: kind.title, customized: saved.customized ?? false,
                sender: EmailTemplates.sender(base: configuration.mail.from, template: shown), senderDisplayName: shown.senderDisplayName ?? "",
                senderLocalPart: shown.senderLocalPart ?? "", replyTo: shown.replyTo ?? "", subject: shown.subject ?? "", body: shown.body ?? "",
                html: shown.bodyFormat == "HTML", open: isOpen, error: isOpen ? error : nil, testTo: isOpen ? testTo : "")
        })
    }

    /// Whether mail goes anywhere (the overview's and the Templates page's banner).
    var mailStatus: MailStatus {
        let relay = configuration.mail.transport != nil
        let devMailbox = emailActions.mailer.devMailbox != nil
        let production = !projectScope.projectId.hasPrefix("demo-")
        let warning: String? = relay ? nil
            : !devMailbox ? "Password-reset, verification and sign-in emails cannot be sent: sendOobCode answers \(ServerErrorCode.emailNotConfigured.rawValue). Set smtp.url (--smtp-url or HEARTH_SMTP_URL) and mail.from."
            : production ? "Mail only reaches the dev mailbox, not people: set smtp.url (--smtp-url or HEARTH_SMTP_URL) to deliver it." : nil
        return MailStatus(summary: emailActions.deliverySummary, tone: relay ? "success" : warning == nil ? "info" : "warning",
                          warning: warning, devMailbox: devMailbox)
    }
}
