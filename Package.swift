// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
// Tests import the modules they exercise; member visibility through transitive imports is fine there.
let testSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
        .library(name: "HearthWire", targets: ["HearthWire"]),
        .library(name: "HearthAuth", targets: ["HearthAuth"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthStore", targets: ["HearthStore"]),
        .library(name: "HearthStoreSQLite", targets: ["HearthStoreSQLite"]),
        .library(name: "HearthStorePostgres", targets: ["HearthStorePostgres"]),
        .library(name: "HearthOIDC", targets: ["HearthOIDC"]),
        .library(name: "HearthDevIdP", targets: ["HearthDevIdP"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .library(name: "HearthAdmin", targets: ["HearthAdmin"]),
        .library(name: "HearthAdminHummingbird", targets: ["HearthAdminHummingbird"]),
        .library(name: "HearthMail", targets: ["HearthMail"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
    ],
    targets: [
        // Wire types shared by server and clients: Foundation, plus SHA-256 (session-id hashes) from swift-crypto.
        .target(name: "HearthWire", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        // The HTML pages' templates and their one stylesheet (server, dev IdPs, the CLI's loopback page): files under
        // Templates/, compiled into the binary (no resource bundle to ship beside `hearth`).
        .target(name: "HearthPages", dependencies: [.product(name: "Mustache", package: "swift-mustache")],
                resources: [.embedInCode("Templates")], swiftSettings: swiftSettings),
        // The Firebase-shaped client SDK: Foundation (+ FoundationNetworking), the wire types, SHA-256.
        .target(
            name: "HearthAuth",
            dependencies: ["HearthWire"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthCore",
            dependencies: [
                "HearthWire",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "HearthStore", dependencies: ["HearthCore"], swiftSettings: swiftSettings),
        // Outgoing mail: RFC 5322/2045/2047 messages and a small SMTP client (RFC 5321, STARTTLS, AUTH) on swift-nio.
        .target(
            name: "HearthMail",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // For Swift backends: verify ID tokens and session cookies, call the admin API, mint custom tokens.
        // Foundation + AsyncHTTPClient + jwt-kit (and the shared wire types); no server code.
        .target(
            name: "HearthAdmin",
            dependencies: [
                "HearthWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Hummingbird middleware that authenticates `Authorization: Bearer <ID token>` with HearthAdmin.
        .target(
            name: "HearthAdminHummingbird",
            dependencies: ["HearthAdmin", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        // Relying party: discovery, authorization requests, code exchange, ID-token validation, profiles.
        .target(
            name: "HearthOIDC",
            dependencies: [
                "HearthCore", "HearthWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Microsoft- and Yahoo-shaped OpenID providers for development and tests.
        .target(
            name: "HearthDevIdP",
            dependencies: [
                "HearthCore", "HearthWire", "HearthPages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthStoreSQLite",
            dependencies: [
                "HearthStore", "HearthWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The shared store: PostgreSQL through postgres-nio's `PostgresClient` (its own connection pool).
        .target(
            name: "HearthStorePostgres",
            dependencies: [
                "HearthStore", "HearthWire", "HearthCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthServer",
            dependencies: [
                "HearthWire", "HearthCore", "HearthStore", "HearthOIDC", "HearthPages", "HearthMail",
                // Blocking functions: the calls to the project's function URLs (issue 39).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The OpenAPI document is a file, compiled into the binary (no resource bundle to ship beside `hearth`).
            resources: [.embedInCode("OpenAPI/openapi.json")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth",
            dependencies: [
                "HearthServer", "HearthStoreSQLite", "HearthStorePostgres", "HearthDevIdP", "HearthAuth", "HearthPages", "HearthWire", "HearthCore", "HearthStore", "HearthOIDC",
                "HearthMail",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // Settings: one declaration each, read over command line > HEARTH_* > JSON file > defaults.
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),
        // The load benchmark: starts `hearth serve` as a process and measures it against the RSA-2048 limit.
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "HearthCore", "HearthStore", "HearthStoreSQLite", "HearthStorePostgres", "HearthWire", "HearthOIDC", "HearthDevIdP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthTesting",
            dependencies: [
                "HearthServer", "HearthStoreSQLite", "HearthStorePostgres", "HearthCore", "HearthDevIdP", "HearthOIDC", "HearthAuth",
                // HookEndpoint: a strict blocking-function endpoint built on HearthAdmin's verifier and responder.
                "HearthAdmin", "HearthAdminHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/HearthTesting",
            swiftSettings: testSwiftSettings
        ),
        // The guides' flows written with HearthAuth: compiled by the test suite.
        .target(name: "HearthAuthExamples", dependencies: ["HearthAuth"], path: "Examples", exclude: ["AdminBackend"], swiftSettings: swiftSettings),
        // A backend built with HearthAdmin: compiled and exercised by HearthAdminTests.
        .target(
            name: "HearthAdminExample",
            dependencies: ["HearthAdmin", "HearthAdminHummingbird", "HearthWire", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/AdminBackend", swiftSettings: swiftSettings),
        // `swift run -c release HearthAdminBenchmark [python3]`: TokenVerifier vs raw RSA and google-auth.
        .executableTarget(
            name: "HearthAdminBenchmark",
            dependencies: [
                "HearthAdmin", "HearthTesting", "HearthWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Benchmarks/HearthAdminBenchmark", swiftSettings: testSwiftSettings),
        // Fuzzing (docs/testing.md): the targets and corpus-driven loop, `hearth-fuzz` (a libFuzzer binary when built by
        // scripts/fuzz with -sanitize=fuzzer into .build/fuzz; otherwise the plain mutation loop) and the property test.
        .target(
            name: "HearthFuzzing",
            dependencies: [
                "HearthTesting", "HearthServer", "HearthOIDC", "HearthCore", "HearthWire", "HearthMail",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/HearthFuzzing", swiftSettings: testSwiftSettings),
        .executableTarget(name: "hearth-fuzz", dependencies: ["HearthFuzzing"], path: "Fuzz/hearth-fuzz", swiftSettings: testSwiftSettings),
        .testTarget(name: "HearthFuzzTests", dependencies: ["HearthFuzzing", "HearthTesting"], swiftSettings: testSwiftSettings),
        .testTarget(
            name: "HearthAdminTests",
            dependencies: [
                "HearthAdmin", "HearthAdminHummingbird", "HearthAdminExample", "HearthTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HearthAuthTests",
            dependencies: ["HearthAuth", "HearthAuthExamples", "HearthTesting"],
            swiftSettings: testSwiftSettings
        ),
        // The mail module: unit tests, and delivery to a real SMTP server when scripts/test-smtp runs one.
        .testTarget(
            name: "HearthMailTests",
            dependencies: [
                "HearthMail", "HearthFuzzing",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HearthCoreTests",
            dependencies: ["HearthCore", "HearthTesting"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HearthStoreTests",
            dependencies: ["HearthStore", "HearthStoreSQLite", "HearthStorePostgres", "HearthTesting"],
            swiftSettings: testSwiftSettings
        ),
        // The `hearth` command as users run it: the built binary, real servers on loopback ports, real SQLite.
        .testTarget(
            name: "HearthCLITests",
            dependencies: ["HearthTesting", "HearthStoreSQLite", "HearthStorePostgres", "HearthWire",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthServer", "HearthTesting", "HearthStorePostgres",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: testSwiftSettings
        ),
    ]
)
