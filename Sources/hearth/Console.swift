import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire
import HearthStoreSQLite
#if canImport(Glibc)
import Glibc
#endif

/// `hearth console`: access to the web console (`/console`).
struct Console: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in to the web console at /console: one-time login links and named administrators.",
        subcommands: [LoginLink.self, Admins.self]
    )

    struct LoginLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login-link",
            abstract: "Print a fresh one-time login link for the console (single use, valid 15 minutes).")

        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "Sign in as this administrator (default: owner, the operator of this machine).")
        var admin: String?
        @Option(name: .customLong("public-url"), help: "The server's external URL (default: the configured public.url, else the URL the server last started with).")
        var publicURL: String?
        @Option(name: .customLong("project-id"), help: "The project whose server's URL the link uses (default: the configured project, else the one project the data holds).")
        var projectId: String?

        func run() async throws {
            try await storeOptions.withStoreAndSettings(projectId: projectId) { store, settings in
                if let admin, try await store.consoleAdmin(name: admin) == nil {
                    throw CLIError("no console administrator named \(admin): add one with hearth console admins add \(admin)")
                }
                let base = await settings.serverURL(store: store, explicit: publicURL)
                let link = try await ConsoleAccess.issueLoginLink(store: store, publicURL: base, adminName: admin ?? ConsoleAccess.ownerName)
                print("Open this link within 15 minutes to sign in to the console (it works once):\n\(link)")
            }
        }
    }

    struct Admins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the console's named administrators (passwords hashed with scrypt).",
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add an administrator, or set its password. The password comes from HEARTH_CONSOLE_PASSWORD or is asked for.")
            @OptionGroup var storeOptions: StoreOptions
            @Argument(help: "The administrator's name (letters, digits, . _ @ -), shown in the audit log as console:<name>.")
            var name: String
            @Option(name: .customLong("project-id"), help: "Accepted for symmetry with other commands: console administrators manage every project in this data.")
            var projectId: String?

            func validate() throws {
                guard !name.isEmpty, name.count <= 64, name != ConsoleAccess.ownerName,
                      name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._@-".contains($0)) }) else {
                    throw ValidationError("an administrator name is 1–64 letters, digits or . _ @ - (and not 'owner', the login links' name)")
                }
            }

            func run() async throws {
                let password: String
                if let fromEnvironment = ProcessInfo.processInfo.environment["HEARTH_CONSOLE_PASSWORD"] {
                    password = fromEnvironment
                } else if isatty(STDIN_FILENO) != 0, let typed = getpass("Password for \(name): ") {
                    password = String(cString: typed)
                } else if let line = readLine() {
                    password = line
                } else {
                    throw CLIError("no password: set HEARTH_CONSOLE_PASSWORD or type it when asked")
                }
                guard password.count >= 10 else { throw CLIError("a console password needs at least 10 characters") }
                try await storeOptions.withService { service, _, _ in
                    let existed = try await service.saveConsoleAdmin(name: name, passwordHash: try PasswordHasher().hash(password), by: HearthCLI.principal)
                    print(existed ? "Changed the password of console administrator \(name)." : "Added console administrator \(name).")
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the console's administrators.")
            @OptionGroup var storeOptions: StoreOptions

            func run() async throws {
                let admins = try await storeOptions.withStore { try await $0.consoleAdmins() }
                if admins.isEmpty { print("No console administrators (use hearth console login-link, or hearth console admins add <name>).") }
                for admin in admins { print("\(admin.name)\t\(admin.createdAt.formatted(.iso8601))") }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove an administrator and end its console sessions.")
            @OptionGroup var storeOptions: StoreOptions
            @Argument(help: "The administrator's name.")
            var name: String

            func run() async throws {
                try await storeOptions.withService { service, _, _ in
                    do {
                        try await HearthCLI.answered { try await service.removeConsoleAdmin(name: name, by: HearthCLI.principal) }
                    } catch let error as HearthAPIError where error.code == .configurationNotFound {
                        throw CLIError("no console administrator named \(name)")
                    }
                }
                print("Removed console administrator \(name); its sessions have ended.")
            }
        }
    }
}
