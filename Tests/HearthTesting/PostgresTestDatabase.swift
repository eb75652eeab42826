import Foundation
import HearthStore
import HearthStorePostgres
import Logging
import PostgresNIO

/// The PostgreSQL server the tests use: `HEARTH_TEST_POSTGRES_URL` (scripts/test starts a throwaway cluster and
/// sets it; `scripts/test-postgres start` does the same by hand). Each test gets a database of its own, created
/// empty and dropped afterwards, so the suites run in parallel without seeing each other's rows.
public enum PostgresTestDatabase {
    public static let url: String? = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    public static let skipNotice = "HEARTH_TEST_POSTGRES_URL is not set: the PostgreSQL store is not tested (scripts/test sets it; by hand: eval \"$(scripts/test-postgres start)\")"

    /// A fresh empty database on the test server; dropped after `body`.
    public static func withDatabase<T>(_ body: (PostgresStoreConfiguration) async throws -> T) async throws -> T {
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
