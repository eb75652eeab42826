import Foundation
import HearthOIDC
import HearthWire
import NIOCore

/// Sends through Twilio's Messages API: `POST https://<host>/2010-04-01/Accounts/<AccountSID>/Messages.json` with
/// HTTP Basic (account SID, auth token) and the form fields `To`, `From` (or `MessagingServiceSid`) and `Body`.
/// Configured by `sms.url`: `twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=%2B15555550100` (or
/// `?messagingServiceSid=MG…`); `twilio+http://…@127.0.0.1:<port>?…` reaches a stand-in on this machine (plain http
/// is refused for any other host). 429, 5xx and connection failures are temporary (retried by the outbox); any other
/// refusal is permanent and logged with Twilio's `code` and `message`. The token is never logged nor stored.
public struct TwilioSmsSender: SmsSender {
    /// The account SID (`AC` and 32 hex digits), the user of the Basic credentials and part of the path.
    public let accountSid: String
    private let authToken: String
    /// The sender: a number (`+1…`) or an alphanumeric sender id; or nil with ``messagingServiceSid``.
    public let from: String?
    /// A messaging service (`MG…`) choosing the sender instead of ``from``.
    public let messagingServiceSid: String?
    /// `https://api.twilio.com/2010-04-01/Accounts/<SID>/Messages.json` (or the stand-in's).
    public let endpoint: String
    let http: UpstreamHTTP

    /// Reads a `twilio://` or `twilio+http://` URL (see the type's description); errors name the part that is wrong.
    public init(url text: String, http: UpstreamHTTP = UpstreamHTTP(timeout: .seconds(10))) throws(SmsConfigurationError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["twilio", "twilio+http"].contains(scheme) else {
            throw SmsConfigurationError("a Twilio URL is twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=%2B15555550100")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SmsConfigurationError("the Twilio URL needs the API host: twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=…")
        }
        if scheme == "twilio+http", !SmsConfiguration.isLoopback(host) {
            throw SmsConfigurationError("twilio+http:// (plain http) is for a stand-in on this machine only (127.0.0.1, ::1, localhost); use twilio:// for \(host)")
        }
        guard let sid = url.user, Self.isSid(sid, prefix: "AC") else {
            throw SmsConfigurationError("the Twilio URL's user must be the Account SID: AC followed by 32 hex digits (twilio://AC…:<AuthToken>@api.twilio.com)")
        }
        guard let token = url.password, !token.isEmpty else {
            throw SmsConfigurationError("the Twilio URL lacks the auth token: twilio://\(sid):<AuthToken>@\(host)")
        }
        guard url.path.isEmpty || url.path == "/" else {
            throw SmsConfigurationError("the Twilio URL takes no path (Hearth adds /2010-04-01/Accounts/<SID>/Messages.json)")
        }
        var from: String?
        var service: String?
        for item in url.queryItems ?? [] {
            switch item.name {
            case "from": from = item.value?.trimmingCharacters(in: .whitespaces)
            case "messagingServiceSid": service = item.value
            default:
                throw SmsConfigurationError("the Twilio URL has an unknown parameter \(item.name.prefix(40)): it takes from=%2B1… or messagingServiceSid=MG…")
            }
        }
        switch (from, service) {
        case (nil, nil), (.some, .some):
            throw SmsConfigurationError("the Twilio URL needs one sender: ?from=%2B15555550100 (a Twilio number, + written %2B) or ?messagingServiceSid=MG…")
        case (let number?, nil):
            guard Self.isSender(number) else {
                throw SmsConfigurationError("the Twilio URL's from must be an E.164 number (%2B15555550100) or an alphanumeric sender id of at most 11 characters")
            }
        case (nil, let sid?):
            guard Self.isSid(sid, prefix: "MG") else {
                throw SmsConfigurationError("the Twilio URL's messagingServiceSid must be MG followed by 32 hex digits")
            }
        }
        self.accountSid = sid
        self.authToken = token
        self.from = from
        self.messagingServiceSid = service
        let port = url.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.endpoint = "\(scheme == "twilio" ? "https" : "http")://\(bracketed)\(port)/2010-04-01/Accounts/\(sid)/Messages.json"
        self.http = http
    }

    public var summary: String {
        "Twilio \(URLComponents(string: endpoint)?.host ?? "") account \(accountSid.prefix(6))…\(accountSid.suffix(4)), "
            + (from.map { "from \($0)" } ?? "messaging service \(messagingServiceSid ?? "")")
    }

    public func deliver(_ sms: OutgoingSms) async throws {
        var fields = [("To", sms.to)]
        if let from { fields.append(("From", from)) }
        if let messagingServiceSid { fields.append(("MessagingServiceSid", messagingServiceSid)) }
        fields.append(("Body", sms.text))
        let credentials = Data("\(accountSid):\(authToken)".utf8).base64EncodedString()
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.postForm(endpoint, fields, basicAuthorization: credentials)
        } catch {
            throw SmsSendError(transient: true, "Twilio: " + UpstreamHTTP.describe(error, url: endpoint))
        }
        if (200..<300).contains(reply.status) { return }
        let refusal = reply.decode(TwilioError.self)
        var words = "Twilio answered HTTP \(reply.status)"
        if let refusal {
            words += " (code \(refusal.code.map { String($0) } ?? "none")"
            if let message = refusal.message { words += ": " + SmsRedaction.redact(String(message.prefix(300)), number: sms.to) }
            words += ")"
        }
        throw SmsSendError(transient: reply.status == 429 || reply.status >= 500, words)
    }

    /// Twilio's error answer (`{"code": 21211, "message": "…", "more_info": "…", "status": 400}`).
    struct TwilioError: Decodable {
        var code: Int?
        var message: String?
    }

    static func isSid(_ text: String, prefix: String) -> Bool {
        text.count == 34 && text.hasPrefix(prefix) && text.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    static func isSender(_ text: String) -> Bool {
        if text.hasPrefix("+") {
            let digits = text.dropFirst()
            return (2...15).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
        }
        return (1...11).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }
            && text.contains(where: \.isLetter)
    }
}

/// Keeps numbers out of logs: a number shows as its last two digits only.
enum SmsRedaction {
    /// `…42` for `+15555550142`: a number as logs and the audit log may show it (the one rule for every SMS path).
    static func hint(_ number: String) -> String { "…" + number.suffix(2) }

    /// `text` with `number` (and the number without its `+`) replaced by ``hint(_:)``.
    static func redact(_ text: String, number: String) -> String {
        guard number.count > 2 else { return text }
        let bare = number.hasPrefix("+") ? String(number.dropFirst()) : number
        return text.replacingOccurrences(of: number, with: hint(number)).replacingOccurrences(of: bare, with: hint(number))
    }
}
