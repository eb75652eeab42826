import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The shared store: one PostgreSQL database that any number of `hearth serve` replicas use at once, through
/// postgres-nio's `PostgresClient` (a pool of connections, prepared and reused).
///
/// Every operation is one statement or one transaction on one pooled connection — the same hot-path shape as the
/// SQLite store. Uniqueness (an email, a `(provider, federated id)`, a refresh-token hash, a key generation) is
/// enforced by the database's unique constraints, so two replicas racing to create the same account cannot both
/// win; the loser gets the same ``StoreError`` the SQLite store reports. Read-then-write operations lock the rows
/// they read (`SELECT … FOR UPDATE`), so concurrent refreshes of one token or two sign-ins of one user serialize.
///
/// The pool runs while the store is open: ``open(_:logger:)`` starts `PostgresClient.run()` in a task the store
/// owns, and ``close()`` cancels it and waits for the connections to close. Every command — `hearth serve` and
/// the CLI alike — opens the store, uses it, closes it; nothing else has to run the client.
public final class PostgresStore: HearthStore {
    let configuration: PostgresStoreConfiguration
    let logger: Logger
    /// Provider client secrets are sealed with the vault keys given here (``ClientSecretSealing``).
    public let clientSecrets: ClientSecretSealing
    /// The tenant this store is bound to ('' for the project's own users): every user, identity, provider, code and
    /// audit query filters on it and every insert carries it.
    let tenantKey: String
    /// The pool (and its availability) every binding of the store shares.
    private let shared: Shared
    var availability: Availability { shared.availability }

    final class Shared: Sendable {
        /// The pool in use; replaced by a fresh one when the database comes back after an outage (postgres-nio's
        /// pool backs off up to a minute between reconnection attempts, far longer than an outage of a few seconds).
        let pool: Mutex<Pool>
        let availability = Availability()
        init(_ pool: Pool) { self.pool = Mutex(pool) }
    }

    struct Pool: Sendable {
        let client: PostgresClient
        let runner: Task<Void, Never>
    }

    private init(configuration: PostgresStoreConfiguration, shared: Shared, logger: Logger,
                 clientSecrets: ClientSecretSealing = ClientSecretSealing(), tenantKey: String = "") {
        self.configuration = configuration
        self.shared = shared
        self.logger = logger
        self.clientSecrets = clientSecrets
        self.tenantKey = tenantKey
    }

    public var tenantId: String? { tenantKey.isEmpty ? nil : tenantKey }

    /// The same pool and vault keys, bound to `tenantId`.
    public func bound(toTenant tenantId: String?) -> any HearthStore {
        PostgresStore(configuration: configuration, shared: shared, logger: logger, clientSecrets: clientSecrets, tenantKey: tenantId ?? "")
    }

    /// `record` as this store writes it: in its tenant.
    func stamped<Record: TenantOwned>(_ record: Record) -> Record {
        var record = record
        record.tenantId = tenantId
        return record
    }

    /// Starts `client.run()` in a task the store owns; returns once that task is calling it (so the first lease
    /// does not race the pool's start).
    private static func startedPool(_ configuration: PostgresStoreConfiguration, logger: Logger) async throws -> Pool {
        let client = PostgresClient(configuration: try configuration.clientConfiguration(), backgroundLogger: logger)
        let (signal, running) = AsyncStream<Void>.makeStream()
        let runner = Task {
            running.finish()
            await client.run()
        }
        for await _ in signal {}
        return Pool(client: client, runner: runner)
    }

    /// Connects once directly — so a wrong address, password or database fails here, at once, with the
    /// server's reason (the pool would retry forever) — and runs pending migrations on that connection under an
    /// advisory lock: replicas that start together apply each migration once, the others wait and find it
    /// applied. Then starts the pool.
    public static func open(_ configuration: PostgresStoreConfiguration,
                            logger requested: Logger = Logger(label: "hearth.store.postgres")) async throws -> PostgresStore {
        // postgres-nio traces every backend message, rows included (signing keys, password hashes): never below debug.
        var logger = requested
        if logger.logLevel < .debug { logger.logLevel = .debug }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try configuration.connectionConfiguration(), id: 0, logger: logger)
        } catch let error as PSQLError {
            throw StoreError.backend("postgres: \(describe(error))")
        }
        do {
            try await migrate(connection, logger: logger)
        } catch {
            try? await connection.close()
            if let error = error as? PSQLError { throw StoreError.backend("postgres: migration failed: \(describe(error))") }
            throw error
        }
        try? await connection.close()
        return PostgresStore(configuration: configuration, shared: Shared(try await startedPool(configuration, logger: logger)), logger: logger)
    }

    /// Stops the pool: waits for its connections to close. The store is unusable afterwards.
    public func close() async throws {
        availability.close()
        let runner = shared.pool.withLock { $0.runner }
        runner.cancel()
        await runner.value
        // A pool swapped in by a probe that finished meanwhile is stopped too.
        let last = shared.pool.withLock { $0.runner }
        if last != runner {
            last.cancel()
            await last.value
        }
    }

    // MARK: Availability

    /// Whether the database is reachable, as this store last found it: healthy, being probed after a failure, or
    /// down (every operation then answers ``StoreError/unavailable(_:)`` at once, while a probe every quarter second
    /// waits for it to come back).
    final class Availability: Sendable {
        enum State: Sendable, Equatable {
            case healthy
            case probing
            case down(String)
            case closed
        }

        let state = Mutex(State.healthy)

        func close() { state.withLock { $0 = .closed } }

        /// The reason operations fail fast now, if they do.
        var downReason: String? {
            state.withLock { if case .down(let reason) = $0 { reason } else { nil } }
        }

        /// Moves from healthy to probing; false when a probe runs already (or the store is closed).
        func beginProbe() -> Bool {
            state.withLock { state in
                guard state == .healthy else { return false }
                state = .probing
                return true
            }
        }

        func set(_ new: State) {
            state.withLock { state in if state != .closed { state = new } }
        }

        var isClosed: Bool { state.withLock { $0 == .closed } }
    }

    /// Something went wrong reaching the database: probe it directly (once, whoever asks). Reachable: carry on (with
    /// a fresh pool when `replacePool`, as after broken connections). Unreachable: fail fast and probe every quarter
    /// second; when it answers again, a fresh pool serves the next request at once.
    func suspect(_ reason: String, replacePool: Bool) {
        guard availability.beginProbe() else { return }
        Task { [self] in
            var down = false
            while !availability.isClosed {
                if await probe() {
                    if replacePool || down { await replacePoolNow() }
                    availability.set(.healthy)
                    if down { logger.notice("the database answers again; serving requests") }
                    return
                }
                if !down {
                    down = true
                    availability.set(.down(reason))
                    logger.error("the database is unreachable; answering 503 until it is back",
                                 metadata: ["reason": "\(reason)", "database": "\(configuration.maskedURL)"])
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// One direct connection and `SELECT 1`, within two seconds.
    func probe() async -> Bool {
        let configuration = configuration
        let logger = logger
        do {
            try await Deadline.run(.seconds(2)) {
                var direct = try configuration.connectionConfiguration()
                direct.options.connectTimeout = .seconds(1)
                let connection = try await PostgresConnection.connect(configuration: direct, id: 1, logger: logger)
                do {
                    _ = try await connection.query("SELECT 1", logger: logger).collect()
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            }
            return true
        } catch {
            return false
        }
    }

    private func replacePoolNow() async {
        guard let fresh = try? await Self.startedPool(configuration, logger: logger) else { return }
        // Closed while the fresh pool started: it must not outlive the store.
        if availability.isClosed {
            fresh.runner.cancel()
            return
        }
        let old = shared.pool.withLock { current -> Pool in
            let old = current
            current = fresh
            return old
        }
        old.runner.cancel()
    }

    /// Whether a failure means the database cannot be reached (rather than a wrong statement): broken or refused
    /// connections, too many connections, the server shutting down, a statement or lock timeout.
    static func unavailability(_ error: PSQLError) -> (reason: String, brokenConnections: Bool)? {
        if let state = error.serverInfo?[.sqlState] {
            switch state {
            case "53300": return ("PostgreSQL refuses connections (too many connections)", true)
            case "57P01", "57P02", "57P03": return ("PostgreSQL is shutting down or starting up", true)
            case "57014", "55P03": return ("the database did not answer in time (a statement or lock timeout)", false)
            default:
                if state.hasPrefix("08") { return ("the connection to PostgreSQL failed", true) }
                return nil
            }
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .failedToAddSSLHandler, .clientClosedConnection, .poolClosed:
            // Said without the host and port (clients read this); the probe's log line has the details.
            return ("PostgreSQL cannot be reached", true)
        default:
            return nil
        }
    }

    // MARK: Migrations

    /// The key of the advisory lock that serializes migrations across replicas ("hearth" in ASCII).
    static let migrationLockKey: Int64 = 0x6865_6172_7468

    private static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await unwrapped {
            try await connection.withTransaction(logger: logger) { connection in
                let db = SQLConnection(connection: connection, logger: logger)
                // Held until this transaction ends: a second replica waits here, then sees the versions applied.
                try await db.execute("SELECT pg_advisory_xact_lock(\(migrationLockKey))")
                try await db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
                let applied = Set(try await db.rows("SELECT version FROM schema_migrations").map { try $0.int("version") ?? 0 })
                for migration in PostgresMigrations.all where !applied.contains(migration.version) {
                    for statement in migration.statements { try await db.execute("\(unescaped: statement)") }
                    try await db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (\(migration.version), \(Date()))")
                    logger.info("applied migration", metadata: ["version": "\(migration.version)"])
                }
            }
        }
    }

    /// The schema versions applied (for status output and tests).
    public func appliedMigrations() async throws -> [Int] {
        try await single { db in try await db.rows("SELECT version FROM schema_migrations ORDER BY version").map { try $0.int("version") ?? 0 } }
    }

    // MARK: Transactions

    /// Runs `body` in one transaction on one pooled connection (postgres-nio's `withTransaction`): commits when it
    /// returns, rolls back when it throws.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await guarded { client in
            try await Self.unwrapped {
                try await client.withTransaction(logger: logger) { connection in
                    let result = try await body(SQLConnection(connection: connection, logger: logger))
                    // Past its deadline the caller has answered 503 already: nothing it asked for may commit now.
                    if Task.isCancelled { throw CancellationError() }
                    return result
                }
            }
        }
    }

    /// Runs `body`, answering a failed transaction with its cause (the body's error, else BEGIN's or COMMIT's), so
    /// the store maps it as it maps a single statement's.
    private static func unwrapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? StoreError.backend("postgres: the transaction failed")
        }
    }

    /// Runs `body` on one pooled connection without a transaction: for a single statement (itself atomic).
    @discardableResult
    func single<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await guarded { client in
            try await client.withConnection { connection in
                try await body(SQLConnection(connection: connection, logger: logger))
            }
        }
    }

    /// Runs `body` in a read-only snapshot (`REPEATABLE READ`): several statements that must agree (a count and a page).
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) async throws -> T) async throws -> T {
        try await transaction { db in
            try await db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return try await body(db)
        }
    }

    /// Every operation's frame: fails fast while the database is known to be down; bounded by the operation timeout
    /// and the request's deadline (``StoreDeadline``); failures to reach the database become
    /// ``StoreError/unavailable(_:)`` and start a probe.
    private func guarded<T: Sendable>(_ work: @escaping @Sendable (PostgresClient) async throws -> T, retried: Bool = false) async throws -> T {
        if let reason = availability.downReason { throw StoreError.unavailable(reason) }
        let full = Duration.milliseconds(Int64(configuration.operationTimeout * 1000))
        let limit = try StoreDeadline.limit(full)
        let client = shared.pool.withLock { $0.client }
        // A failure of a pool that was replaced meanwhile says nothing about the database (it was closed on purpose).
        let current = { [self] in shared.pool.withLock { $0.client === client } }
        do {
            return try await Deadline.run(limit) { try await work(client) }
        } catch is DeadlineExceeded {
            // A wait of a second or more says something about the database; a limit the request's own deadline cut
            // shorter than that (its time went to scrypt or a provider) does not start a probe.
            if limit < min(full, .seconds(1)) { throw StoreError.unavailable("the request ran out of time waiting for the database") }
            let reason = "the database did not answer within \(limit.formatted(.units(allowed: [.seconds, .milliseconds], width: .abbreviated)))"
            if current() { suspect(reason, replacePool: false) }
            throw StoreError.unavailable(reason)
        } catch let error as PSQLError {
            if let (reason, broken) = Self.unavailability(error) {
                guard current() else {
                    // The operation met the pool being retired: once more on the fresh one.
                    if !retried { return try await guarded(work, retried: true) }
                    throw StoreError.unavailable(reason)
                }
                suspect(reason, replacePool: broken)
                throw StoreError.unavailable(reason)
            }
            throw mapped(error)
        } catch {
            throw mapped(error)
        }
    }

    private func mapped(_ error: any Error) -> any Error {
        if error is StoreError { return error }
        if let error = error as? PSQLError {
            let message = Self.describe(error)
            logger.error("postgres error", metadata: ["error": "\(message)"])
            return StoreError.backend("postgres: \(message)")
        }
        return error
    }

    /// A short description without the query's bound values (they may be hashes or secrets) or the password.
    static func describe(_ error: PSQLError) -> String {
        if let info = error.serverInfo {
            return [info[.sqlState], info[.message]].compactMap(\.self).joined(separator: " ")
        }
        switch error.code {
        case .sslUnsupported:
            return "the server does not offer TLS, and --database-tls is require (enable ssl on the server, or use prefer/disable on a trusted network)"
        case .connectionError, .failedToAddSSLHandler:
            return "cannot connect: " + describeConnectionFailure(error.underlying)
        case .serverClosedConnection, .uncleanShutdown:
            return "the server closed the connection"
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return "authentication failed (\(error.code)): check the user name and password"
        default:
            return "\(error.code)"
        }
    }

    /// Why a connection could not be made, in words (refused, unknown host, timeout, TLS).
    static func describeConnectionFailure(_ underlying: (any Error)?) -> String {
        guard let underlying else { return "no reason given" }
        if let failure = underlying as? NIOConnectionError {
            if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return "the host name \(failure.host) does not resolve"
            }
            if let io = failure.connectionErrors.first?.error as? IOError {
                if io.errnoCode == ECONNREFUSED { return "connection refused by \(failure.host):\(failure.port) (is PostgreSQL listening there?)" }
                if io.errnoCode == ETIMEDOUT || io.errnoCode == EHOSTUNREACH || io.errnoCode == ENETUNREACH {
                    return "\(failure.host):\(failure.port) is not reachable"
                }
            }
            return "no connection to \(failure.host):\(failure.port)"
        }
        if case ChannelError.connectTimeout = underlying { return "timed out (is the host reachable and the port open?)" }
        if underlying is NIOSSLError { return "TLS failed (\(underlying)): check --database-tls and --database-ca-file" }
        return "\(underlying)"
    }

    /// The SQLSTATE and constraint name of a unique violation, if `error` is one.
    static func uniqueViolation(_ error: any Error) -> String? {
        guard let error = error as? PSQLError, let info = error.serverInfo, info[.sqlState] == "23505" else { return nil }
        return info[.constraintName] ?? ""
    }

    /// One connection during an operation. Statements (``SQLStatement``) become postgres-nio's own interpolated
    /// `PostgresQuery`: `$1, $2, …` with binary binds, values never SQL text.
    struct SQLConnection: Sendable {
        let connection: PostgresConnection
        let logger: Logger

        /// Runs `statement`; returns the rows it changed (the command's count, nothing fetched for it).
        @discardableResult
        func execute(_ statement: SQLStatement) async throws -> Int {
            try await run(statement).metadata.rows ?? 0
        }

        func rows(_ statement: SQLStatement) async throws -> [PostgresStoreRow] {
            try await run(statement).rows.map { PostgresStoreRow(row: $0.makeRandomAccess()) }
        }

        func row(_ statement: SQLStatement) async throws -> PostgresStoreRow? {
            try await rows(statement).first
        }

        private func run(_ statement: SQLStatement) async throws -> PostgresQueryResult {
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(try Self.query(statement), logger: logger)
            return try await result.get()
        }

        /// The statement through `PostgresQuery.StringInterpolation`; a text holding U+0000 is refused (PostgreSQL's
        /// text cannot hold it: it would fail the statement), as the SQLite store does.
        static func query(_ statement: SQLStatement) throws -> PostgresQuery {
            var query = PostgresQuery.StringInterpolation(literalCapacity: 0, interpolationCount: statement.values.count)
            for fragment in statement.fragments {
                switch fragment {
                case .sql(let sql): query.appendLiteral(sql)
                case .value(let value):
                    switch try value.checkedStorable() {
                    case .text(let text): query.appendInterpolation(text)
                    case .integer(let integer): query.appendInterpolation(integer)
                    case .double(let double): query.appendInterpolation(double)
                    case .bool(let bool): query.appendInterpolation(bool)
                    case .null: query.appendInterpolation(String?.none)
                    }
                }
            }
            return PostgresQuery(stringInterpolation: query)
        }
    }
}

/// A postgres-nio row read through the stores' shared mappings.
struct PostgresStoreRow: SQLRow {
    let row: PostgresRandomAccessRow

    func string(_ column: String) throws -> String? { try row[column].decode(String?.self) }
    func int(_ column: String) throws -> Int? { try row[column].decode(Int64?.self).map { Int($0) } }
    func double(_ column: String) throws -> Double? { try row[column].decode(Double?.self) }
    func bool(_ column: String) throws -> Bool { try row[column].decode(Bool?.self) ?? false }
}
