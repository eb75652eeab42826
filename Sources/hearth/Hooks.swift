import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth project hooks`: the project's blocking functions (issue 39) — Identity Platform's `blockingFunctions`
/// (the function URL per event and the credentials forwarded), changed as the admin API's `PATCH …/config
/// ?updateMask=blockingFunctions…` changes them (``AdminService/updateProjectSettings(_:by:in:)``: the URL policy,
/// `updateTime`, the audit entry `config.update`), and a test event sent to a function.
struct ProjectHooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hooks",
        abstract: "Show, set, remove or test the project's blocking functions (beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms).",
        discussion: """
            Hearth posts each event, as a JWT signed with its ID-token keys, to the function's HTTPS URL, as Identity \
            Platform does: a function written with firebase-functions runs unchanged (docs/hooks.md). The functions are \
            the project's; users of every tenant go through them. \
            Example: hearth project hooks set --before-create https://hooks.example.com/before-create
            """,
        subcommands: [Show.self, Set.self, Remove.self, Test.self],
        defaultSubcommand: Show.self)

    /// An event named on the command line: Firebase's short name (`beforeCreate`), its long form
    /// (`providers/cloud.auth/eventTypes/user.beforeCreate`) or a dashed one (`before-create`), in any case.
    static func event(named name: String) throws -> BlockingEventType {
        let folded = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        if let event = BlockingEventType(name: name) ?? BlockingEventType.allCases.first(where: { $0.rawValue.lowercased() == folded }) {
            return event
        }
        throw ValidationError("unknown event \"\(String(name.prefix(80)))\": use \(eventNames)")
    }

    /// The four events, for messages.
    static let eventNames = "beforeCreate, beforeSignIn, beforeSendEmail or beforeSendSms"

    /// The option that sets an event's function (`--before-sign-in`).
    static func option(for event: BlockingEventType) -> String {
        switch event {
        case .beforeCreate: "--before-create"
        case .beforeSignIn: "--before-sign-in"
        case .beforeSendEmail: "--before-send-email"
        case .beforeSendSms: "--before-send-sms"
        }
    }

    /// A test event's outcome: the URL, the status and time, what the function decided, its answer (one line, shortened).
    static func describe(_ result: BlockingTestResult) -> String {
        var lines = [
            "event       \(result.event.rawValue)",
            "function    \(result.functionUri ?? "-")",
            "answer      " + (result.httpStatus.map { "HTTP \($0)" } ?? "none") + " in \(BlockingTestResult.words(result.duration))",
            "outcome     " + result.verdict,
        ]
        if let body = result.shortAnswer { lines.append("body        \(body)") }
        return lines.joined(separator: "\n")
    }

    /// `show` and the answer of `set` / `remove`.
    static func describe(_ config: ProjectConfig) -> String {
        let functions = config.blockingFunctions ?? BlockingFunctionsConfig()
        func word(_ flag: Bool?) -> String { flag == true ? "on" : "off" }
        var lines = ["project                  \(config.projectId)"]
        for event in BlockingEventType.allCases {
            let name = event.rawValue.padding(toLength: 25, withPad: " ", startingAt: 0)
            if let trigger = functions.trigger(for: event) {
                lines.append(name + trigger.functionUri + (trigger.updateTime.map { "  (set \($0))" } ?? ""))
            } else {
                lines.append(name + "-")
            }
        }
        let forward = functions.forwardInboundCredentials
        lines += [
            "forward ID token         \(word(forward?.idToken))",
            "forward access token     \(word(forward?.accessToken))",
            "forward refresh token    \(word(forward?.refreshToken))",
        ]
        return lines.joined(separator: "\n")
    }

    /// The admin service for a hooks command: the URL policy the server has from the same settings
    /// (`hooks.allow.private.networks`, `dev`, from the configuration file or the environment), or the flags given.
    static func withService<T: Sendable>(_ storeOptions: StoreOptions, projectId: String?, _ policy: Policy,
                                         _ body: (AdminService, any HearthStore, Settings) async throws -> T) async throws -> T {
        try await storeOptions.withStoreAndSettings(projectId: projectId) { store, settings in
            let mail = (try? await store.projectConfig(projectId: settings.projectId))?.servedMail
            let rules = BlockingFunctionSettings(allowPrivateNetworks: policy.allowPrivateNetworks || settings[\.hooksAllowPrivateNetworks],
                                                 development: policy.dev || settings[\.dev])
            let service = AdminService.commandLine(store: store, projectId: settings.projectId, publicURL: settings.publicURL, mail: mail,
                                                   blockingFunctions: rules)
            return try await body(service, store, settings)
        }
    }

    /// What the server's URL policy allows beyond its settings (the flags of a command run apart from it).
    struct Policy: Sendable {
        var dev = false
        var allowPrivateNetworks = false
    }

    /// The server's URL policy, for a command run apart from it.
    struct PolicyOptions: ParsableArguments {
        @Flag(name: .customLong("dev"), help: "The server runs with --dev: accept http:// to a loopback host (as that server does).")
        var dev = false
        @Flag(name: .customLong("hooks-allow-private-networks"),
              help: "The server runs with --hooks-allow-private-networks: accept hosts on private, loopback and link-local networks.")
        var allowPrivateNetworks = false

        var policy: Policy { Policy(dev: dev, allowPrivateNetworks: allowPrivateNetworks) }
    }

    /// Applies `changes` through the admin service (checked and audited as the admin API's) and answers the project.
    static func change(_ storeOptions: StoreOptions, projectId: String?, _ policy: Policy,
                       _ changes: @escaping @Sendable (ProjectConfig) throws -> [ProjectSettingChange]) async throws -> ProjectConfig {
        try await withService(storeOptions, projectId: projectId, policy) { service, store, settings in
            let current = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            let list = try changes(current)
            _ = try await HearthCLI.plainly {
                try await service.updateProjectSettings(list, by: HearthCLI.principal, in: service.projectScope)
            }
            return try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each event's function URL (and when it was set) and the credentials forwarded.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            let config = try await storeOptions.withStoreAndSettings(projectId: project.projectId) { store, settings in
                try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            }
            print(ProjectHooks.describe(config))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the function called at an event, and which provider credentials beforeCreate and beforeSignIn receive.",
            discussion: """
                URLs are https:// (http:// only to a loopback host when the server runs with --dev); hosts on private, \
                loopback or link-local networks are refused unless the server's hooks.allow.private.networks setting is on. \
                Example: hearth project hooks set --before-sign-in https://hooks.example.com/before-sign-in --forward-id-token on
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @Option(name: .customLong("before-create"), help: "The function called before a user is created (https URL).") var beforeCreate: String?
        @Option(name: .customLong("before-sign-in"), help: "The function called before a user signs in (https URL).") var beforeSignIn: String?
        @Option(name: .customLong("before-send-email"), help: "The function called before an email action message is sent (https URL).") var beforeSendEmail: String?
        @Option(name: .customLong("before-send-sms"), help: "The function called before an SMS is sent (https URL).") var beforeSendSms: String?
        @Option(name: .customLong("forward-id-token"), help: "Send the provider's ID token (oauth_id_token) to beforeCreate/beforeSignIn (on/off).")
        var forwardIdToken: Project.Switch?
        @Option(name: .customLong("forward-access-token"), help: "Send the provider's access token (oauth_access_token) (on/off).")
        var forwardAccessToken: Project.Switch?
        @Option(name: .customLong("forward-refresh-token"), help: "Send the provider's refresh token (oauth_refresh_token) (on/off).")
        var forwardRefreshToken: Project.Switch?
        @OptionGroup var policy: PolicyOptions

        /// The URLs given, by event.
        var urls: [(BlockingEventType, String)] {
            [(.beforeCreate, beforeCreate), (.beforeSignIn, beforeSignIn), (.beforeSendEmail, beforeSendEmail), (.beforeSendSms, beforeSendSms)]
                .compactMap { event, url in url.map { (event, $0) } }
        }

        func validate() throws {
            for (event, url) in urls where url.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("\(ProjectHooks.option(for: event)) needs a URL (https://…); to call no function at \(event.rawValue): hearth project hooks remove \(event.rawValue)")
            }
        }

        func run() async throws {
            // Here rather than in validate(): a misspelt option (`--before-sign-up`) is then reported as unknown, not
            // as "nothing to set" (ArgumentParser validates before it reports leftover arguments).
            if urls.isEmpty, forwardIdToken == nil, forwardAccessToken == nil, forwardRefreshToken == nil {
                throw ValidationError("nothing to set: pass --before-create, --before-sign-in, --before-send-email or --before-send-sms with a URL, or --forward-id-token/--forward-access-token/--forward-refresh-token on|off (hearth project hooks remove <event> removes a function)")
            }
            let urls = urls
            let forward = (forwardIdToken?.isOn, forwardAccessToken?.isOn, forwardRefreshToken?.isOn)
            let config = try await ProjectHooks.change(storeOptions, projectId: project.projectId, policy.policy) { _ in
                var changes = urls.map { ProjectSettingChange.blockingFunctionTrigger($0.0, $0.1.trimmingCharacters(in: .whitespaces)) }
                if let on = forward.0 { changes.append(.blockingFunctionsForwardIdToken(on)) }
                if let on = forward.1 { changes.append(.blockingFunctionsForwardAccessToken(on)) }
                if let on = forward.2 { changes.append(.blockingFunctionsForwardRefreshToken(on)) }
                return changes
            }
            print(ProjectHooks.describe(config))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Call no function at the events named (beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms; or all).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The events whose function goes (beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms), or all.") var events: [String] = []

        func validate() throws {
            guard !events.isEmpty else { throw ValidationError("name the event whose function goes: \(ProjectHooks.eventNames) (or all)") }
            for name in events where name.lowercased() != "all" { _ = try ProjectHooks.event(named: name) }
        }

        func run() async throws {
            let chosen: [BlockingEventType] = events.contains { $0.lowercased() == "all" }
                ? BlockingEventType.allCases : try events.map(ProjectHooks.event(named:))
            let config = try await ProjectHooks.change(storeOptions, projectId: project.projectId, Policy()) { current in
                let configured = chosen.filter { current.blockingFunctions?.trigger(for: $0) != nil }
                guard !configured.isEmpty else {
                    throw CLIError("no function is set for \(chosen.map(\.rawValue).joined(separator: ", ")): nothing to remove (hearth project hooks shows them)")
                }
                return configured.map { ProjectSettingChange.blockingFunctionTrigger($0, nil) }
            }
            print(ProjectHooks.describe(config))
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a test event to an event's function and print its answer (status, time, what it decided).",
            discussion: """
                The event is signed like a real one, for a made-up user (uid hearth-test-event); nothing is stored whatever \
                the function answers. Exits 0 when the function answered (allowing or refusing), 1 when it failed (no \
                answer within the deadline, an error status without Firebase's error body, an answer that is not one). \
                Example: hearth project hooks test beforeSignIn
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The event: beforeCreate, beforeSignIn, beforeSendEmail or beforeSendSms.") var event: String
        @OptionGroup var policy: PolicyOptions

        func validate() throws { _ = try ProjectHooks.event(named: event) }

        func run() async throws {
            let event = try ProjectHooks.event(named: event)
            let result = try await ProjectHooks.withService(storeOptions, projectId: project.projectId, policy.policy) { service, store, settings in
                let config = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
                guard config.blockingFunctions?.trigger(for: event) != nil else {
                    throw CLIError("no function is set for \(event.rawValue): set one with hearth project hooks set \(ProjectHooks.option(for: event)) https://…")
                }
                return try await HearthCLI.plainly {
                    try await service.sendBlockingTestEvent(event, by: HearthCLI.principal, in: service.projectScope)
                }
            }
            print(ProjectHooks.describe(result))
            if !result.answered { throw ExitCode.failure }
        }
    }
}
