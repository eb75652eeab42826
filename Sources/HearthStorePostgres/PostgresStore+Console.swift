import Foundation
import HearthCore
import HearthStore
import PostgresNIO

// The web console's tables (administrators, login links, sessions) and the overview's daily counts (statements in
// ``StoreSQL``); taking a login link is one `DELETE … RETURNING`, so two replicas can never both accept it.
extension PostgresStore {
    // MARK: Administrators

    public func saveConsoleAdmin(_ admin: ConsoleAdmin) async throws {
        try await single { db in try await db.execute(StoreSQL.saveConsoleAdmin(admin)) }
    }

    public func consoleAdmin(name: String) async throws -> ConsoleAdmin? {
        try await single { db in try await db.row(StoreSQL.consoleAdmin(name: name)).map(ConsoleAdmin.init(row:)) }
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] {
        try await single { db in try await db.rows(StoreSQL.consoleAdmin(name: nil)).map(ConsoleAdmin.init(row:)) }
    }

    public func deleteConsoleAdmin(name: String) async throws -> Bool {
        let deletion = StoreSQL.deleteConsoleAdmin(name: name)
        return try await transaction { db in
            let existed = try await db.execute(deletion.admin) > 0
            for statement in deletion.rest { try await db.execute(statement) }
            return existed
        }
    }

    // MARK: Login links

    public func insertConsoleLoginLink(tokenHash: String, adminName: String, expiresAt: Date) async throws {
        try await single { db in
            try await db.execute(StoreSQL.insertConsoleLoginLink(tokenHash: tokenHash, adminName: adminName, expiresAt: expiresAt))
        }
    }

    public func takeConsoleLoginLink(tokenHash: String, now: Date) async throws -> String? {
        try await single { db in
            try StoreSQL.loginLinkAdmin(try await db.row(StoreSQL.deleteConsoleLoginLink(tokenHash: tokenHash) + " RETURNING admin_name, expires_at"),
                                        now: now)
        }
    }

    // MARK: Sessions

    public func insertConsoleSession(_ session: ConsoleSession) async throws {
        try await single { db in try await db.execute(StoreSQL.insertConsoleSession(session)) }
    }

    public func consoleSession(idHash: String) async throws -> ConsoleSession? {
        try await single { db in try await db.row(StoreSQL.consoleSession(idHash: idHash)).map(ConsoleSession.init(row:)) }
    }

    public func touchConsoleSession(idHash: String, at time: Date) async throws {
        try await single { db in try await db.execute(StoreSQL.touchConsoleSession(idHash: idHash, at: time)) }
    }

    public func deleteConsoleSession(idHash: String) async throws {
        try await single { db in try await db.execute(StoreSQL.deleteConsoleSession(idHash: idHash)) }
    }

    public func pruneConsoleSessions(idleBefore: Date, now: Date) async throws {
        try await transaction { db in
            for statement in StoreSQL.pruneConsoleSessions(idleBefore: idleBefore, now: now) { try await db.execute(statement) }
        }
    }

    // MARK: Daily counts

    public func incrementDailyCount(day: String, kind: String, key: String) async throws {
        try await single { db in try await db.execute(StoreSQL.incrementDailyCount(day: day, kind: kind, key: key)) }
    }

    public func dailyCounts(sinceDay: String) async throws -> [DailyCount] {
        try await single { db in try await db.rows(StoreSQL.dailyCounts(sinceDay: sinceDay)).map(DailyCount.init(row:)) }
    }
}
