import Foundation
import HearthCore
import HearthStore
import GRDB

extension SQLiteStore {
    /// Schema for the admin API: the audit log (migration 3).
    static let adminMigrationStatements: [String] = [
        """
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time REAL NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            detail TEXT
        )
        """,
        "CREATE INDEX users_created_at ON users(created_at)",
    ]

    // MARK: Users (admin)

    public func listUsers(after afterLocalId: String?, limit: Int) async throws -> [UserRecord] {
        try await read { db in
            let rows: [Row]
            if let afterLocalId {
                rows = try db.rows("SELECT local_id FROM users WHERE local_id > ? ORDER BY local_id LIMIT ?",
                                         [.text(afterLocalId), .integer(max(0, limit))])
            } else {
                rows = try db.rows("SELECT local_id FROM users ORDER BY local_id LIMIT ?", [.integer(max(0, limit))])
            }
            return try Self.loadUsers(rows.compactMap { $0.string("local_id") }, db: db)
        }
    }

    public func queryUsers(_ query: UserQuery) async throws -> (total: Int, users: [UserRecord]) {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        func placeholders(_ values: [String]) -> String {
            binds.append(contentsOf: values.map { .text($0) })
            return Array(repeating: "?", count: values.count).joined(separator: ", ")
        }
        if !query.emails.isEmpty { conditions.append("email IN (\(placeholders(query.emails.map(EmailAddress.canonical))))") }
        if !query.localIds.isEmpty { conditions.append("local_id IN (\(placeholders(query.localIds)))") }
        if !query.phoneNumbers.isEmpty {
            conditions.append("local_id IN (SELECT local_id FROM provider_identities WHERE provider_id = 'phone' AND federated_id IN (\(placeholders(query.phoneNumbers))))")
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " OR ")
        let column = switch query.sortBy {
        case .userId: "local_id"
        case .name: "display_name"
        case .createdAt: "created_at"
        case .lastLoginAt: "last_login_at"
        case .userEmail: "email"
        }
        let direction = query.ascending ? "ASC" : "DESC"
        let order = column == "local_id" ? "local_id \(direction)" : "\(column) \(direction), local_id \(direction)"
        let filterBinds = binds
        return try await read { db in
            let total = try db.rowsOnce("SELECT COUNT(*) AS n FROM users \(filter)", filterBinds).first?.int("n") ?? 0
            let rows = try db.rowsOnce("SELECT local_id FROM users \(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
                                         filterBinds + [.integer(max(0, query.limit)), .integer(max(0, query.offset))])
            return (total, try Self.loadUsers(rows.compactMap { $0.string("local_id") }, db: db))
        }
    }

    public func deleteAllUsers() async throws -> Int {
        try await transaction { db in
            let count = try db.rows("SELECT COUNT(*) AS n FROM users").first?.int("n") ?? 0
            try db.execute("DELETE FROM refresh_tokens")
            try db.execute("DELETE FROM provider_identities")
            try db.execute("DELETE FROM users")
            return count
        }
    }

    private static func loadUsers(_ localIds: [String], db: Executor) throws -> [UserRecord] {
        var users: [UserRecord] = []
        for localId in localIds {
            if let user = try loadUser(localId: localId, db: db) { users.append(user) }
        }
        return users
    }

    // MARK: Audit log

    public func appendAuditEntry(_ entry: AuditEntry) async throws {
        try await transaction { db in
            try db.execute("INSERT INTO audit_log (time, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                                 [.date(entry.time), .text(entry.actor), .text(entry.action), .text(entry.target),
                                  .optionalText(entry.detail)])
        }
    }

    public func auditEntries(before beforeId: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await read { db in
            let rows = try db.rows("SELECT * FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?",
                                         [.integer(Int(beforeId ?? Int64.max)), .integer(max(0, limit))])
            return rows.map { row in
                AuditEntry(id: Int64(row.int("id") ?? 0), time: row.date("time") ?? Date(timeIntervalSince1970: 0),
                           actor: row.string("actor") ?? "", action: row.string("action") ?? "",
                           target: row.string("target") ?? "", detail: row.string("detail"))
            }
        }
    }
}
