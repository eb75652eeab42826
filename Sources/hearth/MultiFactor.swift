import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth project mfa`: the project's TOTP second-factor setting (Firebase's `mfa`), changed as the admin API's
/// `updateMask=mfa` changes it (``ProjectSettingChange/totp(enabled:adjacentIntervals:)``, audited as `config.update`).
struct ProjectMultiFactor: AsyncParsableCommand {
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
            let intervals = adjacentIntervals ?? current.totpAdjacentIntervals
            try await HearthCLI.plainly {
                _ = try await service.updateProjectSettings(ProjectSettingChange.totp(enabled: enabled, adjacentIntervals: intervals, phone: current.isPhoneMFAEnabled),
                                                            by: HearthCLI.principal, in: service.projectScope)
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
            print(ProjectMultiFactor.describe(config))
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
            print(ProjectMultiFactor.describe(try await ProjectMultiFactor.set(storeOptions, projectId: project.projectId, enabled: true, adjacentIntervals: adjacentIntervals)))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop new TOTP enrollments (users who enrolled still need their code; remove factors with hearth users mfa remove).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            print(ProjectMultiFactor.describe(try await ProjectMultiFactor.set(storeOptions, projectId: project.projectId, enabled: false, adjacentIntervals: nil)))
        }
    }
}

/// `hearth users mfa`: a user's second factors; removal goes through the admin service (sessions revoked, the
/// user emailed, the audit entry `mfa.remove` as `cli:<login>`).
struct UsersMultiFactor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "List or remove a user's second factors (authenticator apps) and recovery codes.",
        subcommands: [List.self, Remove.self, RemoveUnopenable.self])

    static func describe(_ user: UserRecord) -> String {
        guard !user.mfa.factors.isEmpty else { return "\(user.localId) has no second factor." }
        var lines = user.mfa.factors.map { factor in
            [factor.enrollmentId, factor.kind == .phone ? "sms \(factor.phoneNumber ?? "")" : "totp", factor.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "-",
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
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            print(UsersMultiFactor.describe(try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ in try await Users.find(scope.store, user) }))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user's second factors (all, with the recovery codes, or one with --factor): the user's sessions end and the user is told by email (queued for the server to send).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        @Option(name: .customLong("factor"), help: "The enrollment id of the one factor to remove (see hearth users mfa list).") var factor: String?
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let (removed, notice) = try await storeOptions.withScope(tenantOption.tenant) { service, scope, settings in
                let store = scope.store
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
                let notice = try await UsersMultiFactor.notice(to: record, store: store, settings: settings)
                if !yes { try UsersMultiFactor.confirm("Remove \(what)? The user's sessions end; \(notice.future)") }
                do {
                    _ = try await HearthCLI.answered {
                        try await service.removeSecondFactors(localId: record.localId, enrollmentIds: factor.map { [$0] }, by: HearthCLI.principal, in: scope)
                    }
                } catch let error as HearthAPIError {
                    throw CLIError(error.description)
                }
                return (what, notice)
            }
            print("Removed \(removed); the user's sessions ended. \(notice.past)")
        }
    }

    /// `hearth users mfa remove-unopenable`: after a key was lost for good (a database restored without its
    /// `totp-secrets.key`, a vault key dropped too early), the factors sealed with it go, so that those users can
    /// sign in with their first factor and enroll again (issue 35, item 11).
    struct RemoveUnopenable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-unopenable",
            abstract: "Remove every second factor sealed with a key this server does not have (a lost totp-secrets.key or vault key).",
            discussion: """
                Counts the TOTP factors whose secret is sealed with a key that neither the vault keys nor <data-dir>/totp-secrets.key \
                holds: no code of them can be checked (the second-factor step answers 503, and /readyz reports it). Restoring the \
                key repairs them; when it is lost for good, this removes them: each user's sessions end and the user is told by \
                email, as with hearth users mfa remove. Without --yes it lists them and asks.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let outcome: String = try await storeOptions.withService { service, store, settings in
                guard let census = store as? any SealedSecretCensus else { throw CLIError("this store cannot count its sealed secrets") }
                var keyIds = settings.providerTokenKeys?.keyIds ?? []
                if settings.database == nil, let local = try LocalSecretKeyFile.load(directory: settings.dataDir) { keyIds += local.keyIds }
                let unopenable = try await census.sealedTOTPFactors().missing(from: keyIds)
                guard !unopenable.isEmpty else {
                    return "Every stored TOTP secret opens with this server's keys (\(keyIds.isEmpty ? "none configured" : keyIds.joined(separator: ", "))): nothing to remove."
                }
                let users = unopenable.users
                if !yes {
                    try UsersMultiFactor.confirm("Remove \(unopenable.summary), which this server does not have? Users: \(users.prefix(20).joined(separator: ", "))\(users.count > 20 ? " and \(users.count - 20) more" : ""). Their sessions end and they are told by email.")
                }
                let lost = Set(unopenable.keyIds)
                // The census counts every tenant's users (the keys are the server's): each user is found in its own
                // tenant, and its factors removed in that tenant's scope.
                let places: [String?] = [nil] + (try await store.allTenants()).map { Optional($0.id) }
                var removed = 0
                for localId in users {
                    var found: (user: UserRecord, tenant: String?)?
                    for place in places {
                        if let user = try await store.bound(toTenant: place).user(localId: localId) { found = (user, place); break }
                    }
                    guard let found else { continue }
                    let (user, tenant) = found
                    let ids = user.mfa.factors.filter { ProviderTokenKeys.sealingKeyId($0.secret).map(lost.contains) ?? false }.map(\.enrollmentId)
                    guard !ids.isEmpty else { continue }
                    do {
                        let scope = try await TenantOption.scope(tenant, of: service)
                        _ = try await HearthCLI.answered {
                            try await service.removeSecondFactors(localId: localId, enrollmentIds: Set(ids), by: HearthCLI.principal, in: scope)
                        }
                    } catch let error as HearthAPIError {
                        throw CLIError("\(localId): \(error.description) (\(removed) factor(s) removed before it)")
                    } catch let error as CLIError {
                        throw CLIError("\(localId): \(error.description) (\(removed) factor(s) removed before it)")
                    }
                    removed += ids.count
                }
                let mail = (try? await store.projectConfig(projectId: settings.projectId))?.servedMail
                return "Removed \(removed) second factor(s) of \(users.count) user(s) sealed with key \(unopenable.keyIds.joined(separator: ", ")); their sessions ended. "
                    + (mail?.delivers == true ? "Those with an email address are told by email (queued: the server sends it through \(mail!.destination))."
                                              : "No email was sent: the server that last ran on this data has no SMTP relay (docs/email.md).")
            }
            print(outcome)
        }
    }

    /// Whether and how the user hears of the removal, in words for the question and for the outcome.
    static func notice(to user: UserRecord, store: any HearthStore, settings: Settings) async throws -> (future: String, past: String) {
        guard let email = user.email else {
            return ("the user has no email address to be told at.", "The user has no email address and was not told.")
        }
        guard let mail = try await store.projectConfig(projectId: settings.projectId)?.servedMail, mail.delivers else {
            return ("no email can tell the user: the server that last ran on this data has no SMTP relay (--smtp-url).",
                    "No email was sent to \(email): the server that last ran on this data has no SMTP relay (set --smtp-url, docs/email.md); tell the user yourself.")
        }
        return ("the user is told by email at \(email).",
                "The user is told by email at \(email) (queued: the server sends it through \(mail.destination) within seconds).")
    }

    /// Asks on the terminal; without one, refuses (a script says --yes). A "no" ends the command with `refused`.
    static func confirm(_ question: String, refused: String = "Nothing removed.") throws {
        guard isatty(STDIN_FILENO) != 0 else {
            throw ValidationError("\(question)\nNo terminal to ask on: pass --yes to confirm.")
        }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw CLIError(refused) }
    }
}
