import Foundation
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Identity providers and apps

    public func idpConfig(providerId: String) async throws -> IdPConfig? {
        try await read { [self] db in try db.row(StoreSQL.idpConfig(providerId: providerId, tenant: tenantKey)).map { try $0.json(IdPConfig.self, "config_json") } }
            .map(clientSecrets.fromStorage)
    }

    public func idpConfigs() async throws -> [IdPConfig] {
        try await read { [self] db in try db.rows(StoreSQL.idpConfigs(tenant: tenantKey)).map { try $0.json(IdPConfig.self, "config_json") } }
            .map(clientSecrets.fromStorage)
    }

    public func saveIdPConfig(_ config: IdPConfig) async throws {
        let json = try StoreJSON.encode(try clientSecrets.forStorage(config))
        try await transaction { [self] db in try db.execute(StoreSQL.saveIdPConfig(providerId: config.providerId, json: json, tenant: tenantKey)) }
    }

    @discardableResult
    public func sealStoredClientSecrets() async throws -> Int {
        let sealing = clientSecrets
        return try await transaction { db in
            // Every tenant's configurations, each saved back in its own tenant.
            var resealedCount = 0
            for row in try db.rows(StoreSQL.allIdPConfigs) {
                for config in try sealing.resealed([try row.json(IdPConfig.self, "config_json")]) {
                    try db.execute(StoreSQL.saveIdPConfig(providerId: config.providerId, json: try StoreJSON.encode(config), tenant: row.string("tenant_id") ?? ""))
                    resealedCount += 1
                }
            }
            return resealedCount
        }
    }

    public func deleteIdPConfig(providerId: String) async throws -> Bool {
        try await transaction { [self] db in try db.execute(StoreSQL.deleteIdPConfig(providerId: providerId, tenant: tenantKey)) > 0 }
    }

    public func apps() async throws -> [AppRegistration] {
        try await read { db in try db.rows(StoreSQL.apps).map { try $0.json(AppRegistration.self, "app_json") } }
    }

    public func saveApp(_ app: AppRegistration) async throws {
        let statement = try StoreSQL.saveApp(app)
        try await transaction { db in try db.execute(statement) }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.deleteApp(id: id)) > 0 }
    }

    // MARK: Authorization sessions and pending credentials

    public func insertAuthorizationSession(_ session: AuthorizationSession) async throws {
        let statement = try StoreSQL.insertAuthorizationSession(stamped(session))
        try await transaction { db in try db.execute(statement) }
    }

    public func authorizationSession(state: String) async throws -> AuthorizationSession? {
        try await read { db in try db.row(StoreSQL.authorizationSession(state: state)).flatMap(AuthorizationSession.init(row:)) }
    }

    public func markCallback(state: String, now: Date, sessionIdHash: String?) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.markCallback(state: state, now: now, sessionIdHash: sessionIdHash)) == 1 }
    }

    public func consumeAuthorizationSession(state: String, sessionIdHash: String, now: Date) async throws -> SessionConsumeOutcome {
        try await transaction { db in
            let session = try db.row(StoreSQL.authorizationSession(state: state)).flatMap(AuthorizationSession.init(row:))
            let outcome = StoreSQL.consumption(of: session, sessionIdHash: sessionIdHash, now: now, tenantId: self.tenantId)
            if session != nil, outcome != .alreadyUsed { try db.execute(StoreSQL.markConsumed(state: state, now: now)) }
            return outcome
        }
    }

    public func insertPendingCredential(_ credential: PendingCredential) async throws {
        let statement = try StoreSQL.insertPendingCredential(stamped(credential))
        try await transaction { db in try db.execute(statement) }
    }

    public func takePendingCredential(tokenHash: String, now: Date) async throws -> PendingCredential? {
        try await transaction { [self] db in
            guard let row = try db.row("SELECT * FROM pending_credentials WHERE token_hash = \(tokenHash)") else { return nil }
            try db.execute(StoreSQL.deletePendingCredential(tokenHash: tokenHash))
            let credential = try PendingCredential(row: row)
            // Verified by another tenant's provider: not this tenant's to link (and burned all the same).
            return credential.expiresAt > now && credential.tenantId == tenantId ? credential : nil
        }
    }

    public func pruneExpiredFlows(now: Date) async throws {
        try await transaction { db in
            for statement in StoreSQL.pruneExpiredFlows(now: now, throttleTable: "throttle_attempts") { try db.execute(statement) }
        }
    }

    public func forgetIDTokenUse(keyHash: String) async throws {
        try await transaction { db in try db.execute(StoreSQL.forgetIDTokenUse(keyHash: keyHash)) }
    }

    public func markIDTokenUsed(keyHash: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { db in
            try db.execute(StoreSQL.deleteExpiredIDTokenUse(keyHash: keyHash, now: now))
            return try db.execute(StoreSQL.markIDTokenUsed(keyHash: keyHash, expiresAt: expiresAt)) == 1
        }
    }

    // MARK: Second-factor sessions

    public func insertMultiFactorSession(_ session: MultiFactorSessionRecord) async throws {
        let statement = try StoreSQL.insertMultiFactorSession(session)
        try await transaction { db in try db.execute(statement) }
    }

    public func mfaSession(idHash: String) async throws -> MultiFactorSessionRecord? {
        try await read { db in try db.row(StoreSQL.mfaSession(idHash: idHash)).map(MultiFactorSessionRecord.init(row:)) }
    }

    public func deleteMultiFactorSession(idHash: String) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.deleteMultiFactorSession(idHash: idHash)) == 1 }
    }

    public func deleteMultiFactorSessions(localId: String) async throws {
        try await transaction { db in try db.execute(StoreSQL.deleteMultiFactorSessions(localId: localId)) }
    }
}
