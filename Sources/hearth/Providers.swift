import HearthWire
import ArgumentParser
import Foundation
import HearthCore
import HearthOIDC
import HearthServer
import HearthStore
import HearthStoreSQLite
import Logging

/// `hearth providers`: upstream identity providers (microsoft.com, yahoo.com, apple.com, google.com, oidc.*).
struct Providers: AsyncParsableCommand {
    /// The token vault's state for a provider as the server will apply it: on only with vault keys.
    static func vaultState(_ config: IdPConfig, keys: Bool) -> String {
        guard config.keepsProviderTokens else { return "off" }
        return keys ? "on" : "off (no vault keys: give the server --vault-keys-file; hearth vault new-key makes one)"
    }

    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "Enable, list and disable sign-in providers (microsoft.com, yahoo.com, apple.com, google.com, oidc.<name>).",
        subcommands: [Enable.self, List.self, Disable.self, Remove.self, Test.self]
    )

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enable a provider with the client id and secret registered at it.",
            discussion: "Register <public URL>/__/auth/handler as the redirect URI at the provider. The secret may also come from HEARTH_CLIENT_SECRET, which keeps it out of the shell history.")

        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>.")
        var providerId: String
        @Option(name: .customLong("client-id"), help: "The application (client) id registered at the provider (default: the stored one).")
        var clientId: String?
        @Option(name: .customLong("client-secret"), help: "The client secret (or set HEARTH_CLIENT_SECRET; default: the stored one).")
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
        @Option(name: .customLong("display-name"), help: "A name for people (shown in lists).")
        var displayName: String?
        @Option(name: .customLong("allowed-tenant"), help: ArgumentHelp(
            "microsoft.com: a tenant whose accounts may sign in (tenant id, verified domain, consumers or organizations); repeat for several. Replaces the stored list.",
            valueName: "tenant"))
        var allowedEntraTenants: [String] = []
        @Flag(name: .customLong("any-tenant"), help: "microsoft.com: allow every tenant again (clears the allow-list).")
        var anyEntraTenant = false
        @Flag(name: .customLong("token-vault"), inversion: .prefixedNo,
              help: "Keep the provider's refresh token in the token vault (default: on when the server has vault keys; --no-token-vault deletes the kept tokens).")
        var tokenVault: Bool?
        @Option(name: .customLong("native-client-id"), help: ArgumentHelp(
            "A client ID of a native app (MSAL, Yahoo's SDK) whose ID tokens signInWithIdp accepts; repeat for several. Replaces the stored list.",
            valueName: "client-id"))
        var nativeClientIds: [String] = []
        @Flag(name: .customLong("clear-native-client-ids"), help: "Accept ID tokens for the provider's own client ID only.")
        var clearNativeClientIds = false
        @Option(name: .customLong("services-id"), help: "apple.com: the Services ID of the web flow (its client id).")
        var servicesId: String?
        @Option(name: .customLong("team-id"), help: "apple.com: the Apple developer Team ID.")
        var teamId: String?
        @Option(name: .customLong("key-id"), help: "apple.com: the Key ID of the Sign in with Apple key.")
        var keyId: String?
        @Option(name: .customLong("private-key-file"), help: "apple.com: the .p8 file of that key (stored sealed, never shown again).")
        var privateKeyFile: String?
        @Option(name: .customLong("bundle-id"), help: ArgumentHelp(
            "apple.com: the bundle id of an app whose native Sign in with Apple ID tokens are accepted; repeat for several. Replaces the stored list.",
            valueName: "bundle-id"))
        var bundleIds: [String] = []
        @Option(name: .customLong("allowed-hosted-domain"), help: ArgumentHelp(
            "google.com: a Google Workspace domain whose accounts may sign in; repeat for several. Replaces the stored list.",
            valueName: "domain"))
        var allowedHostedDomains: [String] = []
        @Flag(name: .customLong("any-hosted-domain"), help: "google.com: allow every account again (clears the hosted-domain list).")
        var anyHostedDomain = false

        func validate() throws {
            if clearNativeClientIds, !nativeClientIds.isEmpty { throw ValidationError("give --native-client-id or --clear-native-client-ids, not both") }
            for id in nativeClientIds where id.isEmpty || id.count > 256 || id.contains(where: \.isWhitespace) {
                throw ValidationError("--native-client-id must be 1 to 256 characters without spaces")
            }
            guard let kind = IdPConfig.kind(forProviderId: providerId) else {
                throw ValidationError("\(providerId) is not supported: use microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>")
            }
            if kind != .apple, servicesId != nil || teamId != nil || keyId != nil || privateKeyFile != nil || !bundleIds.isEmpty {
                throw ValidationError("--services-id, --team-id, --key-id, --private-key-file and --bundle-id apply to apple.com only")
            }
            if kind == .apple, clientSecret != nil {
                throw ValidationError("apple.com has no client secret: give --team-id, --key-id and --private-key-file (Hearth makes the client secret from the key)")
            }
            if kind == .apple, servicesId != nil, clientId != nil { throw ValidationError("give --services-id or --client-id, not both") }
            if kind == .apple, !nativeClientIds.isEmpty || clearNativeClientIds {
                throw ValidationError("apple.com's native apps are its bundle ids: give --bundle-id instead of --native-client-id")
            }
            if kind != .google, !allowedHostedDomains.isEmpty || anyHostedDomain {
                throw ValidationError("--allowed-hosted-domain and --any-hosted-domain apply to google.com only")
            }
            if anyHostedDomain, !allowedHostedDomains.isEmpty { throw ValidationError("give --allowed-hosted-domain or --any-hosted-domain, not both") }
            if !allowedEntraTenants.isEmpty || anyEntraTenant {
                guard IdPConfig.kind(forProviderId: providerId) == .microsoft else {
                    throw ValidationError("--allowed-tenant and --any-tenant apply to microsoft.com only")
                }
                guard !(anyEntraTenant && !allowedEntraTenants.isEmpty) else { throw ValidationError("give --allowed-tenant or --any-tenant, not both") }
                do {
                    _ = try RelyingParty.normalizedEntraTenantAllowList(allowedEntraTenants)
                } catch let error as RelyingPartyError {
                    throw ValidationError(error.message)
                }
            }
            for url in [issuer, endpointBase, graphBase].compactMap({ $0 }) {
                guard let components = URLComponents(string: url), ["https", "http"].contains(components.scheme ?? ""), components.host != nil else {
                    throw ValidationError("\(url) is not an http(s) URL")
                }
            }
        }

        func run() async throws {
            let kind = IdPConfig.kind(forProviderId: providerId)!
            let given = clientSecret ?? ProcessInfo.processInfo.environment["HEARTH_CLIENT_SECRET"]
            let vaultKeys = try storeOptions.settings().providerTokenKeys != nil
            let (config, keptSecret) = try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                let store = scope.store
                // Settings not given are kept from the stored registration (disable then enable keeps the secret).
                let stored = try await store.idpConfig(providerId: providerId)
                guard let typedClientId = clientId ?? servicesId ?? stored?.clientId else {
                    throw ValidationError("give --client-id (the application id registered at \(providerId))")
                }
                // The admin API's and the console's rule, from the one validator.
                guard let clientId = IdPConfig.checkedClientId(typedClientId) else { throw ValidationError("--client-id: " + IdPConfig.clientIdProblem) }
                if kind == .oidc, (issuer ?? stored?.issuer) == nil { throw ValidationError("oidc.* providers need --issuer") }
                let sameClient = stored?.clientId == clientId
                let secret: String
                if kind == .apple {
                    // The .p8 key is the secret: read from the file, else the stored one for the same services id.
                    if let privateKeyFile {
                        guard let text = try? String(contentsOfFile: privateKeyFile, encoding: .utf8) else {
                            throw ValidationError("cannot read \(privateKeyFile): give the .p8 file downloaded from Apple")
                        }
                        secret = text
                    } else {
                        secret = sameClient ? stored?.clientSecret ?? "" : ""
                    }
                } else {
                    guard let value = given.flatMap({ $0.isEmpty ? nil : $0 }) ?? (sameClient ? stored?.clientSecret : nil) else {
                        throw ValidationError("give --client-secret or set HEARTH_CLIENT_SECRET")
                    }
                    secret = value
                }
                var config = IdPConfig(providerId: providerId, kind: kind, clientId: clientId, clientSecret: secret,
                                       issuer: issuer ?? stored?.issuer, endpointBase: endpointBase ?? stored?.endpointBase,
                                       graphBase: graphBase ?? stored?.graphBase, pkce: pkce ?? stored?.pkce,
                                       trustEmailVerified: trustEmailVerified || (stored?.trustEmailVerified ?? false),
                                       displayName: displayName ?? stored?.displayName)
                config.allowedEntraTenants = anyEntraTenant ? nil
                    : allowedEntraTenants.isEmpty ? stored?.allowedEntraTenants : try RelyingParty.normalizedEntraTenantAllowList(allowedEntraTenants)
                config.enabled = true
                config.tokenVault = tokenVault ?? stored?.tokenVault
                config.nativeClientIds = clearNativeClientIds ? nil : (nativeClientIds.isEmpty ? stored?.nativeClientIds : nativeClientIds)
                if kind == .apple {
                    config.appleTeamId = teamId ?? stored?.appleTeamId
                    config.appleKeyId = keyId ?? stored?.appleKeyId
                    config.appleBundleIds = bundleIds.isEmpty ? stored?.appleBundleIds : bundleIds
                }
                if kind == .google {
                    config.allowedHostedDomains = anyHostedDomain ? nil : (allowedHostedDomains.isEmpty ? stored?.allowedHostedDomains : allowedHostedDomains)
                }
                // The admin API's checks, token-vault rule and audit entry.
                do {
                    try await HearthCLI.answered { try await service.saveProvider(config, by: HearthCLI.principal, in: scope) }
                } catch let error as HearthAPIError {
                    throw ValidationError(error.description)
                }
                return (config, kind == .apple ? privateKeyFile == nil && !config.clientSecret.isEmpty : given == nil || given?.isEmpty == true)
            }
            let entraTenants = config.kind == .microsoft ? ", tenants: \(config.allowedEntraTenants.map { $0.isEmpty ? "any" : $0.joined(separator: ", ") } ?? "any")" : ""
            let native = config.nativeClientIds.map { ", native client ids \($0.joined(separator: ","))" } ?? ""
            print("Enabled \(providerId) (client id \(config.clientId), PKCE \(config.pkce ? "on" : "off")\(entraTenants), token vault \(Providers.vaultState(config, keys: vaultKeys))\(native)\(keptSecret ? ", stored secret kept" : "")).")
        }

    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List providers (secrets are never shown).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption

        func run() async throws {
            let vaultKeys = try storeOptions.settings().providerTokenKeys != nil
            let configs = try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ in try await scope.store.idpConfigs() }
            if configs.isEmpty { print("No providers. Enable one with: hearth providers enable microsoft.com --client-id … --client-secret …") }
            for config in configs {
                let endpoint = config.issuer ?? config.endpointBase ?? "default endpoints"
                let entraTenants = config.kind == .microsoft ? "\ttenants \(config.allowedEntraTenants.map { $0.isEmpty ? "any" : $0.joined(separator: ",") } ?? "any")" : ""
                let native = config.nativeClientIds.map { "\tnative clients \($0.joined(separator: ","))" } ?? ""
                print("\(config.providerId)\t\(config.enabled ? "enabled" : "disabled")\tclient \(config.clientId)\tsecret ********\t\(endpoint)\tPKCE \(config.pkce ? "on" : "off")\(entraTenants)\ttoken vault \(Providers.vaultState(config, keys: vaultKeys))\(native)")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a provider (its settings are kept).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The provider to disable (microsoft.com, yahoo.com, oidc.<name>).")
        var providerId: String

        func run() async throws {
            try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                do {
                    try await HearthCLI.answered { try await service.setProviderEnabled(providerId, false, by: HearthCLI.principal, in: scope) }
                } catch let error as HearthAPIError where [.configurationNotFound, .invalidProviderIdAdmin].contains(error.code) {
                    throw ValidationError("\(providerId) is not configured")
                }
            }
            print("Disabled \(providerId).")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a provider's configuration without a user: discovery, issuer, keys, client id and secret, redirect URI.",
            discussion: "Exits with status 1 when a check failed; each finding says what to fix. The client check redeems a made-up authorization code, which the provider refuses as invalid_grant when the client id and secret are right and as invalid_client when they are not.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The provider to check (microsoft.com, yahoo.com, oidc.<name>).")
        var providerId: String
        @Option(name: .customLong("public-url"), help: "The server's external URL (default: the configured public URL, else the URL the server last started with), which gives the redirect URI.")
        var publicURL: String?
        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let tenant = tenantOption.tenant
            let (config, base) = try await storeOptions.withService { service, store, settings in
                // The provider's configuration in the tenant `--tenant` names (each tenant its own client).
                let scope = try await TenantOption.scope(tenant, of: service)
                return (try await scope.store.idpConfig(providerId: providerId), await settings.serverURL(store: store, explicit: publicURL))
            }
            guard let config else {
                let flag = tenant.map { " --tenant \($0)" } ?? ""
                throw ValidationError("\(providerId) is not configured\(tenant.map { " in tenant \($0)" } ?? ""): hearth providers enable \(providerId)\(flag) --client-id …")
            }
            let started = Date()
            let report = await RelyingParty().checkConfiguration(config, redirectUri: PublicBaseURL(base).authHandlerURL) { step in
                // Progress on standard error (the report itself goes to standard output).
                FileHandle.standardError.write(Data("[\(String(format: "%4.1f", Date().timeIntervalSince(started))) s] \(step)\n".utf8))
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(report.text)
            }
            if !report.ok { throw ExitCode(1) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a provider's settings.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The provider whose settings to remove.")
        var providerId: String

        func run() async throws {
            try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                do {
                    // The provider's kept tokens (token vault) go with its settings.
                    try await HearthCLI.answered { try await service.removeProvider(providerId, by: HearthCLI.principal, in: scope) }
                } catch let error as HearthAPIError where error.code == .configurationNotFound {
                    throw ValidationError("\(providerId) is not configured")
                }
            }
            print("Removed \(providerId).")
        }
    }
}

/// `hearth apps`: the apps allowed to receive sign-in results, and the project's authorized domains.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Register Apple and desktop apps that may receive sign-in results.",
        subcommands: [AddApple.self, AddDesktop.self, List.self, Remove.self, ProjectDomains.self]
    )

    struct AddApple: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-apple",
            abstract: "An iOS/macOS app: bundle id plus Firebase app id (scheme app-<id>) or OAuth client id (reversed scheme).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("bundle-id"), help: "The app's bundle id, e.g. com.example.notes.")
        var bundleId: String
        @Option(name: .customLong("app-id"), help: "The Firebase app id, e.g. 1:1234567890:ios:0a1b2c3d4e5f.")
        var appId: String?
        @Option(name: .customLong("client-id"), help: "The OAuth client id, e.g. 1234-abcd.apps.googleusercontent.com.")
        var clientId: String?
        @Option(name: .customLong("team-id"),
                help: "The Apple developer team id, e.g. ABCDE12345: lists the app in /.well-known/apple-app-site-association (webcredentials, for passkeys).")
        var teamId: String?
        @Flag(help: "Replace an existing registration of the same bundle id.")
        var replace = false

        static func isBundleId(_ text: String) -> Bool { AppRegistration.isBundleId(text) }
        static func isAppId(_ text: String) -> Bool { AppRegistration.isAppId(text) }
        static func isClientId(_ text: String) -> Bool { AppRegistration.isClientId(text) }

        func validate() throws {
            guard Self.isBundleId(bundleId) else {
                throw ValidationError("--bundle-id \(bundleId) is not a bundle id (letters, digits and hyphens in dot-separated parts, e.g. com.example.notes)")
            }
            guard appId != nil || clientId != nil else { throw ValidationError("give --app-id or --client-id") }
            if let appId, !Self.isAppId(appId) {
                throw ValidationError("--app-id \(appId) is not a Firebase Apple app id (1:<project number>:ios:<hex>, e.g. 1:1234567890:ios:0a1b2c3d)")
            }
            if let clientId, !Self.isClientId(clientId) {
                throw ValidationError("--client-id \(clientId) is not an OAuth client id (e.g. 1234-abcd.apps.googleusercontent.com)")
            }
            if let teamId, !AppRegistration.isTeamId(teamId) {
                throw ValidationError("--team-id \(teamId) is not a team id: \(AppRegistration.teamIdProblem)")
            }
        }

        func run() async throws {
            let app = AppRegistration(id: "apple:\(bundleId)", kind: .apple, bundleId: bundleId, appId: appId, clientId: clientId, teamId: teamId)
            let replaced = try await storeOptions.withService { service, store, _ in
                let existing = try await store.apps().first { $0.id == app.id }
                if let existing, existing != app, !replace {
                    throw CLIError("\(bundleId) is already registered (app id \(existing.appId ?? "-"), client id \(existing.clientId ?? "-"), team id \(existing.teamId ?? "-")): pass --replace to replace it, or remove it first (hearth apps remove \(app.id))")
                }
                guard existing != app else { return false }
                try await HearthCLI.plainly {
                    if existing != nil { try await service.removeApp(id: app.id, by: HearthCLI.principal) }
                    try await service.registerApp(app, by: HearthCLI.principal)
                }
                return existing != nil
            }
            print("\(replaced ? "Replaced" : "Registered") \(bundleId); callback scheme \(AuthHandlerProtocol.callbackScheme(appId: appId, clientId: clientId) ?? "-").")
            if let identifier = app.appleAppIdentifier {
                print("Listed as \(identifier) in \(WirePaths.appleAppSiteAssociation) (webcredentials).")
            }
        }
    }

    struct AddDesktop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-desktop",
            abstract: "A desktop or CLI app receiving results on a loopback address (it sends appId=<id>).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The app id the desktop app sends (appId=<id>), e.g. hearth-cli.")
        var id: String

        func run() async throws {
            let app = AppRegistration(id: id, kind: .desktop, name: id)
            try await storeOptions.withService { service, store, _ in
                // Registering the same desktop app again changes nothing.
                guard try await store.apps().first(where: { $0.id == id }) != app else { return }
                try await HearthCLI.plainly { try await service.registerApp(app, by: HearthCLI.principal) }
            }
            print("Registered desktop app \(id) (loopback redirects on 127.0.0.1 and [::1]).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let apps = try await storeOptions.withStore { try await $0.apps() }
            if apps.isEmpty { print("No apps registered.") }
            for app in apps {
                print("\(app.id)\t\(app.kind.rawValue)\t\(app.bundleId ?? "")\t\(app.appId ?? app.clientId ?? "")\t\(app.teamId ?? "")")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an app by id.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The registration id, as hearth apps list shows it (apple:<bundle id> or the desktop id).")
        var id: String

        func run() async throws {
            try await storeOptions.withService { service, _, _ in
                do {
                    try await HearthCLI.answered { try await service.removeApp(id: id, by: HearthCLI.principal) }
                } catch let error as HearthAPIError where error.code == .configurationNotFound {
                    throw ValidationError("no app \(id)")
                }
            }
            print("Removed \(id).")
        }
    }
}
