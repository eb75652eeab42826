import Foundation
import HearthCore
import HearthStore
import HearthWire

extension AdminService {
    // MARK: Email templates

    /// The project's template of a kind, defaults filled in (`customized` says whether it differs).
    public func emailTemplate(_ kind: EmailTemplates.Kind) async throws -> AdminProjectConfig.EmailTemplate {
        let scope = projectScope
        return EmailTemplates.template(kind, in: try await scope.config().sendEmail)
    }

    /// Saves (or with nil resets to the default) one template; refused with `INVALID_CONFIG` and the reason when
    /// it is too long, lacks `%LINK%`, has a bad sender, ….
    public func saveEmailTemplate(_ template: AdminProjectConfig.EmailTemplate?, _ kind: EmailTemplates.Kind, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        if let template, let problem = EmailTemplates.problem(with: template) { throw HearthAPIError(.invalidConfig, problem) }
        var config = try await scope.config()
        var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
        var stored = template
        stored?.customized = nil
        EmailTemplates.set(stored, kind, in: &sendEmail)
        config.sendEmail = sendEmail
        try await store.saveProjectConfig(config)
        try await audit(principal, template == nil ? "config.emailTemplate.reset" : "config.emailTemplate.update",
                        target: "projects/\(config.projectId)/config", detail: kind.configField, in: scope)
    }

    /// Sets `%APP_NAME%` (empty: the project id).
    public func saveEmailAppName(_ name: String?, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        if let name, name.count > 100 || name.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw HearthAPIError(.invalidConfig, "the app name must be one line of at most 100 characters")
        }
        var config = try await scope.config()
        var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
        sendEmail.appName = name.flatMap { $0.isEmpty ? nil : $0 }
        config.sendEmail = sendEmail
        try await store.saveProjectConfig(config)
        try await audit(principal, "config.update", target: "projects/\(config.projectId)/config", detail: "notification.sendEmail.appName", in: scope)
    }
}

extension EmailActionService {
    /// The console's "send a test email": the kind's template with a sample link, to `recipient`, through the
    /// same outbox as real messages (so it shows whether mail really goes out).
    public func sendTestEmail(_ kind: EmailTemplates.Kind, to recipient: String) async throws {
        guard let address = EmailAddress.normalize(recipient) else { throw HearthAPIError(.invalidEmail, "not an email address") }
        guard mailer.canSend else { throw HearthAPIError(.emailNotConfigured, Mailer.notConfiguredMessage) }
        let config = try await accounts.scopes.project.config()
        let template = EmailTemplates.template(kind, in: config.sendEmail)
        let sample = configuration.publicURL.url + WirePaths.actionHandler + "?mode=test&oobCode=TEST"
        let rendered = EmailTemplates.render(template, .init(link: sample, email: address, newEmail: "new-" + address,
                                                              displayName: "Test User", appName: Mailer.appName(config)))
        let mail = OutgoingMail(from: EmailTemplates.sender(base: configuration.mail.from, template: template), to: address,
                                replyTo: template.replyTo, subject: "[test] " + rendered.subject, text: rendered.text, html: rendered.html)
        try await mailer.send(mail, kind: "test", code: nil, expiresAt: now.addingTimeInterval(3600))
    }

    /// Whether mail goes anywhere, and where (the console's banner, the start banner).
    public var deliverySummary: String {
        if let transport = configuration.mail.transport { return "SMTP relay \(transport.summary)" + (mailer.devMailbox != nil ? " and the dev mailbox" : "") }
        if mailer.devMailbox != nil { return "the dev mailbox (\(WirePaths.devMail)); no SMTP relay" }
        return "nowhere: no SMTP relay (set smtp.url)"
    }
}

extension AdminService {
    /// An action link made for an operator (`hearth users reset-link|verify-link|signin-link`): the code stored as
    /// any other, nothing sent, the link on the URL the server was last served at (unless `--public-url` says).
    public func actionLink(_ type: OobRequestType, email: String, continueURL: String? = nil, by principal: AdminPrincipal, in scope: Scope) async throws -> SendOobCodeResponse {
        var configuration = accounts.configuration
        if configuration.publicURL.isDerived, let served = try await scope.config().servedPublicURL {
            configuration.publicURL = PublicBaseURL(served)
        }
        let linkAccounts = AccountService(configuration: configuration, store: store, keyRing: accounts.keyRing, logger: logger)
        let mailer = Mailer(configuration: MailConfiguration(), store: store, devMailbox: nil, clock: configuration.clock,
                            metrics: configuration.metrics, logger: logger, wake: nil)
        let service = EmailActionService(accounts: linkAccounts, mailer: mailer, limiter: nil, logger: logger)
        var request = SendOobCodeRequest(requestType: type, email: email, returnOobLink: true)
        request.continueUrl = continueURL
        // In the caller's scope: a tenant's user is found in the tenant, and the link carries its tenantId.
        let response = try await service.sendOobCode(request, admin: true, in: scope)
        try await audit(principal, "user.oobLink", target: response.email ?? email, detail: type.rawValue, in: scope)
        return response
    }
}
