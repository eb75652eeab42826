import Foundation
import HearthWire

/// An email action code as the store keeps it: only its SHA-256 hash, what it is for, whom it belongs to and when
/// it stops working. A code is used once (``usedAt``); used rows stay until they expire, so a second click can be
/// told "used already" rather than "unknown".
public struct OobCodeRecord: Sendable, Equatable {
    public var codeHash: String
    public var requestType: OobRequestType
    /// The user the code acts on; nil for an email-link sign-in of an address without an account yet.
    public var localId: String?
    /// The address the code was sent to (canonical). For `RECOVER_EMAIL`, the address to restore.
    public var email: String
    /// `VERIFY_AND_CHANGE_EMAIL`: the address to change to. `RECOVER_EMAIL`: the address it was changed to.
    public var newEmail: String?
    /// Where the action page leads afterwards (checked against the authorized domains when the code was made).
    public var continueURL: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// The tenant of the account the code acts on (nil: the project's); written by the store, from its binding.
    public var tenantId: String?

    public init(codeHash: String, requestType: OobRequestType, localId: String?, email: String, newEmail: String? = nil,
                continueURL: String? = nil, createdAt: Date, expiresAt: Date, usedAt: Date? = nil) {
        self.codeHash = codeHash
        self.requestType = requestType
        self.localId = localId
        self.email = email
        self.newEmail = newEmail
        self.continueURL = continueURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    /// A new random code (256 bits, URL-safe) and its record.
    public static func issue(_ requestType: OobRequestType, localId: String?, email: String, newEmail: String? = nil,
                             continueURL: String? = nil, now: Date, lifetime: TimeInterval) -> (code: String, record: OobCodeRecord) {
        let code = RandomID.alphanumeric(count: 48)
        let record = OobCodeRecord(codeHash: hash(code), requestType: requestType, localId: localId, email: email, newEmail: newEmail,
                                   continueURL: continueURL, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
        return (code, record)
    }

    /// The stored form of a code.
    public static func hash(_ code: String) -> String { "oob:" + code.sha256Hex }

    /// Whether `code` could be one of ours at all (checked before any lookup): 1–128 ASCII letters, digits, `-` or `_`.
    public static func isWellFormed(_ code: String) -> Bool {
        (1...128).contains(code.utf8.count) && code.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 }
    }
}

/// How long each kind of action code works (settings `oob.code.ttl.*`). Firebase: one hour for a password reset,
/// three days for verification links.
public struct OobCodeLifetimes: Sendable, Equatable {
    /// `PASSWORD_RESET`.
    public var reset: TimeInterval
    /// `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`, `RECOVER_EMAIL`.
    public var verify: TimeInterval
    /// `EMAIL_SIGNIN`: a sign-in link is a credential, so it is as short-lived as a reset.
    public var signIn: TimeInterval

    public static let defaultReset: TimeInterval = 3600
    public static let defaultVerify: TimeInterval = 3 * 86_400
    public static let defaultSignIn: TimeInterval = 3600

    public init(reset: TimeInterval = defaultReset, verify: TimeInterval = defaultVerify, signIn: TimeInterval = defaultSignIn) {
        self.reset = reset
        self.verify = verify
        self.signIn = signIn
    }

    public func lifetime(of type: OobRequestType) -> TimeInterval {
        switch type {
        case .passwordReset: reset
        case .emailSignIn: signIn
        case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: verify
        }
    }
}

/// A message waiting in the store's outbox until the SMTP relay takes it. It holds the action link (so it is
/// deleted as soon as it is delivered, and dropped unsent once the link has expired).
public struct OutboxMail: Sendable, Equatable, Codable {
    public var id: String
    /// The recipient (for the console and logs; the message has it too).
    public var recipient: String
    public var message: OutgoingMail
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var attempts: Int
    /// When the link in it stops working: the message is not worth sending after.
    public var expiresAt: Date
    public var lastError: String?

    public init(id: String = RandomID.alphanumeric(count: 24), recipient: String, message: OutgoingMail, createdAt: Date,
                expiresAt: Date, attempts: Int = 0, lastError: String? = nil) {
        self.id = id
        self.recipient = recipient
        self.message = message
        self.createdAt = createdAt
        self.nextAttemptAt = createdAt
        self.attempts = attempts
        self.expiresAt = expiresAt
        self.lastError = lastError
    }
}

/// A rendered email: who from, to whom, subject, plain text and HTML.
public struct OutgoingMail: Sendable, Equatable, Codable {
    /// `Name <address>` or an address.
    public var from: String
    public var to: String
    public var toName: String?
    public var replyTo: String?
    public var subject: String
    public var text: String
    public var html: String

    public init(from: String, to: String, toName: String? = nil, replyTo: String? = nil, subject: String, text: String, html: String) {
        self.from = from
        self.to = to
        self.toName = toName
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// Builds and checks action links.
public enum ActionLinks {
    /// The longest `continueUrl` accepted.
    public static let maxContinueURLLength = 2048

    /// `<base>?mode=…&oobCode=…&apiKey=…&continueUrl=…&lang=…`; `base` is the action handler (`…/__/auth/action`) or
    /// the project's custom action URL.
    public static func link(base: String, type: OobRequestType, code: String, apiKey: String?, continueURL: String?, lang: String = "en",
                            tenantId: String? = nil) -> String {
        var components = URLComponents(string: base) ?? URLComponents()
        var fields = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        fields.append(("mode", type.mode))
        fields.append(("oobCode", code))
        if let apiKey { fields.append(("apiKey", apiKey)) }
        // A tenant's code is found in its tenant only: the page (and the JS SDK's handler) sends it back.
        if let tenantId { fields.append(("tenantId", tenantId)) }
        if let continueURL { fields.append(("continueUrl", continueURL)) }
        fields.append(("lang", lang))
        components.percentEncodedQuery = FormEncoding.encode(fields)
        return components.string ?? base
    }

    /// `continueUrl` plus the action's parameters (an app completing the action itself, or after the page).
    public static func continuation(_ continueURL: String, type: OobRequestType, code: String?, apiKey: String?, lang: String = "en") -> String {
        guard var components = URLComponents(string: continueURL) else { return continueURL }
        var fields = [("mode", type.mode)]
        if let code { fields.append(("oobCode", code)) }
        if let apiKey { fields.append(("apiKey", apiKey)) }
        fields.append(("lang", lang))
        components.percentEncodedQuery = (components.percentEncodedQuery.map { $0 + "&" } ?? "") + FormEncoding.encode(fields)
        return components.string ?? continueURL
    }

    /// Why a `continueUrl` is refused, or nil when it may be used: an absolute `http(s)` URL whose host is one of
    /// `authorizedDomains` (or a subdomain of one), or an app URL whose scheme is one of `appSchemes`. No user
    /// info, no NUL or whitespace, at most ``maxContinueURLLength`` bytes.
    public enum ContinueURLProblem: Error, Equatable, Sendable {
        case invalid(String)
        case unauthorizedDomain(String)
    }

    public static func checkContinueURL(_ url: String, authorizedDomains: [String], appSchemes: Set<String>) -> ContinueURLProblem? {
        guard url.utf8.count <= maxContinueURLLength else { return .invalid("continueUrl is longer than \(maxContinueURLLength) bytes") }
        guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }),
              let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), !scheme.isEmpty
        else { return .invalid("continueUrl must be an absolute URL") }
        if components.user != nil || components.password != nil { return .invalid("continueUrl must not hold user info") }
        if scheme == "http" || scheme == "https" {
            // Browsers read `\` as `/` in these URLs (`https://evil.com\.good.com` goes to evil.com), and decode or
            // IDNA-map a host's `%2F`, `／`, `∕` into separators: the host is checked in the one spelling every reader
            // agrees on — ASCII letters, digits, `-` and `.` (IDN in punycode), or a bracketed IPv6 address.
            if url.contains("\\") { return .invalid("continueUrl must not contain a backslash") }
            guard let host = components.host?.lowercased(), !host.isEmpty else { return .invalid("continueUrl has no host") }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            let isIPv6 = bare != host && !bare.isEmpty && bare.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || $0 == ":" || $0 == "." }
            let isName = bare == host && bare.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
            guard isIPv6 || isName else {
                return .invalid("continueUrl's host must be an ASCII host name (write an international domain in punycode, xn--…) or an IPv6 address")
            }
            return AuthorizedDomains.allows(host: bare, in: authorizedDomains) ? nil : .unauthorizedDomain(bare)
        }
        if scheme == "javascript" || scheme == "data" || scheme == "file" || scheme == "vbscript" {
            return .invalid("continueUrl may not use the \(scheme) scheme")
        }
        return appSchemes.contains(scheme) ? nil : .unauthorizedDomain(scheme)
    }
}
