import Foundation
import HearthCore
import HearthWire

/// A value bound to a statement, in the column conventions both stores share: dates are seconds since 1970
/// (SQLite `REAL`, PostgreSQL `DOUBLE PRECISION`), JSON is text, booleans are SQLite integers or PostgreSQL booleans.
package enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case null

    /// The bound text, when this is one.
    package var text: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// Refuses a text holding U+0000 (``StoreError/textWithNUL``): SQLite would store or match it cut short,
    /// PostgreSQL fails the statement. Each engine calls this for every value it binds.
    package func checkedStorable() throws -> SQLValue {
        if let text, !StoreError.storable(text) { throw StoreError.textWithNUL }
        return self
    }
}

/// One SQL statement written once for both stores: literal SQL with its bound values in place, built by string
/// interpolation. `"SELECT * FROM users WHERE local_id = \(localId)"` binds `localId` (never SQL text);
/// `\(unescaped:)` splices trusted SQL (a column list, a dialect keyword); another `SQLStatement` splices with its
/// binds. Each engine renders it its own way: SQLite as `?` placeholders with GRDB arguments, PostgreSQL through
/// postgres-nio's own `PostgresQuery` interpolation.
package struct SQLStatement: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// A piece of the statement: SQL text, or a value to bind where it stands.
    package enum Fragment: Sendable, Equatable {
        case sql(String)
        case value(SQLValue)
    }

    package private(set) var fragments: [Fragment]

    package init(fragments: [Fragment]) { self.fragments = fragments }

    package init(stringLiteral value: String) { fragments = [.sql(value)] }

    package init(stringInterpolation: Interpolation) { fragments = stringInterpolation.fragments }

    /// The bound values, in order.
    package var values: [SQLValue] {
        fragments.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    /// `parts` joined by the SQL `separator` (binds kept in order).
    package static func joined(_ parts: [SQLStatement], separator: String) -> SQLStatement {
        var fragments: [Fragment] = []
        for (index, part) in parts.enumerated() {
            if index > 0 { fragments.append(.sql(separator)) }
            fragments.append(contentsOf: part.fragments)
        }
        return SQLStatement(fragments: fragments)
    }

    package static func + (lhs: SQLStatement, rhs: SQLStatement) -> SQLStatement {
        SQLStatement(fragments: lhs.fragments + rhs.fragments)
    }

    package struct Interpolation: StringInterpolationProtocol {
        var fragments: [Fragment] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(interpolationCount * 2 + 1)
        }

        package mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { fragments.append(.sql(literal)) }
        }

        package mutating func appendInterpolation(_ value: SQLValue) { fragments.append(.value(value)) }
        package mutating func appendInterpolation(_ value: String) { appendInterpolation(SQLValue.text(value)) }
        package mutating func appendInterpolation(_ value: String?) { appendInterpolation(value.map(SQLValue.text) ?? .null) }
        package mutating func appendInterpolation(_ value: Int) { appendInterpolation(SQLValue.integer(Int64(value))) }
        package mutating func appendInterpolation(_ value: Int64) { appendInterpolation(SQLValue.integer(value)) }
        package mutating func appendInterpolation(_ value: Bool) { appendInterpolation(SQLValue.bool(value)) }
        package mutating func appendInterpolation(_ value: Date) { appendInterpolation(SQLValue.double(value.timeIntervalSince1970)) }
        package mutating func appendInterpolation(_ value: Date?) {
            appendInterpolation(value.map { SQLValue.double($0.timeIntervalSince1970) } ?? .null)
        }

        /// A JSON object as compact text; an empty object is stored as NULL.
        package mutating func appendInterpolation(json value: [String: JSONValue]) {
            appendInterpolation(value.isEmpty ? SQLValue.null : .text(JSONValue.object(value).compactJSONString))
        }

        /// A user's second factors as JSON text; none is stored as NULL. (Encoding cannot fail: strings, integers
        /// and finite dates only.)
        package mutating func appendInterpolation(mfa value: UserMultiFactor) {
            appendInterpolation(value.isEmpty ? SQLValue.null : ((try? StoreJSON.encode(value)).map(SQLValue.text) ?? .null))
        }

        /// A comma-separated list of binds, for `IN (…)`.
        package mutating func appendInterpolation(list values: [String]) {
            for (index, value) in values.enumerated() {
                if index > 0 { fragments.append(.sql(", ")) }
                appendInterpolation(value)
            }
        }

        /// Another statement, spliced in with its binds.
        package mutating func appendInterpolation(_ statement: SQLStatement) { fragments.append(contentsOf: statement.fragments) }

        /// Trusted SQL text (never a value from a request).
        package mutating func appendInterpolation(unescaped sql: String) { fragments.append(.sql(sql)) }
    }
}

/// The two SQL engines; what differs between them in the schema and in a few clauses.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Seconds since 1970.
    var time: String { self == .sqlite ? "REAL" : "DOUBLE PRECISION" }
    /// A whole number (a counter, a version).
    var integer: String { self == .sqlite ? "INTEGER" : "BIGINT" }
    /// A boolean column, with its false default.
    var boolean: String { self == .sqlite ? "INTEGER NOT NULL DEFAULT 0" : "BOOLEAN NOT NULL DEFAULT FALSE" }
    /// A text primary key.
    var key: String { self == .sqlite ? "PRIMARY KEY NOT NULL" : "PRIMARY KEY" }
    /// Text sorted by bytes on both engines (SQLite does already; PostgreSQL follows the database's locale).
    var bytewise: String { self == .sqlite ? "" : " COLLATE \"C\"" }
    /// `ORDER BY` directions with NULLs placed as SQLite places them: first ascending, last descending.
    package func direction(ascending: Bool) -> String {
        switch self {
        case .sqlite: ascending ? "ASC" : "DESC"
        case .postgres: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        }
    }
}
