import Foundation
import HearthCore

/// One text message for a phone, as a gateway takes it (and as the SMS outbox keeps it, sealed).
public struct OutgoingSms: Sendable, Equatable, Codable {
    /// The number, E.164.
    public var to: String
    /// The message (it holds the code).
    public var text: String
    /// Why it is sent: `sign_in`, `mfa_enrollment` or `mfa_sign_in` (``PhoneCodePurpose``).
    public var kind: String
    public var projectId: String
    /// The tenant whose user asked; nil: the project's own users.
    public var tenantId: String?

    public init(to: String, text: String, kind: String, projectId: String, tenantId: String? = nil) {
        (self.to, self.text, self.kind, self.projectId, self.tenantId) = (to, text, kind, projectId, tenantId)
    }
}

/// Where text messages are delivered: Twilio's Messages API (``TwilioSmsSender``), a JSON webhook
/// (``WebhookSmsSender``), or a test's recorder. Called by ``SmsOutboxService``, off the request path.
public protocol SmsSender: Sendable {
    /// Delivers one message, or throws ``SmsSendError`` (transient: tried again later).
    func deliver(_ sms: OutgoingSms) async throws
    /// Where it delivers, without secrets (`Twilio AC…1234 from +1555…`).
    var summary: String { get }
}

/// A failed delivery to the SMS gateway (``DeliveryError``: transient or not, a description without secrets).
public typealias SmsSendError = DeliveryError

/// A refused `sms.url` or `sms.webhook.secret`, in words that name the problem (never the secret).
public struct SmsConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// SMS settings of a server: the gateway, the dev sink and delivery attempts.
public struct SmsConfiguration: Sendable {
    /// The gateway (`sms.url`); nil: none (production projects then refuse to send).
    public var sender: (any SmsSender)?
    /// Keep messages in the in-memory dev sink (`/__dev/sms`, the emulator's `verificationCodes`): `--dev` and `demo-*`.
    public var devSink: Bool
    /// Delivery attempts before a message is given up.
    public var maxAttempts: Int

    public init(sender: (any SmsSender)? = nil, devSink: Bool = false, maxAttempts: Int = 8) {
        (self.sender, self.devSink, self.maxAttempts) = (sender, devSink, maxAttempts)
    }

    /// The gateway an `sms.url` names: `twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=%2B1…` (or
    /// `messagingServiceSid=MG…`), `twilio+http://…@127.0.0.1:<port>?…` for a loopback stand-in, or an `https://` URL
    /// of a JSON webhook (signed with `webhookSecret` when given). Errors never repeat the token or the secret.
    public static func sender(url text: String, webhookSecret: String?) throws(SmsConfigurationError) -> any SmsSender {
        let scheme = text.prefix { $0 != ":" }.lowercased()
        switch scheme {
        case "twilio", "twilio+http":
            if webhookSecret != nil { throw SmsConfigurationError("sms.webhook.secret applies to a webhook URL (https://…), not to Twilio") }
            return try TwilioSmsSender(url: text)
        case "https", "http":
            return try WebhookSmsSender(url: text, secret: webhookSecret)
        default:
            throw SmsConfigurationError("must be twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=%2B15555550100 (or ?messagingServiceSid=MG…) or the https:// URL of a webhook (docs/phone.md)")
        }
    }

    /// Whether `host` is this machine (a stand-in gateway may be plain http there only).
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
