/// Why a message could not be built or delivered. Each case's ``description`` is a sentence for an operator: what
/// failed and what to do. None of them carries the SMTP password.
public enum MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An address that is not a mailbox Hearth sends to (the payload says why).
    case invalidAddress(String)
    /// A setting that cannot work (the payload names it, e.g. `smtp.url`).
    case invalidConfiguration(String)
    /// The mail server's host name does not resolve.
    case dns(host: String)
    /// The connection could not be made, or was lost before the message was accepted.
    case connect(host: String, port: Int, reason: String)
    /// The TLS handshake failed (certificate not trusted, wrong host name, no common protocol).
    case tls(String)
    /// The server did not offer STARTTLS although the configuration requires it.
    case startTLSUnavailable(host: String)
    /// The server refused the user name and password.
    case authenticationFailed(code: Int, reply: String)
    /// A user name is configured but the server offers no mechanism Hearth has (PLAIN, LOGIN).
    case authenticationUnavailable
    /// `MAIL FROM` was refused.
    case senderRejected(code: Int, reply: String)
    /// `RCPT TO` was refused for `address`.
    case recipientRejected(address: String, code: Int, reply: String)
    /// `DATA` or the message itself was refused.
    case messageRejected(code: Int, reply: String)
    /// The server did not answer (or take our data) within the configured timeout.
    case timeout(stage: String)
    /// The server broke the protocol (malformed or oversized replies, data where none belongs).
    case protocolError(String)

    /// Whether trying again later may succeed (4xx replies, connect/DNS/timeouts): the queue retries these;
    /// permanent ones (5xx recipient rejected, auth failed) are not retried.
    public var isTransient: Bool {
        switch self {
        case .dns, .connect, .timeout: true
        case .authenticationFailed(let code, _), .senderRejected(let code, _), .recipientRejected(_, let code, _),
             .messageRejected(let code, _):
            (400..<500).contains(code)
        case .invalidAddress, .invalidConfiguration, .tls, .startTLSUnavailable, .authenticationUnavailable, .protocolError: false
        }
    }

    /// A clear sentence saying what failed and what to do.
    public var description: String {
        switch self {
        case .invalidAddress(let detail):
            "Invalid email address: \(detail)."
        case .invalidConfiguration(let detail):
            detail
        case .dns(let host):
            "The mail server's host name \(host) does not resolve (DNS lookup failed); check the host in smtp.url (--smtp-url) and this machine's DNS."
        case .connect(let host, let port, let reason):
            "Could not deliver through the mail server at \(host):\(port): \(reason). Check smtp.url (--smtp-url) and that the server is reachable from this machine; the message will be retried."
        case .tls(let detail):
            "TLS with the mail server failed: \(detail). If the server's certificate comes from a private CA, pass that CA's PEM file with --smtp-ca-file; check also that smtp.url names the host its certificate is for."
        case .startTLSUnavailable(let host):
            "The mail server \(host) does not offer STARTTLS, so the password and messages would cross the network unencrypted. Use smtps:// (implicit TLS, usually port 465) if the server speaks it; ?starttls=off is accepted only for a relay on this machine (loopback)."
        case .authenticationFailed(let code, let reply):
            "The mail server refused the user name or password (\(code) \(reply)). Check the user and password in smtp.url; many providers require an app password or an API key instead of the account password."
        case .authenticationUnavailable:
            "smtp.url has a user name, but the mail server offers no authentication mechanism Hearth supports (PLAIN or LOGIN) on this connection. Use the provider's submission port (587 with STARTTLS, or 465 with smtps://)."
        case .senderRejected(let code, let reply):
            "The mail server refused the sender (\(code) \(reply)). Check mail.from (--mail-from): most servers only accept sender addresses of domains the account may send for."
        case .recipientRejected(let address, let code, let reply):
            "The mail server refused the recipient \(address) (\(code) \(reply))."
        case .messageRejected(let code, let reply):
            "The mail server refused the message (\(code) \(reply))."
        case .timeout(let stage):
            "The mail server did not answer within the timeout (\(stage)); the message will be retried. Check that smtp.url names an SMTP port and that the server is healthy."
        case .protocolError(let detail):
            "The mail server broke the SMTP protocol: \(detail)."
        }
    }
}
