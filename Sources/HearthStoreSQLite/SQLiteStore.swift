import Foundation
import GRDB
import HearthCore
import HearthStore
import HearthWire
import Logging

/// The embedded store: one SQLite file in WAL mode, through GRDB's `DatabasePool` — one writer connection and
/// a pool of reader connections, each with a prepared-statement cache. Schema created by migrations on first open.
///
/// Writes are serialized on the single writer (two sign-ups with one email: exactly one wins); reads run on the
/// readers, in a snapshot transaction, and never wait for a writer. Every operation is one database access: the
/// closure runs inline with all its statements, not one hop per statement.
public final class SQLiteStore: HearthStore {
    /// How much a commit waits for the disk. Under WAL, `normal` is safe against process crashes (no committed
    /// transaction is lost or corrupted when Hearth dies); after a power loss or OS crash the last transactions
    /// before it may be lost (the database stays consistent). `full` also syncs the WAL on every commit.
    public enum Durability: String, Sendable, CaseIterable {
        case normal
        case full
    }

    // Immutable after init; GRDB's writers are thread-safe (`DatabasePool` / `DatabaseQueue` are Sendable).
    let writer: any DatabaseWriter
    private let logger: Logger
    /// Provider client secrets are sealed with the vault keys given here (``ClientSecretSealing``).
    public let clientSecrets = ClientSecretSealing()

    private init(writer: any DatabaseWriter, logger: Logger) {
        self.writer = writer
        self.logger = logger
    }

    /// Opens (creating if needed) the database file at `path` and runs pending migrations.
    /// - Parameter durability: `PRAGMA synchronous` for the writer: `normal` (default) or `full`.
    /// - Parameter readers: the most reader connections open at once.
    public static func open(path: String, durability: Durability = .normal, readers: Int = 4,
                            logger: Logger = Logger(label: "hearth.store.sqlite")) async throws -> SQLiteStore {
        var configuration = Self.configuration(durability: durability)
        configuration.maximumReaderCount = max(1, readers)
        // The database holds password hashes, signing keys and provider secrets: owner-only, whatever the umask.
        // SQLite gives its -wal and -shm files the database file's mode, so creating it 0600 covers them too.
        try OwnerOnlyFiles.prepare(databaseAt: path)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw StoreError.backend("sqlite: cannot open \(path): \(error.message ?? "\(error.resultCode)")")
        }
        return try await Self.start(SQLiteStore(writer: pool, logger: logger))
    }

    /// An in-memory database, for tests.
    public static func inMemory(logger: Logger = Logger(label: "hearth.store.sqlite")) async throws -> SQLiteStore {
        let queue = try DatabaseQueue(configuration: Self.configuration(durability: .normal))
        return try await Self.start(SQLiteStore(writer: queue, logger: logger))
    }

    private static func configuration(durability: Durability) -> Configuration {
        var configuration = Configuration()
        configuration.label = "hearth"
        configuration.foreignKeysEnabled = true
        // Another process (the CLI) may hold the write lock briefly.
        configuration.busyMode = .timeout(5)
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        return configuration
    }

    private static func start(_ store: SQLiteStore) async throws -> SQLiteStore {
        do {
            try await store.migrate()
        } catch {
            try? store.writer.close()
            throw error
        }
        return store
    }

    public func close() async throws {
        do {
            try writer.close()
        } catch let error as DatabaseError {
            throw StoreError.backend("sqlite: \(error.message ?? "\(error.resultCode)")")
        }
    }

    // MARK: Transactions

    private func migrate() async throws {
        try await transaction { db in
            try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let applied = Set(try db.rows("SELECT version FROM schema_migrations").compactMap { $0.int("version") })
            for migration in Migrations.all where !applied.contains(migration.version) {
                for statement in migration.statements { try db.executeOnce(statement) }
                try db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                               [.integer(migration.version), .float(Date().timeIntervalSince1970)])
            }
        }
    }

    /// Runs `body` in one write transaction on the writer connection (serialized with every other write);
    /// rolls back when it throws. Writes hop to the writer's queue: waiting for the write lock or the disk never
    /// blocks a thread of the cooperative pool.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (Executor) throws -> T) async throws -> T {
        do {
            return try await writer.write { db in try body(Executor(db: db)) }
        } catch {
            throw mapped(error)
        }
    }

    /// Runs `body` in a read-only snapshot transaction on a reader connection: never waits for a writer (WAL).
    /// Reads run inline on the calling task (GRDB's synchronous API): a read is a few cached statements on a
    /// local file, shorter than the two thread switches a hop to the reader's queue and back would cost.
    func read<T: Sendable>(_ body: @escaping @Sendable (Executor) throws -> T) async throws -> T {
        do {
            // Inline only on a pool (WAL: a reader never waits for the writer). A single-connection queue (the
            // in-memory store) serializes reads behind writes: waiting for it inline would block a thread of the
            // cooperative pool (two on a two-core machine) for as long as the writes queued before it.
            guard writer is DatabasePool else { return try await writer.read { db in try body(Executor(db: db)) } }
            return try Self.readInline(writer) { db in try body(Executor(db: db)) }
        } catch {
            throw mapped(error)
        }
    }

    /// GRDB's blocking read (only the synchronous overload is visible from a synchronous function).
    private static func readInline<T>(_ reader: any DatabaseReader, _ body: (Database) throws -> T) throws -> T {
        try reader.read(body)
    }

    private func mapped(_ error: any Error) -> any Error {
        if error is StoreError { return error }
        if let error = error as? DatabaseError {
            logger.error("sqlite error", metadata: ["code": "\(error.extendedResultCode)"])
            if let reason = Self.unavailability(error.resultCode) { return StoreError.unavailable(reason) }
            return StoreError.backend("sqlite: \(error.message ?? "\(error.resultCode)")")
        }
        return error
    }

    /// Failures of the disk or the file rather than of a statement: the request may succeed once an operator acts.
    static func unavailability(_ code: ResultCode) -> String? {
        switch code {
        case .SQLITE_FULL: "the disk holding the database is full"
        case .SQLITE_READONLY: "the database file is read-only (check its permissions and the file system)"
        case .SQLITE_IOERR: "the database file cannot be read or written (I/O error)"
        case .SQLITE_CANTOPEN: "the database file cannot be opened"
        case .SQLITE_BUSY, .SQLITE_LOCKED: "the database is locked by another process"
        default: nil
        }
    }

    /// The connection during a transaction. Statements are prepared once per connection and cached.
    struct Executor {
        let db: Database

        func execute(_ sql: String, _ binds: [SQLValue] = []) throws {
            try db.cachedStatement(sql: sql).execute(arguments: try Self.arguments(binds))
        }

        /// A statement that runs once (migrations, bulk inserts): not kept in the cache.
        func executeOnce(_ sql: String, _ binds: [SQLValue] = []) throws {
            try db.makeStatement(sql: sql).execute(arguments: try Self.arguments(binds))
        }

        func rows(_ sql: String, _ binds: [SQLValue] = []) throws -> [Row] {
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: try Self.arguments(binds))
        }

        /// Rows of a statement built at run time (e.g. `IN (?, ?, …)` lists): not kept in the cache.
        func rowsOnce(_ sql: String, _ binds: [SQLValue] = []) throws -> [Row] {
            try Row.fetchAll(db.makeStatement(sql: sql), arguments: try Self.arguments(binds))
        }

        func row(_ sql: String, _ binds: [SQLValue] = []) throws -> Row? {
            try Row.fetchOne(db.cachedStatement(sql: sql), arguments: try Self.arguments(binds))
        }

        /// Rows changed by the last statement.
        func changes() -> Int { db.changesCount }

        /// The statement's arguments; a text holding U+0000 is refused (SQLite would store or match it cut short).
        static func arguments(_ binds: [SQLValue]) throws -> StatementArguments {
            for case .text(let text) in binds where !StoreError.storable(text) { throw StoreError.textWithNUL }
            return StatementArguments(binds.map(\.databaseValue))
        }
    }

    // MARK: Users

    public func createUser(_ user: UserRecord) async throws {
        try await transaction { db in
            if try db.row("SELECT 1 FROM users WHERE local_id = ?", [.text(user.localId)]) != nil {
                throw StoreError.duplicateLocalId
            }
            try Self.checkUnique(user, db: db)
            try db.execute("""
                INSERT INTO users (local_id, email, email_verified, display_name, photo_url, password_hash,
                    password_updated_at, disabled, created_at, last_login_at, last_refresh_at, valid_since,
                    custom_claims, custom_auth, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                """, Self.userBinds(user))
            try Self.writeIdentities(user, db: db)
        }
    }

    public func user(localId: String) async throws -> UserRecord? {
        try await read { db in try Self.loadUser(localId: localId, db: db) }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await read { db in
            // The canonical form; then, for a row stored before emails were canonical (NFD), its decomposed form.
            let canonical = EmailAddress.canonical(email)
            guard let localId = try db.row("SELECT local_id FROM users WHERE email = ?", [.text(canonical)])?.string("local_id")
                ?? (canonical.unicodeScalars.allSatisfy(\.isASCII) ? nil
                    : try db.row("SELECT local_id FROM users WHERE email = ?", [.text(canonical.decomposedStringWithCanonicalMapping)])?.string("local_id"))
            else { return nil }
            return try Self.loadUser(localId: localId, db: db)
        }
    }

    public func user(providerId: String, federatedId: String) async throws -> UserRecord? {
        try await read { db in
            guard let localId = try db.row("SELECT local_id FROM provider_identities WHERE provider_id = ? AND federated_id = ?",
                                           [.text(providerId), .text(federatedId)])?.string("local_id")
            else { return nil }
            return try Self.loadUser(localId: localId, db: db)
        }
    }

    public func updateUser(_ user: UserRecord) async throws -> UserRecord {
        try await transaction { db in
            guard let current = try db.row("SELECT version FROM users WHERE local_id = ?", [.text(user.localId)]) else {
                throw StoreError.notFound
            }
            guard current.int("version") == user.version else { throw StoreError.conflict }
            try Self.checkUnique(user, db: db)
            var binds = Array(Self.userBinds(user).dropFirst())
            binds.append(.text(user.localId))
            try db.execute("""
                UPDATE users SET email = ?, email_verified = ?, display_name = ?, photo_url = ?, password_hash = ?,
                    password_updated_at = ?, disabled = ?, created_at = ?, last_login_at = ?, last_refresh_at = ?,
                    valid_since = ?, custom_claims = ?, custom_auth = ?, version = version + 1
                WHERE local_id = ?
                """, binds)
            try db.execute("DELETE FROM provider_identities WHERE local_id = ?", [.text(user.localId)])
            try Self.writeIdentities(user, db: db)
            try Self.deleteUnlinkedProviderTokens(localId: user.localId, db: db)
            var stored = user
            stored.version += 1
            return stored
        }
    }

    public func recordSignIn(localId: String, at moment: Date, identity: ProviderIdentity?, passwordRehash: PasswordRehash?,
                             refreshToken: RefreshTokenRecord?) async throws -> UserRecord? {
        try await transaction { db in
            guard var user = try Self.loadUser(localId: localId, db: db) else { return nil }
            if user.disabled { return user }
            var rehashed = false
            if let passwordRehash, user.passwordHash == passwordRehash.old {
                try db.execute("UPDATE users SET last_login_at = ?, password_hash = ?, version = version + 1 WHERE local_id = ?",
                               [.date(moment), .text(passwordRehash.new), .text(localId)])
                rehashed = true
            } else {
                try db.execute("UPDATE users SET last_login_at = ?, version = version + 1 WHERE local_id = ?", [.date(moment), .text(localId)])
            }
            if let identity, let index = user.identities.firstIndex(where: {
                $0.providerId == identity.providerId && $0.federatedId == identity.federatedId
            }), user.identities[index] != identity {
                try db.execute("""
                    UPDATE provider_identities SET email = ?, display_name = ?, photo_url = ?
                    WHERE provider_id = ? AND federated_id = ? AND local_id = ?
                    """, [.optionalText(identity.email), .optionalText(identity.displayName), .optionalText(identity.photoUrl),
                          .text(identity.providerId), .text(identity.federatedId), .text(localId)])
                user.identities[index] = identity
            }
            if let refreshToken {
                try Self.insertToken(refreshToken, db: db)
                try Self.countSignIn(provider: refreshToken.signInProvider, at: moment, db: db)
            }
            user.lastLoginAt = moment
            if rehashed { user.passwordHash = passwordRehash?.new }
            user.version += 1
            return user
        }
    }

    public func deleteUser(localId: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM refresh_tokens WHERE local_id = ?", [.text(localId)])
            try db.execute("DELETE FROM provider_tokens WHERE local_id = ?", [.text(localId)])
            try db.execute("DELETE FROM provider_identities WHERE local_id = ?", [.text(localId)])
            try db.execute("DELETE FROM users WHERE local_id = ?", [.text(localId)])
            return db.changes() > 0
        }
    }

    public func canonicalizeStoredEmails() async throws -> (rewritten: Int, conflicts: [String]) {
        try await transaction { db in
            var rewritten = 0
            var conflicts: [String] = []
            // Only addresses with a non-ASCII character can differ from their NFC form.
            for row in try db.rows("SELECT local_id, email FROM users WHERE email GLOB '*[^ -~]*'") {
                guard let localId = row.string("local_id"), let email = row.string("email") else { continue }
                let canonical = EmailAddress.canonical(email)
                guard !canonical.utf8.elementsEqual(email.utf8) else { continue }
                if try db.row("SELECT 1 FROM users WHERE email = ? AND local_id <> ?", [.text(canonical), .text(localId)]) != nil {
                    conflicts.append(localId)
                    continue
                }
                try db.execute("UPDATE users SET email = ?, version = version + 1 WHERE local_id = ?", [.text(canonical), .text(localId)])
                rewritten += 1
            }
            return (rewritten, conflicts)
        }
    }

    public func userCount() async throws -> Int {
        try await read { db in try db.row("SELECT COUNT(*) AS n FROM users")?.int("n") ?? 0 }
    }

    private static func checkUnique(_ user: UserRecord, db: Executor) throws {
        if let email = user.email,
           try db.row("SELECT 1 FROM users WHERE email = ? AND local_id <> ?", [.text(email), .text(user.localId)]) != nil {
            throw StoreError.emailExists
        }
        for identity in user.identities {
            let holder = try db.row("SELECT local_id FROM provider_identities WHERE provider_id = ? AND federated_id = ?",
                                    [.text(identity.providerId), .text(identity.federatedId)])
            if let holder = holder?.string("local_id"), holder != user.localId {
                throw StoreError.federatedIdTaken(providerId: identity.providerId)
            }
        }
    }

    static func userBinds(_ user: UserRecord) -> [SQLValue] {
        [
            .text(user.localId), .optionalText(user.email), .bool(user.emailVerified), .optionalText(user.displayName),
            .optionalText(user.photoUrl), .optionalText(user.passwordHash), .optionalDate(user.passwordUpdatedAt),
            .bool(user.disabled), .date(user.createdAt), .optionalDate(user.lastLoginAt), .optionalDate(user.lastRefreshAt),
            .date(user.validSince),
            .jsonObject(user.customClaims),
            .bool(user.customAuth),
        ]
    }

    private static func writeIdentities(_ user: UserRecord, db: Executor) throws {
        for identity in user.identities {
            try db.execute("""
                INSERT INTO provider_identities (provider_id, federated_id, local_id, email, display_name, photo_url)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(identity.providerId), .text(identity.federatedId), .text(user.localId),
                      .optionalText(identity.email), .optionalText(identity.displayName), .optionalText(identity.photoUrl)])
        }
    }

    static func loadUser(localId: String, db: Executor) throws -> UserRecord? {
        guard let row = try db.row("SELECT * FROM users WHERE local_id = ?", [.text(localId)]) else { return nil }
        let identities = try db.rows("SELECT * FROM provider_identities WHERE local_id = ? ORDER BY provider_id", [.text(localId)]).map { identity in
            ProviderIdentity(providerId: identity.string("provider_id") ?? "", federatedId: identity.string("federated_id") ?? "",
                             email: identity.string("email"), displayName: identity.string("display_name"),
                             photoUrl: identity.string("photo_url"))
        }
        return UserRecord(
            localId: localId, email: row.string("email"), emailVerified: row.bool("email_verified"),
            displayName: row.string("display_name"), photoUrl: row.string("photo_url"),
            passwordHash: row.string("password_hash"), passwordUpdatedAt: row.date("password_updated_at"),
            disabled: row.bool("disabled"), createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            lastLoginAt: row.date("last_login_at"), lastRefreshAt: row.date("last_refresh_at"),
            validSince: row.date("valid_since") ?? Date(timeIntervalSince1970: 0), customClaims: row.jsonObject("custom_claims"),
            customAuth: row.bool("custom_auth"), identities: identities, version: row.int("version") ?? 0)
    }

    // MARK: Refresh tokens

    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await transaction { db in try Self.insertToken(record, db: db) }
    }

    public func rotateRefreshToken(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshRotationOutcome {
        try await transaction { db in
            switch try Self.presentedToken(presentedHash, now: now, graceWindow: graceWindow, db: db) {
            case .failed(let outcome): return outcome
            case .usable(let presented):
                try Self.rotate(presented, replacement: replacement, now: now, db: db)
                return .rotated(previous: presented)
            }
        }
    }

    public func refreshSession(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshSessionOutcome {
        try await transaction { db in
            let presented: RefreshTokenRecord
            switch try Self.presentedToken(presentedHash, now: now, graceWindow: graceWindow, db: db) {
            case .failed(.unknown): return .unknown
            case .failed(.reuseDetected): return .reuseDetected
            case .failed: return .revoked
            case .usable(let record): presented = record
            }
            // Every check before any write: a refused refresh changes nothing.
            guard var user = try Self.loadUser(localId: presented.localId, db: db) else { return .userNotFound }
            if user.disabled { return .userDisabled }
            if Int64(presented.authTime.timeIntervalSince1970) < Int64(user.validSince.timeIntervalSince1970) { return .sessionExpired }
            try Self.rotate(presented, replacement: replacement, now: now, db: db)
            try db.execute("UPDATE users SET last_refresh_at = ?, version = version + 1 WHERE local_id = ?", [.date(now), .text(user.localId)])
            user.lastRefreshAt = now
            user.version += 1
            return .refreshed(previous: presented, user: user)
        }
    }

    private enum Presented {
        case usable(RefreshTokenRecord)
        case failed(RefreshRotationOutcome)
    }

    /// Looks the presented token up; a rotated one outside the grace window revokes its family (reuse).
    private static func presentedToken(_ hash: String, now: Date, graceWindow: TimeInterval, db: Executor) throws -> Presented {
        guard let row = try db.row("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]) else { return .failed(.unknown) }
        let presented = tokenRecord(row)
        if presented.revoked { return .failed(.revoked) }
        if let rotatedAt = presented.rotatedAt, now.timeIntervalSince(rotatedAt) > graceWindow {
            try db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?", [.text(presented.familyId)])
            return .failed(.reuseDetected)
        }
        return .usable(presented)
    }

    /// Marks `presented` rotated (once) and stores `replacement` in its family.
    private static func rotate(_ presented: RefreshTokenRecord, replacement: RefreshTokenRecord, now: Date, db: Executor) throws {
        if presented.rotatedAt == nil {
            try db.execute("UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ?", [.date(now), .text(presented.tokenHash)])
        }
        var next = replacement
        next.familyId = presented.familyId
        next.localId = presented.localId
        next.authTime = presented.authTime
        next.signInProvider = presented.signInProvider
        next.sessionClaims = presented.sessionClaims
        try insertToken(next, db: db)
    }

    public func revokeRefreshTokens(localId: String) async throws {
        try await transaction { db in
            try db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE local_id = ?", [.text(localId)])
            try db.execute("DELETE FROM provider_tokens WHERE local_id = ?", [.text(localId)])
        }
    }

    public func pruneRefreshTokens(before cutoff: Date) async throws -> Int {
        try await transaction { db in
            try db.execute(
                "DELETE FROM refresh_tokens WHERE (rotated_at IS NOT NULL AND rotated_at < ?) OR (revoked = 1 AND created_at < ?)",
                [.date(cutoff), .date(cutoff)])
            return db.changes()
        }
    }

    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await read { db in
            try db.row("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]).map(Self.tokenRecord)
        }
    }

    static func insertToken(_ record: RefreshTokenRecord, db: Executor) throws {
        try db.execute("""
            INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked, session_claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(record.tokenHash), .text(record.familyId), .text(record.localId), .date(record.authTime),
                  .text(record.signInProvider), .date(record.createdAt), .optionalDate(record.rotatedAt), .bool(record.revoked),
                  .jsonObject(record.sessionClaims)])
    }

    static func tokenRecord(_ row: Row) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: row.string("token_hash") ?? "", familyId: row.string("family_id") ?? "",
            localId: row.string("local_id") ?? "", authTime: row.date("auth_time") ?? Date(timeIntervalSince1970: 0),
            signInProvider: row.string("sign_in_provider") ?? "", createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            rotatedAt: row.date("rotated_at"), revoked: row.bool("revoked"), sessionClaims: row.jsonObject("session_claims"))
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKey] {
        try await read { db in
            try db.rows("SELECT * FROM signing_keys ORDER BY generation").map { row in
                SigningKey(generation: row.int("generation") ?? 0, kid: row.string("kid") ?? "",
                           privateKeyPEM: row.string("private_key_pem") ?? "", certificatePEM: row.string("certificate_pem") ?? "",
                           createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                           activatesAt: row.date("activates_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    public func insertSigningKey(_ key: SigningKey) async throws {
        try await transaction { db in
            if try db.row("SELECT 1 FROM signing_keys WHERE generation = ?", [.integer(key.generation)]) != nil {
                throw StoreError.duplicateKeyGeneration
            }
            try db.execute("""
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
                try db.execute("DELETE FROM signing_keys WHERE generation = ?", [.integer(generation)])
            }
        }
    }

    // MARK: Project

    public func projectConfig(projectId: String) async throws -> ProjectConfig? {
        try await read { db in
            guard let text = try db.row("SELECT config_json FROM project_config WHERE project_id = ?", [.text(projectId)])?.string("config_json") else {
                return nil
            }
            return try JSONDecoder().decode(ProjectConfig.self, from: Data(text.utf8))
        }
    }

    public func saveProjectConfig(_ config: ProjectConfig) async throws {
        let json = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        try await transaction { db in
            try db.execute("""
                INSERT INTO project_config (project_id, config_json) VALUES (?, ?)
                ON CONFLICT(project_id) DO UPDATE SET config_json = excluded.config_json
                """, [.text(config.projectId), .text(json)])
        }
    }

    public func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey] {
        try await read { db in
            try db.rows("SELECT * FROM service_account_keys WHERE client_email = ? ORDER BY key_id", [.text(clientEmail)]).map(Self.serviceAccountKey)
        }
    }

    public func allServiceAccountKeys() async throws -> [ServiceAccountKey] {
        try await read { db in
            try db.rows("SELECT * FROM service_account_keys ORDER BY client_email, key_id").map(Self.serviceAccountKey)
        }
    }

    public func saveServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await transaction { db in
            try db.execute("""
                INSERT INTO service_account_keys (client_email, key_id, public_key_pem, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(client_email, key_id) DO UPDATE SET public_key_pem = excluded.public_key_pem, created_at = excluded.created_at
                """, [.text(key.clientEmail), .text(key.keyId), .text(key.publicKeyPEM), .date(key.createdAt)])
        }
    }

    public func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool {
        try await transaction { db in
            try db.execute("DELETE FROM service_account_keys WHERE client_email = ? AND key_id = ?", [.text(clientEmail), .text(keyId)])
            return db.changes() > 0
        }
    }

    private static func serviceAccountKey(_ row: Row) -> ServiceAccountKey {
        ServiceAccountKey(clientEmail: row.string("client_email") ?? "", keyId: row.string("key_id") ?? "",
                          publicKeyPEM: row.string("public_key_pem") ?? "",
                          createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0))
    }
}

/// A value bound to a statement's `?` (the columns keep SQLite's own types: dates are REAL seconds since 1970).
enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case float(Double)
    case null

    static func optionalText(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    static func date(_ value: Date) -> SQLValue { .float(value.timeIntervalSince1970) }
    static func optionalDate(_ value: Date?) -> SQLValue { value.map(date) ?? .null }
    static func jsonObject(_ value: [String: JSONValue]) -> SQLValue {
        value.isEmpty ? .null : .text(JSONValue.object(value).compactJSONString)
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let value): Int64(value).databaseValue
        case .float(let value): value.databaseValue
        case .null: .null
        }
    }
}

extension Row {
    func string(_ name: String) -> String? { self[name] }
    func int(_ name: String) -> Int? { (self[name] as Int64?).map { Int($0) } }
    func bool(_ name: String) -> Bool { (self[name] as Int64? ?? 0) != 0 }
    func jsonObject(_ name: String) -> [String: JSONValue] {
        guard let text = string(name),
              case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return [:] }
        return object
    }
    func date(_ name: String) -> Date? {
        guard let seconds = self[name] as Double? else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
