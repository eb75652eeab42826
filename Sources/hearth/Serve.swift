import ArgumentParser
import Foundation
import HearthCore
import HearthDevIdP
import HearthServer
import HearthStore
import HearthStoreSQLite
import HearthWire
import Hummingbird
import Logging
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `hearth serve`: runs the server until SIGINT/SIGTERM, then shuts down gracefully.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Hearth server (the default command).",
        discussion: "Settings without an option (environment or configuration file only):\n"
            + Settings.Key.all.filter { $0.form == .none }.map { "  \($0.described)" }.joined(separator: "\n"))

    // Every option is a setting (Settings.Table): its name, help and form come from the declaration, and its value
    // reaches the settings' reader through `options`, by the property's name (the option's, case and dashes aside).
    @Option(\.host) var host: String?
    @Option(\.port) var port: String?
    @OptionGroup var storeOptions: StoreOptions
    @Option(\.projectId) var projectId: String?
    @Option(\.apiKeys) var apiKey: [String] = []
    @Flag(\.dev) var dev = false
    @Option(\.publicURL) var publicURL: String?
    @Option(\.rateLimits) var rateLimits: String?
    @Option(\.rateLimitSignUpPerAddress) var rateLimitSignUpPerAddress: String?
    @Option(\.rateLimitPerAddress) var rateLimitPerAddress: String?
    @Option(\.rateLimitPerProject) var rateLimitPerProject: String?
    @Option(\.trustedProxies) var trustedProxy: [String] = []
    @Option(\.storeTimeout) var storeTimeout: String?
    @Option(\.smtpURL) var smtpURL: String?
    @Option(\.smtpCAFile) var smtpCAFile: String?
    @Option(\.mailFrom) var mailFrom: String?
    @Option(\.smsURL) var smsURL: String?
    @Option(\.oobCodeTTLReset) var oobCodeTTLReset: String?
    @Option(\.oobCodeTTLVerify) var oobCodeTTLVerify: String?
    @Option(\.oobCodeTTLSignIn) var oobCodeTTLSignIn: String?
    @Option(\.rateLimitEmailPerRecipient) var rateLimitEmailPerRecipient: String?
    @Option(\.rateLimitEmailPerAddress) var rateLimitEmailPerAddress: String?
    @Option(\.logLevel) var logLevel: String?
    @Option(\.vaultKeysFile) var vaultKeysFile: String?
    @Option(\.logFormat) var logFormat: String?
    @Option(\.metricsAccess) var metricsAccess: String?
    @Option(\.metricsToken) var metricsToken: String?
    @Flag(\.emulatorAdmin) var emulatorAdmin = false
    @Flag(\.emulatorAdminAllowRemote) var emulatorAdminAllowRemote = false
    @Flag(\.hooksAllowPrivateNetworks) var hooksAllowPrivateNetworks = false
    @Option(\.consoleIdleTimeout) var consoleIdleTimeout: String?
    @Flag(\.consoleLink) var noConsoleLink = false

    /// The settings given on the command line, by key (the reader's first source): every option above, found by its
    /// property's name, and the store options.
    var options: [Settings.Key: Any] {
        var given = storeOptions.options
        for child in Mirror(reflecting: self).children {
            let value: Any?
            switch child.value {
            case let option as Option<String?>: value = option.wrappedValue
            case let option as Option<[String]>: value = option.wrappedValue.isEmpty ? nil : option.wrappedValue
            case let flag as Flag<Bool>: value = flag.wrappedValue ? true : nil
            default: continue
            }
            guard let label = child.label, let key = Settings.Key.forProperty(label) else {
                preconditionFailure("serve's \(child.label ?? "?") is named like no setting's option: name it after its option")
            }
            if let value { given[key] = value }
        }
        return given
    }

    func run() async throws {
        let settings = try Settings.load(options: options, configFile: storeOptions.configFile)

        let level = Logger.Level(rawValue: settings[\.logLevel]) ?? .info
        let format = settings[\.logFormat]
        LoggingSystem.bootstrap { label in HearthLogHandler(label: label, format: format, level: level) }
        let logger = Logger(label: "hearth")
        var standardError = StandardError()
        // Start-up warnings: plain lines, or log entries when the log is JSON (a collector reads every line).
        func warn(_ text: String) {
            if format == .json { logger.warning("\(text)") } else { print("warning: \(text)", to: &standardError) }
        }
        for warning in Settings.unknownEnvironmentVariables() { warn(warning) }
        if let path = settings.providerTokenKeysFile,
           let permissions = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            warn("the vault key file \(path) can be read by other users (mode \(String(permissions & 0o777, radix: 8))): chmod 600 it")
        }
        if settings.database == nil, let mode = (try? FileManager.default.attributesOfItem(atPath: settings.dataDir))?[.posixPermissions] as? Int,
           mode & 0o077 != 0 {
            warn("the data directory \(settings.dataDir) can be read by other users (mode \(String(mode & 0o777, radix: 8))): it holds password hashes, signing keys and provider secrets; chmod 700 \(settings.dataDir)")
        }
        if ["0.0.0.0", "::", "[::]"].contains(settings.host), settings.publicURL == nil {
            warn("listening on \(settings.host) without --public-url: \(settings.host) is not an address a browser can reach, so the auth handler's redirect URI falls back to \(settings.publicBaseURL)/__/auth/handler, which is not reachable from other machines; pass --public-url with the address users and providers reach (e.g. https://auth.example.com)")
        }
        if let warning = Self.plainHTTPWarning(publicURL: settings.publicURL ?? (Self.wildcardHost(settings.host) ? nil : settings.publicBaseURL)) {
            warn(warning)
        }
        if settings[\.emulatorAdmin], !settings[\.emulatorAdminAllowRemote], !Self.isLoopbackHost(settings.host) {
            throw ValidationError("\(settings.place(\.emulatorAdmin)) makes anyone who reaches the port an administrator: it is refused on \(settings.host), a non-loopback address, unless \(Settings.forms(\.emulatorAdminAllowRemote)) is given too")
        }
        // What this start creates, so a start that fails (a port in use) leaves nothing behind.
        let databasePath = (settings.dataDir as NSString).appendingPathComponent("hearth.sqlite")
        let createsDirectory = settings.database == nil && !FileManager.default.fileExists(atPath: settings.dataDir)
        let createsDatabase = settings.database == nil && !FileManager.default.fileExists(atPath: databasePath)
        let store = try await HearthCLI.openStore(settings: settings, create: true, logger: Logger(label: "hearth.store"))
        let listening = Mutex(false)
        let wildcard = ["0.0.0.0", "::", "[::]"].contains(settings.host)
        var draft = HearthServerConfiguration(
            projectId: settings.projectId, apiKeys: Set(settings[\.apiKeys]), host: settings.host, port: settings.port,
            keyRotation: KeyRotationPolicy(rotationInterval: settings[\.keyRotationHours] * 3600),
            publicURL: settings.publicURL.map { PublicBaseURL($0) } ?? (wildcard ? PublicBaseURL(settings.publicBaseURL, derived: true) : nil))
        draft.emulatorAdminFlag = settings[\.emulatorAdmin]
        draft.providerTokenKeys = settings.providerTokenKeys
        let createsSecretKey = settings.database == nil && !FileManager.default.fileExists(atPath: LocalSecretKeyFile.path(directory: settings.dataDir))
        if createsSecretKey, !createsDatabase {
            // A database restored without its key file: a new key would strand every factor sealed with the old one.
            do {
                try await LocalSecretKeyFile.refuseNewKey(store: store, settings: settings)
            } catch {
                try? await store.close()
                throw error
            }
        }
        if settings.database == nil { draft.localSecretKeys = try LocalSecretKeyFile.loadOrCreate(directory: settings.dataDir) }
        draft.metricsAccess = settings.metricsAccess
        draft.metricsToken = settings[\.metricsToken]
        draft.rateLimits = settings.rateLimits
        draft.trustedProxies = try TrustedProxies(settings[\.trustedProxies])
        draft.emulatorAdminAllowRemote = settings[\.emulatorAdminAllowRemote]
        draft.blockingFunctions = BlockingFunctionSettings(allowPrivateNetworks: settings[\.hooksAllowPrivateNetworks], development: settings[\.dev])
        draft.storeTimeout = settings.storeTimeout
        draft.rsaSigner = settings[\.rsaSigner]
        draft.mail = MailConfiguration(transport: settings.smtp.map { SMTPMailTransport(configuration: $0) }, from: settings[\.mailFrom],
                                       devMailbox: settings[\.dev] || settings.projectId.hasPrefix("demo-"), lifetimes: settings.oobLifetimes)
        draft.sms = SmsConfiguration(sender: settings.smsSender, devSink: settings[\.dev] || settings.projectId.hasPrefix("demo-"))
        draft.consoleIdleTimeout = TimeInterval(settings[\.consoleIdleTimeout])
        let configuration = draft
        let linkDelivery = ConsoleLinkDelivery.choose(disabled: !settings[\.consoleLink], projectId: settings.projectId,
                                                      interactive: isatty(STDOUT_FILENO) != 0 && format == .text, dataDir: settings.dataDir)
        do {
            let devIdPs: DevIdentityProviders?
            if settings[\.dev] {
                let clients = try DevClientsFile.loadOrCreate(directory: settings.dataDir)
                devIdPs = try await DevIdentityProviders(publicURL: configuration.publicURL, microsoftClient: clients.microsoft,
                                                         yahooClient: clients.yahoo, appleCredentials: clients.apple ?? .random(),
                                                         googleClient: clients.google ?? DevGoogleProvider.randomClient())
            } else {
                devIdPs = nil
            }
            let app = try await buildApplication(configuration: configuration, store: store, devProviders: devIdPs, logger: logger) { report in
                // From here on the data is live: no later failure (a shutdown days later) may remove it.
                listening.withLock { $0 = true }
                let domains = (try? await store.projectConfig(projectId: settings.projectId))?.authorizedDomains
                    ?? (configuration.initialProjectConfig ?? ProjectConfig(projectId: settings.projectId)).authorizedDomains
                Self.printBanner(settings: settings, configuration: configuration, report: report, authorizedDomains: domains)
                await Self.deliverConsoleLink(linkDelivery, store: store, configuration: configuration, logger: logger)
            }
            try await runUntilStopped(app, logger: logger)
        } catch {
            try? await store.close()
            let bound = listening.withLock { $0 }
            if createsDatabase, !bound {
                for file in [databasePath, databasePath + "-wal", databasePath + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
            }
            if createsSecretKey, createsDatabase, !bound { try? FileManager.default.removeItem(atPath: LocalSecretKeyFile.path(directory: settings.dataDir)) }
            if createsDirectory, !bound, (try? FileManager.default.contentsOfDirectory(atPath: settings.dataDir))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: settings.dataDir)
            }
            throw Self.explain(error, settings: settings)
        }
        try await store.close()
    }

    /// Hands out a one-time login link for the web console (like a notebook server's token link), as chosen by
    /// ``ConsoleLinkDelivery``: printed, written to an owner-only file whose path is printed, or not at all.
    static func deliverConsoleLink(_ delivery: ConsoleLinkDelivery, store: any HearthStore, configuration: HearthServerConfiguration,
                                   logger: Logger) async {
        if case .none = delivery { return }
        let minutes = Int(configuration.consoleLoginLinkLifetime / 60)
        do {
            let link = try await ConsoleAccess.issueLoginLink(store: store, publicURL: configuration.publicURL.url,
                                                              lifetime: configuration.consoleLoginLinkLifetime)
            switch delivery {
            case .none:
                return
            case .print:
                FileHandle.standardOutput.write(Data("Console: open \(link) to sign in (works once, for \(minutes) minutes; hearth console login-link prints another).\n".utf8))
            case .file(let path):
                try ConsoleLinkDelivery.write(link, to: path)
                FileHandle.standardOutput.write(Data("Console: a one-time login link (works once, for \(minutes) minutes) is in \(path), readable by this user only; or run hearth console login-link.\n".utf8))
            }
        } catch {
            logger.error("could not create a console login link", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    /// Listener errors in words: the port and what to do.
    static func explain(_ error: any Error, settings: Settings) -> any Error {
        guard let error = error as? IOError else { return error }
        switch error.errnoCode {
        case EADDRINUSE: return CLIError("port \(settings.port) is in use; pick another with --port (or stop the other server)")
        case EACCES: return CLIError("not allowed to listen on port \(settings.port) (ports below 1024 need privileges); pick another with --port")
        case EADDRNOTAVAIL: return CLIError("cannot listen on \(settings.host): this machine has no such address; check --host")
        default: return CLIError("cannot listen on \(settings.host):\(settings.port): check --host and --port")
        }
    }

    static func describe(_ access: MetricsAccess) -> String {
        switch access {
        case .local: "programs on this machine; see --metrics-access"
        case .public: "anyone who reaches the port"
        case .token: "bearer token"
        case .off: "off"
        }
    }

    static func isLoopbackHost(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    static func wildcardHost(_ host: String) -> Bool { ["0.0.0.0", "::", "[::]"].contains(host) }

    /// A warning for a plain-http public URL whose host is not this machine (issue 35): passwords, tokens and
    /// session cookies cross the network unencrypted, and browsers and providers refuse what needs a secure origin.
    static func plainHTTPWarning(publicURL: String?) -> String? {
        guard let publicURL, let components = URLComponents(string: publicURL), components.scheme?.lowercased() == "http",
              let host = components.host?.lowercased(), !host.isEmpty,
              !(isLoopbackHost(host) || host.hasSuffix(".localhost"))
        else { return nil }
        return "the public URL \(publicURL) is plain http on \(host), which is not this machine: passwords, ID and refresh tokens and console sessions cross the network unencrypted, browsers allow passkeys only on https (or localhost), and Microsoft, Google and Apple accept http redirect URIs only for localhost. Serve it over https behind a TLS proxy (--public-url https://…, docs/deployment.md#tls)"
    }

    /// The rate limits in one line for the banner.
    static func describe(_ limits: RateLimitConfiguration) -> String {
        guard limits.enabled, let signUp = limits.rules[.signUp], let signIn = limits.rules[.signInWithPassword] else {
            return "off (on by default for non-demo projects; --rate-limits on to enable)"
        }
        return "per address \(signUp.perAddress.limit) sign-ups/hour, \(signIn.perAddress.limit)/minute for password sign-in, createAuthUri and the auth handler each; per project \(signIn.perProject.limit)/minute each"
    }

    /// Where the project's email goes, for the banner.
    static func describeMail(_ configuration: HearthServerConfiguration) -> String {
        let dev = configuration.mail.devMailbox ? "the dev mailbox (\(configuration.publicURL.url)\(WirePaths.devMail))" : nil
        if let transport = configuration.mail.transport {
            return "SMTP relay \(transport.summary), from \(configuration.mail.from)" + (dev.map { "; copies in \($0)" } ?? "")
        }
        if let dev { return "\(dev) only (no --smtp-url: nothing leaves this machine)" }
        return "NOT CONFIGURED: password reset and verification emails are refused until --smtp-url (env HEARTH_SMTP_URL) is set (docs/email.md)"
    }

    /// Where the project's text messages go, for the banner.
    static func describeSms(_ configuration: HearthServerConfiguration) -> String {
        let dev = configuration.sms.devSink ? "the dev SMS sink (\(configuration.publicURL.url)\(WirePaths.devSms))" : nil
        if let sender = configuration.sms.sender { return sender.summary + (dev.map { "; copies in \($0)" } ?? "") }
        if let dev { return "\(dev) only (no --sms-url: nothing leaves this machine)" }
        return "NOT CONFIGURED: phone sign-in and SMS second factors are refused until --sms-url (env HEARTH_SMS_URL) is set (docs/phone.md)"
    }

    /// `--dev`: how to point a web app's Firebase JS SDK at this server (docs/web.md), below the try-it line.
    static func webAppLines(publicURL: String, authorizedDomains: [String]) -> [String] {
        let components = URLComponents(string: publicURL)
        let origin = components.map { parts in
            var origin = parts
            origin.path = ""
            origin.query = nil
            origin.fragment = nil
            return origin.string ?? publicURL
        } ?? publicURL
        let authDomain = origin.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "https://", with: "")
        var lines = [
            "  web apps:      connectAuthEmulator(auth, '\(origin)', {disableWarnings: true}) with authDomain: '\(authDomain)' in the app's config (docs/web.md)",
            "                 pages on " + (authorizedDomains.isEmpty ? "no domain (none authorized)" : authorizedDomains.joined(separator: ", "))
                + " (a name's subdomains too, any port) may sign in; more with hearth project domains --add <domain>",
            "                 try it: open \(publicURL)/__dev/try/web (the JS SDK's popup flow, in a browser)",
        ]
        if let path = components?.path, !path.isEmpty, path != "/" {
            lines.insert("                 the SDK drops the path \(path): serve Hearth at the root of \(origin) for web apps", at: 1)
        }
        return lines
    }

    static func printBanner(settings: Settings, configuration: HearthServerConfiguration, report: StartupReport, authorizedDomains: [String]) {
        let port = report.port
        let base = "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)"
        let keys = configuration.acceptsAnyAPIKey
            ? "any API key (demo project, no --api-key given)"
            : configuration.apiKeys.isEmpty ? "no API key: give --api-key (every request will be refused)"
            : "\(configuration.apiKeys.count) configured API key(s)"
        var lines = [
            "Hearth is serving project \(settings.projectId) at \(base)",
            "  data:          \(settings.storeDescription)",
            "  accepts:       \(keys)",
            "  accounts v1:   \(base)/identitytoolkit.googleapis.com/v1/accounts:{signUp,signInWithPassword,lookup,update,delete,createAuthUri,signInWithCustomToken}",
            "  accounts v3:   \(base)/www.googleapis.com/identitytoolkit/v3/relyingparty/*",
            "  refresh:       \(base)/securetoken.googleapis.com/v1/token",
            "  x509 keys:     \(base)/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            "  JWKS:          \(base)/.well-known/jwks.json",
            "  admin API:     \(base)/identitytoolkit.googleapis.com/v1/projects/\(settings.projectId)/accounts… (token endpoint \(configuration.publicURL.url)/oauth2.googleapis.com/token)",
            configuration.emulatorAdminEnabled
                ? "  emulator host: FIREBASE_AUTH_EMULATOR_HOST=\(settings.host):\(port)\n  admin auth:    emulator credentials ('Bearer owner') accepted from \(configuration.emulatorAdminAllowRemote ? "ANY client" : "programs on this machine (loopback, no browser Origin)"): anyone who reaches the port is an administrator"
                : "  admin auth:    service-account access tokens only",
            "  auth handler:  \(configuration.publicURL.authHandlerURL)  (the redirect URI to register at providers)",
            configuration.providerTokenKeys.map { "  token vault:   on (key \($0.activeKeyId) seals, \($0.keyIds.count) key(s)); \(base)\(WirePaths.providerAccessToken)" }
                ?? "  token vault:   off (no vault keys: provider refresh tokens are not kept)",
            configuration.providerTokenKeys != nil ? "  TOTP secrets:  sealed with the vault keys"
                : configuration.localSecretKeys != nil ? "  TOTP secrets:  sealed with \(LocalSecretKeyFile.path(directory: settings.dataDir)) (back it up with the database)"
                : "  TOTP secrets:  stored UNSEALED (no vault keys: give --vault-keys-file so second-factor secrets are encrypted at rest)",
            "  operations:    \(base)/healthz, /readyz, /metrics (\(Self.describe(configuration.metricsAccess))), /openapi.json",
            "  rate limits:   \(Self.describe(configuration.rateLimits))",
            "  email:         " + Self.describeMail(configuration),
            "  SMS:           " + Self.describeSms(configuration),
            "  client address: " + (settings[\.trustedProxies].isEmpty
                ? "the connection's peer (X-Forwarded-For ignored; behind a reverse proxy give --trusted-proxy)"
                : "X-Forwarded-For from trusted proxies \(settings[\.trustedProxies].joined(separator: ", ")), else the peer"),
        ]
        if report.providers.isEmpty {
            lines.append("  providers:     none (hearth providers enable microsoft.com --client-id … , or serve --dev)")
        }
        for source in report.providers {
            let what = switch source.kind {
            case .configured: "real, configured (client id \(source.clientId))"
            case .disabled: "configured but disabled (hearth providers enable \(source.providerId) to turn it on)"
            case .devIdP:
                "dev IdP at \(configuration.publicURL.url)\(["yahoo.com": DevIdentityProviders.yahooPath, "apple.com": DevAppleProvider.path, "google.com": DevGoogleProvider.path][source.providerId] ?? DevIdentityProviders.microsoftPath) (this process only, nothing stored)"
            }
            lines.append("  provider:      \(source.providerId): \(what)")
        }
        if settings[\.dev] {
            lines.append("  dev clients:   \(DevClientsFile.path(directory: settings.dataDir)) (the dev IdPs' client IDs and secrets, to configure a provider against them through the admin API or the CLI)")
            lines.append("  try it:        open \(configuration.publicURL.url)/__dev/try?provider=microsoft.com (or yahoo.com, apple.com, google.com, or add &tenant=organizations) in a browser")
            lines += Self.webAppLines(publicURL: configuration.publicURL.url, authorizedDomains: authorizedDomains)
        }
        lines.append("Press Ctrl-C to stop.")
        // Unbuffered, so the banner shows at once even when stdout is a pipe.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// The dev IdPs' OAuth clients, kept in `<data dir>/dev-idp-clients.json` (0600) so they stay the same across
/// restarts and a person can configure `microsoft.com`/`yahoo.com`/`apple.com`/`google.com` against the dev IdPs with
/// them (the seeds' "paste the client ID and secret" step, offline). Nothing here is a real provider's secret.
struct DevClientsFile: Codable {
    var microsoft: DevIdentityProviders.Client
    var yahoo: DevIdentityProviders.Client
    /// The dev Apple provider's services id, team id, key id and `.p8` (absent in files of earlier versions: added).
    var apple: DevAppleProvider.Credentials?
    /// The dev Google provider's web client (absent in files of earlier versions: added).
    var google: DevIdentityProviders.Client?

    static func path(directory: String) -> String { (directory as NSString).appendingPathComponent("dev-idp-clients.json") }

    static func loadOrCreate(directory: String) throws -> DevClientsFile {
        let path = path(directory: directory)
        if let data = FileManager.default.contents(atPath: path) {
            guard var clients = try? JSONDecoder().decode(DevClientsFile.self, from: data) else {
                throw CLIError("\(path) is not a dev IdP clients file: remove it and it is made anew at the next start")
            }
            guard clients.apple == nil || clients.google == nil else { return clients }
            clients.apple = clients.apple ?? .random()
            clients.google = clients.google ?? DevGoogleProvider.randomClient()
            try write(clients, to: path, replacing: true)
            return clients
        }
        let clients = DevClientsFile(microsoft: .random(prefix: "dev-ms"), yahoo: .random(prefix: "dev-yahoo"), apple: .random(),
                                     google: DevGoogleProvider.randomClient())
        try write(clients, to: path, replacing: false)
        return clients
    }

    private static func write(_ clients: DevClientsFile, to path: String, replacing: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if replacing { try? FileManager.default.removeItem(atPath: path) }
        let created = FileManager.default.createFile(atPath: path, contents: try encoder.encode(clients), attributes: [.posixPermissions: 0o600])
        guard created else { throw CLIError("cannot write \(path): check that the data directory is writable") }
    }
}

/// Where `hearth serve` puts the start-up console login link. Whoever holds the link within its lifetime becomes
/// an administrator, so for a real (non-demo) project it is never written to output a log collector may keep:
/// printed only on an interactive terminal with text logs, otherwise written to an owner-only file.
enum ConsoleLinkDelivery: Equatable {
    case none
    case print
    case file(String)

    static func choose(disabled: Bool, projectId: String, interactive: Bool, dataDir: String) -> ConsoleLinkDelivery {
        if disabled { return .none }
        if projectId.hasPrefix("demo-") || interactive { return .print }
        return .file((dataDir as NSString).appendingPathComponent("console-login-link"))
    }

    /// Replaces `path` with a new file, mode 0600, holding `link` (never following a link planted at `path`).
    static func write(_ link: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = path + ".\(getpid()).tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot write the console login link to \(path): check that \(directory) is writable") }
        let bytes = Array((link + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError("cannot write the console login link to \(path)")
        }
    }
}

/// The embedded store's own key for sealing TOTP secrets when the server has no vault keys: one `id:base64` line
/// (the vault keys' format, so it can be appended to a vault keys file later), made on first start, mode 600.
enum LocalSecretKeyFile {
    static func path(directory: String) -> String { (directory as NSString).appendingPathComponent("totp-secrets.key") }

    /// Refuses to start when the key file is missing while stored TOTP secrets are sealed with a key neither the vault
    /// keys nor anything else here has: a new key would silently strand them (issue 35, item 11).
    static func refuseNewKey(store: any HearthStore, settings: Settings) async throws {
        guard let census = store as? any SealedSecretCensus else { return }
        let stranded = try await census.sealedTOTPFactors().missing(from: settings.providerTokenKeys?.keyIds ?? [])
        guard !stranded.isEmpty else { return }
        let path = path(directory: settings.dataDir)
        let users = stranded.users
        throw CLIError("""
            refusing to start: \(path) is missing, and \(stranded.summary) in \(settings.storeDescription), \
            the key that file held. A new key would leave those users unable to pass their second factor.
              - Put the key back: copy the key file of the backup this database came from (hearth backup writes it beside \
            the database copy, as <copy>.totp-secrets.key) to \(path), chmod 600 it, and start again.
              - If the key is lost for good: hearth users mfa remove-unopenable --data-dir \(settings.dataDir) --yes removes those \
            factors (their users are told by email and enroll again), then start again.
            Users: \(users.prefix(10).joined(separator: ", "))\(users.count > 10 ? " and \(users.count - 10) more" : "")
            """)
    }

    /// The key file's keys, nil when there is no file.
    static func load(directory: String) throws -> ProviderTokenKeys? {
        let path = path(directory: directory)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        do {
            return try ProviderTokenKeys.parse(text)
        } catch {
            throw ValidationError("\(path) is damaged (\(error)); restore it from a backup: the TOTP secrets sealed with it cannot be opened without it")
        }
    }

    static func loadOrCreate(directory: String) throws -> ProviderTokenKeys {
        let path = path(directory: directory)
        if let keys = try load(directory: directory) { return keys }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let line = ProviderTokenKeys.generate(id: "local-" + RandomID.alphanumeric(count: 6).lowercased()) + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write \(path): check the data directory's permissions")
        }
        return try ProviderTokenKeys.parse(line)
    }
}

