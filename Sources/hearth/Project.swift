import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthStoreSQLite
import HearthWire

/// `hearth project`: the project's sign-in settings.
struct Project: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change the project's sign-in settings.",
        discussion: "Example: hearth project --email-enumeration-protection on --one-account-per-email on",
        subcommands: [ProjectMultiFactor.self, ProjectPasskeys.self, ProjectDomains.self, ProjectHooks.self, ProjectSms.self])

    /// `on` / `off`.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
        var isOn: Bool { self == .on }
    }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var project: ProjectOption
    @Option(name: .customLong("email-enumeration-protection"), help: "createAuthUri reveals nothing about emails (on/off).")
    var emailEnumerationProtection: Switch?
    @Option(name: .customLong("one-account-per-email"), help: "A provider sign-in with another account's email asks for confirmation (on/off).")
    var oneAccountPerEmail: Switch?
    @Option(name: .customLong("password-sign-in"), help: "Email/password sign-up and sign-in (on/off).")
    var passwordSignIn: Switch?
    @Option(name: .customLong("anonymous-sign-in"), help: "Anonymous sign-up (on/off).")
    var anonymousSignIn: Switch?
    @Option(name: .customLong("accept-any-app"), help: "Accept any app and loopback redirect (development only; on/off).")
    var acceptAnyApp: Switch?

    func run() async throws {
        let config = try await storeOptions.withService(projectId: project.projectId) { service, store, settings in
            _ = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            // The project's settings as the admin API changes them (one audit entry config.update for the switches given).
            var changes: [ProjectSettingChange] = []
            if let emailEnumerationProtection { changes.append(.emailEnumerationProtection(emailEnumerationProtection.isOn)) }
            if let oneAccountPerEmail { changes.append(.allowDuplicateEmails(!oneAccountPerEmail.isOn)) }
            if let passwordSignIn { changes.append(.passwordSignIn(passwordSignIn.isOn)) }
            if let anonymousSignIn { changes.append(.anonymousSignIn(anonymousSignIn.isOn)) }
            try await HearthCLI.plainly {
                if !changes.isEmpty {
                    try await service.updateProjectSettings(changes, by: HearthCLI.principal, in: service.projectScope)
                }
                if let acceptAnyApp { try await service.setAcceptAnyApp(acceptAnyApp.isOn, by: HearthCLI.principal) }
            }
            return try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
        }
        func word(_ flag: Bool) -> String { flag ? "on" : "off" }
        print("""
            project                        \(config.projectId)
            email enumeration protection   \(word(config.emailEnumerationProtection))
            one account per email          \(word(config.oneAccountPerEmail))
            password sign-in               \(word(config.passwordSignInEnabled))
            anonymous sign-in              \(word(config.anonymousSignInEnabled))
            accept any app                 \(word(config.acceptAnyApp))
            authorized domains             \(config.authorizedDomains.joined(separator: ", "))
            """)
    }
}

/// `hearth project domains` (also `hearth apps domains`): the project's authorized domains — the sites whose pages
/// may use web sign-in (the auth handler's `redirectUrl`, the helper iframe's `frame-ancestors`) and receive email
/// action links (`continueUrl`). Changed as the console's Settings change them (checked, audited as `config.update`).
struct ProjectDomains: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domains",
        abstract: "Show or change the project's authorized domains (getProjectConfig.authorizedDomains).",
        discussion: """
            Web apps signing in with the Firebase JS SDK (popups, redirects, the helper iframe) and email action \
            continue URLs must be on one of these domains or a subdomain of one (any port). \
            Example: hearth project domains --add app.example.com --remove 127.0.0.1
            """)
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var project: ProjectOption
    @Option(help: "A domain to add, e.g. app.example.com (its subdomains are included; no scheme or port).") var add: [String] = []
    @Option(help: "A domain to remove.") var remove: [String] = []

    func validate() throws {
        for domain in add where domain.isEmpty || domain.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
            throw ValidationError("\(domain) is not a domain name: give a host name such as app.example.com (no scheme, port or path)")
        }
    }

    func run() async throws {
        let remove = remove.map { $0.lowercased() }
        let (domains, absent) = try await storeOptions.withService(projectId: project.projectId) { service, store, settings in
            var domains = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings).authorizedDomains
            let absent = remove.filter { domain in !domains.contains { $0.lowercased() == domain } }
            domains.removeAll { remove.contains($0.lowercased()) }
            for domain in add.map({ $0.lowercased() }) where !domains.contains(domain) { domains.append(domain) }
            if !add.isEmpty || !remove.isEmpty {
                try await HearthCLI.plainly {
                    _ = try await service.updateProjectSettings([.authorizedDomains(domains)], by: HearthCLI.principal, in: service.projectScope)
                }
            }
            return (domains, absent)
        }
        for domain in absent { FileHandle.standardError.write(Data("\(domain) was not an authorized domain\n".utf8)) }
        print(domains.joined(separator: "\n"))
    }
}

/// `--project-id`, in a group so that `hearth project` and its subcommands (`hearth project mfa …`) all receive it
/// (ArgumentParser gives a plain option of a parent command to the parent alone).
struct ProjectOption: ParsableArguments {
    @Option(name: .customLong("project-id"), help: "The project (default: env HEARTH_PROJECT_ID, else the one project the data holds, else demo-hearth).")
    var projectId: String?
}
