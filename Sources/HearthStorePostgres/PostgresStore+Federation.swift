import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresStore {
    // MARK: Identity providers and apps

    public func idpConfig(providerId: String) async throws -> IdPConfig? {
        let text = try await single { db in
            try await db.row("SELECT config_json FROM idp_configs WHERE provider_id = ?", [.text(providerId)])?.string("config_json")
        }
        return try text.map { clientSecrets.fromStorage(try Self.decodeJSON(IdPConfig.self, $0)) }
    }

    public func idpConfigs() async throws -> [IdPConfig] {
        try await single { db in
            try await db.rows("SELECT config_json FROM idp_configs ORDER BY provider_id").map { try $0.string("config_json") }
        }.map { clientSecrets.fromStorage(try Self.decodeJSON(IdPConfig.self, $0)) }
    }

    public func saveIdPConfig(_ config: IdPConfig) async throws {
        let json = try Self.encodeJSON(try clientSecrets.forStorage(config))
        try await single { db in
            try await db.execute("""
                INSERT INTO idp_configs (provider_id, config_json) VALUES (?, ?)
                ON CONFLICT (provider_id) DO UPDATE SET config_json = excluded.config_json
                """, [.text(config.providerId), .text(json)])
        }
    }

    @discardableResult
    public func sealStoredClientSecrets() async throws -> Int {
        let sealing = clientSecrets
        return try await transaction { db in
            var count = 0
            for row in try await db.rows("SELECT config_json FROM idp_configs ORDER BY provider_id FOR UPDATE") {
                let stored = try Self.decodeJSON(IdPConfig.self, try row.string("config_json"))
                guard sealing.needsResealing(stored) else { continue }
                let resealed = try sealing.forStorage(sealing.fromStorage(stored))
                guard resealed.clientSecret != stored.clientSecret, ProviderTokenKeys.isSealedSecret(resealed.clientSecret) else { continue }
                try await db.execute("UPDATE idp_configs SET config_json = ? WHERE provider_id = ?",
                                     [.text(try Self.encodeJSON(resealed)), .text(stored.providerId)])
                count += 1
            }
            return count
        }
    }

    public func deleteIdPConfig(providerId: String) async throws -> Bool {
        try await single { db in
            try await db.execute("DELETE FROM idp_configs WHERE provider_id = ? RETURNING 1", [.text(providerId)]) > 0
        }
    }

    public func apps() async throws -> [AppRegistration] {
        try await single { db in
            try await db.rows("SELECT app_json FROM apps ORDER BY id").map { try $0.string("app_json") }
        }.map { try Self.decodeJSON(AppRegistration.self, $0) }
    }

    public func saveApp(_ app: AppRegistration) async throws {
        let json = try Self.encodeJSON(app)
        try await single { db in
            try await db.execute("""
                INSERT INTO apps (id, app_json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET app_json = excluded.app_json
                """, [.text(app.id), .text(json)])
        }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await single { db in try await db.execute("DELETE FROM apps WHERE id = ? RETURNING 1", [.text(id)]) > 0 }
    }

    // MARK: Authorization sessions and pending credentials

    public func insertAuthorizationSession(_ session: AuthorizationSession) async throws {
        let scopes = try Self.encodeJSON(session.scopes)
        try await single { db in
            try await db.execute("""
                INSERT INTO authorization_sessions (state, provider_id, nonce, code_verifier, session_id_hash, event_id, auth_type,
                    tenant, redirect_kind, redirect_value, redirect_uri, scopes, created_at, expires_at, callback_at, consumed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(session.state), .text(session.providerId), .text(session.nonce), .optionalText(session.codeVerifier),
                      .text(session.sessionIdHash), .text(session.eventId), .text(session.authType), .optionalText(session.tenant),
                      .text(session.redirect.kind), .text(session.redirect.value), .text(session.redirectUri),
                      .text(scopes), .date(session.createdAt), .date(session.expiresAt),
                      .optionalDate(session.callbackAt), .optionalDate(session.consumedAt)])
        }
    }

    public func authorizationSession(state: String) async throws -> AuthorizationSession? {
        try await single { db in
            try await db.row("SELECT * FROM authorization_sessions WHERE state = ?", [.text(state)]).flatMap(Self.session)
        }
    }

    /// One conditional UPDATE: of two callbacks racing on two replicas, exactly one sees its row change.
    public func markCallback(state: String, now: Date) async throws -> Bool {
        try await single { db in
            try await db.execute("""
                UPDATE authorization_sessions SET callback_at = ?
                WHERE state = ? AND callback_at IS NULL AND consumed_at IS NULL AND expires_at > ? RETURNING 1
                """, [.date(now), .text(state), .date(now)]) == 1
        }
    }

    public func consumeAuthorizationSession(state: String, sessionIdHash: String, now: Date) async throws -> SessionConsumeOutcome {
        try await transaction { db in
            // Locked: two replicas consuming one session serialize; the second sees it consumed.
            guard let row = try await db.row("SELECT * FROM authorization_sessions WHERE state = ? FOR UPDATE", [.text(state)]),
                  let session = try Self.session(row)
            else { return .unknown }
            if session.consumedAt != nil { return .alreadyUsed }
            try await db.execute("UPDATE authorization_sessions SET consumed_at = ? WHERE state = ?", [.date(now), .text(state)])
            if session.expiresAt <= now { return .expired }
            guard session.sessionIdHash == sessionIdHash else { return .sessionMismatch }
            var consumed = session
            consumed.consumedAt = now
            return .consumed(consumed)
        }
    }

    public func insertPendingCredential(_ credential: PendingCredential) async throws {
        let identity = try Self.encodeJSON(credential.identity)
        try await single { db in
            try await db.execute("""
                INSERT INTO pending_credentials (token_hash, identity_json, email_verified, raw_user_info, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(credential.tokenHash), .text(identity), .bool(credential.emailVerified),
                      .optionalText(credential.rawUserInfo), .date(credential.createdAt), .date(credential.expiresAt)])
        }
    }

    /// One `DELETE … RETURNING`: the credential is taken once, whichever replica asks first.
    public func takePendingCredential(tokenHash: String, now: Date) async throws -> PendingCredential? {
        let row = try await single { db in
            try await db.row("DELETE FROM pending_credentials WHERE token_hash = ? RETURNING *", [.text(tokenHash)]).map { row in
                (identity: try row.string("identity_json"), emailVerified: try row.bool("email_verified"),
                 rawUserInfo: try row.string("raw_user_info"), createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
            }
        }
        guard let row else { return nil }
        let credential = PendingCredential(
            tokenHash: tokenHash, identity: try Self.decodeJSON(ProviderIdentity.self, row.identity),
            emailVerified: row.emailVerified, rawUserInfo: row.rawUserInfo,
            createdAt: row.createdAt ?? .distantPast, expiresAt: row.expiresAt ?? .distantPast)
        return credential.expiresAt > now ? credential : nil
    }

    public func pruneExpiredFlows(now: Date) async throws {
        try await transaction { db in
            // Sessions are kept an hour past expiry so a late replay is still recognized as "used".
            try await db.execute("DELETE FROM authorization_sessions WHERE expires_at < ?", [.date(now.addingTimeInterval(-3600))])
            try await db.execute("DELETE FROM pending_credentials WHERE expires_at < ?", [.date(now)])
            // Throttle failures of keys never seen again (the live ones are trimmed as they are recorded).
            try await db.execute("DELETE FROM throttle_failures WHERE at < ?", [.date(now.addingTimeInterval(-86_400))])
            try await db.execute("DELETE FROM used_id_tokens WHERE expires_at < ?", [.date(now)])
        }
    }

    public func forgetIDTokenUse(keyHash: String) async throws {
        try await single { db in try await db.execute("DELETE FROM used_id_tokens WHERE key_hash = ?", [.text(keyHash)]) }
    }

    public func markIDTokenUsed(keyHash: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await transaction { db in
            try await db.execute("DELETE FROM used_id_tokens WHERE key_hash = ? AND expires_at < ?", [.text(keyHash), .date(now)])
            // The primary key makes two replicas' inserts of one token race safely: one row, one winner.
            return try await db.execute("INSERT INTO used_id_tokens (key_hash, expires_at) VALUES (?, ?) ON CONFLICT (key_hash) DO NOTHING RETURNING 1",
                                        [.text(keyHash), .date(expiresAt)]) == 1
        }
    }

    private static func session(_ row: PostgresRandomAccessRow) throws -> AuthorizationSession? {
        guard let redirect = RedirectTarget(kind: try row.string("redirect_kind") ?? "", value: try row.string("redirect_value") ?? "")
        else { return nil }
        return AuthorizationSession(
            state: try row.string("state") ?? "", providerId: try row.string("provider_id") ?? "", nonce: try row.string("nonce") ?? "",
            codeVerifier: try row.string("code_verifier"), sessionIdHash: try row.string("session_id_hash") ?? "",
            eventId: try row.string("event_id") ?? "", authType: try row.string("auth_type") ?? "", tenant: try row.string("tenant"),
            redirect: redirect, redirectUri: try row.string("redirect_uri") ?? "",
            scopes: (try? decodeJSON([String].self, try row.string("scopes"))) ?? [],
            createdAt: try row.date("created_at") ?? .distantPast, expiresAt: try row.date("expires_at") ?? .distantPast,
            callbackAt: try row.date("callback_at"), consumedAt: try row.date("consumed_at"))
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

    // MARK: Users (admin)

    public func listUsers(after afterLocalId: String?, limit: Int) async throws -> [UserRecord] {
        try await single { db in
            if let afterLocalId {
                return try await db.rows("\(Self.userSelect) WHERE u.local_id > ? ORDER BY u.local_id LIMIT ?",
                                         [.text(afterLocalId), .int(max(0, limit))]).map(Self.userRecord)
            }
            return try await db.rows("\(Self.userSelect) ORDER BY u.local_id LIMIT ?", [.int(max(0, limit))]).map(Self.userRecord)
        }
    }

    public func queryUsers(_ query: UserQuery) async throws -> (total: Int, users: [UserRecord]) {
        var conditions: [String] = []
        var binds: [PGValue] = []
        func placeholders(_ values: [String]) -> String {
            binds.append(contentsOf: values.map { .text($0) })
            return Array(repeating: "?", count: values.count).joined(separator: ", ")
        }
        if !query.emails.isEmpty { conditions.append("u.email IN (\(placeholders(query.emails.map(EmailAddress.canonical))))") }
        if !query.localIds.isEmpty { conditions.append("u.local_id IN (\(placeholders(query.localIds)))") }
        if !query.phoneNumbers.isEmpty {
            conditions.append("u.local_id IN (SELECT local_id FROM provider_identities WHERE provider_id = 'phone' AND federated_id IN (\(placeholders(query.phoneNumbers))))")
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " OR ")
        let column = switch query.sortBy {
        case .userId: "u.local_id"
        case .name: "u.display_name"
        case .createdAt: "u.created_at"
        case .lastLoginAt: "u.last_login_at"
        case .userEmail: "u.email"
        }
        // NULLs sort as SQLite sorts them: first ascending, last descending.
        let direction = query.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        let order = column == "u.local_id" ? "u.local_id \(direction)" : "\(column) \(direction), u.local_id \(direction)"
        let filterBinds = binds
        return try await snapshot { db in
            let total = try await db.row("SELECT COUNT(*) AS n FROM users u \(filter)", filterBinds)?.int("n") ?? 0
            let users = try await db.rows("\(Self.userSelect) \(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
                                          filterBinds + [.int(max(0, query.limit)), .int(max(0, query.offset))]).map(Self.userRecord)
            return (total, users)
        }
    }

    public func deleteAllUsers() async throws -> Int {
        try await transaction { db in
            try await db.execute("DELETE FROM refresh_tokens")
            return try await db.execute("DELETE FROM users RETURNING 1")
        }
    }

    // MARK: Audit log

    public func appendAuditEntry(_ entry: AuditEntry) async throws {
        try await single { db in
            try await db.execute("INSERT INTO audit_log (time, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                                 [.date(entry.time), .text(entry.actor), .text(entry.action), .text(entry.target),
                                  .optionalText(entry.detail)])
        }
    }

    public func auditEntries(before beforeId: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await single { db in
            try await db.rows("SELECT * FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?",
                              [.integer(beforeId ?? Int64.max), .int(max(0, limit))]).map { row in
                AuditEntry(id: Int64(try row.int("id") ?? 0), time: try row.date("time") ?? Date(timeIntervalSince1970: 0),
                           actor: try row.string("actor") ?? "", action: try row.string("action") ?? "",
                           target: try row.string("target") ?? "", detail: try row.string("detail"))
            }
        }
    }

    // MARK: Bulk import

    /// Bulk path (imports, benchmarks, `hearth migrate`): inserts many users (without identities) in one
    /// transaction, 500 rows per statement, without the per-user checks of ``createUser(_:)``: a duplicate
    /// `localId` or email fails the whole import and nothing is written.
    public func importUsers(_ users: [UserRecord]) async throws {
        try await transaction { db in
            var start = users.startIndex
            while start < users.endIndex {
                let end = min(start + 500, users.endIndex)
                let rows = users[start..<end]
                let placeholders = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)", count: rows.count).joined(separator: ", ")
                try await Self.uniqueChecked {
                    try await db.execute("""
                        INSERT INTO users (local_id, email, email_verified, display_name, photo_url, password_hash,
                            password_updated_at, disabled, created_at, last_login_at, last_refresh_at, valid_since,
                            custom_claims, custom_auth, version)
                        VALUES \(placeholders)
                        """, rows.flatMap(Self.userBinds))
                }
                start = end
            }
        }
    }
}

extension PostgresStore: StoreCopying {
    public func projectConfigs() async throws -> [ProjectConfig] {
        try await single { db in
            try await db.rows("SELECT config_json FROM project_config ORDER BY project_id").compactMap { try $0.string("config_json") }
        }.map { try JSONDecoder().decode(ProjectConfig.self, from: Data($0.utf8)) }
    }

    public func refreshTokens(after afterHash: String?, limit: Int) async throws -> [RefreshTokenRecord] {
        try await single { db in
            try await db.rows("SELECT * FROM refresh_tokens WHERE token_hash > ? ORDER BY token_hash LIMIT ?",
                              [.text(afterHash ?? ""), .int(max(0, limit))]).map(Self.tokenRecord)
        }
    }
}

extension PostgresStore {
    public func reserveThrottleAttempt(keys: [ThrottleKey], attemptId: String, at moment: Date, since: Date) async throws -> Bool {
        guard !keys.isEmpty else { return true }
        let ordered = keys.sorted { $0.key < $1.key }
        return try await transaction { db in
            // One transaction-scoped advisory lock per key (in key order: no deadlock between two reservations):
            // a concurrent reservation of the same key, on any replica, waits here until this one has counted.
            for key in ordered {
                try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 1212))", [.text(key.key)])
            }
            let placeholders = Array(repeating: "?", count: ordered.count).joined(separator: ", ")
            var counts: [String: Int] = [:]
            for row in try await db.rows("SELECT key, COUNT(*) AS n FROM throttle_failures WHERE at >= ? AND key IN (\(placeholders)) GROUP BY key",
                                         [.date(since)] + ordered.map { .text($0.key) }) {
                if let key = try row.string("key") { counts[key] = try row.int("n") ?? 0 }
            }
            guard ordered.allSatisfy({ (counts[$0.key] ?? 0) < $0.limit }) else { return false }
            for key in ordered {
                try await db.execute("DELETE FROM throttle_failures WHERE key = ? AND at < ?", [.text(key.key), .date(since)])
                try await db.execute("INSERT INTO throttle_failures (key, at, attempt_id) VALUES (?, ?, ?)",
                                     [.text(key.key), .date(moment), .text(attemptId)])
            }
            return true
        }
    }

    public func settleThrottleAttempt(attemptId: String, clearing key: String) async throws {
        try await single { db in
            try await db.execute("DELETE FROM throttle_failures WHERE attempt_id = ? OR key = ?", [.text(attemptId), .text(key)])
        }
    }
}
