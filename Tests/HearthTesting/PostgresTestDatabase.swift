import Foundation
import HearthStore
import HearthStorePostgres
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL server the tests use: `HEARTH_TEST_POSTGRES_URL` (scripts/test starts a throwaway cluster and
/// sets it; `scripts/test-postgres start` does the same by hand). Each test gets a database of its own, created
/// empty and dropped afterwards, so the suites run in parallel without seeing each other's rows.
public enum PostgresTestDatabase {
    public static let url: String? = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    public static let skipNotice = "HEARTH_TEST_POSTGRES_URL is not set: the PostgreSQL store is not tested (scripts/test sets it; by hand: eval \"$(scripts/test-postgres start)\")"

    /// How many test databases are in use at once. Each holds up to 6 connections (more with a second replica), and
    /// hundreds of tests start together: unbounded, they passed the server's `max_connections` (200) and failed
    /// with `too many clients already`. A test past the bound waits for a database before its harness starts.
    public static let concurrentDatabases = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_DATABASES"].flatMap(Int.init) ?? 20

    private static let slots = AsyncSlots(concurrentDatabases)

    /// A fresh empty database on the test server; dropped after `body`.
    public static func withDatabase<T>(_ body: (PostgresStoreConfiguration) async throws -> T) async throws -> T {
        guard url != nil else { throw StoreError.backend("HEARTH_TEST_POSTGRES_URL is not set") }
        await slots.acquire()
        do {
            let result = try await withFreshDatabase(body)
            slots.release()
            return result
        } catch {
            slots.release()
            throw error
        }
    }

    private static func withFreshDatabase<T>(_ body: (PostgresStoreConfiguration) async throws -> T) async throws -> T {
        guard let url else { throw StoreError.backend("HEARTH_TEST_POSTGRES_URL is not set") }
        let admin = try PostgresStoreConfiguration(url: url, tls: .disable)
        let name = "hearth_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try await execute("CREATE DATABASE \(name)", on: admin)
        var configuration = admin
        configuration.database = name
        // Many suites run at once against one test server (max_connections 200): a few connections per store.
        configuration.maximumConnections = 6
        // Store semantics are tested here, under bursts far beyond a 6-connection pool: no request-style bound (the
        // outage bound has its own tests, OutageTests and the harness's 5 s store deadline).
        configuration.operationTimeout = 60
        do {
            let result = try await body(configuration)
            try await execute("DROP DATABASE \(name) WITH (FORCE)", on: admin)
            return result
        } catch {
            try? await execute("DROP DATABASE \(name) WITH (FORCE)", on: admin)
            throw error
        }
    }

    /// Runs one statement on its own connection (database administration, outside any store).
    public static func execute(_ sql: String, on configuration: PostgresStoreConfiguration) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.username,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: Logger(label: "hearth.test.postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "hearth.test.postgres"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

/// A counting semaphore for async code: at most `count` holders at once, the others wait in order.
final class AsyncSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
