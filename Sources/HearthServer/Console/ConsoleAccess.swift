import Foundation
import HearthCore
import HearthStore
import HearthWire
import Hummingbird
import NIOCore

/// Who may use the web console and how: one-time login links, named administrators with scrypt passwords,
/// sessions in an HttpOnly, SameSite=Strict cookie (Secure when the public URL is HTTPS) holding a random token
/// whose SHA-256 alone is stored, an idle timeout, and a per-session CSRF token every form must carry.
public struct ConsoleAccess: Sendable {
    /// The session cookie.
    public static let cookieName = "hearth_console"
    /// The login form's double-submit cookie (before a session exists).
    public static let loginCookieName = "hearth_console_login"
    /// The name a login link signs in as when no administrator is named.
    public static let ownerName = "owner"
    /// Where login links land.
    public static let loginLinkPath = "/console/login/link"

    let store: any HearthStore
    let configuration: HearthServerConfiguration
    /// Failed administrator passwords, per name and per client address (the same limits as end users' sign-ins).
    let throttle: LoginThrottle

    public init(store: any HearthStore, configuration: HearthServerConfiguration) {
        self.store = store
        self.configuration = configuration
        self.throttle = LoginThrottle(configuration: configuration.throttle, clock: configuration.clock, store: store, scope: "console")
    }

    /// The stored form of a token: SHA-256, base64url.
    static func hash(_ token: String) -> String { WireDigest.sha256(token).base64URLEncodedString() }

    /// Issues a one-time login link (stored hashed, usable once within `lifetime`) that signs in as `adminName`.
    /// Returns the URL to open.
    public static func issueLoginLink(store: any ConsoleStore, publicURL: String, adminName: String = ownerName,
                                      lifetime: TimeInterval = 15 * 60, now: Date = Date()) async throws -> String {
        let token = RandomID.token(byteCount: 32)
        try await store.insertConsoleLoginLink(tokenHash: hash(token), adminName: adminName, expiresAt: now.addingTimeInterval(lifetime))
        return "\(publicURL)\(loginLinkPath)?token=\(token)"
    }

    /// Whether cookies get the `Secure` attribute: when the server is reached over HTTPS.
    var secureCookies: Bool { configuration.publicURL.url.lowercased().hasPrefix("https://") }

    /// Starts a session for `adminName`: returns the cookie's token.
    func startSession(adminName: String) async throws -> String {
        let token = RandomID.token(byteCount: 32)
        let now = configuration.clock.now()
        try await store.pruneConsoleSessions(idleBefore: now.addingTimeInterval(-configuration.consoleIdleTimeout), now: now)
        try await store.insertConsoleSession(ConsoleSession(idHash: Self.hash(token), adminName: adminName,
                                                            csrfToken: RandomID.token(byteCount: 32), createdAt: now, lastSeenAt: now))
        return token
    }

    /// The request's live session (refreshing its idle timer), or nil: no cookie, unknown, or idle too long
    /// (then it is deleted).
    func session(_ request: Request) async throws -> ConsoleSession? {
        guard let token = request.cookies[Self.cookieName]?.value, !token.isEmpty, token.count < 200 else { return nil }
        let idHash = Self.hash(token)
        guard let session = try await store.consoleSession(idHash: idHash) else { return nil }
        let now = configuration.clock.now()
        guard now.timeIntervalSince(session.lastSeenAt) < configuration.consoleIdleTimeout else {
            try await store.deleteConsoleSession(idHash: idHash)
            return nil
        }
        // The administrator may have been removed since.
        if session.adminName != Self.ownerName, try await store.consoleAdmin(name: session.adminName) == nil {
            try await store.deleteConsoleSession(idHash: idHash)
            return nil
        }
        try await store.touchConsoleSession(idHash: idHash, at: now)
        return session
    }

    func endSession(_ request: Request) async throws {
        guard let token = request.cookies[Self.cookieName]?.value, !token.isEmpty else { return }
        try await store.deleteConsoleSession(idHash: Self.hash(token))
    }

    /// Checks a named administrator's password (the same time whether or not the name exists).
    func verifyAdmin(name: String, password: String) async throws -> Bool {
        let hasher = PasswordHasher(parameters: configuration.passwordParameters)
        guard let admin = try await store.consoleAdmin(name: name) else {
            hasher.verifyDummy(password)
            return false
        }
        return (try? hasher.verify(password, against: admin.passwordHash)) ?? false
    }

    func sessionCookie(_ token: String) -> Cookie {
        Cookie(name: Self.cookieName, value: token, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func loginCookie(_ token: String) -> Cookie {
        Cookie(name: Self.loginCookieName, value: token, maxAge: 3600, path: "/console", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    func expired(_ name: String) -> Cookie {
        Cookie(name: name, value: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/console", secure: secureCookies,
               httpOnly: true, sameSite: .strict)
    }

    /// Constant-time comparison of a submitted token with the expected one.
    static func tokensMatch(_ submitted: String?, _ expected: String) -> Bool {
        guard let submitted, !expected.isEmpty else { return false }
        let a = Array(submitted.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// A parsed `application/x-www-form-urlencoded` body or query.
struct ConsoleForm: Sendable {
    var values: [String: [String]] = [:]

    init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            let name = decode(parts[0])
            values[name, default: []].append(parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func read(_ request: Request, limit: Int = 64 * 1024) async throws -> ConsoleForm {
        let buffer = try await request.body.collect(upTo: limit)
        return ConsoleForm(String(buffer: buffer))
    }

    subscript(_ name: String) -> String? { values[name]?.first }

    /// The trimmed value, nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    func flag(_ name: String) -> Bool { self[name] == "true" || self[name] == "on" }
}
