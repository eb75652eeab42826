import Foundation
import HearthStore
import NIOSSL
import PostgresNIO

/// Where the PostgreSQL store connects: parsed from a `postgres://user:password@host:port/database` URL.
/// The password is kept out of every description: ``maskedURL`` is what logs and banners show.
public struct PostgresStoreConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (a database on loopback or a private network).
        case disable
        /// TLS when the server offers it, plain otherwise (no protection against an active attacker).
        case prefer
        /// TLS required, the server's certificate verified against the system's trust roots (or `caFile`)
        /// and its host name.
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// PEM file of the certificate authorities to trust for `require`/`prefer` (a private CA); system roots when nil.
    public var caFile: String?
    /// The most connections this process opens (each replica has its own pool).
    public var maximumConnections: Int
    /// The longest one store operation may take, waiting for a connection included (seconds): past it the
    /// operation fails as unavailable (503) and the database is probed. Also PostgreSQL's `statement_timeout` and
    /// `lock_timeout` on the pool's connections, so a stalled statement ends on the server too.
    public var operationTimeout: TimeInterval = 5

    public init(host: String, port: Int = 5432, username: String, password: String?, database: String,
                tls: TLSMode = .prefer, caFile: String? = nil, maximumConnections: Int = 20) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.caFile = caFile
        self.maximumConnections = maximumConnections
    }

    /// Whether `text` names a PostgreSQL database (`postgres://` or `postgresql://`).
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`. User and password
    /// may be percent-encoded. `tls` (when given) overrides the URL's `sslmode`; the default is `prefer`.
    public init(url text: String, tls: TLSMode? = nil, caFile: String? = nil, maximumConnections: Int = 20) throws(ConfigurationError) {
        // A password holding @ : / ? # or % breaks the URL's structure unless percent-encoded: say so whenever the
        // URL does not read as one (never repeating the URL, which holds the password).
        let afterScheme = text.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first ?? ""
        let encodingHint = afterScheme.filter { $0 == "@" }.count > 1 || URLComponents(string: text) == nil
            ? " — if the password holds @ : / ? # or %, percent-encode it (@ is %40, : is %3A, / is %2F, # is %23, % is %25)" : ""
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw ConfigurationError("the database URL must look like postgres://user:password@host:5432/database" + encodingHint)
        }
        guard let host = components.host, !host.isEmpty else { throw ConfigurationError("the database URL has no host" + encodingHint) }
        guard let user = components.user, !user.isEmpty else { throw ConfigurationError("the database URL has no user name" + encodingHint) }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw ConfigurationError("the database URL must name one database after the host (…:5432/hearth)" + encodingHint)
        }

        var mode = tls
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let parsed = TLSMode(rawValue: value) else {
                    throw ConfigurationError("sslmode must be one of disable, prefer, require")
                }
                if mode == nil { mode = parsed }
            default:
                throw ConfigurationError("unknown database URL parameter '\(item.name)' (supported: sslmode)")
            }
        }
        self.init(host: host, port: components.port ?? 5432,
                  username: components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? user,
                  password: components.percentEncodedPassword.flatMap { $0.removingPercentEncoding },
                  database: database.removingPercentEncoding ?? database, tls: mode ?? .prefer, caFile: caFile,
                  maximumConnections: maximumConnections)
    }

    /// The URL with the password replaced by `***`: safe for banners and logs.
    public var maskedURL: String {
        let credentials = password == nil ? username : "\(username):***"
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(hostPart):\(port)/\(database)"
    }

    public var description: String { "\(maskedURL) (tls: \(tls.rawValue))" }
    public var debugDescription: String { description }

    /// A configuration error: says what to fix; never holds the password.
    public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The TLS configuration for `prefer` and `require`: verified against the system's roots or `caFile`.
    func tlsConfiguration() throws -> TLSConfiguration {
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do {
                tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            } catch {
                throw StoreError.backend("postgres: cannot read the CA certificates in \(caFile) (PEM expected)")
            }
        }
        return tlsConfiguration
    }

    /// One direct connection (the start-up check and the migrations).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .prefer, .require:
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: try tlsConfiguration())
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError.backend("postgres: cannot set up TLS: \(error)")
            }
            tlsSetting = tls == .require ? .require(context) : .prefer(context)
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                             database: database, tls: tlsSetting)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    func clientConfiguration() throws -> PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .prefer:
            tlsSetting = .prefer(try tlsConfiguration())
        case .require:
            tlsSetting = .require(try tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: tlsSetting)
        configuration.options.maximumConnections = max(1, maximumConnections)
        configuration.options.minimumConnections = 0
        // A connection attempt never outlasts an operation: an unreachable host is reported, not waited for.
        configuration.options.connectTimeout = .milliseconds(Int64(min(10, max(1, operationTimeout)) * 1000))
        let milliseconds = String(Int(operationTimeout * 1000))
        configuration.options.additionalStartupParameters = [("statement_timeout", milliseconds), ("lock_timeout", milliseconds)]
        return configuration
    }
}
