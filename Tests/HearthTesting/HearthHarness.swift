import CryptoExtras
import Foundation
import HearthCore
import HearthDevIdP
import HearthOIDC
import HearthServer
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthWire
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import NIOCore
import Testing

// The test harness is a composition root: it hands the server HearthDevIdP's providers, as `hearth serve --dev` does.
extension DevIdentityProviders: DevelopmentProviders {}

/// A real Hearth server on a loopback port (Hummingbird's live test mode) over a real SQLite store, with a
/// test clock, and helpers to call it as a Firebase client would.
public struct HearthHarness: Sendable {
    public let client: any TestClientProtocol
    public let server: HearthApp
    public let clock: TestClock
    public var store: any HearthStore { server.store }
    /// The project's own scope, for calling the services directly.
    public var scope: Scope { server.accounts.scopes.project }
    /// The built-in dev IdPs, when the harness runs them.
    public let devIdPs: DevIdentityProviders?
    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { server.configuration.publicURL.url }
    public var projectId: String { server.configuration.projectId }

    /// Cheap scrypt for tests (the default cost is tested on its own).
    public static let fastPasswords = PasswordHasher.Parameters(cost: 1 << 10, blockSize: 8, parallelism: 1)

    /// Which store a harness server runs on.
    public enum StoreChoice: String, Sendable, CaseIterable, CustomTestStringConvertible {
        /// SQLite in memory (the default), or the file at `databasePath`.
        case sqlite
        /// A fresh database on the test PostgreSQL server (`HEARTH_TEST_POSTGRES_URL`), dropped afterwards.
        case postgres

        /// Every store available here: PostgreSQL only when the test server is configured.
        public static var available: [StoreChoice] { PostgresTestDatabase.url == nil ? [.sqlite] : [.sqlite, .postgres] }
        public var testDescription: String { rawValue }
    }

    /// Starts a server on `store` (see ``run(configure:databasePath:devIdPs:devClients:startingAt:logger:_:)``).
    @discardableResult
    public static func run<T: Sendable>(
        store choice: StoreChoice,
        configure: (inout HearthServerConfiguration) -> Void = { _ in },
        devIdPs withDevIdPs: Bool = false,
        _ body: @Sendable (HearthHarness) async throws -> T
    ) async throws -> T {
        switch choice {
        case .sqlite:
            return try await run(configure: configure, devIdPs: withDevIdPs, body)
        case .postgres:
            return try await PostgresTestDatabase.withDatabase { database in
                var quiet = Logger(label: "hearth.test.postgres")
                quiet.logLevel = .warning
                let store = try await PostgresStore.open(database, logger: quiet)
                return try await run(configure: configure, openedStore: store, devIdPs: withDevIdPs, body)
            }
        }
    }

    /// Starts a server, runs `body` against it, stops it.
    @discardableResult
    public static func run<T: Sendable>(
        configure: (inout HearthServerConfiguration) -> Void = { _ in },
        databasePath: String? = nil,
        openedStore: (any HearthStore)? = nil,
        devIdPs withDevIdPs: Bool = false,
        devClients: (microsoft: DevIdentityProviders.Client, yahoo: DevIdentityProviders.Client)? = nil,
        startingAt start: Date? = nil,
        logger customLogger: Logger? = nil,
        _ body: @Sendable (HearthHarness) async throws -> T
    ) async throws -> T {
        let clock = TestClock(start ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        var configuration = HearthServerConfiguration(host: "127.0.0.1", port: 0, passwordParameters: fastPasswords, clock: clock.wallClock,
                                                      relyingParty: .init(minimumJWKSRefetchInterval: 0))
        configure(&configuration)
        let store: any HearthStore = if let openedStore {
            openedStore
        } else if let databasePath {
            try await SQLiteStore.open(path: databasePath)
        } else {
            try await SQLiteStore.inMemory()
        }
        var logger = customLogger ?? Logger(label: "hearth.test")
        if customLogger == nil { logger.logLevel = .warning }
        let devIdPs: DevIdentityProviders? = if withDevIdPs {
            if let devClients {
                try await DevIdentityProviders(publicURL: configuration.publicURL, clock: clock.wallClock,
                                               microsoftClient: devClients.microsoft, yahooClient: devClients.yahoo)
            } else {
                try await DevIdentityProviders(publicURL: configuration.publicURL, clock: clock.wallClock)
            }
        } else {
            nil
        }
        let server = try await HearthApp(configuration: configuration, store: store, devProviders: devIdPs, logger: logger)
        let app = Application(
            router: server.router(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "Hearth"),
            logger: logger)
        let result: T
        do {
            result = try await app.test(.live) { client in
                let harness = HearthHarness(client: client, server: server, clock: clock, devIdPs: devIdPs)
                if let port = client.port { server.configuration.publicURL.set("http://127.0.0.1:\(port)") }
                // Signing keys (and dev providers) once the listener is bound, as `buildApplication` does.
                try await harness.server.start()
                return try await body(harness)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
        return result
    }

    /// The answer of one request: status, headers and body.
    public struct Reply: Sendable {
        public let status: Int
        public let headers: HTTPFields
        public let body: Data

        /// The body decoded as `T`.
        public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            try JSONDecoder().decode(T.self, from: body)
        }

        /// The error envelope, if the body is one.
        public var envelope: GoogleErrorEnvelope? { try? decode(GoogleErrorEnvelope.self) }

        /// The error code (`error.message` up to the first colon), if any.
        public var errorCode: String? { envelope?.errorCode }

        /// The body as a JSON object.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request with a raw body.
    public func send(_ method: HTTPRequest.Method, _ path: String, body: String? = nil,
                     contentType: String = "application/json", headers: HTTPFields = [:]) async throws -> Reply {
        var fields = headers
        if body != nil { fields[.contentType] = contentType }
        return try await client.execute(uri: path, method: method, headers: fields,
                                        body: body.map { ByteBuffer(string: $0) }) { response in
            Reply(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView))
        }
    }

    /// POSTs an encodable body as JSON.
    public func post(_ path: String, _ value: some Encodable, query: String = "key=test-key") async throws -> Reply {
        let data = try JSONEncoder().encode(value)
        return try await send(.post, path + (query.isEmpty ? "" : "?\(query)"), body: String(decoding: data, as: UTF8.self))
    }

    /// POSTs a raw JSON text.
    public func post(_ path: String, raw: String, query: String = "key=test-key") async throws -> Reply {
        try await send(.post, path + (query.isEmpty ? "" : "?\(query)"), body: raw)
    }

    // MARK: Common flows

    /// Signs up with email and password and returns the response; fails the caller if it did not succeed.
    public func signUp(email: String, password: String = "correct horse") async throws -> SignUpResponse {
        let reply = try await post(WirePaths.accounts("signUp"), SignUpRequest(email: email, password: password))
        guard reply.status == 200 else { throw HarnessError("signUp failed: \(reply.text)") }
        return try reply.decode()
    }

    public func signIn(email: String, password: String = "correct horse") async throws -> Reply {
        try await post(WirePaths.accounts("signInWithPassword"), SignInWithPasswordRequest(email: email, password: password))
    }

    public func refresh(_ refreshToken: String) async throws -> Reply {
        try await post(WirePaths.secureToken, GrantTokenRequest(grantType: "refresh_token", refreshToken: refreshToken))
    }

    public func lookup(_ idToken: String) async throws -> Reply {
        try await post(WirePaths.accounts("lookup"), LookupRequest(idToken: idToken))
    }
}

/// A failure inside a test helper.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A service-account key pair for minting custom tokens as the Firebase admin SDKs do.
public struct TestServiceAccount: Sendable {
    public let email: String
    public let keyId: String
    public let privateKey: _RSA.Signing.PrivateKey

    public init(email: String = "hearth-admin@demo-hearth.iam.gserviceaccount.com", keyId: String = "test-key-1") throws {
        self.email = email
        self.keyId = keyId
        self.privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The stored form of the public key.
    public func registration(at date: Date) -> ServiceAccountKey {
        ServiceAccountKey(clientEmail: email, keyId: keyId, publicKeyPEM: privateKey.publicKey.pemRepresentation, createdAt: date)
    }

    /// A custom token signed with this key.
    public func sign(_ claims: CustomTokenClaims, kid: String? = nil) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: privateKey), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid ?? keyId))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid ?? keyId), header: ["typ": "JWT"])
    }
}

/// Builds a JWT from raw parts (for forged-token tests): base64url JSON header and payload, and a signature.
public func rawJWT(header: [String: Any], payload: [String: Any], signature: String = "") throws -> String {
    let h = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]).base64URLEncodedString()
    let p = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]).base64URLEncodedString()
    return "\(h).\(p).\(signature)"
}

/// Decodes a JWT's payload without verifying it.
public func jwtPayload(_ token: String) -> [String: Any]? {
    let parts = token.split(separator: ".")
    guard parts.count >= 2 else { return nil }
    guard let data = Data(base64URLEncoded: String(parts[1])) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// Decodes a JWT's header without verifying it.
public func jwtHeader(_ token: String) -> [String: Any]? {
    guard let first = token.split(separator: ".").first else { return nil }
    guard let data = Data(base64URLEncoded: String(first)) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}
