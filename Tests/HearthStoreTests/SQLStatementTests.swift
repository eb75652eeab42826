import Foundation
import GRDB
import HearthStore
@testable import HearthStorePostgres
@testable import HearthStoreSQLite
import PostgresNIO
import Testing

/// One statement, two renderings: values are binds on both engines (never SQL text), trusted fragments are spliced.
@Suite struct SQLStatementTests {
    static let hostile = "x'); DROP TABLE users; --"

    static let statement: SQLStatement = """
        SELECT * FROM users WHERE local_id = \(hostile) AND version > \(3) AND \(unescaped: "disabled = 0") \
        AND email IN (\(list: ["a@example.com", "b@example.com"])) AND last_login_at = \(Date?.none)
        """

    @Test func sqliteRendersPlaceholdersAndArguments() throws {
        let (sql, arguments) = try SQLiteStore.Executor.render(Self.statement)
        #expect(sql == "SELECT * FROM users WHERE local_id = ? AND version > ? AND disabled = 0 AND email IN (?, ?) AND last_login_at = ?")
        #expect(arguments == StatementArguments([Self.hostile, 3, "a@example.com", "b@example.com", nil]))
    }

    @Test func postgresRendersThroughItsOwnInterpolation() throws {
        let query = try PostgresStore.Executor.query(Self.statement)
        #expect(query.sql == "SELECT * FROM users WHERE local_id = $1 AND version > $2 AND disabled = 0 AND email IN ($3, $4) AND last_login_at = $5")
        #expect(query.binds.count == 5)
    }

    @Test func splicedStatementsKeepTheirBindsInOrder() {
        let inner: SQLStatement = "local_id = \("u1")"
        let outer: SQLStatement = "SELECT 1 FROM users WHERE \(inner) AND email = \("e")" + " FOR UPDATE"
        #expect(outer.values == [.text("u1"), .text("e")])
    }

    @Test func textWithNULIsRefusedByBothRenderings() {
        let statement: SQLStatement = "SELECT 1 FROM users WHERE email = \("a\u{0}b@example.com")"
        #expect(throws: StoreError.textWithNUL) { try SQLiteStore.Executor.render(statement) }
        #expect(throws: StoreError.textWithNUL) { try PostgresStore.Executor.query(statement) }
    }
}
