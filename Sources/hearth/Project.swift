import ArgumentParser
import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite

/// `hearth project`: the project's sign-in settings.
struct Project: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change the project's sign-in settings.",
        discussion: "Example: hearth project --email-enumeration-protection on --one-account-per-email on")

    /// `on` / `off`.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
        var isOn: Bool { self == .on }
    }

    @OptionGroup var storeOptions: StoreOptions
    @Option(name: .customLong("project-id"), help: "The project (default demo-hearth, env HEARTH_PROJECT_ID).")
    var projectId: String?
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
        let config = try await storeOptions.withStoreAndSettings(projectId: projectId) { store, settings in
            var config = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            if let emailEnumerationProtection { config.emailEnumerationProtection = emailEnumerationProtection.isOn }
            if let oneAccountPerEmail { config.allowDuplicateEmails = !oneAccountPerEmail.isOn }
            if let passwordSignIn { config.passwordSignInEnabled = passwordSignIn.isOn }
            if let anonymousSignIn { config.anonymousSignInEnabled = anonymousSignIn.isOn }
            if let acceptAnyApp { config.acceptAnyApp = acceptAnyApp.isOn }
            let changed = [emailEnumerationProtection, oneAccountPerEmail, passwordSignIn, anonymousSignIn, acceptAnyApp].contains { $0 != nil }
            if changed { try await store.saveProjectConfig(config) }
            return config
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
