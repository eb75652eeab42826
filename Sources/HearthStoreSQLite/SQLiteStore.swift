import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging
import SQLiteNIO

/// The embedded store: one SQLite file (WAL mode), schema created by migrations on first open.
///
/// One connection serves all requests; every operation takes an async FIFO lock, so a transaction has the
/// connection to itself across its awaits, and concurrent writers (e.g. two sign-ups with one email) are
/// serialized: exactly one wins.
public final class SQLiteStore: HearthStore {
    // Immutable after init; the connection is itself thread-safe (SQLITE_OPEN_FULLMUTEX) and every use of it is
    // serialized by `lock`.
    private let connection: SQLiteConnection
    private let lock = AsyncLock()
    private let logger: Logger

    private init(connection: SQLiteConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Opens (creating if needed) the database file at `path` and runs pending migrations.
    public static func open(path: String, logger: Logger = Logger(label: "hearth.store.sqlite")) async throws -> SQLiteStore {
        try await open(storage: .file(path: path), logger: logger)
    }

    /// An in-memory database, for tests.
    public static func inMemory(logger: Logger = Logger(label: "hearth.store.sqlite")) async throws -> SQLiteStore {
        try await open(storage: .memory, logger: logger)
    }

    private static func open(storage: SQLiteConnection.Storage, logger: Logger) async throws -> SQLiteStore {
        let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        let store = SQLiteStore(connection: connection, logger: logger)
        do {
            if case .file = storage {
                _ = try await connection.query("PRAGMA journal_mode=WAL")
            }
            _ = try await connection.query("PRAGMA foreign_keys=ON")
            _ = try await connection.query("PRAGMA busy_timeout=5000")
            try await store.migrate()
        } catch {
            try? await connection.close()
            throw error
        }
        return store
    }

    public func close() async throws {
        await lock.acquire()
        do {
            try await connection.close()
        } catch {
            await lock.release()
            throw error
        }
        await lock.release()
    }

    // MARK: Transactions

    private func migrate() async throws {
        try await transaction { db in
            try await db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let applied = Set(try await db.rows("SELECT version FROM schema_migrations").compactMap { $0.int("version") })
            for migration in Migrations.all where !applied.contains(migration.version) {
                for statement in migration.statements { try await db.execute(statement) }
                try await db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                                     [.integer(migration.version), .float(Date().timeIntervalSince1970)])
            }
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` with exclusive use of the connection; rolls back on error.
    func transaction<T: Sendable>(_ body: (Executor) async throws -> T) async throws -> T {
        await lock.acquire()
        let executor = Executor(connection: connection)
        do {
            try await executor.execute("BEGIN IMMEDIATE")
            let result = try await body(executor)
            try await executor.execute("COMMIT")
            await lock.release()
            return result
        } catch {
            _ = try? await executor.execute("ROLLBACK")
            await lock.release()
            if let storeError = error as? StoreError { throw storeError }
            if let sqliteError = error as? SQLiteError {
                logger.error("sqlite error", metadata: ["reason": "\(sqliteError.reason)"])
                throw StoreError.backend("sqlite: \(sqliteError.reason)")
            }
            throw error
        }
    }

    /// The connection, during a transaction.
    struct Executor: Sendable {
        let connection: SQLiteConnection

        func execute(_ sql: String, _ binds: [SQLiteData] = []) async throws {
            _ = try await connection.query(sql, binds)
        }

        func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
            try await connection.query(sql, binds)
        }

        func changes() async throws -> Int {
            try await rows("SELECT changes() AS n").first?.int("n") ?? 0
        }
    }

    // MARK: Users

    public func createUser(_ user: UserRecord) async throws {
        try await transaction { db in
            if try await !db.rows("SELECT 1 FROM users WHERE local_id = ?", [.text(user.localId)]).isEmpty {
                throw StoreError.duplicateLocalId
            }
            try await Self.checkUnique(user, db: db)
            try await db.execute("""
                INSERT INTO users (local_id, email, email_verified, display_name, photo_url, password_hash,
                    password_updated_at, disabled, created_at, last_login_at, last_refresh_at, valid_since,
                    custom_claims, custom_auth, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                """, Self.userBinds(user))
            try await Self.writeIdentities(user, db: db)
        }
    }

    public func user(localId: String) async throws -> UserRecord? {
        try await transaction { db in try await Self.loadUser(where: "local_id = ?", [.text(localId)], db: db) }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await transaction { db in try await Self.loadUser(where: "email = ?", [.text(email)], db: db) }
    }

    public func user(providerId: String, federatedId: String) async throws -> UserRecord? {
        try await transaction { db in
            try await Self.loadUser(
                where: "local_id = (SELECT local_id FROM provider_identities WHERE provider_id = ? AND federated_id = ?)",
                [.text(providerId), .text(federatedId)], db: db)
        }
    }

    public func updateUser(_ user: UserRecord) async throws -> UserRecord {
        try await transaction { db in
            guard let current = try await db.rows("SELECT version FROM users WHERE local_id = ?", [.text(user.localId)]).first else {
                throw StoreError.notFound
            }
            guard current.int("version") == user.version else { throw StoreError.conflict }
            try await Self.checkUnique(user, db: db)
            var binds = Array(Self.userBinds(user).dropFirst())
            binds.append(.text(user.localId))
            try await db.execute("""
                UPDATE users SET email = ?, email_verified = ?, display_name = ?, photo_url = ?, password_hash = ?,
                    password_updated_at = ?, disabled = ?, created_at = ?, last_login_at = ?, last_refresh_at = ?,
                    valid_since = ?, custom_claims = ?, custom_auth = ?, version = version + 1
                WHERE local_id = ?
                """, binds)
            try await db.execute("DELETE FROM provider_identities WHERE local_id = ?", [.text(user.localId)])
            try await Self.writeIdentities(user, db: db)
            var stored = user
            stored.version += 1
            return stored
        }
    }

    public func deleteUser(localId: String) async throws -> Bool {
        try await transaction { db in
            try await db.execute("DELETE FROM refresh_tokens WHERE local_id = ?", [.text(localId)])
            try await db.execute("DELETE FROM provider_identities WHERE local_id = ?", [.text(localId)])
            try await db.execute("DELETE FROM users WHERE local_id = ?", [.text(localId)])
            return try await db.changes() > 0
        }
    }

    public func userCount() async throws -> Int {
        try await transaction { db in try await db.rows("SELECT COUNT(*) AS n FROM users").first?.int("n") ?? 0 }
    }

    private static func checkUnique(_ user: UserRecord, db: Executor) async throws {
        if let email = user.email,
           try await !db.rows("SELECT 1 FROM users WHERE email = ? AND local_id <> ?", [.text(email), .text(user.localId)]).isEmpty {
            throw StoreError.emailExists
        }
        for identity in user.identities {
            let holders = try await db.rows(
                "SELECT local_id FROM provider_identities WHERE provider_id = ? AND federated_id = ?",
                [.text(identity.providerId), .text(identity.federatedId)])
            if let holder = holders.first?.string("local_id"), holder != user.localId {
                throw StoreError.federatedIdTaken(providerId: identity.providerId)
            }
        }
    }

    private static func userBinds(_ user: UserRecord) -> [SQLiteData] {
        [
            .text(user.localId), .optionalText(user.email), .bool(user.emailVerified), .optionalText(user.displayName),
            .optionalText(user.photoUrl), .optionalText(user.passwordHash), .optionalDate(user.passwordUpdatedAt),
            .bool(user.disabled), .date(user.createdAt), .optionalDate(user.lastLoginAt), .optionalDate(user.lastRefreshAt),
            .date(user.validSince),
            .jsonObject(user.customClaims),
            .bool(user.customAuth),
        ]
    }

    private static func writeIdentities(_ user: UserRecord, db: Executor) async throws {
        for identity in user.identities {
            try await db.execute("""
                INSERT INTO provider_identities (provider_id, federated_id, local_id, email, display_name, photo_url)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(identity.providerId), .text(identity.federatedId), .text(user.localId),
                      .optionalText(identity.email), .optionalText(identity.displayName), .optionalText(identity.photoUrl)])
        }
    }

    static func loadUser(where condition: String, _ binds: [SQLiteData], db: Executor) async throws -> UserRecord? {
        guard let row = try await db.rows("SELECT * FROM users WHERE \(condition)", binds).first,
              let localId = row.string("local_id")
        else { return nil }
        let identities = try await db.rows(
            "SELECT * FROM provider_identities WHERE local_id = ? ORDER BY provider_id", [.text(localId)]
        ).map { identity in
            ProviderIdentity(providerId: identity.string("provider_id") ?? "", federatedId: identity.string("federated_id") ?? "",
                             email: identity.string("email"), displayName: identity.string("display_name"),
                             photoUrl: identity.string("photo_url"))
        }
        let claims = row.jsonObject("custom_claims")
        return UserRecord(
            localId: localId, email: row.string("email"), emailVerified: row.bool("email_verified"),
            displayName: row.string("display_name"), photoUrl: row.string("photo_url"),
            passwordHash: row.string("password_hash"), passwordUpdatedAt: row.date("password_updated_at"),
            disabled: row.bool("disabled"), createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            lastLoginAt: row.date("last_login_at"), lastRefreshAt: row.date("last_refresh_at"),
            validSince: row.date("valid_since") ?? Date(timeIntervalSince1970: 0), customClaims: claims,
            customAuth: row.bool("custom_auth"), identities: identities, version: row.int("version") ?? 0)
    }

    // MARK: Refresh tokens

    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await transaction { db in try await Self.insertToken(record, db: db) }
    }

    public func rotateRefreshToken(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshRotationOutcome {
        try await transaction { db in
            guard let row = try await db.rows("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(presentedHash)]).first else {
                return .unknown
            }
            let presented = Self.tokenRecord(row)
            if presented.revoked { return .revoked }
            if let rotatedAt = presented.rotatedAt, now.timeIntervalSince(rotatedAt) > graceWindow {
                try await db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?", [.text(presented.familyId)])
                return .reuseDetected
            }
            if presented.rotatedAt == nil {
                try await db.execute("UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ?", [.date(now), .text(presentedHash)])
            }
            var next = replacement
            next.familyId = presented.familyId
            next.localId = presented.localId
            next.authTime = presented.authTime
            next.signInProvider = presented.signInProvider
            next.sessionClaims = presented.sessionClaims
            try await Self.insertToken(next, db: db)
            return .rotated(previous: presented)
        }
    }

    public func revokeRefreshTokens(localId: String) async throws {
        try await transaction { db in
            try await db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE local_id = ?", [.text(localId)])
        }
    }

    public func pruneRefreshTokens(before cutoff: Date) async throws -> Int {
        try await transaction { db in
            try await db.execute(
                "DELETE FROM refresh_tokens WHERE (rotated_at IS NOT NULL AND rotated_at < ?) OR (revoked = 1 AND created_at < ?)",
                [.date(cutoff), .date(cutoff)])
            return try await db.changes()
        }
    }

    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await transaction { db in
            try await db.rows("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]).first.map(Self.tokenRecord)
        }
    }

    private static func insertToken(_ record: RefreshTokenRecord, db: Executor) async throws {
        try await db.execute("""
            INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked, session_claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(record.tokenHash), .text(record.familyId), .text(record.localId), .date(record.authTime),
                  .text(record.signInProvider), .date(record.createdAt), .optionalDate(record.rotatedAt), .bool(record.revoked),
                  .jsonObject(record.sessionClaims)])
    }

    private static func tokenRecord(_ row: SQLiteRow) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: row.string("token_hash") ?? "", familyId: row.string("family_id") ?? "",
            localId: row.string("local_id") ?? "", authTime: row.date("auth_time") ?? Date(timeIntervalSince1970: 0),
            signInProvider: row.string("sign_in_provider") ?? "", createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            rotatedAt: row.date("rotated_at"), revoked: row.bool("revoked"), sessionClaims: row.jsonObject("session_claims"))
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKey] {
        try await transaction { db in
            try await db.rows("SELECT * FROM signing_keys ORDER BY generation").map { row in
                SigningKey(generation: row.int("generation") ?? 0, kid: row.string("kid") ?? "",
                           privateKeyPEM: row.string("private_key_pem") ?? "", certificatePEM: row.string("certificate_pem") ?? "",
                           createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                           activatesAt: row.date("activates_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    public func insertSigningKey(_ key: SigningKey) async throws {
        try await transaction { db in
            if try await !db.rows("SELECT 1 FROM signing_keys WHERE generation = ?", [.integer(key.generation)]).isEmpty {
                throw StoreError.duplicateKeyGeneration
            }
            try await db.execute("""
                INSERT INTO signing_keys (generation, kid, private_key_pem, certificate_pem, created_at, activates_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.integer(key.generation), .text(key.kid), .text(key.privateKeyPEM), .text(key.certificatePEM),
                      .date(key.createdAt), .date(key.activatesAt)])
        }
    }

    public func deleteSigningKeys(generations: [Int]) async throws {
        guard !generations.isEmpty else { return }
        try await transaction { db in
            for generation in generations {
                try await db.execute("DELETE FROM signing_keys WHERE generation = ?", [.integer(generation)])
            }
        }
    }

    // MARK: Project

    public func projectConfig(projectId: String) async throws -> ProjectConfig? {
        try await transaction { db in
            guard let text = try await db.rows("SELECT config_json FROM project_config WHERE project_id = ?", [.text(projectId)]).first?.string("config_json") else {
                return nil
            }
            return try JSONDecoder().decode(ProjectConfig.self, from: Data(text.utf8))
        }
    }

    public func saveProjectConfig(_ config: ProjectConfig) async throws {
        let json = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        try await transaction { db in
            try await db.execute("""
                INSERT INTO project_config (project_id, config_json) VALUES (?, ?)
                ON CONFLICT(project_id) DO UPDATE SET config_json = excluded.config_json
                """, [.text(config.projectId), .text(json)])
        }
    }

    public func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey] {
        try await transaction { db in
            try await db.rows("SELECT * FROM service_account_keys WHERE client_email = ? ORDER BY key_id", [.text(clientEmail)]).map(Self.serviceAccountKey)
        }
    }

    public func allServiceAccountKeys() async throws -> [ServiceAccountKey] {
        try await transaction { db in
            try await db.rows("SELECT * FROM service_account_keys ORDER BY client_email, key_id").map(Self.serviceAccountKey)
        }
    }

    public func saveServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await transaction { db in
            try await db.execute("""
                INSERT INTO service_account_keys (client_email, key_id, public_key_pem, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(client_email, key_id) DO UPDATE SET public_key_pem = excluded.public_key_pem, created_at = excluded.created_at
                """, [.text(key.clientEmail), .text(key.keyId), .text(key.publicKeyPEM), .date(key.createdAt)])
        }
    }

    public func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool {
        try await transaction { db in
            try await db.execute("DELETE FROM service_account_keys WHERE client_email = ? AND key_id = ?", [.text(clientEmail), .text(keyId)])
            return try await db.changes() > 0
        }
    }

    private static func serviceAccountKey(_ row: SQLiteRow) -> ServiceAccountKey {
        ServiceAccountKey(clientEmail: row.string("client_email") ?? "", keyId: row.string("key_id") ?? "",
                          publicKeyPEM: row.string("public_key_pem") ?? "",
                          createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0))
    }
}

extension SQLiteData {
    static func optionalText(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }
    static func bool(_ value: Bool) -> SQLiteData { .integer(value ? 1 : 0) }
    static func date(_ value: Date) -> SQLiteData { .float(value.timeIntervalSince1970) }
    static func optionalDate(_ value: Date?) -> SQLiteData { value.map(date) ?? .null }
    static func jsonObject(_ value: [String: JSONValue]) -> SQLiteData {
        value.isEmpty ? .null : .text(JSONValue.object(value).compactJSONString)
    }
}

extension SQLiteRow {
    func string(_ name: String) -> String? { column(name)?.string }
    func int(_ name: String) -> Int? { column(name)?.integer.map { Int($0) } }
    func bool(_ name: String) -> Bool { (column(name)?.integer ?? 0) != 0 }
    func jsonObject(_ name: String) -> [String: JSONValue] {
        guard let text = string(name),
              case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return [:] }
        return object
    }
    func date(_ name: String) -> Date? {
        guard let value = column(name), value != .null, let seconds = value.double else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
