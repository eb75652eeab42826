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
    static let configuration = CommandConfiguration(abstract: "Run the Hearth server (the default command).")

    @Option(help: "Address to listen on (default 127.0.0.1, env HEARTH_HOST).")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port (default 9099, env HEARTH_PORT).")
    var port: String?

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("project-id"), help: "Firebase project id (default demo-hearth, env HEARTH_PROJECT_ID).")
    var projectId: String?

    @Option(name: .customLong("api-key"), help: "An accepted API key; repeat for several (env HEARTH_API_KEYS, comma-separated). With none, demo-* projects accept any key.")
    var apiKeys: [String] = []

    @Flag(help: "Run the built-in Microsoft- and Yahoo-shaped identity providers; they serve microsoft.com and yahoo.com unless you configured those yourself.")
    var dev = false

    @Option(name: .customLong("public-url"), help: "The server's external base URL (default http://<host>:<port>, env HEARTH_PUBLIC_URL). Register <public-url>/__/auth/handler at providers.")
    var publicURL: String?

    @Flag(name: .customLong("emulator-admin"), help: "Accept the Firebase Admin SDKs' emulator credentials ('Authorization: Bearer owner', unsigned custom tokens) for a non-demo project: anyone who reaches the port is an administrator. Always on for demo-* projects.")
    var emulatorAdmin = false

    @Flag(name: .customLong("emulator-admin-allow-remote"), help: "Accept the emulator credentials from non-loopback clients too (dangerous).")
    var emulatorAdminAllowRemote = false

    @Option(name: .customLong("console-idle-timeout"), help: "Seconds a web-console session may stay idle before it must sign in again (default 1800).")
    var consoleIdleTimeout: Int?

    @Flag(name: .customLong("no-console-link"), help: "Do not make a one-time console login link at start-up (by default: printed for demo-* projects and on an interactive terminal, otherwise written to <data-dir>/console-login-link, mode 0600).")
    var noConsoleLink = false

    @Option(name: .customLong("rate-limits"), help: "on or off: limit sign-up, password sign-in, createAuthUri and the auth handler per client address and per project (default on, off for demo-* projects; env HEARTH_RATE_LIMITS).")
    var rateLimits: String?

    @Option(name: .customLong("rate-limit-signup-per-address"), help: "Sign-ups per client address per hour (default 100, env HEARTH_RATE_LIMIT_SIGNUP_PER_ADDRESS).")
    var rateLimitSignUpPerAddress: String?

    @Option(name: .customLong("rate-limit-per-address"), help: "Requests per client address per minute to each of password sign-in, createAuthUri and the auth handler (default 120, env HEARTH_RATE_LIMIT_PER_ADDRESS).")
    var rateLimitPerAddress: String?

    @Option(name: .customLong("rate-limit-per-project"), help: "Requests per minute to each limited endpoint from all clients together (default 6000, env HEARTH_RATE_LIMIT_PER_PROJECT).")
    var rateLimitPerProject: String?

    @Option(name: .customLong("trusted-proxy"), help: "A reverse proxy's address or CIDR network whose X-Forwarded-For gives the client address; repeat for several (env HEARTH_TRUSTED_PROXIES, comma-separated). Without one, X-Forwarded-For is ignored.")
    var trustedProxies: [String] = []

    @Option(name: .customLong("store-timeout"), help: "Seconds a request may wait for the database before it answers 503 UNAVAILABLE (default 5, env HEARTH_STORE_TIMEOUT, config key store.timeout).")
    var storeTimeout: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info, env HEARTH_LOG_LEVEL).")
    var logLevel: String?

    @Option(name: .customLong("vault-keys-file"), help: "A file of provider token vault keys, one id:base64 per line, the first sealing (env HEARTH_VAULT_KEYS_FILE, config key vault.keys.file; or the keys themselves in HEARTH_VAULT_KEYS / vault.keys). Without keys no provider refresh token is kept. 'hearth vault new-key' makes a key.")
    var vaultKeysFile: String?
    @Option(name: .customLong("log-format"), help: "text or json: one JSON object per line, for log collectors (default text, env HEARTH_LOG_FORMAT, config key log.format).")
    var logFormat: String?

    @Option(name: .customLong("metrics-access"), help: "Who may read /metrics: local (programs on this machine, the default), public, token (Authorization: Bearer <metrics token>) or off (env HEARTH_METRICS_ACCESS, config key metrics.access).")
    var metricsAccess: String?

    @Option(name: .customLong("metrics-token"), help: ArgumentHelp(
        "The bearer token /metrics wants; implies --metrics-access token (env HEARTH_METRICS_TOKEN, config key metrics.token).",
        discussion: "Prefer the environment or the config file: a command line is visible to other users of the machine."))
    var metricsToken: String?

    func run() async throws {
        var options: [Settings.Key: Any] = [:]
        if let host { options[.host] = host }
        if let port { options[.port] = port }
        storeOptions.apply(to: &options)
        if let projectId { options[.projectId] = projectId }
        if !apiKeys.isEmpty { options[.apiKeys] = apiKeys }
        if dev { options[.dev] = true }
        if let publicURL { options[.publicURL] = publicURL }
        if let logLevel { options[.logLevel] = logLevel }
        if let storeTimeout { options[.storeTimeout] = storeTimeout }
        if let vaultKeysFile { options[.vaultKeysFile] = vaultKeysFile }
        if let logFormat { options[.logFormat] = logFormat }
        if let metricsAccess { options[.metricsAccess] = metricsAccess }
        if let metricsToken { options[.metricsToken] = metricsToken }
        if let rateLimits { options[.rateLimits] = rateLimits }
        if let rateLimitSignUpPerAddress { options[.rateLimitSignUpPerAddress] = rateLimitSignUpPerAddress }
        if let rateLimitPerAddress { options[.rateLimitPerAddress] = rateLimitPerAddress }
        if let rateLimitPerProject { options[.rateLimitPerProject] = rateLimitPerProject }
        if !trustedProxies.isEmpty { options[.trustedProxies] = trustedProxies }
        let settings = try Settings.load(options: options, configFile: storeOptions.configFile)

        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        let format = settings.logFormat
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
        if emulatorAdmin, !emulatorAdminAllowRemote, !Self.isLoopbackHost(settings.host) {
            throw ValidationError("--emulator-admin makes anyone who reaches the port an administrator: it is refused on \(settings.host), a non-loopback address, unless --emulator-admin-allow-remote is given too")
        }
        // What this start creates, so a start that fails (a port in use) leaves nothing behind.
        let databasePath = (settings.dataDir as NSString).appendingPathComponent("hearth.sqlite")
        let createsDirectory = settings.database == nil && !FileManager.default.fileExists(atPath: settings.dataDir)
        let createsDatabase = settings.database == nil && !FileManager.default.fileExists(atPath: databasePath)
        let store = try await HearthCLI.openStore(settings: settings, create: true, logger: Logger(label: "hearth.store"))
        let listening = Mutex(false)
        let wildcard = ["0.0.0.0", "::", "[::]"].contains(settings.host)
        var draft = HearthServerConfiguration(
            projectId: settings.projectId, apiKeys: Set(settings.apiKeys), host: settings.host, port: settings.port,
            keyRotation: KeyRotationPolicy(rotationInterval: settings.keyRotationHours * 3600),
            publicURL: settings.publicURL.map { PublicBaseURL($0) } ?? (wildcard ? PublicBaseURL(settings.publicBaseURL, derived: true) : nil))
        draft.emulatorAdminFlag = emulatorAdmin
        draft.providerTokenKeys = settings.providerTokenKeys
        draft.metricsAccess = settings.metricsAccess
        draft.metricsToken = settings.metricsToken
        draft.rateLimits = settings.rateLimits
        draft.trustedProxies = try TrustedProxies(settings.trustedProxies)
        draft.emulatorAdminAllowRemote = emulatorAdminAllowRemote
        draft.storeTimeout = settings.storeTimeout
        if let consoleIdleTimeout {
            guard consoleIdleTimeout > 0 else { throw ValidationError("--console-idle-timeout must be a positive number of seconds") }
            draft.consoleIdleTimeout = TimeInterval(consoleIdleTimeout)
        }
        let configuration = draft
        let linkDelivery = ConsoleLinkDelivery.choose(disabled: noConsoleLink, projectId: settings.projectId,
                                                      interactive: isatty(STDOUT_FILENO) != 0 && format == .text, dataDir: settings.dataDir)
        do {
            let devIdPs: DevIdentityProviders?
            if settings.dev {
                let clients = try DevClientsFile.loadOrCreate(directory: settings.dataDir)
                devIdPs = try await DevIdentityProviders(publicURL: configuration.publicURL, microsoftClient: clients.microsoft,
                                                         yahooClient: clients.yahoo)
            } else {
                devIdPs = nil
            }
            let app = try await buildApplication(configuration: configuration, store: store, devProviders: devIdPs, logger: logger) { report in
                // From here on the data is live: no later failure (a shutdown days later) may remove it.
                listening.withLock { $0 = true }
                Self.printBanner(settings: settings, configuration: configuration, report: report)
                await Self.deliverConsoleLink(linkDelivery, store: store, configuration: configuration, logger: logger)
            }
            try await app.runService()
        } catch {
            try? await store.close()
            let bound = listening.withLock { $0 }
            if createsDatabase, !bound {
                for file in [databasePath, databasePath + "-wal", databasePath + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
            }
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

    /// The rate limits in one line for the banner.
    static func describe(_ limits: RateLimitConfiguration) -> String {
        guard limits.enabled, let signUp = limits.rules[.signUp], let signIn = limits.rules[.signInWithPassword] else {
            return "off (on by default for non-demo projects; --rate-limits on to enable)"
        }
        return "per address \(signUp.perAddress.limit) sign-ups/hour, \(signIn.perAddress.limit)/minute for password sign-in, createAuthUri and the auth handler each; per project \(signIn.perProject.limit)/minute each"
    }

    static func printBanner(settings: Settings, configuration: HearthServerConfiguration, report: StartupReport) {
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
            "  operations:    \(base)/healthz, /readyz, /metrics (\(Self.describe(configuration.metricsAccess))), /openapi.json",
            "  rate limits:   \(Self.describe(configuration.rateLimits))",
            "  client address: " + (settings.trustedProxies.isEmpty
                ? "the connection's peer (X-Forwarded-For ignored; behind a reverse proxy give --trusted-proxy)"
                : "X-Forwarded-For from trusted proxies \(settings.trustedProxies.joined(separator: ", ")), else the peer"),
        ]
        if report.providers.isEmpty {
            lines.append("  providers:     none (hearth providers enable microsoft.com --client-id … , or serve --dev)")
        }
        for source in report.providers {
            let what = switch source.kind {
            case .configured: "real, configured (client id \(source.clientId))"
            case .disabled: "configured but disabled (hearth providers enable \(source.providerId) to turn it on)"
            case .devIdP: "dev IdP at \(configuration.publicURL.url)\(source.providerId == "yahoo.com" ? DevIdentityProviders.yahooPath : DevIdentityProviders.microsoftPath) (this process only, nothing stored)"
            }
            lines.append("  provider:      \(source.providerId): \(what)")
        }
        if settings.dev {
            lines.append("  dev clients:   \(DevClientsFile.path(directory: settings.dataDir)) (the dev IdPs' client IDs and secrets, to configure a provider against them through the admin API or the CLI)")
            lines.append("  try it:        open \(configuration.publicURL.url)/__dev/try?provider=microsoft.com (or yahoo.com, or add &tenant=organizations) in a browser")
        }
        lines.append("Press Ctrl-C to stop.")
        // Unbuffered, so the banner shows at once even when stdout is a pipe.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// The dev IdPs' OAuth clients, kept in `<data dir>/dev-idp-clients.json` (0600) so they stay the same across
/// restarts and a person can configure `microsoft.com`/`yahoo.com` against the dev IdPs with them (the seeds' "paste
/// the client ID and secret" step, offline). Nothing here is a real provider's secret.
struct DevClientsFile: Codable {
    var microsoft: DevIdentityProviders.Client
    var yahoo: DevIdentityProviders.Client

    static func path(directory: String) -> String { (directory as NSString).appendingPathComponent("dev-idp-clients.json") }

    static func loadOrCreate(directory: String) throws -> DevClientsFile {
        let path = path(directory: directory)
        if let data = FileManager.default.contents(atPath: path) {
            guard let clients = try? JSONDecoder().decode(DevClientsFile.self, from: data) else {
                throw CLIError("\(path) is not a dev IdP clients file: remove it and it is made anew at the next start")
            }
            return clients
        }
        let clients = DevClientsFile(microsoft: .random(prefix: "dev-ms"), yahoo: .random(prefix: "dev-yahoo"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let created = FileManager.default.createFile(atPath: path, contents: try encoder.encode(clients), attributes: [.posixPermissions: 0o600])
        guard created else { throw CLIError("cannot write \(path): check that the data directory is writable") }
        return clients
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
