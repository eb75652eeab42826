import ArgumentParser
import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import Logging

/// `hearth providers`: upstream identity providers (microsoft.com, yahoo.com, oidc.*).
struct Providers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "Enable, list and disable sign-in providers (microsoft.com, yahoo.com, oidc.<name>).",
        subcommands: [Enable.self, List.self, Disable.self, Remove.self]
    )

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enable a provider with the client id and secret registered at it.",
            discussion: "Register <public URL>/__/auth/handler as the redirect URI at the provider. The secret may also come from HEARTH_CLIENT_SECRET, which keeps it out of the shell history.")

        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "microsoft.com, yahoo.com or oidc.<name>.")
        var providerId: String
        @Option(name: .customLong("client-id")) var clientId: String
        @Option(name: .customLong("client-secret"), help: "The client secret (or set HEARTH_CLIENT_SECRET).")
        var clientSecret: String?
        @Option(help: "The issuer URL of an oidc.* provider.")
        var issuer: String?
        @Option(name: .customLong("endpoint-base"), help: "Override the provider's base URL (Microsoft authority host, Yahoo host).")
        var endpointBase: String?
        @Option(name: .customLong("graph-base"), help: "Override Microsoft Graph's base URL.")
        var graphBase: String?
        @Flag(inversion: .prefixedNo, help: "Send PKCE (default: on, off for yahoo.com).")
        var pkce: Bool?
        @Flag(name: .customLong("trust-email-verified"), help: "oidc.*: treat the provider's email_verified claim as proof.")
        var trustEmailVerified = false
        @Option(name: .customLong("display-name")) var displayName: String?

        func validate() throws {
            guard let kind = IdPConfig.kind(forProviderId: providerId) else {
                throw ValidationError("\(providerId) is not supported: use microsoft.com, yahoo.com or oidc.<name>")
            }
            if kind == .oidc, issuer == nil { throw ValidationError("oidc.* providers need --issuer") }
            for url in [issuer, endpointBase, graphBase].compactMap({ $0 }) {
                guard let components = URLComponents(string: url), ["https", "http"].contains(components.scheme ?? ""), components.host != nil else {
                    throw ValidationError("\(url) is not an http(s) URL")
                }
            }
        }

        func run() async throws {
            let kind = IdPConfig.kind(forProviderId: providerId)!
            guard let secret = clientSecret ?? ProcessInfo.processInfo.environment["HEARTH_CLIENT_SECRET"], !secret.isEmpty else {
                throw ValidationError("give --client-secret or set HEARTH_CLIENT_SECRET")
            }
            let config = IdPConfig(providerId: providerId, kind: kind, clientId: clientId, clientSecret: secret, issuer: issuer,
                                   endpointBase: endpointBase, graphBase: graphBase, pkce: pkce, trustEmailVerified: trustEmailVerified,
                                   displayName: displayName)
            try await storeOptions.withStore { try await $0.saveIdPConfig(config) }
            print("Enabled \(providerId) (client id \(clientId), PKCE \(config.pkce ? "on" : "off")).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List providers (secrets are never shown).")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let configs = try await storeOptions.withStore { try await $0.idpConfigs() }
            if configs.isEmpty { print("No providers. Enable one with: hearth providers enable microsoft.com --client-id … --client-secret …") }
            for config in configs {
                let endpoint = config.issuer ?? config.endpointBase ?? "default endpoints"
                print("\(config.providerId)\t\(config.enabled ? "enabled" : "disabled")\tclient \(config.clientId)\tsecret ********\t\(endpoint)\tPKCE \(config.pkce ? "on" : "off")")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a provider (its settings are kept).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var providerId: String

        func run() async throws {
            let config = try await storeOptions.withStore { store in
                guard var config = try await store.idpConfig(providerId: providerId) else { return IdPConfig?.none }
                config.enabled = false
                try await store.saveIdPConfig(config)
                return config
            }
            guard config != nil else { throw ValidationError("\(providerId) is not configured") }
            print("Disabled \(providerId).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a provider's settings.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var providerId: String

        func run() async throws {
            let removed = try await storeOptions.withStore { try await $0.deleteIdPConfig(providerId: providerId) }
            guard removed else { throw ValidationError("\(providerId) is not configured") }
            print("Removed \(providerId).")
        }
    }
}

/// `hearth apps`: the apps allowed to receive sign-in results, and the project's authorized domains.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Register Apple and desktop apps that may receive sign-in results.",
        subcommands: [AddApple.self, AddDesktop.self, List.self, Remove.self, Domains.self]
    )

    struct Domains: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or change the project's authorized domains (getProjectConfig.authorizedDomains).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("project-id"), help: "The project (default demo-hearth, env HEARTH_PROJECT_ID).")
        var projectId: String?
        @Option(help: "A domain to add.") var add: [String] = []
        @Option(help: "A domain to remove.") var remove: [String] = []

        func run() async throws {
            let project = projectId ?? ProcessInfo.processInfo.environment["HEARTH_PROJECT_ID"] ?? "demo-hearth"
            for domain in add where domain.isEmpty || domain.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
                throw ValidationError("\(domain) is not a domain name")
            }
            let config = try await storeOptions.withStore { store in
                var config = try await store.projectConfig(projectId: project) ?? ProjectConfig(projectId: project)
                config.authorizedDomains.removeAll { remove.contains($0) }
                for domain in add.map({ $0.lowercased() }) where !config.authorizedDomains.contains(domain) {
                    config.authorizedDomains.append(domain)
                }
                if !add.isEmpty || !remove.isEmpty { try await store.saveProjectConfig(config) }
                return config
            }
            print(config.authorizedDomains.joined(separator: "\n"))
        }
    }

    struct AddApple: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-apple",
            abstract: "An iOS/macOS app: bundle id plus Firebase app id (scheme app-<id>) or OAuth client id (reversed scheme).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("bundle-id")) var bundleId: String
        @Option(name: .customLong("app-id")) var appId: String?
        @Option(name: .customLong("client-id")) var clientId: String?

        func run() async throws {
            guard appId != nil || clientId != nil else { throw ValidationError("give --app-id or --client-id") }
            let app = AppRegistration(id: "apple:\(bundleId)", kind: .apple, bundleId: bundleId, appId: appId, clientId: clientId)
            try await storeOptions.withStore { try await $0.saveApp(app) }
            print("Registered \(bundleId); callback scheme \(AppRegistration.callbackScheme(appId: appId, clientId: clientId) ?? "-").")
        }
    }

    struct AddDesktop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-desktop",
            abstract: "A desktop or CLI app receiving results on a loopback address (it sends appId=<id>).")
        @OptionGroup var storeOptions: StoreOptions
        @Option var id: String

        func run() async throws {
            try await storeOptions.withStore { try await $0.saveApp(AppRegistration(id: id, kind: .desktop, name: id)) }
            print("Registered desktop app \(id) (loopback redirects on 127.0.0.1 and [::1]).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let apps = try await storeOptions.withStore { try await $0.apps() }
            if apps.isEmpty { print("No apps registered.") }
            for app in apps { print("\(app.id)\t\(app.kind.rawValue)\t\(app.bundleId ?? "")\t\(app.appId ?? app.clientId ?? "")") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an app by id.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var id: String

        func run() async throws {
            let removed = try await storeOptions.withStore { try await $0.deleteApp(id: id) }
            guard removed else { throw ValidationError("no app \(id)") }
            print("Removed \(id).")
        }
    }
}
