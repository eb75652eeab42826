import Foundation
import HearthCore
import HearthStore
import PostgresNIO

// The web console's tables (administrators, login links, sessions) and the overview's daily counts. One statement
// per operation, as in the SQLite store; taking a login link is one `DELETE … RETURNING`, so two replicas can
// never both accept it.
extension PostgresStore {
    // MARK: Administrators

    public func saveConsoleAdmin(_ admin: ConsoleAdmin) async throws {
        try await single { db in
            try await db.execute("""
                INSERT INTO console_admins (name, password_hash, created_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, created_at = excluded.created_at
                """, [.text(admin.name), .text(admin.passwordHash), .date(admin.createdAt)])
        }
    }

    public func consoleAdmin(name: String) async throws -> ConsoleAdmin? {
        try await single { db in
            try await db.row("SELECT * FROM console_admins WHERE name = ?", [.text(name)]).map(Self.consoleAdmin)
        }
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] {
        try await single { db in try await db.rows("SELECT * FROM console_admins ORDER BY name").map(Self.consoleAdmin) }
    }

    public func deleteConsoleAdmin(name: String) async throws -> Bool {
        try await transaction { db in
            let existed = try await db.execute("DELETE FROM console_admins WHERE name = ? RETURNING 1", [.text(name)]) > 0
            try await db.execute("DELETE FROM console_sessions WHERE admin_name = ?", [.text(name)])
            try await db.execute("DELETE FROM console_login_links WHERE admin_name = ?", [.text(name)])
            return existed
        }
    }

    private static func consoleAdmin(_ row: PostgresRandomAccessRow) throws -> ConsoleAdmin {
        ConsoleAdmin(name: try row.string("name") ?? "", passwordHash: try row.string("password_hash") ?? "",
                     createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0))
    }

    // MARK: Login links

    public func insertConsoleLoginLink(tokenHash: String, adminName: String, expiresAt: Date) async throws {
        try await single { db in
            try await db.execute("INSERT INTO console_login_links (token_hash, admin_name, expires_at) VALUES (?, ?, ?)",
                                 [.text(tokenHash), .text(adminName), .date(expiresAt)])
        }
    }

    public func takeConsoleLoginLink(tokenHash: String, now: Date) async throws -> String? {
        try await single { db in
            guard let row = try await db.row("DELETE FROM console_login_links WHERE token_hash = ? RETURNING admin_name, expires_at",
                                             [.text(tokenHash)]),
                  let expiresAt = try row.date("expires_at"), expiresAt > now
            else { return nil }
            return try row.string("admin_name")
        }
    }

    // MARK: Sessions

    public func insertConsoleSession(_ session: ConsoleSession) async throws {
        try await single { db in
            try await db.execute("""
                INSERT INTO console_sessions (id_hash, admin_name, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
                """, [.text(session.idHash), .text(session.adminName), .text(session.csrfToken), .date(session.createdAt),
                      .date(session.lastSeenAt)])
        }
    }

    public func consoleSession(idHash: String) async throws -> ConsoleSession? {
        try await single { db in
            try await db.row("SELECT * FROM console_sessions WHERE id_hash = ?", [.text(idHash)]).map { row in
                ConsoleSession(idHash: try row.string("id_hash") ?? "", adminName: try row.string("admin_name") ?? "",
                               csrfToken: try row.string("csrf_token") ?? "",
                               createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                               lastSeenAt: try row.date("last_seen_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    public func touchConsoleSession(idHash: String, at time: Date) async throws {
        try await single { db in
            try await db.execute("UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?", [.date(time), .text(idHash)])
        }
    }

    public func deleteConsoleSession(idHash: String) async throws {
        try await single { db in try await db.execute("DELETE FROM console_sessions WHERE id_hash = ?", [.text(idHash)]) }
    }

    public func pruneConsoleSessions(idleBefore: Date, now: Date) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM console_sessions WHERE last_seen_at < ?", [.date(idleBefore)])
            try await db.execute("DELETE FROM console_login_links WHERE expires_at <= ?", [.date(now)])
        }
    }

    // MARK: Daily counts

    public func incrementDailyCount(day: String, kind: String, key: String) async throws {
        try await single { db in try await Self.incrementDailyCount(day: day, kind: kind, key: key, db: db) }
    }

    static func incrementDailyCount(day: String, kind: String, key: String, db: Executor) async throws {
        try await db.execute("""
            INSERT INTO daily_counts (day, kind, key, count) VALUES (?, ?, ?, 1)
            ON CONFLICT (day, kind, key) DO UPDATE SET count = daily_counts.count + 1
            """, [.text(day), .text(kind), .text(key)])
    }

    /// A sign-in for the overview, inside the sign-in's own transaction.
    static func countSignIn(provider: String, at time: Date, db: Executor) async throws {
        try await incrementDailyCount(day: DailyCount.day(of: time), kind: "signIn", key: provider, db: db)
    }

    public func dailyCounts(sinceDay: String) async throws -> [DailyCount] {
        try await single { db in
            try await db.rows("SELECT * FROM daily_counts WHERE day >= ? ORDER BY day, kind, key", [.text(sinceDay)]).map { row in
                DailyCount(day: try row.string("day") ?? "", kind: try row.string("kind") ?? "", key: try row.string("key") ?? "",
                           count: try row.int("count") ?? 0)
            }
        }
    }
}
