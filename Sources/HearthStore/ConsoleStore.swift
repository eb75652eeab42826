import Foundation

/// A named administrator of the web console (`hearth console admins add`). Separate from end users.
public struct ConsoleAdmin: Sendable, Equatable {
    public var name: String
    /// The password's scrypt hash (``HearthCore/PasswordHasher``'s encoding); never the password.
    public var passwordHash: String
    public var createdAt: Date

    public init(name: String, passwordHash: String, createdAt: Date) {
        self.name = name
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A signed-in console session. The cookie holds a random token; the store only its SHA-256 hash.
public struct ConsoleSession: Sendable, Equatable {
    /// SHA-256 (base64url) of the cookie's token.
    public var idHash: String
    /// The administrator's name, recorded in the audit log as `console:<name>`.
    public var adminName: String
    /// The token every form of this session must carry.
    public var csrfToken: String
    public var createdAt: Date
    /// The last request seen: the session ends after the idle timeout.
    public var lastSeenAt: Date

    public init(idHash: String, adminName: String, csrfToken: String, createdAt: Date, lastSeenAt: Date) {
        self.idHash = idHash
        self.adminName = adminName
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// The console's administrators, sessions and one-time login links (stored hashed, single use).
public protocol ConsoleStore: Sendable {
    /// Inserts or replaces the administrator `admin.name`.
    func saveConsoleAdmin(_ admin: ConsoleAdmin) async throws
    func consoleAdmin(name: String) async throws -> ConsoleAdmin?
    /// Every administrator, by name.
    func consoleAdmins() async throws -> [ConsoleAdmin]
    /// Deletes the administrator and ends its sessions. Returns whether it existed.
    @discardableResult
    func deleteConsoleAdmin(name: String) async throws -> Bool

    /// Stores a login link's token hash, usable once before `expiresAt`, signing in as `adminName`.
    func insertConsoleLoginLink(tokenHash: String, adminName: String, expiresAt: Date) async throws
    /// Deletes the link and returns its administrator's name if it existed and had not expired (single use).
    func takeConsoleLoginLink(tokenHash: String, now: Date) async throws -> String?

    func insertConsoleSession(_ session: ConsoleSession) async throws
    func consoleSession(idHash: String) async throws -> ConsoleSession?
    func touchConsoleSession(idHash: String, at time: Date) async throws
    func deleteConsoleSession(idHash: String) async throws
    /// Deletes sessions idle since before `idleBefore` and login links expired at `now`.
    func pruneConsoleSessions(idleBefore: Date, now: Date) async throws
}

/// One day's count of something the console's overview shows (sign-ins by provider, refusals by reason).
public struct DailyCount: Sendable, Equatable {
    /// The `day` of `time`: `yyyy-MM-dd` in UTC.
    public static func day(of time: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: time)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// `yyyy-MM-dd` in UTC.
    public var day: String
    /// `signIn` or `refused`.
    public var kind: String
    /// The provider id (`password`, `microsoft.com`, …) or the refusal's reason (`INVALID_PASSWORD`, …).
    public var key: String
    public var count: Int

    public init(day: String, kind: String, key: String, count: Int) {
        self.day = day
        self.kind = kind
        self.key = key
        self.count = count
    }
}

/// Daily counters for the console's overview: small, one row per day, kind and key.
public protocol DailyCountStore: Sendable {
    func incrementDailyCount(day: String, kind: String, key: String) async throws
    /// Counts of days `>= sinceDay` (`yyyy-MM-dd`), ordered by day.
    func dailyCounts(sinceDay: String) async throws -> [DailyCount]
}
