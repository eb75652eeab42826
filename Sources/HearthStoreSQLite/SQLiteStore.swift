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
    public let clientSecrets: ClientSecretSealing
    /// The tenant this store is bound to ('' for the project's own users): every user, identity, provider, code and
    /// audit query filters on it and every insert carries it.
    let tenantKey: String

    private init(writer: any DatabaseWriter, logger: Logger, clientSecrets: ClientSecretSealing = ClientSecretSealing(), tenantKey: String = "") {
        self.writer = writer
        self.logger = logger
        self.clientSecrets = clientSecrets
        self.tenantKey = tenantKey
    }

    public var tenantId: String? { tenantKey.isEmpty ? nil : tenantKey }

    /// The same database (its writer, readers and vault keys), bound to `tenantId`.
    public func bound(toTenant tenantId: String?) -> any HearthStore {
        SQLiteStore(writer: writer, logger: logger, clientSecrets: clientSecrets, tenantKey: tenantId ?? "")
    }

    /// `record` as this store writes it: in its tenant.
    func stamped<Record: TenantOwned>(_ record: Record) -> Record {
        var record = record
        record.tenantId = tenantId
        return record
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
                for statement in migration.statements { try db.execute("\(unescaped: statement)", cached: false) }
                try db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (\(migration.version), \(Date()))")
            }
        }
    }

    /// Runs `body` in one write transaction on the writer connection (serialized with every other write);
    /// rolls back when it throws. Writes hop to the writer's queue: waiting for the write lock or the disk never
    /// blocks a thread of the cooperative pool.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) throws -> T) async throws -> T {
        do {
            return try await writer.write { db in try body(SQLConnection(db: db)) }
        } catch {
            throw mapped(error)
        }
    }

    /// Runs `body` in a read-only snapshot transaction on a reader connection: never waits for a writer (WAL).
    /// Reads run inline on the calling task (GRDB's synchronous API): a read is a few cached statements on a
    /// local file, shorter than the two thread switches a hop to the reader's queue and back would cost.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) throws -> T) async throws -> T {
        do {
            // Inline only on a pool (WAL: a reader never waits for the writer). A single-connection queue (the
            // in-memory store) serializes reads behind writes: waiting for it inline would block a thread of the
            // cooperative pool (two on a two-core machine) for as long as the writes queued before it.
            guard writer is DatabasePool else { return try await writer.read { db in try body(SQLConnection(db: db)) } }
            return try Self.readInline(writer) { db in try body(SQLConnection(db: db)) }
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
    struct SQLConnection {
        let db: Database

        /// Runs `statement`; returns how many rows it changed. `cached: false` for one that runs once (migrations,
        /// bulk inserts, lists built at run time).
        @discardableResult
        func execute(_ statement: SQLStatement, cached: Bool = true) throws -> Int {
            let (sql, arguments) = try Self.render(statement)
            try (cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)).execute(arguments: arguments)
            return db.changesCount
        }

        func rows(_ statement: SQLStatement, cached: Bool = true) throws -> [SQLiteRow] {
            let (sql, arguments) = try Self.render(statement)
            let rows = try Row.fetchAll(cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql), arguments: arguments)
            // One column list for the whole result (every row of a statement has the same columns).
            guard let first = rows.first else { return [] }
            let columns = Array(first.columnNames)
            return rows.map { SQLiteRow(row: $0, columns: columns) }
        }

        func row(_ statement: SQLStatement) throws -> SQLiteRow? {
            let (sql, arguments) = try Self.render(statement)
            return try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments).map { SQLiteRow(row: $0, columns: Array($0.columnNames)) }
        }

        /// `?` placeholders and their arguments; a text holding U+0000 is refused (SQLite would store or match it cut short).
        /// The values go to GRDB as existentials (`StatementArguments(_:)` of optionals): its initializer for a
        /// sequence of `DatabaseValue` maps them through a key path, which costs a key path instantiation per call.
        static func render(_ statement: SQLStatement) throws -> (String, StatementArguments) {
            var sql = ""
            var values: [(any DatabaseValueConvertible)?] = []
            values.reserveCapacity(statement.fragments.count / 2 + 1)
            for fragment in statement.fragments {
                switch fragment {
                case .sql(let text): sql += text
                case .value(let value):
                    sql += "?"
                    let bound: (any DatabaseValueConvertible)? = switch try value.checkedStorable() {
                    case .text(let text): text
                    case .integer(let integer): integer
                    case .double(let double): double
                    case .bool(let bool): Int64(bool ? 1 : 0)
                    case .null: nil
                    }
                    values.append(bound)
                }
            }
            return (sql, StatementArguments(values))
        }
    }

    // MARK: Users

    public func createUser(_ user: UserRecord) async throws {
        let user = stamped(user)
        try await transaction { [self] db in
            if try db.row(StoreSQL.userExists(localId: user.localId)) != nil { throw StoreError.duplicateLocalId }
            try checkUnique(user, db: db)
            try db.execute(StoreSQL.insertUsers([user]))
            try writeIdentities(user, db: db)
        }
    }

    public func user(localId: String) async throws -> UserRecord? {
        try await read { db in try self.loadUser(localId: localId, db: db) }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await read { [self] db in
            for form in StoreSQL.emailLookupForms(email) {
                if let localId = try db.row(StoreSQL.userId(email: form, tenant: tenantKey))?.string("local_id") { return try loadUser(localId: localId, db: db) }
            }
            return nil
        }
    }

    public func user(providerId: String, federatedId: String) async throws -> UserRecord? {
        try await read { [self] db in
            guard let localId = try db.row(StoreSQL.identityHolder(providerId: providerId, federatedId: federatedId, tenant: tenantKey))?.string("local_id")
            else { return nil }
            return try self.loadUser(localId: localId, db: db)
        }
    }

    public func updateUser(_ user: UserRecord, revokingSessions: Bool) async throws -> UserRecord {
        let user = stamped(user)
        return try await transaction { [self] db in
            guard let current = try db.row(StoreSQL.userVersion(localId: user.localId, tenant: tenantKey)) else { throw StoreError.notFound }
            guard current.int("version") == user.version else { throw StoreError.conflict }
            try checkUnique(user, db: db)
            try db.execute(StoreSQL.updateUser(user, tenant: tenantKey))
            try db.execute(StoreSQL.deleteIdentities(localId: user.localId))
            try writeIdentities(user, db: db)
            try db.execute(StoreSQL.deleteUnlinkedProviderTokens(localId: user.localId))
            if revokingSessions { for statement in StoreSQL.revokeSessions(localId: user.localId) { try db.execute(statement) } }
            var stored = user
            stored.version += 1
            return stored
        }
    }

    public func recordSignIn(localId: String, at moment: Date, identity: ProviderIdentity?, passwordRehash: PasswordRehash?,
                             refreshToken: RefreshTokenRecord?) async throws -> UserRecord? {
        try await transaction { [self] db in
            guard let user = try loadUser(localId: localId, db: db) else { return nil }
            if user.disabled { return user }
            let rehash = passwordRehash.flatMap { user.passwordHash == $0.old ? $0.new : nil }
            try db.execute(StoreSQL.recordSignIn(localId: localId, at: moment, passwordHash: rehash))
            let changed = StoreSQL.changedIdentity(identity, of: user).flatMap { index in identity.map { (index: index, value: $0) } }
            if let changed { try db.execute(StoreSQL.updateIdentityProfile(changed.value, localId: localId)) }
            if let refreshToken {
                try db.execute(StoreSQL.insertRefreshToken(stamped(refreshToken)))
                try db.execute(StoreSQL.countSignIn(provider: refreshToken.signInProvider, at: moment))
            }
            return StoreSQL.signedIn(user, at: moment, identity: changed, rehashedTo: rehash, version: nil)
        }
    }

    public func deleteUser(localId: String) async throws -> Bool {
        try await transaction { [self] db in
            // Only a user of this store's tenant (its rows are found by the user's key).
            guard try db.row(StoreSQL.userVersion(localId: localId, tenant: tenantKey)) != nil else { return false }
            try db.execute(StoreSQL.deleteRefreshTokens(localId: localId))
            try db.execute(StoreSQL.deleteProviderTokens(localId: localId, providerId: nil))
            try db.execute(StoreSQL.deleteIdentities(localId: localId))
            try db.execute(StoreSQL.deletePasskeys(localId: localId))
            return try db.execute(StoreSQL.deleteUser(localId: localId)) > 0
        }
    }

    public func canonicalizeStoredEmails() async throws -> (rewritten: Int, conflicts: [String]) {
        try await transaction { db in
            var rewritten = 0
            var conflicts: [String] = []
            // Only addresses with a non-ASCII character can differ from their NFC form.
            for row in try db.rows("SELECT local_id, email, tenant_id FROM users WHERE email GLOB '*[^ -~]*'") {
                guard let localId = row.string("local_id"), let canonical = row.string("email").flatMap(StoreSQL.canonicalRewrite) else { continue }
                if try db.row(StoreSQL.emailTaken(canonical, byOtherThan: localId, tenant: row.string("tenant_id") ?? "")) != nil {
                    conflicts.append(localId)
                    continue
                }
                try db.execute(StoreSQL.setEmail(canonical, localId: localId))
                rewritten += 1
            }
            return (rewritten, conflicts)
        }
    }

    public func userCount() async throws -> Int {
        try await read { [self] db in try db.row(StoreSQL.countUsers("WHERE tenant_id = \(tenantKey)"))?.int("n") ?? 0 }
    }

    /// The unique checks PostgreSQL's constraints make (SQLite's writer is one connection: check, then write).
    private func checkUnique(_ user: UserRecord, db: SQLConnection) throws {
        if let email = user.email, try db.row(StoreSQL.emailTaken(email, byOtherThan: user.localId, tenant: tenantKey)) != nil {
            throw StoreError.emailExists
        }
        for identity in user.identities {
            let holder = try db.row(StoreSQL.identityHolder(providerId: identity.providerId, federatedId: identity.federatedId, tenant: tenantKey))
            if let holder = holder?.string("local_id"), holder != user.localId {
                throw StoreError.federatedIdTaken(providerId: identity.providerId)
            }
        }
    }

    private func writeIdentities(_ user: UserRecord, db: SQLConnection) throws {
        for identity in user.identities { try db.execute(StoreSQL.insertIdentity(identity, localId: user.localId, tenant: tenantKey)) }
    }

    /// The user, if it is in this store's tenant.
    func loadUser(localId: String, db: SQLConnection) throws -> UserRecord? {
        guard let row = try db.row(StoreSQL.user(localId: localId, tenant: tenantKey)) else { return nil }
        return try UserRecord(row: row, identities: try db.rows(StoreSQL.identities(localId: localId)).map(ProviderIdentity.init(row:)))
    }

    // MARK: Refresh tokens

    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await transaction { [self] db in try db.execute(StoreSQL.insertRefreshToken(stamped(record))) }
    }

    public func refreshSession(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshSessionOutcome {
        try await transaction { [self] db in
            let presented: RefreshTokenRecord
            switch StoreSQL.presented(try db.row(StoreSQL.refreshToken(hash: presentedHash)).map(RefreshTokenRecord.init(row:)),
                                      now: now, graceWindow: graceWindow) {
            case .refused(let outcome): return outcome
            case .reused(let familyId):
                try db.execute(StoreSQL.revokeFamily(familyId))
                return .reuseDetected
            case .usable(let record): presented = record
            }
            // A token of another tenant is refreshed by that tenant's store (the caller resolves its scope).
            if presented.tenantId != tenantId { return .inTenant(presented.tenantId) }
            // Every check before any write: a refused refresh changes nothing.
            let user = try loadUser(localId: presented.localId, db: db)
            if let refusal = StoreSQL.refusal(of: presented, user: user) { return refusal }
            guard var user else { return .userNotFound }
            if presented.rotatedAt == nil { try db.execute(StoreSQL.markRotated(hash: presented.tokenHash, at: now)) }
            try db.execute(StoreSQL.insertRefreshToken(StoreSQL.successor(of: presented, replacement)))
            try db.execute(StoreSQL.recordRefresh(localId: user.localId, at: now))
            user.lastRefreshAt = now
            user.version += 1
            return .refreshed(previous: presented, user: user)
        }
    }

    public func revokeRefreshTokens(localId: String) async throws {
        try await transaction { db in
            for statement in StoreSQL.revokeSessions(localId: localId) { try db.execute(statement) }
        }
    }

    /// Deletes in chunks of ``StoreSQL/pruneChunkSize``, one transaction each: sign-ins and refreshes write between
    /// two chunks instead of waiting for the whole clean-up (issue 41).
    public func pruneRefreshTokens(before cutoff: Date) async throws -> Int {
        var pruned = 0
        for rotated in [true, false] {
            while true {
                let deleted = try await transaction { db in try db.execute(StoreSQL.pruneRefreshTokenChunk(rotated: rotated, before: cutoff)) }
                pruned += deleted
                if deleted < StoreSQL.pruneChunkSize { break }
            }
        }
        return pruned
    }

    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await read { db in try db.row(StoreSQL.refreshToken(hash: hash)).map(RefreshTokenRecord.init(row:)) }
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKey] {
        try await read { db in try db.rows(StoreSQL.signingKeys).map(SigningKey.init(row:)) }
    }

    public func insertSigningKey(_ key: SigningKey) async throws {
        try await transaction { db in
            if try db.row(StoreSQL.signingKeyExists(generation: key.generation)) != nil { throw StoreError.duplicateKeyGeneration }
            try db.execute(StoreSQL.insertSigningKey(key))
        }
    }

    public func deleteSigningKeys(generations: [Int]) async throws {
        guard !generations.isEmpty else { return }
        try await transaction { db in
            for generation in generations { try db.execute(StoreSQL.deleteSigningKey(generation: generation)) }
        }
    }

    // MARK: Project

    public func projectConfig(projectId: String) async throws -> ProjectConfig? {
        try await read { db in try db.row(StoreSQL.projectConfig(projectId: projectId)).map { try $0.json(ProjectConfig.self, "config_json") } }
    }

    public func saveProjectConfig(_ config: ProjectConfig) async throws {
        let statement = try StoreSQL.saveProjectConfig(config)
        try await transaction { db in try db.execute(statement) }
    }

    public func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey] {
        try await read { db in try db.rows(StoreSQL.serviceAccountKeys(clientEmail: clientEmail)).map(ServiceAccountKey.init(row:)) }
    }

    public func allServiceAccountKeys() async throws -> [ServiceAccountKey] {
        try await read { db in try db.rows(StoreSQL.serviceAccountKeys(clientEmail: nil)).map(ServiceAccountKey.init(row:)) }
    }

    public func saveServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await transaction { db in try db.execute(StoreSQL.saveServiceAccountKey(key)) }
    }

    public func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool {
        try await transaction { db in try db.execute(StoreSQL.deleteServiceAccountKey(clientEmail: clientEmail, keyId: keyId)) > 0 }
    }
}

/// A GRDB row read through the stores' shared mappings (dates are REAL seconds, booleans integers).
///
/// Columns are found by exact name in `columns` (the result's names as SQLite reports them, shared by every row of
/// one result): GRDB's by-name lookup of a copied row lower-cases the name and each column's name until it matches,
/// which cost more than the rest of a user's decoding. A name not found exactly falls back to GRDB's
/// case-insensitive lookup, so the answer is the same.
struct SQLiteRow: SQLRow {
    let row: Row
    let columns: [String]

    init(row: Row, columns: [String]) {
        self.row = row
        self.columns = columns
    }

    func string(_ column: String) -> String? {
        if let index = columns.firstIndex(of: column) { return row[index] }
        return row[column]
    }

    func int(_ column: String) -> Int? { int64(column).map { Int($0) } }

    func double(_ column: String) -> Double? {
        if let index = columns.firstIndex(of: column) { return row[index] }
        return row[column]
    }

    func bool(_ column: String) -> Bool { (int64(column) ?? 0) != 0 }

    private func int64(_ column: String) -> Int64? {
        if let index = columns.firstIndex(of: column) { return row[index] }
        return row[column]
    }
}
