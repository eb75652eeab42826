// swift-tools-version:6.1
// Standalone benchmark (not part of the root package, so CI never builds it): Hearth's two store hot paths on
// GRDB's DatabasePool against sqlite-nio behind a hand-made pool. See README.md.
import PackageDescription

let package = Package(
    name: "StoreEngines",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "StoreEngines",
            dependencies: [
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
