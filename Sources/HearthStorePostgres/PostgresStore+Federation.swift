import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresStore {
    // MARK: Identity providers and apps

    public func idpConfig(providerId: String) async throws -> IdPConfig? {
        try await single { [self] db in try await db.row(StoreSQL.idpConfig(providerId: providerId, tenant: tenantKey)).map { try $0.json(IdPConfig.self, "config_json") } }
            .map(clientSecrets.fromStorage)
    }

    public func idpConfigs() async throws -> [IdPConfig] {
        try await single { [self] db in try await db.rows(StoreSQL.idpConfigs(tenant: tenantKey)).map { try $0.json(IdPConfig.self, "config_json") } }
            .map(clientSecrets.fromStorage)
    }

    public func saveIdPConfig(_ config: IdPConfig) async throws {
        let json = try StoreJSON.encode(try clientSecrets.forStorage(config))
        try await single { [self] db in try await db.execute(StoreSQL.saveIdPConfig(providerId: config.providerId, json: json, tenant: tenantKey)) }
    }

    @discardableResult
    public func sealStoredClientSecrets() async throws -> Int {
        let sealing = clientSecrets
        return try await transaction { db in
            // Every tenant's configurations, each saved back in its own tenant.
            var resealedCount = 0
            for row in try await db.rows(StoreSQL.allIdPConfigs + " FOR UPDATE") {
                for config in try sealing.resealed([try row.json(IdPConfig.self, "config_json")]) {
                    try await db.execute(StoreSQL.saveIdPConfig(providerId: config.providerId, json: try StoreJSON.encode(config),
                                                                tenant: try row.string("tenant_id") ?? ""))
                    resealedCount += 1
                }
            }
            return resealedCount
        }
    }

    public func deleteIdPConfig(providerId: String) async throws -> Bool {
        try await single { [self] db in try await db.execute(StoreSQL.deleteIdPConfig(providerId: providerId, tenant: tenantKey)) > 0 }
    }

    public func apps() async throws -> [AppRegistration] {
        try await single { db in try await db.rows(StoreSQL.apps).map { try $0.json(AppRegistration.self, "app_json") } }
    }

    public func saveApp(_ app: AppRegistration) async throws {
        let statement = try StoreSQL.saveApp(app)
        try await single { db in try await db.execute(statement) }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.deleteApp(id: id)) > 0 }
    }

    // MARK: Authorization sessions and pending credentials

    public func insertAuthorizationSession(_ session: AuthorizationSession) async throws {
        let statement = try StoreSQL.insertAuthorizationSession(stamped(session))
        try await single { db in try await db.execute(statement) }
    }

    public func authorizationSession(state: String) async throws -> AuthorizationSession? {
        try await single { db in try await db.row(StoreSQL.authorizationSession(state: state)).flatMap(AuthorizationSession.init(row:)) }
    }

    /// One conditional UPDATE: of two callbacks racing on two replicas, exactly one sees its row change.
    public func markCallback(state: String, now: Date, sessionIdHash: String?) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.markCallback(state: state, now: now, sessionIdHash: sessionIdHash)) == 1 }
    }

    public func consumeAuthorizationSession(state: String, sessionIdHash: String, now: Date) async throws -> SessionConsumeOutcome {
        try await transaction { db in
            // Locked: two replicas consuming one session serialize; the second sees it consumed.
            let session = try await db.row(StoreSQL.authorizationSession(state: state) + " FOR UPDATE").flatMap(AuthorizationSession.init(row:))
            let outcome = StoreSQL.consumption(of: session, sessionIdHash: sessionIdHash, now: now, tenantId: self.tenantId)
            if session != nil, outcome != .alreadyUsed { try await db.execute(StoreSQL.markConsumed(state: state, now: now)) }
            return outcome
        }
    }

    public func insertPendingCredential(_ credential: PendingCredential) async throws {
        let statement = try StoreSQL.insertPendingCredential(stamped(credential))
        try await single { db in try await db.execute(statement) }
    }

    /// One `DELETE … RETURNING`: the credential is taken once, whichever replica asks first.
    public func takePendingCredential(tokenHash: String, now: Date) async throws -> PendingCredential? {
        let credential = try await single { db in
            try await db.row(StoreSQL.deletePendingCredential(tokenHash: tokenHash) + " RETURNING *").map(PendingCredential.init(row:))
        }
        // Verified by another tenant's provider: not this tenant's to link (and burned all the same).
        return credential.flatMap { $0.expiresAt > now && $0.tenantId == tenantId ? $0 : nil }
    }

    public func pruneExpiredFlows(now: Date) async throws {
        try await transaction { db in
            for statement in StoreSQL.pruneExpiredFlows(now: now, throttleTable: "throttle_failures") { try await db.execute(statement) }
        }
    }

    public func forgetIDTokenUse(keyHash: String) async throws {
        try await single { db in try await db.execute(StoreSQL.forgetIDTokenUse(keyHash: keyHash)) }
    }

    public func markIDTokenUsed(keyHash: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { db in
            try await db.execute(StoreSQL.deleteExpiredIDTokenUse(keyHash: keyHash, now: now))
            // The primary key makes two replicas' inserts of one token race safely: one row, one winner.
            return try await db.execute(StoreSQL.markIDTokenUsed(keyHash: keyHash, expiresAt: expiresAt)) == 1
        }
    }

    // MARK: Users (admin)

    public func listUsers(after afterLocalId: String?, limit: Int) async throws -> [UserRecord] {
        try await single { [self] db in
            try await db.rows("\(Self.userSelect) \(StoreSQL.userPage(after: afterLocalId, limit: limit, tenant: tenantKey, alias: "u."))").map(Self.userRecord)
        }
    }

    public func queryUsers(_ query: UserQuery) async throws -> (total: Int, users: [UserRecord]) {
        let filter = StoreSQL.userFilter(query, tenant: tenantKey, alias: "u.")
        let order = StoreSQL.userOrder(query, alias: "u.", dialect: .postgres)
        return try await snapshot { db in
            let total = query.countsTotal ? try await db.row(StoreSQL.countUsers(filter, from: "users u"))?.int("n") ?? 0 : 0
            return (total, try await db.rows("\(Self.userSelect) \(filter) \(order)").map(Self.userRecord))
        }
    }

    public func deleteAllUsers() async throws -> Int {
        try await transaction { [self] db in
            for statement in StoreSQL.deleteTenantUsersRows(tenant: tenantKey) { try await db.execute(statement) }
            return try await db.execute(StoreSQL.deleteTenantUsers(tenant: tenantKey))
        }
    }

    // MARK: Audit log

    public func appendAuditEntry(_ entry: AuditEntry) async throws {
        try await single { [self] db in try await db.execute(StoreSQL.appendAuditEntry(entry, tenant: tenantKey)) }
    }

    public func auditEntries(before beforeId: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await single { [self] db in try await db.rows(StoreSQL.auditEntries(before: beforeId, limit: limit, tenant: tenantKey)).map(AuditEntry.init(row:)) }
    }

    // MARK: Bulk import

    /// Bulk path (``AdminUserStore/importUsers(_:)``; imports, benchmarks, `hearth migrate`): users and their
    /// identities in one transaction, 500 rows a statement, without the per-user checks of ``createUser(_:)``: the
    /// constraints decide, a conflict is a typed ``StoreError`` and nothing is written.
    public func importUsers(_ users: [UserRecord]) async throws {
        let users = users.map(stamped)
        let tenant = tenantKey
        try await transaction { db in
            for start in stride(from: users.startIndex, to: users.endIndex, by: 500) {
                let chunk = users[start..<min(start + 500, users.endIndex)]
                try await Self.uniqueChecked { try await db.execute(StoreSQL.insertUsers(chunk)) }
                for statement in StoreSQL.insertIdentities(of: chunk, tenant: tenant) {
                    try await Self.uniqueChecked { try await db.execute(statement) }
                }
            }
        }
    }

    public func tenantsOfUsers(localIds: [String]) async throws -> [String: String] {
        guard !localIds.isEmpty else { return [:] }
        return try await single { db in
            var tenants: [String: String] = [:]
            for start in stride(from: 0, to: localIds.count, by: 500) {
                for row in try await db.rows(StoreSQL.userTenants(localIds: Array(localIds[start..<min(start + 500, localIds.count)]))) {
                    if let localId = try row.string("local_id") { tenants[localId] = try row.string("tenant_id") ?? "" }
                }
            }
            return tenants
        }
    }
}

extension PostgresStore: StoreCopying {
    public func projectConfigs() async throws -> [ProjectConfig] {
        try await single { db in try await db.rows(StoreSQL.projectConfigs).map { try $0.json(ProjectConfig.self, "config_json") } }
    }

    public func refreshTokens(after afterHash: String?, limit: Int) async throws -> [RefreshTokenRecord] {
        try await single { db in try await db.rows(StoreSQL.refreshTokens(after: afterHash, limit: limit)).map(RefreshTokenRecord.init(row:)) }
    }

    public func passkeys(after afterId: String?, limit: Int) async throws -> [PasskeyCredential] {
        try await single { db in try await db.rows(StoreSQL.passkeys(after: afterId, limit: limit)).map(PasskeyCredential.init(row:)) }
    }

    public func oobCodes(after afterHash: String?, limit: Int) async throws -> [OobCodeRecord] {
        try await single { db in try await db.rows(StoreSQL.oobCodes(after: afterHash, limit: limit)).map(OobCodeRecord.init(row:)) }
    }

    public func outboxMail(after afterId: String?, limit: Int) async throws -> [OutboxMail] {
        try await single { db in try await db.rows(StoreSQL.outboxMail(after: afterId, limit: limit)).map(OutboxMail.init(row:)) }
    }
}

extension PostgresStore {
    // MARK: Password attempts

    public func reserveThrottleAttempt(keys: [ThrottleKey], attemptId: String, at moment: Date, since: Date) async throws -> Bool {
        guard !keys.isEmpty else { return true }
        let ordered = keys.sorted { $0.key < $1.key }
        return try await transaction { db in
            // One transaction-scoped advisory lock per key (in key order: no deadlock between two reservations):
            // a concurrent reservation of the same key, on any replica, waits here until this one has counted.
            for key in ordered {
                try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(\(key.key), 1212))")
            }
            var counts: [String: Int] = [:]
            for row in try await db.rows("""
                SELECT key, COUNT(*) AS n FROM throttle_failures WHERE at >= \(since) AND key IN (\(list: ordered.map(\.key))) GROUP BY key
                """) {
                if let key = try row.string("key") { counts[key] = try row.int("n") ?? 0 }
            }
            guard ordered.allSatisfy({ (counts[$0.key] ?? 0) < $0.limit }) else { return false }
            for key in ordered {
                for statement in StoreSQL.recordThrottleAttempt(key, attemptId: attemptId, at: moment, since: since, table: "throttle_failures") {
                    try await db.execute(statement)
                }
            }
            return true
        }
    }

    public func settleThrottleAttempt(attemptId: String, clearing key: String) async throws {
        try await single { db in
            try await db.execute(StoreSQL.settleThrottleAttempt(attemptId: attemptId, clearing: key, table: "throttle_failures"))
        }
    }

    // MARK: Second-factor sessions

    public func insertMultiFactorSession(_ session: MultiFactorSessionRecord) async throws {
        let statement = try StoreSQL.insertMultiFactorSession(session)
        try await single { db in try await db.execute(statement) }
    }

    public func mfaSession(idHash: String) async throws -> MultiFactorSessionRecord? {
        try await single { db in try await db.row(StoreSQL.mfaSession(idHash: idHash)).map(MultiFactorSessionRecord.init(row:)) }
    }

    public func deleteMultiFactorSession(idHash: String) async throws -> Bool {
        // One DELETE: of two replicas completing the same session, exactly one sees the row go.
        try await single { db in try await db.execute(StoreSQL.deleteMultiFactorSession(idHash: idHash)) == 1 }
    }

    public func deleteMultiFactorSessions(localId: String) async throws {
        try await single { db in try await db.execute(StoreSQL.deleteMultiFactorSessions(localId: localId)) }
    }
}
