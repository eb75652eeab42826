import HearthCore
import HearthMail
import Logging

/// The outbox's relay: ``HearthMail/SMTPClient`` (one connection per message), its errors turned into
/// ``MailTransportError`` (transient or not, a description without secrets).
public struct SMTPMailTransport: MailTransport {
    let client: SMTPClient
    let configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration, logger: Logger = Logger(label: "hearth.smtp")) {
        self.configuration = configuration
        self.client = SMTPClient(configuration: configuration, logger: logger)
    }

    public var summary: String { configuration.redactedURL }

    public func deliver(_ mail: OutgoingMail) async throws {
        let message: MailMessage
        do {
            var to = try MailAddress(parsing: mail.to)
            if let name = mail.toName, !name.isEmpty { to.name = name }
            message = MailMessage(from: try MailAddress(parsing: mail.from), to: to, replyTo: try mail.replyTo.map { try MailAddress(parsing: $0) },
                                  subject: mail.subject, text: mail.text, html: mail.html)
        } catch let error as MailError {
            throw MailTransportError(transient: false, error.description)
        }
        do {
            try await client.send(message)
        } catch let error as MailError {
            throw MailTransportError(transient: error.isTransient, error.description)
        }
    }
}
