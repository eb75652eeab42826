// Hearth's two store hot paths — the refresh-token rotation (one write transaction) and the user lookup (one
// snapshot read) — on GRDB's DatabasePool against sqlite-nio behind a hand-made pool (one writer connection
// behind an async FIFO lock, N reader connections behind an async FIFO pool), same schema, same data, same
// PRAGMAs, same statements, in one run. Usage:
//   swift run -c release StoreEngines [ops-per-workload] [rounds]
// Prints ops/s, p50/p99 latency and process CPU per operation for each engine and workload, the median of the
// rounds (engines alternate first place each round), and the ratio GRDB / sqlite-nio.
import Foundation
import GRDB
import Synchronization
import SQLiteNIO
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let opsPerWorkload = arguments.first ?? 20_000
let rounds = arguments.dropFirst().first ?? 3
let userCount = 10_000
let concurrency = 8
let readerCount = 4

// MARK: Schema and data (the tables the hot paths touch, as in Sources/HearthStoreSQLite/Migrations.swift)

let schema = [
    """
    CREATE TABLE users (
        local_id TEXT PRIMARY KEY NOT NULL,
        email TEXT,
        email_verified INTEGER NOT NULL DEFAULT 0,
        display_name TEXT,
        photo_url TEXT,
        password_hash TEXT,
        password_updated_at REAL,
        disabled INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        last_login_at REAL,
        last_refresh_at REAL,
        valid_since REAL NOT NULL,
        custom_claims TEXT,
        custom_auth INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0
    )
    """,
    "CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL",
    """
    CREATE TABLE provider_identities (
        provider_id TEXT NOT NULL,
        federated_id TEXT NOT NULL,
        local_id TEXT NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
        email TEXT,
        display_name TEXT,
        photo_url TEXT,
        PRIMARY KEY (provider_id, federated_id),
        UNIQUE (local_id, provider_id)
    )
    """,
    """
    CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY NOT NULL,
        family_id TEXT NOT NULL,
        local_id TEXT NOT NULL,
        auth_time REAL NOT NULL,
        sign_in_provider TEXT NOT NULL,
        created_at REAL NOT NULL,
        rotated_at REAL,
        revoked INTEGER NOT NULL DEFAULT 0,
        session_claims TEXT
    )
    """,
    "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
    "CREATE INDEX refresh_tokens_user ON refresh_tokens(local_id)",
]

// The statements of SQLiteStore.refreshSession / loadUser / insertToken.
enum SQL {
    static let token = "SELECT * FROM refresh_tokens WHERE token_hash = ?"
    static let user = "SELECT * FROM users WHERE local_id = ?"
    static let identities = "SELECT * FROM provider_identities WHERE local_id = ? ORDER BY provider_id"
    static let rotate = "UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ?"
    static let insertToken = """
        INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked, session_claims)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let touchUser = "UPDATE users SET last_refresh_at = ?, version = version + 1 WHERE local_id = ?"
}

func localId(_ index: Int) -> String { "user\(String(format: "%06d", index))xxxxxxxxxxxxxx" }
func seedTokenHash(_ index: Int) -> String { "seed-\(index)-" + String(repeating: "h", count: 38) }

/// Same rows in every file: users (half with a password, all with one identity, every third with a second),
/// one live refresh token each.
func seed(path: String) throws {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: path, configuration: configuration)  // DatabasePool: the file is put in WAL mode
    try pool.write { db in
        for statement in schema { try db.execute(sql: statement) }
        let epoch = 1_767_225_600.0
        for index in 0..<userCount {
            let id = localId(index)
            try db.execute(sql: """
                INSERT INTO users (local_id, email, email_verified, display_name, password_hash, password_updated_at,
                    created_at, last_login_at, valid_since, custom_claims, version)
                VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, 0)
                """, arguments: [id, "user\(index)@example.com", "User \(index)",
                                 index % 2 == 0 ? "$scrypt$n=16384,r=8,p=1$c2FsdHNhbHQ$" + String(repeating: "k", count: 43) : nil,
                                 epoch, epoch, epoch, epoch, index % 10 == 0 ? #"{"admin":true}"# : nil])
            try db.execute(sql: "INSERT INTO provider_identities (provider_id, federated_id, local_id, email, display_name) VALUES (?, ?, ?, ?, ?)",
                           arguments: ["password", "user\(index)@example.com", id, "user\(index)@example.com", "User \(index)"])
            if index % 3 == 0 {
                try db.execute(sql: "INSERT INTO provider_identities (provider_id, federated_id, local_id, email, display_name, photo_url) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: ["google.com", "1\(index)0987654321", id, "user\(index)@gmail.com", "User \(index)",
                                           "https://example.com/photo/\(index).png"])
            }
            try db.execute(sql: SQL.insertToken, arguments: [seedTokenHash(index), "family-\(index)", id, epoch, "password", epoch,
                                                             nil, 0, nil])
        }
    }
    try pool.close()
}

// MARK: Decoded rows (both engines decode the same fields)

struct TokenRow: Sendable {
    var familyId: String
    var localId: String
    var authTime: Double
    var signInProvider: String
    var rotatedAt: Double?
    var revoked: Bool
}

struct Identity: Sendable {
    var providerId: String, federatedId: String, email: String?, displayName: String?, photoUrl: String?
}

struct UserRow: Sendable {
    var localId: String, email: String?, displayName: String?, passwordHash: String?, disabled: Bool
    var createdAt: Double, lastRefreshAt: Double?, validSince: Double, customClaims: String?, version: Int
    var identities: [Identity]
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What both engines do.
protocol Engine: Sendable {
    var name: String { get }
    /// One write transaction: read the presented token and its user, rotate it, insert the replacement, touch
    /// the user (SQLiteStore.refreshSession on the happy path).
    func refresh(presented: String, replacement: String, now: Double) async throws
    /// One snapshot read: the user row and its identities (SQLiteStore.user(localId:)).
    func lookup(localId: String) async throws -> UserRow?
    func scalar(_ sql: String) async throws -> String
    func close() async throws
}

// MARK: GRDB

extension Row {
    func userRow(identities: [Identity]) -> UserRow {
        UserRow(localId: self["local_id"], email: self["email"], displayName: self["display_name"],
                passwordHash: self["password_hash"], disabled: self["disabled"], createdAt: self["created_at"],
                lastRefreshAt: self["last_refresh_at"], validSince: self["valid_since"], customClaims: self["custom_claims"],
                version: self["version"], identities: identities)
    }
}

enum GRDBQueries {
    static func loadUser(_ localId: String, _ db: Database) throws -> UserRow? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: SQL.user), arguments: [localId]) else { return nil }
        let identities = try Row.fetchAll(db.cachedStatement(sql: SQL.identities), arguments: [localId]).map {
            Identity(providerId: $0["provider_id"], federatedId: $0["federated_id"], email: $0["email"],
                     displayName: $0["display_name"], photoUrl: $0["photo_url"])
        }
        return row.userRow(identities: identities)
    }

    static func refresh(presented: String, replacement: String, now: Double, _ db: Database) throws {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: SQL.token), arguments: [presented]) else {
            throw BenchError("unknown token \(presented)")
        }
        let token = TokenRow(familyId: row["family_id"], localId: row["local_id"], authTime: row["auth_time"],
                             signInProvider: row["sign_in_provider"], rotatedAt: row["rotated_at"], revoked: row["revoked"])
        guard !token.revoked, token.rotatedAt == nil else { throw BenchError("token \(presented) not live") }
        guard let user = try loadUser(token.localId, db), !user.disabled else { throw BenchError("no user") }
        try db.cachedStatement(sql: SQL.rotate).execute(arguments: [now, presented])
        try db.cachedStatement(sql: SQL.insertToken).execute(arguments: [
            replacement, token.familyId, token.localId, token.authTime, token.signInProvider, now, nil, 0, nil])
        try db.cachedStatement(sql: SQL.touchUser).execute(arguments: [now, user.localId])
    }
}

/// GRDB's DatabasePool (WAL, one writer, up to 4 readers, statement cache per connection), async `read`/`write`.
final class GRDBEngine: Engine {
    let pool: DatabasePool
    let name: String
    /// `true`: reads use GRDB's synchronous `read` on the calling task (what SQLiteStore.read does) instead of
    /// the async variant that hops to the reader's dispatch queue.
    let inlineReads: Bool

    init(path: String, inlineReads: Bool) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = readerCount
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        self.inlineReads = inlineReads
        name = inlineReads ? "GRDB (sync read inline)" : "GRDB DatabasePool"
    }

    func refresh(presented: String, replacement: String, now: Double) async throws {
        try await pool.write { db in try GRDBQueries.refresh(presented: presented, replacement: replacement, now: now, db) }
    }

    func lookup(localId: String) async throws -> UserRow? {
        if inlineReads { return try Self.readInline(pool) { db in try GRDBQueries.loadUser(localId, db) } }
        return try await pool.read { db in try GRDBQueries.loadUser(localId, db) }
    }

    /// GRDB's blocking read (only the synchronous overload is visible from a synchronous function).
    private static func readInline<T>(_ reader: any DatabaseReader, _ body: (Database) throws -> T) throws -> T {
        try reader.read(body)
    }

    func scalar(_ sql: String) async throws -> String {
        try await pool.read { db in try String.fetchOne(db, sql: sql) ?? "" }
    }

    func close() async throws { try pool.close() }
}

// MARK: sqlite-nio with a hand-made pool

/// GRDB also declares `SQLiteConnection` (its raw handle type).
typealias NIOConnection = SQLiteNIO.SQLiteConnection

/// A FIFO pool of connections: `withConnection` waits (suspending, never blocking a thread) until one is free.
/// With one connection it is the writer's async FIFO lock.
final class ConnectionPool: Sendable {
    private struct State {
        var free: [NIOConnection]
        var waiters: [CheckedContinuation<NIOConnection, Never>] = []
    }
    private let state: Mutex<State>
    let all: [NIOConnection]

    init(_ connections: [NIOConnection]) {
        all = connections
        state = Mutex(State(free: connections))
    }

    private func acquire() async -> NIOConnection {
        await withCheckedContinuation { continuation in
            let ready: NIOConnection? = state.withLock { state in
                if let connection = state.free.popLast() { return connection }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func release(_ connection: NIOConnection) {
        let waiter: CheckedContinuation<NIOConnection, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.free.append(connection)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: connection)
    }

    func withConnection<T: Sendable>(_ body: (NIOConnection) async throws -> T) async throws -> T {
        let connection = await acquire()
        defer { release(connection) }
        return try await body(connection)
    }
}

extension SQLiteData {
    var optionalString: String? { isNull ? nil : string }
    var optionalDouble: Double? { isNull ? nil : double }
}

/// sqlite-nio: every `query` is one hop to the connection's NIOThreadPool, prepares the statement anew (sqlite-nio
/// has no prepared-statement cache) and materializes the rows; a transaction is BEGIN … COMMIT as separate queries.
final class NIOEngine: Engine {
    let name = "sqlite-nio + own pool"
    let threadPool: NIOThreadPool
    let writer: ConnectionPool
    let readers: ConnectionPool

    init(path: String) async throws {
        // One thread per connection, like GRDB's one serial queue per connection.
        threadPool = NIOThreadPool(numberOfThreads: readerCount + 1)
        threadPool.start()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        var connections: [NIOConnection] = []
        for _ in 0...readerCount {
            let connection = try await NIOConnection.open(storage: .file(path: path), threadPool: threadPool, on: eventLoop)
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = NORMAL")
            _ = try await connection.query("PRAGMA foreign_keys = ON")
            connections.append(connection)
        }
        writer = ConnectionPool([connections[0]])
        readers = ConnectionPool(Array(connections.dropFirst()))
    }

    static func loadUser(_ localId: String, _ connection: NIOConnection) async throws -> UserRow? {
        guard let row = try await connection.query(SQL.user, [.text(localId)]).first else { return nil }
        let identities = try await connection.query(SQL.identities, [.text(localId)]).map { row in
            Identity(providerId: row.column("provider_id")?.string ?? "", federatedId: row.column("federated_id")?.string ?? "",
                     email: row.column("email")?.optionalString, displayName: row.column("display_name")?.optionalString,
                     photoUrl: row.column("photo_url")?.optionalString)
        }
        return UserRow(localId: row.column("local_id")?.string ?? "", email: row.column("email")?.optionalString,
                       displayName: row.column("display_name")?.optionalString,
                       passwordHash: row.column("password_hash")?.optionalString,
                       disabled: row.column("disabled")?.bool ?? false, createdAt: row.column("created_at")?.double ?? 0,
                       lastRefreshAt: row.column("last_refresh_at")?.optionalDouble,
                       validSince: row.column("valid_since")?.double ?? 0,
                       customClaims: row.column("custom_claims")?.optionalString,
                       version: Int(row.column("version")?.integer ?? 0), identities: identities)
    }

    func refresh(presented: String, replacement: String, now: Double) async throws {
        try await writer.withConnection { connection in
            _ = try await connection.query("BEGIN")
            do {
                guard let row = try await connection.query(SQL.token, [.text(presented)]).first else {
                    throw BenchError("unknown token \(presented)")
                }
                let token = TokenRow(familyId: row.column("family_id")?.string ?? "", localId: row.column("local_id")?.string ?? "",
                                     authTime: row.column("auth_time")?.double ?? 0,
                                     signInProvider: row.column("sign_in_provider")?.string ?? "",
                                     rotatedAt: row.column("rotated_at")?.optionalDouble, revoked: row.column("revoked")?.bool ?? false)
                guard !token.revoked, token.rotatedAt == nil else { throw BenchError("token \(presented) not live") }
                guard let user = try await Self.loadUser(token.localId, connection), !user.disabled else { throw BenchError("no user") }
                _ = try await connection.query(SQL.rotate, [.float(now), .text(presented)])
                _ = try await connection.query(SQL.insertToken, [
                    .text(replacement), .text(token.familyId), .text(token.localId), .float(token.authTime),
                    .text(token.signInProvider), .float(now), .null, .integer(0), .null])
                _ = try await connection.query(SQL.touchUser, [.float(now), .text(user.localId)])
                _ = try await connection.query("COMMIT")
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }

    func lookup(localId: String) async throws -> UserRow? {
        // A snapshot, like GRDB's read: both SELECTs in one read transaction.
        try await readers.withConnection { connection in
            _ = try await connection.query("BEGIN")
            do {
                let user = try await Self.loadUser(localId, connection)
                _ = try await connection.query("COMMIT")
                return user
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }

    func scalar(_ sql: String) async throws -> String {
        try await readers.withConnection { try await $0.query(sql).first?.columns.first?.data.string ?? "" }
    }

    func close() async throws {
        for connection in writer.all + readers.all { try await connection.close() }
        try await threadPool.shutdownGracefully()
    }
}

// MARK: Measurement

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

struct Result {
    var opsPerSecond: Double
    var p50: Double  // ms
    var p99: Double  // ms
    var cpuPerOp: Double  // ms
}

/// The refresh tokens currently live, per task (task k owns the users with index % concurrency == k).
final class TokenChains: Sendable {
    let current: Mutex<[[String]]>
    let generation = Atomic<Int>(0)
    init() {
        current = Mutex((0..<concurrency).map { task in
            stride(from: task, to: userCount, by: concurrency).map(seedTokenHash)
        })
    }
}

enum Workload: String, CaseIterable {
    case refresh, lookup
}

func run(_ workload: Workload, on engine: any Engine, chains: TokenChains, ops: Int) async throws -> Result {
    let perTask = ops / concurrency
    let generation = chains.generation.add(1, ordering: .relaxed).newValue
    let startCPU = cpuSeconds()
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for task in 0..<concurrency {
            let initial = workload == .refresh ? chains.current.withLock { $0[task] } : []
            group.addTask {
                var tokens = initial
                var latencies: [Double] = []
                latencies.reserveCapacity(perTask)
                for op in 0..<perTask {
                    let began = ContinuousClock.now
                    switch workload {
                    case .refresh:
                        let slot = op % tokens.count
                        let replacement = "g\(generation)-t\(task)-o\(op)-" + String(repeating: "r", count: 30)
                        try await engine.refresh(presented: tokens[slot], replacement: replacement,
                                                 now: Date().timeIntervalSince1970)
                        tokens[slot] = replacement
                    case .lookup:
                        let index = (task * 7919 + op * 104_729 + generation * 31) % userCount
                        guard try await engine.lookup(localId: localId(index)) != nil else { throw BenchError("user \(index) missing") }
                    }
                    latencies.append(seconds(ContinuousClock.now - began) * 1000)
                }
                if workload == .refresh { chains.current.withLock { [tokens] in $0[task] = tokens } }
                return latencies
            }
        }
        var all: [Double] = []
        for try await part in group { all += part }
        return all.sorted()
    }
    let elapsed = seconds(ContinuousClock.now - start)
    let cpu = cpuSeconds() - startCPU
    let count = Double(latencies.count)
    return Result(opsPerSecond: count / elapsed, p50: latencies[latencies.count / 2],
                  p99: latencies[min(latencies.count - 1, Int(count * 0.99))], cpuPerOp: cpu / count * 1000)
}

// MARK: Main

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-engines-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

let grdbPath = directory.appendingPathComponent("grdb.sqlite").path
let grdbInlinePath = directory.appendingPathComponent("grdb-inline.sqlite").path
let nioPath = directory.appendingPathComponent("nio.sqlite").path
print("seeding \(userCount) users, identities and refresh tokens into 3 files (one per engine) in \(directory.path) …")
for path in [grdbPath, grdbInlinePath, nioPath] { try seed(path: path) }

let engines: [any Engine] = [
    try GRDBEngine(path: grdbPath, inlineReads: false),
    try await NIOEngine(path: nioPath),
    try GRDBEngine(path: grdbInlinePath, inlineReads: true),
]
let chains = engines.map { _ in TokenChains() }
for engine in engines {
    print("\(engine.name): SQLite \(try await engine.scalar("SELECT sqlite_version()")), journal_mode \(try await engine.scalar("PRAGMA journal_mode"))")
}
print("\(opsPerWorkload) ops per workload, \(concurrency) concurrent tasks, \(readerCount) readers + 1 writer, \(rounds) rounds; \(ProcessInfo.processInfo.activeProcessorCount) cores")

// Warm-up: caches, the connections' statement caches (GRDB), the threads.
for (index, engine) in engines.enumerated() {
    for workload in Workload.allCases { _ = try await run(workload, on: engine, chains: chains[index], ops: concurrency * 100) }
}

var results: [Workload: [[Result]]] = [:]  // workload → engine → rounds
for workload in Workload.allCases { results[workload] = engines.map { _ in [] } }
for round in 0..<rounds {
    // Alternate which engine goes first.
    let order = round % 2 == 0 ? Array(engines.indices) : Array(engines.indices.reversed())
    for index in order {
        for workload in Workload.allCases {
            let result = try await run(workload, on: engines[index], chains: chains[index], ops: opsPerWorkload)
            results[workload]![index].append(result)
            print("  round \(round + 1)  \(pad(engines[index].name, 24)) \(pad(workload.rawValue, 8)) \(fixed(result.opsPerSecond, 0)) ops/s"
                  + "  p50 \(fixed(result.p50)) ms  p99 \(fixed(result.p99)) ms  CPU \(fixed(result.cpuPerOp)) ms/op")
        }
    }
}

// Correctness: every refresh inserted one token and rotated one.
for engine in engines {
    let total = Int(try await engine.scalar("SELECT COUNT(*) FROM refresh_tokens")) ?? -1
    let live = Int(try await engine.scalar("SELECT COUNT(*) FROM refresh_tokens WHERE rotated_at IS NULL")) ?? -1
    let refreshes = (100 + rounds * (opsPerWorkload / concurrency)) * concurrency  // warm-up + rounds
    let expectedTotal = userCount + refreshes
    guard total == expectedTotal, live == userCount else {
        throw BenchError("\(engine.name): \(total) tokens (expected \(expectedTotal)), \(live) live (expected \(userCount))")
    }
}
print("check: every engine holds exactly the tokens its refreshes inserted, one live token per user")

func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

func median(_ rounds: [Result]) -> Result {
    rounds.sorted { $0.opsPerSecond < $1.opsPerSecond }[rounds.count / 2]
}

print("")
print("Median round of \(rounds) (by ops/s):")
print("")
print("| workload | engine | ops/s | p50 ms | p99 ms | CPU ms/op | ops/s ratio GRDB / sqlite-nio | CPU/op ratio GRDB / sqlite-nio |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for workload in Workload.allCases {
    let nio = median(results[workload]![1])
    for (index, engine) in engines.enumerated() {
        let result = median(results[workload]![index])
        let ratios = "\(fixed(result.opsPerSecond / nio.opsPerSecond, 2)) | \(fixed(result.cpuPerOp / nio.cpuPerOp, 2))"
        print("| \(workload.rawValue) | \(engine.name) | \(fixed(result.opsPerSecond, 0)) | \(fixed(result.p50)) | \(fixed(result.p99)) | "
              + "\(fixed(result.cpuPerOp)) | \(ratios) |")
    }
}
for engine in engines { try await engine.close() }
try FileManager.default.removeItem(at: directory)
