import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Users (admin)

    public func listUsers(after afterLocalId: String?, limit: Int) async throws -> [UserRecord] {
        try await read { [self] db in
            try loadUsers(try db.rows("SELECT * FROM users \(StoreSQL.userPage(after: afterLocalId, limit: limit, tenant: tenantKey))"), db: db)
        }
    }

    public func queryUsers(_ query: UserQuery) async throws -> (total: Int, users: [UserRecord]) {
        let filter = StoreSQL.userFilter(query, tenant: tenantKey)
        return try await read { [self] db in
            // Built at run time (the lists' lengths vary): not kept in the statement cache.
            let total = query.countsTotal ? try db.rows(StoreSQL.countUsers(filter), cached: false).first?.int("n") ?? 0 : 0
            let page = try db.rows("SELECT * FROM users \(filter) \(StoreSQL.userOrder(query, dialect: .sqlite))", cached: false)
            return (total, try loadUsers(page, db: db))
        }
    }

    public func deleteAllUsers() async throws -> Int {
        try await transaction { [self] db in
            for statement in StoreSQL.deleteTenantUsersRows(tenant: tenantKey) { try db.execute(statement) }
            return try db.execute(StoreSQL.deleteTenantUsers(tenant: tenantKey))
        }
    }

    /// A page of `users` rows, whole: their identities read with one statement per 500 users (issue 41: not two
    /// statements per user).
    private func loadUsers(_ page: [SQLiteRow], db: SQLConnection) throws -> [UserRecord] {
        let localIds = page.compactMap { $0.string("local_id") }
        var identities: [String: [ProviderIdentity]] = [:]
        for start in stride(from: 0, to: localIds.count, by: 500) {
            for row in try db.rows(StoreSQL.identities(localIds: localIds[start..<min(start + 500, localIds.count)]), cached: false) {
                guard let localId = row.string("local_id") else { continue }
                identities[localId, default: []].append(try ProviderIdentity(row: row))
            }
        }
        return try page.map { row in try UserRecord(row: row, identities: identities[row.string("local_id") ?? ""] ?? []) }
    }

    // MARK: Audit log

    public func appendAuditEntry(_ entry: AuditEntry) async throws {
        try await transaction { [self] db in try db.execute(StoreSQL.appendAuditEntry(entry, tenant: tenantKey)) }
    }

    public func auditEntries(before beforeId: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await read { [self] db in try db.rows(StoreSQL.auditEntries(before: beforeId, limit: limit, tenant: tenantKey)).map(AuditEntry.init(row:)) }
    }

    // MARK: Bulk import

    /// Bulk path (``AdminUserStore/importUsers(_:)``): users and their identities in one transaction, 500 rows a
    /// statement (the statement of a full chunk is prepared once and cached), without the per-user reads of
    /// ``createUser(_:)``. The unique indexes decide: a conflict is a typed ``StoreError`` and nothing is written.
    /// For imports and benchmarks (seeding a million users), not for the request path.
    public func importUsers(_ users: [UserRecord]) async throws {
        let users = users.map(stamped)
        let tenant = tenantKey
        try await transaction { db in
            // A batch larger than the admin API's 1000 is an offline import (`hearth users import`, the bench): the
            // writer's page cache may grow to 256 MB, so the pages a big transaction dirties in the indexes (random
            // uids and emails touch a page per row) stay in memory and reach the WAL once, at the commit.
            if users.count > 1000 { try db.execute("PRAGMA cache_size = -262144", cached: false) }
            do {
                for start in stride(from: users.startIndex, to: users.endIndex, by: 500) {
                    let chunk = users[start..<min(start + 500, users.endIndex)]
                    try db.execute(StoreSQL.insertUsers(chunk), cached: chunk.count == 500)
                    for statement in StoreSQL.insertIdentities(of: chunk, tenant: tenant) { try db.execute(statement, cached: false) }
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw Self.uniqueViolation(error) ?? error
            }
        }
    }

    public func tenantsOfUsers(localIds: [String]) async throws -> [String: String] {
        guard !localIds.isEmpty else { return [:] }
        return try await read { db in
            var tenants: [String: String] = [:]
            for start in stride(from: 0, to: localIds.count, by: 500) {
                let slice = Array(localIds[start..<min(start + 500, localIds.count)])
                for row in try db.rows(StoreSQL.userTenants(localIds: slice), cached: slice.count == 500) {
                    if let localId = row.string("local_id") { tenants[localId] = row.string("tenant_id") ?? "" }
                }
            }
            return tenants
        }
    }

    /// The store's error for a unique index SQLite names in its message (`UNIQUE constraint failed: users.local_id`).
    static func uniqueViolation(_ error: DatabaseError) -> StoreError? {
        guard let message = error.message, message.hasPrefix("UNIQUE constraint failed:") else { return nil }
        if message.hasSuffix("users.local_id") { return .duplicateLocalId }
        if message.hasSuffix("users.tenant_id, users.email") { return .emailExists }
        if message.hasSuffix("provider_identities.tenant_id, provider_identities.provider_id, provider_identities.federated_id") {
            return .federatedIdTaken(providerId: "")
        }
        return nil
    }
}
