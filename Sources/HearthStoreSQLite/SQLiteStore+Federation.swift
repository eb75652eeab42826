import Foundation
import HearthCore
import HearthStore
import GRDB

extension SQLiteStore {
    // MARK: Identity providers and apps

    public func idpConfig(providerId: String) async throws -> IdPConfig? {
        try await read { db in
            try db.row("SELECT config_json FROM idp_configs WHERE provider_id = ?", [.text(providerId)])
                .map { try Self.decodeJSON(IdPConfig.self, $0.string("config_json")) }
        }.map(clientSecrets.fromStorage)
    }

    public func idpConfigs() async throws -> [IdPConfig] {
        try await read { db in
            try db.rows("SELECT config_json FROM idp_configs ORDER BY provider_id").map { try Self.decodeJSON(IdPConfig.self, $0.string("config_json")) }
        }.map(clientSecrets.fromStorage)
    }

    public func saveIdPConfig(_ config: IdPConfig) async throws {
        let json = try Self.encodeJSON(try clientSecrets.forStorage(config))
        try await transaction { db in
            try db.execute("""
                INSERT INTO idp_configs (provider_id, config_json) VALUES (?, ?)
                ON CONFLICT(provider_id) DO UPDATE SET config_json = excluded.config_json
                """, [.text(config.providerId), .text(json)])
        }
    }

    @discardableResult
    public func sealStoredClientSecrets() async throws -> Int {
        let sealing = clientSecrets
        return try await transaction { db in
            var count = 0
            for row in try db.rows("SELECT config_json FROM idp_configs ORDER BY provider_id") {
                let stored = try Self.decodeJSON(IdPConfig.self, row.string("config_json"))
                guard sealing.needsResealing(stored) else { continue }
                let resealed = try sealing.forStorage(sealing.fromStorage(stored))
                guard resealed.clientSecret != stored.clientSecret, ProviderTokenKeys.isSealedSecret(resealed.clientSecret) else { continue }
                try db.execute("UPDATE idp_configs SET config_json = ? WHERE provider_id = ?", [.text(try Self.encodeJSON(resealed)), .text(stored.providerId)])
                count += 1
            }
            return count
        }
    }

    public func deleteIdPConfig(providerId: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM idp_configs WHERE provider_id = ?", [.text(providerId)])
            return db.changes() > 0
        }
    }

    public func apps() async throws -> [AppRegistration] {
        try await read { db in
            try db.rows("SELECT app_json FROM apps ORDER BY id").map { try Self.decodeJSON(AppRegistration.self, $0.string("app_json")) }
        }
    }

    public func saveApp(_ app: AppRegistration) async throws {
        let json = try Self.encodeJSON(app)
        try await transaction { db in
            try db.execute("""
                INSERT INTO apps (id, app_json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET app_json = excluded.app_json
                """, [.text(app.id), .text(json)])
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM apps WHERE id = ?", [.text(id)])
            return db.changes() > 0
        }
    }

    // MARK: Authorization sessions

    public func insertAuthorizationSession(_ session: AuthorizationSession) async throws {
        try await transaction { db in
            try db.execute("""
                INSERT INTO authorization_sessions (state, provider_id, nonce, code_verifier, session_id_hash, event_id, auth_type,
                    tenant, redirect_kind, redirect_value, redirect_uri, scopes, created_at, expires_at, callback_at, consumed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(session.state), .text(session.providerId), .text(session.nonce), .optionalText(session.codeVerifier),
                      .text(session.sessionIdHash), .text(session.eventId), .text(session.authType), .optionalText(session.tenant),
                      .text(session.redirect.kind), .text(session.redirect.value), .text(session.redirectUri),
                      .text(try Self.encodeJSON(session.scopes)), .date(session.createdAt), .date(session.expiresAt),
                      .optionalDate(session.callbackAt), .optionalDate(session.consumedAt)])
        }
    }

    public func authorizationSession(state: String) async throws -> AuthorizationSession? {
        try await read { db in try Self.loadSession(state: state, db: db) }
    }

    public func markCallback(state: String, now: Date) async throws -> Bool {
        try await transaction { db in
            try db.execute("""
                UPDATE authorization_sessions SET callback_at = ?
                WHERE state = ? AND callback_at IS NULL AND consumed_at IS NULL AND expires_at > ?
                """, [.date(now), .text(state), .date(now)])
            return db.changes() == 1
        }
    }

    public func consumeAuthorizationSession(state: String, sessionIdHash: String, now: Date) async throws -> SessionConsumeOutcome {
        try await transaction { db in
            guard let session = try Self.loadSession(state: state, db: db) else { return .unknown }
            if session.consumedAt != nil { return .alreadyUsed }
            try db.execute("UPDATE authorization_sessions SET consumed_at = ? WHERE state = ?", [.date(now), .text(state)])
            if session.expiresAt <= now { return .expired }
            guard session.sessionIdHash == sessionIdHash else { return .sessionMismatch }
            var consumed = session
            consumed.consumedAt = now
            return .consumed(consumed)
        }
    }

    public func insertPendingCredential(_ credential: PendingCredential) async throws {
        try await transaction { db in
            try db.execute("""
                INSERT INTO pending_credentials (token_hash, identity_json, email_verified, raw_user_info, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(credential.tokenHash), .text(try Self.encodeJSON(credential.identity)), .bool(credential.emailVerified),
                      .optionalText(credential.rawUserInfo), .date(credential.createdAt), .date(credential.expiresAt)])
        }
    }

    public func takePendingCredential(tokenHash: String, now: Date) async throws -> PendingCredential? {
        try await transaction { db in
            guard let row = try db.row("SELECT * FROM pending_credentials WHERE token_hash = ?", [.text(tokenHash)]) else { return nil }
            try db.execute("DELETE FROM pending_credentials WHERE token_hash = ?", [.text(tokenHash)])
            let credential = PendingCredential(
                tokenHash: tokenHash, identity: try Self.decodeJSON(ProviderIdentity.self, row.string("identity_json")),
                emailVerified: row.bool("email_verified"), rawUserInfo: row.string("raw_user_info"),
                createdAt: row.date("created_at") ?? .distantPast, expiresAt: row.date("expires_at") ?? .distantPast)
            return credential.expiresAt > now ? credential : nil
        }
    }

    public func pruneExpiredFlows(now: Date) async throws {
        try await transaction { db in
            // Sessions are kept an hour past expiry so a late replay is still recognized as "used".
            try db.execute("DELETE FROM authorization_sessions WHERE expires_at < ?", [.date(now.addingTimeInterval(-3600))])
            try db.execute("DELETE FROM pending_credentials WHERE expires_at < ?", [.date(now)])
            try db.execute("DELETE FROM used_id_tokens WHERE expires_at < ?", [.date(now)])
            try db.execute("DELETE FROM throttle_attempts WHERE at < ?", [.date(now.addingTimeInterval(-86_400))])
        }
    }

    public func forgetIDTokenUse(keyHash: String) async throws {
        try await transaction { db in try db.execute("DELETE FROM used_id_tokens WHERE key_hash = ?", [.text(keyHash)]) }
    }

    public func markIDTokenUsed(keyHash: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM used_id_tokens WHERE key_hash = ? AND expires_at < ?", [.text(keyHash), .date(now)])
            try db.execute("INSERT INTO used_id_tokens (key_hash, expires_at) VALUES (?, ?) ON CONFLICT (key_hash) DO NOTHING",
                           [.text(keyHash), .date(expiresAt)])
            return db.changes() == 1
        }
    }

    private static func loadSession(state: String, db: Executor) throws -> AuthorizationSession? {
        guard let row = try db.row("SELECT * FROM authorization_sessions WHERE state = ?", [.text(state)]),
              let redirect = RedirectTarget(kind: row.string("redirect_kind") ?? "", value: row.string("redirect_value") ?? "")
        else { return nil }
        return AuthorizationSession(
            state: state, providerId: row.string("provider_id") ?? "", nonce: row.string("nonce") ?? "",
            codeVerifier: row.string("code_verifier"), sessionIdHash: row.string("session_id_hash") ?? "",
            eventId: row.string("event_id") ?? "", authType: row.string("auth_type") ?? "", tenant: row.string("tenant"),
            redirect: redirect, redirectUri: row.string("redirect_uri") ?? "",
            scopes: (try? decodeJSON([String].self, row.string("scopes"))) ?? [],
            createdAt: row.date("created_at") ?? .distantPast, expiresAt: row.date("expires_at") ?? .distantPast,
            callbackAt: row.date("callback_at"), consumedAt: row.date("consumed_at"))
    }

    static func encodeJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw StoreError.backend("missing JSON column") }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}
