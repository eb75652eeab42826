import Foundation
import HearthCore
import HearthStore
import GRDB

// The web console's tables. Plain SQL, one statement per operation, so it ports to any SQL engine.
extension SQLiteStore {
    /// Schema for the console (migration 4).
    static let consoleMigrationStatements: [String] = [
        "CREATE TABLE console_admins (name TEXT PRIMARY KEY NOT NULL, password_hash TEXT NOT NULL, created_at REAL NOT NULL)",
        """
        CREATE TABLE console_sessions (
            id_hash TEXT PRIMARY KEY NOT NULL,
            admin_name TEXT NOT NULL,
            csrf_token TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_seen_at REAL NOT NULL
        )
        """,
        "CREATE TABLE console_login_links (token_hash TEXT PRIMARY KEY NOT NULL, admin_name TEXT NOT NULL, expires_at REAL NOT NULL)",
        """
        CREATE TABLE daily_counts (
            day TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (day, kind, key)
        )
        """,
    ]

    // MARK: Administrators

    public func saveConsoleAdmin(_ admin: ConsoleAdmin) async throws {
        try await transaction { db in
            try db.execute("INSERT OR REPLACE INTO console_admins (name, password_hash, created_at) VALUES (?, ?, ?)",
                                 [.text(admin.name), .text(admin.passwordHash), .date(admin.createdAt)])
        }
    }

    public func consoleAdmin(name: String) async throws -> ConsoleAdmin? {
        try await read { db in
            try db.row("SELECT * FROM console_admins WHERE name = ?", [.text(name)]).map(Self.consoleAdmin)
        }
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] {
        try await read { db in try db.rows("SELECT * FROM console_admins ORDER BY name").map(Self.consoleAdmin) }
    }

    public func deleteConsoleAdmin(name: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM console_admins WHERE name = ?", [.text(name)])
            let existed = db.changes() > 0
            try db.execute("DELETE FROM console_sessions WHERE admin_name = ?", [.text(name)])
            try db.execute("DELETE FROM console_login_links WHERE admin_name = ?", [.text(name)])
            return existed
        }
    }

    private static func consoleAdmin(_ row: Row) -> ConsoleAdmin {
        ConsoleAdmin(name: row.string("name") ?? "", passwordHash: row.string("password_hash") ?? "",
                     createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0))
    }

    // MARK: Login links

    public func insertConsoleLoginLink(tokenHash: String, adminName: String, expiresAt: Date) async throws {
        try await transaction { db in
            try db.execute("INSERT INTO console_login_links (token_hash, admin_name, expires_at) VALUES (?, ?, ?)",
                                 [.text(tokenHash), .text(adminName), .date(expiresAt)])
        }
    }

    public func takeConsoleLoginLink(tokenHash: String, now: Date) async throws -> String? {
        try await transaction { db in
            let row = try db.row("SELECT admin_name, expires_at FROM console_login_links WHERE token_hash = ?", [.text(tokenHash)])
            try db.execute("DELETE FROM console_login_links WHERE token_hash = ?", [.text(tokenHash)])
            guard let row, let expiresAt = row.date("expires_at"), expiresAt > now else { return nil }
            return row.string("admin_name")
        }
    }

    // MARK: Sessions

    public func insertConsoleSession(_ session: ConsoleSession) async throws {
        try await transaction { db in
            try db.execute("""
                INSERT INTO console_sessions (id_hash, admin_name, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
                """, [.text(session.idHash), .text(session.adminName), .text(session.csrfToken), .date(session.createdAt),
                      .date(session.lastSeenAt)])
        }
    }

    public func consoleSession(idHash: String) async throws -> ConsoleSession? {
        try await read { db in
            try db.row("SELECT * FROM console_sessions WHERE id_hash = ?", [.text(idHash)]).map { row in
                ConsoleSession(idHash: row.string("id_hash") ?? "", adminName: row.string("admin_name") ?? "",
                               csrfToken: row.string("csrf_token") ?? "",
                               createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                               lastSeenAt: row.date("last_seen_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    public func touchConsoleSession(idHash: String, at time: Date) async throws {
        try await transaction { db in
            try db.execute("UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?", [.date(time), .text(idHash)])
        }
    }

    public func deleteConsoleSession(idHash: String) async throws {
        try await transaction { db in try db.execute("DELETE FROM console_sessions WHERE id_hash = ?", [.text(idHash)]) }
    }

    public func pruneConsoleSessions(idleBefore: Date, now: Date) async throws {
        try await transaction { db in
            try db.execute("DELETE FROM console_sessions WHERE last_seen_at < ?", [.date(idleBefore)])
            try db.execute("DELETE FROM console_login_links WHERE expires_at <= ?", [.date(now)])
        }
    }

    // MARK: Daily counts

    public func incrementDailyCount(day: String, kind: String, key: String) async throws {
        try await transaction { db in try Self.incrementDailyCount(day: day, kind: kind, key: key, db: db) }
    }

    static func incrementDailyCount(day: String, kind: String, key: String, db: Executor) throws {
        try db.execute("""
            INSERT INTO daily_counts (day, kind, key, count) VALUES (?, ?, ?, 1)
            ON CONFLICT (day, kind, key) DO UPDATE SET count = count + 1
            """, [.text(day), .text(kind), .text(key)])
    }

    /// A sign-in for the overview, inside the sign-in's own write.
    static func countSignIn(provider: String, at time: Date, db: Executor) throws {
        try incrementDailyCount(day: DailyCount.day(of: time), kind: "signIn", key: provider, db: db)
    }

    public func dailyCounts(sinceDay: String) async throws -> [DailyCount] {
        try await read { db in
            try db.rows("SELECT * FROM daily_counts WHERE day >= ? ORDER BY day, kind, key", [.text(sinceDay)]).map { row in
                DailyCount(day: row.string("day") ?? "", kind: row.string("kind") ?? "", key: row.string("key") ?? "",
                           count: row.int("count") ?? 0)
            }
        }
    }
}
