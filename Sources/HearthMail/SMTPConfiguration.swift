import Foundation

/// How the connection to the mail server is protected.
public enum SMTPSecurity: String, Sendable {
    /// Plain TCP upgraded with STARTTLS (RFC 3207) before anything else; a server that does not offer it is refused
    /// (``MailError/startTLSUnavailable(host:)``), unless the host is loopback (then the session stays plain).
    case startTLS
    /// TLS from the first byte (`smtps://`, RFC 8314).
    case implicitTLS
    /// No TLS: only for a relay on loopback.
    case none
}

/// Where and how to deliver mail, usually from `smtp.url` (`--smtp-url`, `HEARTH_SMTP_URL`).
///
/// Its descriptions (`description`, `debugDescription`, reflection) show ``redactedURL``: the password is never
/// printed.
public struct SMTPConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The server's host name or IP address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// STARTTLS, implicit TLS, or none (loopback only).
    public var security: SMTPSecurity
    /// The user name for AUTH; no AUTH without one.
    public var username: String?
    /// The password for AUTH.
    public var password: String?
    /// `--smtp-ca-file`: PEM roots to trust in addition to the system's.
    public var trustedCAFile: String?
    /// The name sent with EHLO: "localhost" unless the machine's host name is a fully qualified domain name.
    public var heloName: String
    /// The longest wait for each step (connect, TLS, each reply, sending the message). Default 30 s.
    public var timeout: Duration

    /// `smtp://user:pass@host:587` (STARTTLS, required unless the host is loopback; `?starttls=off` only for a
    /// loopback host), `smtps://user:pass@host:465` (implicit TLS). Percent-decoded user/password. Default ports 587/465.
    /// Clear errors (MailError.invalidConfiguration with a message that names the setting `smtp.url`) otherwise.
    public init(url: String, trustedCAFile: String? = nil) throws {
        func invalid(_ detail: String) -> MailError {
            .invalidConfiguration("smtp.url (--smtp-url, HEARTH_SMTP_URL) \(detail). Expected smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (implicit TLS); percent-encode special characters in the user and password.")
        }
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw invalid("is empty") }
        guard !trimmed.unicodeScalars.contains(where: MailAddressParser.isControl) else { throw invalid("contains control characters") }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw invalid("is not a valid URL")
        }
        switch scheme {
        case "smtp": security = .startTLS
        case "smtps": security = .implicitTLS
        default: throw invalid("has the scheme \"\(scheme)\"; only smtp and smtps are supported")
        }
        var hostText = components.host ?? ""
        if hostText.hasPrefix("["), hostText.hasSuffix("]") { hostText = String(hostText.dropFirst().dropLast()) }
        guard !hostText.isEmpty else { throw invalid("has no host") }
        guard hostText.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && !"/?#@".unicodeScalars.contains($0) }) else {
            throw invalid("has an invalid host")
        }
        host = hostText
        guard components.path.isEmpty || components.path == "/" else { throw invalid("has a path; it takes only user, password, host, port and ?starttls=off") }
        if let port = components.port {
            guard (1...65535).contains(port) else { throw invalid("has the port \(port), outside 1-65535") }
            self.port = port
        } else {
            port = security == .implicitTLS ? 465 : 587
        }
        for item in components.queryItems ?? [] {
            switch (item.name.lowercased(), item.value?.lowercased()) {
            case ("starttls", "off"?), ("starttls", "false"?), ("starttls", "no"?):
                guard security == .startTLS else { throw invalid("combines smtps:// with ?starttls=off") }
                guard Self.isLoopback(host) else {
                    throw invalid("turns STARTTLS off for \(host), which is not this machine: the password and messages would cross the network unencrypted; ?starttls=off is only for a loopback relay (127.0.0.1, ::1, localhost)")
                }
                security = .none
            case ("starttls", "on"?), ("starttls", "true"?), ("starttls", "required"?), ("starttls", "yes"?):
                guard security == .startTLS else { throw invalid("combines smtps:// with ?starttls") }
            default:
                throw invalid("has the unknown parameter \"\(item.name)\"; the only one is starttls=off")
            }
        }
        // Percent-decoded once, from the URL's own text.
        let user = components.percentEncodedUser.map { $0.removingPercentEncoding ?? $0 }
        let pass = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 }
        username = user.flatMap { $0.isEmpty ? nil : $0 }
        password = pass.flatMap { $0.isEmpty ? nil : $0 }
        if password != nil, username == nil { throw invalid("has a password but no user name") }
        for (name, value) in [("user name", username), ("password", password)] {
            if let value, value.unicodeScalars.contains(where: { $0.value == 0 || $0.value == 10 || $0.value == 13 }) {
                throw invalid("has a \(name) with a NUL or line break")
            }
        }
        self.trustedCAFile = trustedCAFile
        heloName = Self.defaultHeloName()
        timeout = .seconds(30)
    }

    /// The URL with the password replaced by `***` — for logs and the console. The password must never appear in
    /// any description, error, or log line.
    public var redactedURL: String {
        var text = security == .implicitTLS ? "smtps://" : "smtp://"
        if let username {
            text += username.addingPercentEncoding(withAllowedCharacters: Self.userInfoAllowed) ?? "user"
            if password != nil { text += ":***" }
            text += "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if security == .none { text += "?starttls=off" }
        return text
    }

    /// ``redactedURL``.
    public var description: String { redactedURL }
    /// ``redactedURL``, with the CA file when one is set.
    public var debugDescription: String {
        "SMTPConfiguration(\(redactedURL)" + (trustedCAFile.map { ", trustedCAFile: \($0)" } ?? "") + ")"
    }
    /// The settings without the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": redactedURL, "trustedCAFile": trustedCAFile as Any, "heloName": heloName, "timeout": timeout],
               displayStyle: .struct)
    }

    /// Whether the connection stays on this machine: `localhost`, 127.0.0.0/8, `::1`.
    public var isLoopback: Bool { Self.isLoopback(host) }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower.hasSuffix(".localhost") || lower == "::1" || lower == "0:0:0:0:0:0:0:1" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `host` is an IP address literal (no SNI, the certificate is checked against the address).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    static func defaultHeloName() -> String {
        let name = ProcessInfo.processInfo.hostName
        guard name.contains("."), !isIPAddress(name), MailAddressParser.isDomain(ArraySlice(name.utf8)) else { return "localhost" }
        return name
    }

    static let userInfoAllowed: CharacterSet = {
        var set = CharacterSet.urlUserAllowed
        set.remove(charactersIn: ":@/?#[]%")
        return set
    }()
}
