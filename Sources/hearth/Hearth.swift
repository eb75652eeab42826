import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthStoreSQLite
import Logging

/// `hearth`: the Hearth identity server and its administration commands.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hostable identity server, wire-compatible with Firebase Authentication.",
        subcommands: [Serve.self, Project.self, Providers.self, Apps.self, ServiceAccounts.self, SignIn.self, Link.self, WhoAmI.self, SignOut.self],
        defaultSubcommand: Serve.self
    )
}

/// Options that locate the data directory, shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory holding hearth.sqlite (default ./.hearth, env HEARTH_DATA_DIR).")
    var dataDir: String?

    @Option(name: .customLong("config"), help: "A JSON configuration file (env HEARTH_CONFIG_FILE).")
    var configFile: String?
}

/// Opens (creating) the SQLite store under `directory`.
enum HearthCLI {
    static func openStore(directory: String, durability: SQLiteStore.Durability = .normal, logger: Logger) async throws -> SQLiteStore {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    return try await SQLiteStore.open(path: (directory as NSString).appendingPathComponent("hearth.sqlite"), durability: durability,
                                      logger: logger)
    }
}
