import ArgumentParser
import Foundation
import HearthCore
import HearthDevIdP
import HearthServer
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `hearth`: the Hearth identity server and its administration commands.
@main
struct Hearth: AsyncParsableCommand {
    /// The version `hearth --version` prints.
    static let version = "0.7.0"

    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hostable identity server, wire-compatible with Firebase Authentication.",
        version: version,
        subcommands: [Serve.self, Migrate.self, Backup.self, Project.self, Tenants.self, Providers.self, Vault.self, Apps.self, ServiceAccounts.self, Users.self, Console.self, SignIn.self, Link.self, WhoAmI.self, SignOut.self],
        defaultSubcommand: Serve.self
    )

    /// The entry point: the command runs on a task while the main thread waits for it. (An `async` main parks
    /// the main thread in `dispatch_main`, which valgrind 3.19 cannot run: `hearth-bench --callgrind` counts the
    /// server's instructions under callgrind.) Nothing in hearth uses the main queue.
    static func main() {
        // Everything hearth writes — the database, backups, exports, keys, service-account files, login links —
        // may hold secrets: owner-only by default, whatever the shell's umask.
        umask(0o077)
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await runCommand()
            finished.signal()
        }
        finished.wait()
    }

    /// Parses, runs, and on a usage error prints the failing subcommand's own usage (not the root's).
    static func runCommand() async {
        var parsed: (any ParsableCommand)?
        do {
            var command = try parseAsRoot()
            parsed = command
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            let type = parsed.map { Swift.type(of: $0) } ?? Hearth.self
            var standardError = StandardError()
            print("Error: \(error.message)\n\(usageString(for: type))\n  See '\(commandPath(type)) --help' for more.", to: &standardError)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// `hearth providers enable` for `Providers.Enable`.
    static func commandPath(_ type: any ParsableCommand.Type) -> String {
        var path: [String] = []
        func find(_ current: any ParsableCommand.Type, _ trail: [String]) -> Bool {
            let name = current.configuration.commandName ?? String(describing: current).lowercased()
            if current == type { path = trail + [name]; return true }
            return current.configuration.subcommands.contains { find($0, trail + [name]) }
        }
        _ = find(Hearth.self, [])
        return path.isEmpty ? "hearth" : path.joined(separator: " ")
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { FileHandle.standardError.write(Data(string.utf8)) }
}

/// Options that locate the data directory and the configuration, shared by every command that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: Settings.Key.dataDir.name, help: Settings.Key.dataDir.help) var dataDir: String?

    @Option(name: .customLong("config"), help: "A JSON configuration file (env HEARTH_CONFIG_FILE): every setting by its key (data.dir, project.id, public.url, smtp.url, vault.keys.file, rate.limits, …; docs/configuration.md). Options and HEARTH_* variables win over it.")
    var configFile: String?

    @Option(name: Settings.Key.databaseURL.name, help: Settings.Key.databaseURL.help) var databaseURL: String?
    @Option(name: Settings.Key.databaseTLS.name, help: Settings.Key.databaseTLS.help) var databaseTLS: String?
    @Option(name: Settings.Key.databaseCAFile.name, help: Settings.Key.databaseCAFile.help) var databaseCAFile: String?

    /// These options as settings values, by key.
    var options: [Settings.Key: Any] {
        let given: [Settings.Key: Any?] = [.dataDir: dataDir, .databaseURL: databaseURL, .databaseTLS: databaseTLS, .databaseCAFile: databaseCAFile]
        return given.compactMapValues { $0 }
    }

    /// The settings these options, the environment and the configuration file give.
    func settings(projectId: String? = nil, _ more: [Settings.Key: Any] = [:]) throws -> Settings {
        var options = options.merging(more) { $1 }
        if let projectId { options[.projectId] = projectId }
        return try Settings.load(options: options, configFile: configFile)
    }

    /// Runs `body` with the existing store open (SQLite in the data directory, or the PostgreSQL database), and
    /// closes it afterwards, also when `body` fails. A directory without `hearth.sqlite` is refused (a mistyped
    /// path never creates an empty database). Administration commands may run while the server runs: SQLite's
    /// WAL mode serializes the writers; PostgreSQL is shared by design.
    func withStoreAndSettings<T: Sendable>(projectId: String? = nil, _ body: (any HearthStore, Settings) async throws -> T) async throws -> T {
        var settings = try settings(projectId: projectId)
        let store = try await HearthCLI.openStore(settings: settings, create: false, logger: Logger(label: "hearth.store"))
        do {
            // No project named anywhere: the one project the data holds (a server started with --project-id acme).
            if !settings.projectIdGiven, let only = try await HearthCLI.onlyProject(in: store) { settings.projectId = only }
            let result = try await body(store, settings)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// `withStoreAndSettings` with the admin service over the store (the one the admin API and the console use:
    /// its validation, audit entries and error codes), for the project the settings name.
    func withService<T: Sendable>(projectId: String? = nil,
                                  _ body: (AdminService, any HearthStore, Settings) async throws -> T) async throws -> T {
        try await withStoreAndSettings(projectId: projectId) { store, settings in
            // The server's recorded mail setup: notices the service sends are queued for that server to deliver.
            let mail = (try? await store.projectConfig(projectId: settings.projectId))?.servedMail
            return try await body(AdminService.commandLine(store: store, projectId: settings.projectId, publicURL: settings.publicURL, mail: mail),
                                  store, settings)
        }
    }

    /// `withStore` for commands that do not need the settings.
    func withStore<T: Sendable>(_ body: (any HearthStore) async throws -> T) async throws -> T {
        try await withStoreAndSettings { store, _ in try await body(store) }
    }
}

/// A problem the user can fix, said plainly (no error domains or errno text).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum HearthCLI {
    /// Who the audit log names for a command's writes: `cli:<login>`.
    static var principal: AdminPrincipal { .commandLine(login: ProcessInfo.processInfo.environment["USER"] ?? "operator") }

    /// Runs an admin-service call; its refusals become usage errors carrying the API's message (`CODE : detail`).
    static func plainly<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await answered(body)
        } catch let error as HearthAPIError {
            throw ValidationError(error.description)
        }
    }

    /// Runs an admin-service call; the store's refusals it lets pass (`StoreError.emailExists`, …) come out as the
    /// API's errors, by the one mapping (``HearthAPIError/answering(_:)``).
    static func answered<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw HearthAPIError.answering(error) ?? error
        }
    }

    /// Opens the store the settings name: PostgreSQL when `database.url` is set (its migrations run, under an
    /// advisory lock, whether or not `create`), else SQLite in the data directory.
    static func openStore(settings: Settings, create: Bool, logger: Logger) async throws -> any HearthStore {
        guard let database = settings.database else {
            let store = try await openStore(directory: settings.dataDir, create: create, durability: settings.sqliteDurability, logger: logger)
            // Provider client secrets are sealed at rest with the vault keys (every command that saves or reads them).
            store.clientSecrets.use(settings.providerTokenKeys)
            return store
        }
        do {
            var database = database
            // The server answers within store.timeout; a command (an import, a migration) may take its time.
            if !create { database.operationTimeout = max(database.operationTimeout, 600) }
            let store = try await PostgresStore.open(database, logger: logger)
            store.clientSecrets.use(settings.providerTokenKeys)
            return store
        } catch let error as StoreError {
            let reason = if case .backend(let message) = error { message } else { "\(error)" }
            throw CLIError("cannot open the PostgreSQL database \(database.maskedURL): \(reason); check --database-url (host, port, user, password, database name) and --database-tls")
        }
    }

    /// Opens the SQLite store under `directory`. With `create`, makes the directory (0700) and the database when
    /// missing; without, refuses a directory that holds no `hearth.sqlite`.
    static func openStore(directory: String, create: Bool, durability: SQLiteStore.Durability = .normal, logger: Logger) async throws -> SQLiteStore {
        let files = FileManager.default
        let database = (directory as NSString).appendingPathComponent("hearth.sqlite")
        var isDirectory: ObjCBool = false
        let exists = files.fileExists(atPath: directory, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue {
            throw CLIError("the data directory \(directory) is a file, not a directory: pass --data-dir with a directory")
        }
        if !create {
            guard exists, files.fileExists(atPath: database) else {
                throw CLIError("no Hearth data in \(directory) (no hearth.sqlite there): check --data-dir, HEARTH_DATA_DIR or the config's data.dir, or create it by starting the server once: hearth serve --data-dir \(directory)")
            }
        } else if !exists {
            do {
                try files.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError("cannot create the data directory \(directory): check that its parent exists and is writable")
            }
        }
        guard files.isWritableFile(atPath: directory), !files.fileExists(atPath: database) || files.isWritableFile(atPath: database) else {
            throw CLIError("the data directory \(directory) is not writable by this user: check its permissions")
        }
        do {
            return try await SQLiteStore.open(path: database, durability: durability, logger: logger)
        } catch {
            throw CLIError("cannot open the database \(database): it may be damaged or not a Hearth database")
        }
    }

    /// Refuses a project id the store does not hold (a mistyped --project-id never starts an empty project), naming
    /// the projects it does hold.
    static func requireProject(_ projectId: String, in store: any HearthStore, settings: Settings) async throws -> ProjectConfig {
        guard let config = try await store.projectConfig(projectId: projectId) else {
            let held = (try? await (store as? any StoreCopying)?.projectConfigs().map(\.projectId)) ?? []
            if !held.isEmpty {
                throw CLIError("no project \(projectId) in \(settings.storeDescription), which holds \(held.joined(separator: ", ")): pass --project-id \(held[0])\(held.count > 1 ? " (or another of them)" : "") or set HEARTH_PROJECT_ID")
            }
            throw CLIError("no project \(projectId) in \(settings.storeDescription): check --project-id (the server creates its project at first start: hearth serve --project-id \(projectId))")
        }
        return config
    }

    /// The store's project when it holds exactly one, else nil.
    static func onlyProject(in store: any HearthStore) async throws -> String? {
        guard let projects = try await (store as? any StoreCopying)?.projectConfigs(), projects.count == 1 else { return nil }
        return projects[0].projectId
    }
}

// The `hearth` command is a composition root: `serve --dev` hands the server HearthDevIdP's providers.
extension DevIdentityProviders: DevelopmentProviders {}
