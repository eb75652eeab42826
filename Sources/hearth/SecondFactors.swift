import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth project mfa`: the project's TOTP second-factor setting (Firebase's `mfa`), changed through the admin
/// API's project-config update (`updateMask=mfa`, audited as `config.update`).
struct ProjectMFA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "Show, enable or disable TOTP second factors (authenticator apps) for the project.",
        discussion: "Example: hearth project mfa enable --adjacent-intervals 1",
        subcommands: [Show.self, Enable.self, Disable.self])

    /// `show` and the answer of `enable`/`disable`.
    static func describe(_ config: ProjectConfig) -> String {
        let intervals = config.totpAdjacentIntervals
        return """
            project               \(config.projectId)
            TOTP second factor    \(config.totpEnabled ? "on" : "off")
            adjacent intervals    \(intervals) (codes accepted ±\(intervals * 30) s around the server's time)
            """
    }

    /// Sets `mfa` (state of the project and of the TOTP provider, the intervals) and answers the stored project.
    static func set(_ storeOptions: StoreOptions, projectId: String?, enabled: Bool, adjacentIntervals: Int?) async throws -> ProjectConfig {
        try await storeOptions.withService(projectId: projectId) { service, store, settings in
            let current = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            let state: JSONValue = .string(enabled ? "ENABLED" : "DISABLED")
            let intervals = adjacentIntervals ?? current.totpAdjacentIntervals
            let body: JSONValue = .object(["mfa": .object([
                "state": state,
                "providerConfigs": .array([.object([
                    "state": state, "totpProviderConfig": .object(["adjacentIntervals": .number(Double(intervals))]),
                ])]),
            ])])
            try await HearthCLI.plainly {
                _ = try await service.updateProjectConfig(body: body, updateMask: "mfa", by: HearthCLI.principal)
            }
            return try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether TOTP second factors are on and the adjacent intervals.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            let config = try await storeOptions.withStoreAndSettings(projectId: project.projectId) { store, settings in
                try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            }
            print(ProjectMFA.describe(config))
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let users enroll an authenticator app (TOTP); an enrolled user is then asked for its code at every sign-in.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @Option(name: .customLong("adjacent-intervals"),
                help: "30-second steps accepted before and after the current one for clock drift, 0-10 (default: unchanged, 5 if never set).")
        var adjacentIntervals: Int?

        func validate() throws {
            if let adjacentIntervals, !TOTP.adjacentIntervalRange.contains(adjacentIntervals) {
                throw ValidationError("--adjacent-intervals must be between 0 and 10 (steps of 30 s either side), not \(adjacentIntervals)")
            }
        }

        func run() async throws {
            print(ProjectMFA.describe(try await ProjectMFA.set(storeOptions, projectId: project.projectId, enabled: true, adjacentIntervals: adjacentIntervals)))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop new TOTP enrollments (users who enrolled still need their code; remove factors with hearth users mfa remove).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            print(ProjectMFA.describe(try await ProjectMFA.set(storeOptions, projectId: project.projectId, enabled: false, adjacentIntervals: nil)))
        }
    }
}

/// `hearth users mfa`: a user's second factors; removal goes through the admin service (sessions revoked, the
/// user emailed, the audit entry `mfa.remove` as `cli:<login>`).
struct UsersMFA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "List or remove a user's second factors (authenticator apps) and recovery codes.",
        subcommands: [List.self, Remove.self])

    static func describe(_ user: UserRecord) -> String {
        guard !user.mfa.factors.isEmpty else { return "\(user.localId) has no second factor." }
        var lines = user.mfa.factors.map { factor in
            [factor.enrollmentId, "totp", factor.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "-",
             factor.enrolledAt.formatted(.iso8601)].joined(separator: "\t")
        }
        let left = user.mfa.recoveryCodeHashes.count
        lines.append("recovery codes left: \(left)" + (user.mfa.recoveryCodesUsed > 0 ? " (\(user.mfa.recoveryCodesUsed) used)" : ""))
        return lines.joined(separator: "\n")
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's second factors: enrollment id, kind, name, enrolled at; then the recovery codes left.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            print(UsersMFA.describe(try await storeOptions.withStore { try await Users.find($0, user) }))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user's second factors (all, with the recovery codes, or one with --factor): the user's sessions end and the user is told by email.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        @Option(name: .customLong("factor"), help: "The enrollment id of the one factor to remove (see hearth users mfa list).") var factor: String?
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let removed = try await storeOptions.withService { service, store, _ in
                let record = try await Users.find(store, user)
                let factors = record.mfa.factors
                guard !factors.isEmpty else { throw CLIError("\(record.localId) has no second factor; nothing to remove") }
                if let factor, !factors.contains(where: { $0.enrollmentId == factor }) {
                    throw CLIError("\(record.localId) has no second factor \(factor); its factors: "
                        + factors.map(\.enrollmentId).joined(separator: ", "))
                }
                let what = factor.map { id in
                    "the second factor \(id) (\(factors.first { $0.enrollmentId == id }?.displayName ?? "authenticator app")) of \(record.localId)"
                } ?? "all \(factors.count) second factor\(factors.count == 1 ? "" : "s") and the recovery codes of \(record.localId)"
                if !yes { try UsersMFA.confirm("Remove \(what)? The user's sessions end and the user is told by email.") }
                do {
                    _ = try await HearthCLI.answered {
                        try await service.removeSecondFactors(localId: record.localId, enrollmentIds: factor.map { [$0] }, by: HearthCLI.principal)
                    }
                } catch let error as HearthAPIError {
                    throw CLIError(error.description)
                }
                return what
            }
            print("Removed \(removed); the user's sessions ended.")
        }
    }

    /// Asks on the terminal; without one, refuses (a script says --yes).
    static func confirm(_ question: String) throws {
        guard isatty(STDIN_FILENO) != 0 else {
            throw ValidationError("\(question)\nNo terminal to ask on: pass --yes to confirm.")
        }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw CLIError("Nothing removed.") }
    }
}
