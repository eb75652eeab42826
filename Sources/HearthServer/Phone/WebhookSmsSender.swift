import Foundation
import HearthOIDC
import HearthWire
import NIOCore

/// Sends by calling the operator's own endpoint (`sms.url` = `https://…`), which hands the message to any gateway:
/// `POST` of `{"to", "text", "kind", "projectId", "tenantId"}` (JSON; `tenantId` absent for the project's own users),
/// signed with `sms.webhook.secret` when given (``WebhookSignature``: `X-Hearth-Signature: t=…,v1=…`). Any 2xx answer
/// means sent; 408, 429, 5xx and connection failures are temporary (retried by the outbox), other answers permanent.
/// Plain `http://` only to this machine.
public struct WebhookSmsSender: SmsSender {
    /// The endpoint.
    public let url: String
    private let secret: String?
    let http: UpstreamHTTP
    let now: @Sendable () -> Date

    public init(url text: String, secret: String?, http: UpstreamHTTP = UpstreamHTTP(timeout: .seconds(10)),
                now: @escaping @Sendable () -> Date = { Date() }) throws(SmsConfigurationError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme),
              let host = url.host, !host.isEmpty
        else { throw SmsConfigurationError("a webhook URL is https://host/path") }
        if scheme == "http", !SmsConfiguration.isLoopback(host) {
            throw SmsConfigurationError("the webhook must be https:// (plain http only to this machine: 127.0.0.1, ::1, localhost)")
        }
        if url.user != nil || url.password != nil {
            throw SmsConfigurationError("the webhook URL must not hold credentials: set sms.webhook.secret and check X-Hearth-Signature (docs/phone.md)")
        }
        if let secret, secret.utf8.count < 16 {
            throw SmsConfigurationError("sms.webhook.secret must be at least 16 characters (a random value, e.g. from openssl rand -hex 32)")
        }
        self.url = text
        self.secret = secret
        self.http = http
        self.now = now
    }

    public var summary: String {
        guard var parts = URLComponents(string: url) else { return "a webhook" }
        // The query may carry a key of the operator's: not shown.
        parts.query = nil
        parts.fragment = nil
        return "webhook \(parts.string ?? "")" + (secret == nil ? " (unsigned)" : " (signed)")
    }

    public func deliver(_ sms: OutgoingSms) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = try encoder.encode(sms)
        var headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if let secret {
            headers.append((WebhookSignature.headerName,
                            WebhookSignature.header(body: body, secret: secret, timestamp: Int(now().timeIntervalSince1970))))
        }
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.post(url, headers: headers, body: body)
        } catch {
            throw SmsSendError(transient: true, "webhook: " + UpstreamHTTP.describe(error, url: url))
        }
        if (200..<300).contains(reply.status) { return }
        throw SmsSendError(transient: reply.status == 408 || reply.status == 429 || reply.status >= 500,
                           "the webhook answered HTTP \(reply.status)")
    }
}
