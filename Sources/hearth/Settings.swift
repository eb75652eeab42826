import ArgumentParser
import Configuration
import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthWire
import Synchronization

/// The server settings, read with swift-configuration from (first match wins) the command line, `HEARTH_*`
/// environment variables and a JSON configuration file, then the declared defaults (``Key/declaration``). Every value is checked: a bad one stops the command with a message
/// naming the key, where it came from and the value.
struct Settings {
    var host: String
    var port: Int
    var dataDir: String
    var projectId: String
    /// Whether the project id was given (option, environment, file) rather than the default: a command on data that
    /// holds one other project uses that one (issue 35, item 12).
    var projectIdGiven = false
    var apiKeys: [String]
    var dev: Bool
    var logLevel: String
    /// `log.format`: text (the default) or json, one object per line.
    var logFormat: HearthLogHandler.Format = .text
    /// `metrics.access`: who may read `GET /metrics`.
    var metricsAccess: MetricsAccess = .local
    /// `metrics.token`: the bearer token `GET /metrics` wants when `metrics.access` is token.
    var metricsToken: String?
    var keyRotationHours: Double
    var publicURL: String?
    var sqliteDurability: SQLiteStore.Durability
    /// `crypto.rsa.signer`: which RSA implementation signs tokens.
    var rsaSigner: RSASignerPreference = .auto
    /// The PostgreSQL database (`database.url`); nil: SQLite in `dataDir`.
    var database: PostgresStoreConfiguration?
    /// The provider token vault's keys (`vault.keys` or `vault.keys.file`); nil: the vault is off.
    var providerTokenKeys: ProviderTokenKeys?
    /// The file the vault keys came from, if any.
    var providerTokenKeysFile: String?
    /// `rate.limits`: on or off; nil: on, except for `demo-*` projects without a configured limit.
    var rateLimitsEnabled: Bool?
    var signUpsPerAddressPerHour: Int?
    var perAddressPerMinute: Int?
    var perProjectPerMinute: Int?
    /// `trusted.proxies`: reverse proxies whose `X-Forwarded-For` is believed.
    var trustedProxies: [String] = []
    /// `store.timeout`: seconds a request may wait for the database before it answers 503 (default 5).
    var storeTimeout: TimeInterval = 5
    /// `smtp.url` (with `smtp.ca.file`): the relay email goes through; nil: none.
    var smtp: SMTPConfiguration?
    /// `mail.from`: the sender of every message.
    var mailFrom = "Hearth <noreply@localhost>"
    /// `oob.code.ttl.*`: how long action codes work.
    var oobLifetimes = OobCodeLifetimes()
    /// `rate.limit.email.per.recipient` / `rate.limit.email.per.address` (per hour).
    var emailsPerRecipientPerHour: Int?
    var emailsPerAddressPerHour: Int?

    /// The request limits these settings give for the project.
    var rateLimits: RateLimitConfiguration {
        let configured = signUpsPerAddressPerHour != nil || perAddressPerMinute != nil || perProjectPerMinute != nil
            || emailsPerRecipientPerHour != nil || emailsPerAddressPerHour != nil
        return RateLimitConfiguration(
            enabled: rateLimitsEnabled ?? (configured || !projectId.hasPrefix("demo-")),
            signUpsPerAddressPerHour: signUpsPerAddressPerHour ?? RateLimitConfiguration.defaultSignUpsPerAddressPerHour,
            perAddressPerMinute: perAddressPerMinute ?? RateLimitConfiguration.defaultPerAddressPerMinute,
            perProjectPerMinute: perProjectPerMinute ?? RateLimitConfiguration.defaultPerProjectPerMinute,
            emailsPerAddressPerHour: emailsPerAddressPerHour ?? RateLimitConfiguration.defaultEmailsPerAddressPerHour,
            emailsPerRecipientPerHour: emailsPerRecipientPerHour ?? RateLimitConfiguration.defaultEmailsPerRecipientPerHour)
    }

    /// Where the data lives, safe to print: the SQLite file, or the PostgreSQL URL with its password masked.
    var storeDescription: String {
        database.map { $0.maskedURL } ?? (dataDir as NSString).appendingPathComponent("hearth.sqlite")
    }

    /// The log levels `log.level` accepts.
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// One setting, declared once: its key in the file (`project.id`, nested `{"project":{"id":…}}` also works),
    /// its environment variable (`HEARTH_` and the key in capitals, `.` as `_`), its command-line option, its default
    /// and its help. ``load(options:configFile:environment:)`` reads every key with swift-configuration's
    /// `ConfigReader` over the command line, the environment, the file and the defaults, in that order.
    enum Key: String, CaseIterable, Sendable {
        case host, port
        case dataDir = "data.dir"
        case projectId = "project.id"
        case apiKeys = "api.keys"
        case dev
        case logLevel = "log.level"
        case logFormat = "log.format"
        case metricsAccess = "metrics.access"
        case metricsToken = "metrics.token"
        case keyRotationHours = "keys.rotation.hours"
        case publicURL = "public.url"
        case sqliteSynchronous = "sqlite.synchronous"
        case rsaSigner = "crypto.rsa.signer"
        case databaseURL = "database.url"
        case databaseTLS = "database.tls"
        case databaseCAFile = "database.ca.file"
        case databaseMaxConnections = "database.max.connections"
        case vaultKeys = "vault.keys"
        case vaultKeysFile = "vault.keys.file"
        case rateLimits = "rate.limits"
        case rateLimitSignUpPerAddress = "rate.limit.signup.per.address"
        case rateLimitPerAddress = "rate.limit.per.address"
        case rateLimitPerProject = "rate.limit.per.project"
        case trustedProxies = "trusted.proxies"
        case storeTimeout = "store.timeout"
        case smtpURL = "smtp.url"
        case smtpCAFile = "smtp.ca.file"
        case mailFrom = "mail.from"
        case oobCodeTTLReset = "oob.code.ttl.reset"
        case oobCodeTTLVerify = "oob.code.ttl.verify"
        case oobCodeTTLSignIn = "oob.code.ttl.signin"
        case rateLimitEmailPerRecipient = "rate.limit.email.per.recipient"
        case rateLimitEmailPerAddress = "rate.limit.email.per.address"

        /// How a setting is given and documented.
        struct Declaration {
            /// The long option without its dashes (`data-dir`); nil: environment and file only.
            var option: String?
            /// The default as a value of the setting (read like any other); nil: none (the setting is off or derived).
            var defaultValue: String?
            /// A list (`--api-key` repeated, `HEARTH_API_KEYS` comma-separated, a JSON array).
            var isList = false
            /// Never repeated in a message or an access log.
            var isSecret = false
            var help: ArgumentHelp
        }

        var declaration: Declaration {
            switch self {
            case .host: Declaration(option: "host", defaultValue: "127.0.0.1", help: "Address to listen on (default 127.0.0.1, env HEARTH_HOST).")
            case .port: Declaration(option: "port", defaultValue: "9099", help: "Port to listen on, 0 for any free port (default 9099, env HEARTH_PORT).")
            case .dataDir: Declaration(option: "data-dir", defaultValue: "./.hearth",
                                       help: "Directory holding hearth.sqlite (default ./.hearth, env HEARTH_DATA_DIR, config key data.dir).")
            case .projectId: Declaration(option: "project-id", defaultValue: "demo-hearth",
                                         help: "Firebase project id (default demo-hearth, env HEARTH_PROJECT_ID).")
            case .apiKeys: Declaration(option: "api-key", isList: true,
                                       help: "An accepted API key; repeat for several (env HEARTH_API_KEYS, comma-separated). With none, demo-* projects accept any key.")
            case .dev: Declaration(option: "dev", defaultValue: "false",
                                   help: "Run the built-in Microsoft-, Yahoo-, Apple- and Google-shaped identity providers; they serve microsoft.com, yahoo.com, apple.com and google.com unless you configured those yourself.")
            case .logLevel: Declaration(option: "log-level", defaultValue: "info",
                                        help: "trace, debug, info, notice, warning, error or critical (default info, env HEARTH_LOG_LEVEL).")
            case .logFormat: Declaration(option: "log-format", defaultValue: "text",
                                         help: "text or json: one JSON object per line, for log collectors (default text, env HEARTH_LOG_FORMAT, config key log.format).")
            case .metricsAccess: Declaration(option: "metrics-access",
                                             help: "Who may read /metrics: local (programs on this machine, the default), public, token (Authorization: Bearer <metrics token>) or off (env HEARTH_METRICS_ACCESS, config key metrics.access).")
            case .metricsToken: Declaration(option: "metrics-token", isSecret: true, help: ArgumentHelp(
                "The bearer token /metrics wants; implies --metrics-access token (env HEARTH_METRICS_TOKEN, config key metrics.token).",
                discussion: "Prefer the environment or the config file: a command line is visible to other users of the machine."))
            case .keyRotationHours: Declaration(defaultValue: "24", help: "Signing-key rotation, hours.")
            case .publicURL: Declaration(option: "public-url",
                                         help: "The server's external base URL (default http://<host>:<port>, env HEARTH_PUBLIC_URL). Register <public-url>/__/auth/handler at providers.")
            case .sqliteSynchronous: Declaration(defaultValue: "normal", help: "SQLite commit durability: normal (the default) or full.")
            case .rsaSigner: Declaration(defaultValue: "auto", help: "Which RSA implementation signs tokens: auto (OpenSSL 3's libcrypto when present, else swift-crypto), openssl or swift-crypto.")
            case .databaseURL: Declaration(option: "database-url", isSecret: true, help: ArgumentHelp(
                "A PostgreSQL database instead of SQLite: postgres://user:password@host:5432/database (env HEARTH_DATABASE_URL, config key database.url).",
                discussion: "Several servers can share one PostgreSQL database. Prefer the environment or the config file for the password: a command line is visible to other users of the machine."))
            case .databaseTLS: Declaration(option: "database-tls",
                                           help: "TLS to PostgreSQL: disable, prefer or require (verified certificate and host name); default the URL's sslmode, else prefer (env HEARTH_DATABASE_TLS, config key database.tls).")
            case .databaseCAFile: Declaration(option: "database-ca-file",
                                              help: "PEM certificate authorities that sign the PostgreSQL server's certificate (default: the system's trust roots; env HEARTH_DATABASE_CA_FILE).")
            case .databaseMaxConnections: Declaration(defaultValue: "20", help: "Most PostgreSQL connections per process (default 20).")
            // Keys on a command line are visible to other users of the machine: environment or file only.
            case .vaultKeys: Declaration(isSecret: true, help: "The provider token vault's keys themselves (id:base64, comma-separated).")
            case .vaultKeysFile: Declaration(option: "vault-keys-file",
                                             help: "A file of provider token vault keys, one id:base64 per line, the first sealing (env HEARTH_VAULT_KEYS_FILE, config key vault.keys.file; or the keys themselves in HEARTH_VAULT_KEYS / vault.keys). Without keys no provider refresh token is kept. 'hearth vault new-key' makes a key.")
            case .rateLimits: Declaration(option: "rate-limits",
                                          help: "on or off: limit sign-up, password sign-in, createAuthUri and the auth handler per client address and per project (default on, off for demo-* projects; env HEARTH_RATE_LIMITS).")
            case .rateLimitSignUpPerAddress: Declaration(option: "rate-limit-signup-per-address",
                                                         help: "Sign-ups per client address per hour (default 100, env HEARTH_RATE_LIMIT_SIGNUP_PER_ADDRESS).")
            case .rateLimitPerAddress: Declaration(option: "rate-limit-per-address",
                                                   help: "Requests per client address per minute to each of password sign-in, createAuthUri and the auth handler (default 120, env HEARTH_RATE_LIMIT_PER_ADDRESS).")
            case .rateLimitPerProject: Declaration(option: "rate-limit-per-project",
                                                   help: "Requests per minute to each limited endpoint from all clients together (default 6000, env HEARTH_RATE_LIMIT_PER_PROJECT).")
            case .trustedProxies: Declaration(option: "trusted-proxy", isList: true,
                                              help: "A reverse proxy's address or CIDR network whose X-Forwarded-For gives the client address; repeat for several (env HEARTH_TRUSTED_PROXIES, comma-separated). Without one, X-Forwarded-For is ignored.")
            case .storeTimeout: Declaration(option: "store-timeout", defaultValue: "5",
                                            help: "Seconds a request may wait for the database before it answers 503 UNAVAILABLE (default 5, env HEARTH_STORE_TIMEOUT, config key store.timeout).")
            case .smtpURL: Declaration(option: "smtp-url", isSecret: true, help: ArgumentHelp(
                "The SMTP relay email goes through: smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (implicit TLS) (env HEARTH_SMTP_URL, config key smtp.url; prefer those: a password on a command line is visible to other users).",
                valueName: "url"))
            case .smtpCAFile: Declaration(option: "smtp-ca-file",
                                          help: "PEM certificate authorities to trust for the SMTP relay besides the system's (a private CA; env HEARTH_SMTP_CA_FILE, config key smtp.ca.file).")
            case .mailFrom: Declaration(option: "mail-from", defaultValue: "Hearth <noreply@localhost>",
                                        help: "The sender of Hearth's email, \"Name <address>\" (default Hearth <noreply@localhost>; env HEARTH_MAIL_FROM, config key mail.from).")
            case .oobCodeTTLReset: Declaration(option: "oob-code-ttl-reset", defaultValue: "1h",
                                               help: "How long a password-reset link works: seconds, or 30m, 1h, 3d (default 1h; env HEARTH_OOB_CODE_TTL_RESET).")
            case .oobCodeTTLVerify: Declaration(option: "oob-code-ttl-verify", defaultValue: "3d",
                                                help: "How long email verification, email change and email recovery links work (default 3d; env HEARTH_OOB_CODE_TTL_VERIFY).")
            case .oobCodeTTLSignIn: Declaration(option: "oob-code-ttl-signin", defaultValue: "1h",
                                                help: "How long an email sign-in link works (default 1h; env HEARTH_OOB_CODE_TTL_SIGNIN).")
            case .rateLimitEmailPerRecipient: Declaration(option: "rate-limit-email-per-recipient",
                                                          help: "Emails to one address per hour, whoever asks (default 5, env HEARTH_RATE_LIMIT_EMAIL_PER_RECIPIENT).")
            case .rateLimitEmailPerAddress: Declaration(option: "rate-limit-email-per-address",
                                                        help: "sendOobCode requests per client address per hour (default 20, env HEARTH_RATE_LIMIT_EMAIL_PER_ADDRESS).")
            }
        }

        /// The option's name for `@Option(name:)`.
        var name: NameSpecification { .customLong(declaration.option ?? rawValue) }
        /// The option's help for `@Option(help:)`.
        var help: ArgumentHelp { declaration.help }
        var configKey: ConfigKey { ConfigKey(rawValue) }
        var environmentName: String { "HEARTH_" + rawValue.uppercased().replacingOccurrences(of: ".", with: "_") }
        /// How messages name the option (settings without one are never given on the command line).
        var optionName: String { declaration.option.map { "--\($0)" } ?? rawValue }
    }

    /// A raw value and where it came from.
    struct Source {
        enum Origin: Int {
            // The providers' order in the reader: the first that has a value wins.
            case option, environment, file, defaults
        }

        var value: Any
        var origin: Origin
        var path = ""

        func describe(_ key: Key) -> String {
            switch origin {
            case .option: key.optionName
            case .environment: key.environmentName
            case .file: "\"\(key.rawValue)\" in \(path)"
            case .defaults: "the default \(key.rawValue)"
            }
        }
    }

    /// Which provider answered each key (the reader's access events), so that a message names the origin.
    final class Origins: AccessReporter, Sendable {
        private let answered = Mutex<[String: Int]>([:])

        func report(_ event: AccessEvent) {
            // The first provider with a value (or with a value of another type, which the reader refuses) answered.
            let index = event.providerResults.firstIndex { result in
                switch result.result {
                case .success(let lookup): lookup.value != nil
                case .failure: true
                }
            }
            answered.withLock { $0[event.metadata.key.description] = index }
        }

        func provider(of key: Key) -> Int? { answered.withLock { $0[AbsoluteConfigKey(key.configKey).description] } }
    }

    /// The configuration values as a swift-configuration reader reads them: the command line (highest), `HEARTH_*`,
    /// the file, the declared defaults.
    struct Lookup {
        let reader: ConfigReader
        let origins = Origins()
        let file: [Key: Source]

        init(options: [Key: Any], file: [Key: Source], environment: [String: String]) {
            self.file = file
            func content(_ value: Any) -> ConfigContent {
                // Lists and strings, as read; the file's typed originals stay in `file` for the messages.
                if let list = value as? [String] { .stringArray(list) } else { .string("\(value)") }
            }
            func provider(_ name: String, _ values: [Key: Any]) -> InMemoryProvider {
                InMemoryProvider(name: name, values: Dictionary(uniqueKeysWithValues: values.map { key, value in
                    (AbsoluteConfigKey(key.configKey), ConfigValue(content(value), isSecret: key.declaration.isSecret))
                }))
            }
            let defaults = Dictionary(uniqueKeysWithValues: Key.allCases.compactMap { key in key.declaration.defaultValue.map { (key, $0 as Any) } })
            reader = ConfigReader(providers: [
                provider("command line", options),
                EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "hearth"),
                provider("configuration file", file.mapValues(\.value)),
                provider("defaults", defaults),
            ], accessReporter: origins)
        }

        /// The key's value and origin; nil when no provider (not even the defaults) has it.
        func source(_ key: Key) -> Source? {
            let declaration = key.declaration
            let read: Any?
            if declaration.isList {
                read = reader.stringArray(forKey: key.configKey, isSecret: declaration.isSecret)
            } else {
                read = reader.string(forKey: key.configKey, isSecret: declaration.isSecret)
            }
            guard let index = origins.provider(of: key), let origin = Source.Origin(rawValue: index) else { return nil }
            // The file's values keep their JSON types (a message shows 70000 or "nine" as written).
            if origin == .file { return file[key] }
            return read.map { Source(value: $0, origin: origin) }
        }
    }

    /// Loads and checks the settings. `options` holds command-line values by key.
    static func load(options: [Key: Any], configFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        var file: [Key: Source] = [:]
        if let path = configFile ?? environment["HEARTH_CONFIG_FILE"] {
            file = try readFile(path)
        }
        let lookup = Lookup(options: options, file: file, environment: environment)
        func source(_ key: Key) -> Source? { lookup.source(key) }
        func fail(_ key: Key, _ source: Source, _ expectation: String) -> SettingsError {
            SettingsError(description: "\(source.describe(key)) \(expectation), got \(Self.show(source.value))")
        }
        func string(_ key: Key) throws -> String? {
            guard let source = source(key) else { return nil }
            guard let text = source.value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail(key, source, "must be a non-empty string")
            }
            return text
        }
        // Every value below comes from the lookup; the declared defaults are its last provider.
        var settings = Settings(host: "", port: 0, dataDir: "", projectId: "", apiKeys: [], dev: false,
                                logLevel: "", keyRotationHours: 0, publicURL: nil, sqliteDurability: .normal, database: nil)
        if let host = try string(.host) { settings.host = host }
        if let source = source(.port) {
            let number: Int? = switch source.value {
            case let value as Int: value
            case let value as String: Int(value.trimmingCharacters(in: .whitespaces))
            default: nil
            }
            guard let number, (0...65535).contains(number) else { throw fail(.port, source, "must be a port number from 0 to 65535") }
            settings.port = number
        }
        if let dataDir = try string(.dataDir) { settings.dataDir = dataDir }
        if let source = source(.projectId) {
            guard let id = source.value as? String, Self.isProjectId(id) else {
                throw fail(.projectId, source, "must be a project id (lower-case letters, digits and hyphens, starting with a letter, at most 64 characters)")
            }
            settings.projectId = id
            settings.projectIdGiven = source.origin != .defaults
        }
        if let source = source(.apiKeys) {
            switch source.value {
            case let list as [String]: settings.apiKeys = list
            case let text as String: settings.apiKeys = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            case let list as [Any]:
                throw SettingsError(description: "\(source.describe(.apiKeys)) must be a list of strings, got a list with \(list.count) item(s) that are not all strings")
            default: throw SettingsError(description: "\(source.describe(.apiKeys)) must be a list of strings or a comma-separated string")
            }
            settings.apiKeys = settings.apiKeys.filter { !$0.isEmpty }
        }
        if let source = source(.dev) {
            let flag: Bool? = switch source.value {
            case let value as Bool: value
            case let value as String: ["true": true, "1": true, "false": false, "0": false][value.lowercased()]
            default: nil
            }
            guard let flag else { throw fail(.dev, source, "must be true or false") }
            settings.dev = flag
        }
        if let source = source(.logLevel) {
            guard let level = source.value as? String, logLevels.contains(level.lowercased()) else {
                throw fail(.logLevel, source, "must be one of \(logLevels.joined(separator: ", "))")
            }
            settings.logLevel = level.lowercased()
        }
        if let source = source(.logFormat) {
            guard let text = source.value as? String, let format = HearthLogHandler.Format(rawValue: text.lowercased()) else {
                throw fail(.logFormat, source, "must be text or json")
            }
            settings.logFormat = format
        }
        // The token is a secret: no message repeats it.
        if let tokenSource = source(.metricsToken) {
            guard let token = tokenSource.value as? String, token.utf8.count >= 16, !token.contains(where: \.isWhitespace) else {
                throw SettingsError(description: "\(tokenSource.describe(.metricsToken)) must be a string of at least 16 characters without spaces (a random value, e.g. from openssl rand -hex 32)")
            }
            settings.metricsToken = token
            settings.metricsAccess = .token
        }
        if let accessSource = source(.metricsAccess) {
            guard let text = accessSource.value as? String, let access = MetricsAccess(rawValue: text.lowercased()) else {
                throw fail(.metricsAccess, accessSource, "must be local, public, token or off")
            }
            if access == .token, settings.metricsToken == nil {
                throw SettingsError(description: "\(accessSource.describe(.metricsAccess)) is token: give the token too with --metrics-token (env HEARTH_METRICS_TOKEN, config key metrics.token)")
            }
            if access != .token, let tokenSource = source(.metricsToken) {
                throw SettingsError(description: "\(tokenSource.describe(.metricsToken)) is set but \(accessSource.describe(.metricsAccess)) is \(access.rawValue): the token applies only to metrics.access token (drop one of them)")
            }
            settings.metricsAccess = access
        }
        if let source = source(.keyRotationHours) {
            let hours: Double? = switch source.value {
            case let value as Int: Double(value)
            case let value as Double: value
            case let value as String: Double(value)
            default: nil
            }
            guard let hours, hours.isFinite, hours >= 1, hours <= 24 * 365 else { throw fail(.keyRotationHours, source, "must be a number of hours from 1 to 8760") }
            settings.keyRotationHours = hours
        }
        if let source = source(.publicURL) {
            guard let text = source.value as? String, let components = URLComponents(string: text),
                  ["http", "https"].contains(components.scheme?.lowercased() ?? ""), components.host?.isEmpty == false,
                  components.query == nil, components.fragment == nil
            else { throw fail(.publicURL, source, "must be an http(s) URL such as https://auth.example.com") }
            settings.publicURL = text
        }
        if let source = source(.sqliteSynchronous) {
            guard let text = source.value as? String, let durability = SQLiteStore.Durability(rawValue: text.lowercased()) else {
                throw fail(.sqliteSynchronous, source, "must be normal (the default) or full (see docs/security.md)")
            }
            settings.sqliteDurability = durability
        }
        if let source = source(.rsaSigner) {
            guard let text = source.value as? String, let preference = RSASignerPreference(rawValue: text.lowercased()) else {
                throw fail(.rsaSigner, source, "must be auto (the default), openssl or swift-crypto (see docs/performance.md)")
            }
            settings.rsaSigner = preference
        }
        if let urlSource = source(.databaseURL) {
            // The URL holds the password: no message repeats it.
            guard let text = urlSource.value as? String else {
                throw SettingsError(description: "\(urlSource.describe(.databaseURL)) must be a postgres://user:password@host:5432/database URL")
            }
            var tls: PostgresStoreConfiguration.TLSMode?
            if let tlsSource = source(.databaseTLS) {
                guard let text = tlsSource.value as? String, let mode = PostgresStoreConfiguration.TLSMode(rawValue: text.lowercased()) else {
                    throw fail(.databaseTLS, tlsSource, "must be disable, prefer or require")
                }
                tls = mode
            }
            var maximumConnections = 0
            if let limitSource = source(.databaseMaxConnections) {
                let number: Int? = switch limitSource.value {
                case let value as Int: value
                case let value as String: Int(value.trimmingCharacters(in: .whitespaces))
                default: nil
                }
                guard let number, (1...1000).contains(number) else {
                    throw fail(.databaseMaxConnections, limitSource, "must be a number of connections from 1 to 1000")
                }
                maximumConnections = number
            }
            let caFile = try string(.databaseCAFile)
            do {
                settings.database = try PostgresStoreConfiguration(url: text.trimmingCharacters(in: .whitespaces), tls: tls,
                                                                   caFile: caFile, maximumConnections: maximumConnections)
            } catch {
                throw SettingsError(description: "\(urlSource.describe(.databaseURL)): \(error.description)")
            }
        } else {
            for key in [Key.databaseTLS, .databaseCAFile, .databaseMaxConnections] where source(key).map({ $0.origin != .defaults }) == true {
                throw SettingsError(description: "\(source(key).map { $0.describe(key) } ?? key.rawValue) applies to a PostgreSQL database: give --database-url (env HEARTH_DATABASE_URL) too")
            }
        }
        if let source = source(.storeTimeout) {
            let seconds: Double? = switch source.value {
            case let value as Int: Double(value)
            case let value as Double: value
            case let value as String: Double(value.trimmingCharacters(in: .whitespaces))
            default: nil
            }
            guard let seconds, seconds.isFinite, seconds >= 0.5, seconds <= 55 else {
                throw fail(.storeTimeout, source, "must be a number of seconds from 0.5 to 55 (below a proxy's usual 60 s)")
            }
            settings.storeTimeout = seconds
        }
        settings.database?.operationTimeout = settings.storeTimeout
        settings.providerTokenKeys = try loadVaultKeys(inline: source(.vaultKeys), file: source(.vaultKeysFile))
        settings.providerTokenKeysFile = source(.vaultKeysFile)?.value as? String
        if let source = source(.rateLimits) {
            let flag: Bool? = switch source.value {
            case let value as Bool: value
            case let value as String: ["on": true, "true": true, "1": true, "off": false, "false": false, "0": false][value.lowercased()]
            default: nil
            }
            guard let flag else { throw fail(.rateLimits, source, "must be on or off") }
            settings.rateLimitsEnabled = flag
        }
        func limit(_ key: Key, _ unit: String) throws -> Int? {
            guard let source = source(key) else { return nil }
            let number: Int? = switch source.value {
            case let value as Int: value
            case let value as String: Int(value.trimmingCharacters(in: .whitespaces))
            default: nil
            }
            guard let number, (1...10_000_000).contains(number) else { throw fail(key, source, "must be a number of requests \(unit) from 1 to 10000000") }
            return number
        }
        settings.signUpsPerAddressPerHour = try limit(.rateLimitSignUpPerAddress, "per hour")
        settings.perAddressPerMinute = try limit(.rateLimitPerAddress, "per minute")
        settings.perProjectPerMinute = try limit(.rateLimitPerProject, "per minute")
        settings.emailsPerRecipientPerHour = try limit(.rateLimitEmailPerRecipient, "per hour")
        settings.emailsPerAddressPerHour = try limit(.rateLimitEmailPerAddress, "per hour")
        let caFile = try string(.smtpCAFile)
        if let urlSource = source(.smtpURL) {
            // The URL holds the password: messages name the setting, never the value.
            guard let text = urlSource.value as? String else {
                throw SettingsError(description: "\(urlSource.describe(.smtpURL)) must be an smtp:// or smtps:// URL")
            }
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw SettingsError(description: "\(source(.smtpCAFile)!.describe(.smtpCAFile)) names \(caFile), which cannot be read")
            }
            do {
                settings.smtp = try SMTPConfiguration(url: text.trimmingCharacters(in: .whitespaces), trustedCAFile: caFile)
            } catch let error as MailError {
                throw SettingsError(description: "\(urlSource.describe(.smtpURL)): \(error.description)")
            }
        } else if caFile != nil {
            throw SettingsError(description: "\(source(.smtpCAFile)!.describe(.smtpCAFile)) applies to an SMTP relay: give --smtp-url (env HEARTH_SMTP_URL) too")
        }
        if let source = source(.mailFrom) {
            guard let text = source.value as? String, (try? MailAddress(parsing: text)) != nil else {
                throw fail(.mailFrom, source, "must be an address or \"Name <address>\", e.g. \"Acme <no-reply@acme.example>\"")
            }
            settings.mailFrom = text
        }
        func lifetime(_ key: Key) throws -> TimeInterval? {
            guard let source = source(key) else { return nil }
            let text = "\(source.value)".trimmingCharacters(in: .whitespaces).lowercased()
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            let seconds: Double? = if let unit = text.last.flatMap({ units[$0] }) { Double(text.dropLast()).map { $0 * unit } } else { Double(text) }
            guard let seconds, seconds.isFinite, seconds >= 60, seconds <= 30 * 86_400 else {
                throw fail(key, source, "must be a duration from 60 seconds to 30 days: seconds, or 30m, 1h, 3d")
            }
            return seconds
        }
        settings.oobLifetimes = OobCodeLifetimes(reset: try lifetime(.oobCodeTTLReset) ?? OobCodeLifetimes.defaultReset,
                                                 verify: try lifetime(.oobCodeTTLVerify) ?? OobCodeLifetimes.defaultVerify,
                                                 signIn: try lifetime(.oobCodeTTLSignIn) ?? OobCodeLifetimes.defaultSignIn)
        if let source = source(.trustedProxies) {
            let entries: [String]
            switch source.value {
            case let list as [String]: entries = list
            case let text as String: entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            default: throw fail(.trustedProxies, source, "must be a list of IP addresses or CIDR networks")
            }
            do {
                _ = try TrustedProxies(entries)
            } catch {
                throw SettingsError(description: "\(source.describe(.trustedProxies)): \(error)")
            }
            settings.trustedProxies = entries.filter { !$0.isEmpty }
        }
        return settings
    }

    /// The provider token vault's keys from `vault.keys` (the text form) or `vault.keys.file` (a file holding it).
    /// Messages name the key and the problem, never key material.
    static func loadVaultKeys(inline: Source?, file: Source?) throws -> ProviderTokenKeys? {
        if let inline, let file {
            throw SettingsError(description: "give \(inline.describe(.vaultKeys)) or \(file.describe(.vaultKeysFile)), not both")
        }
        if let inline {
            guard let text = inline.value as? String else {
                throw SettingsError(description: "\(inline.describe(.vaultKeys)) must be a string of id:base64 keys (comma-separated)")
            }
            do {
                return try ProviderTokenKeys.parse(text)
            } catch {
                throw SettingsError(description: "\(inline.describe(.vaultKeys)): \(error) (hearth vault new-key makes one)")
            }
        }
        guard let file else { return nil }
        guard let path = file.value as? String, !path.isEmpty else {
            throw SettingsError(description: "\(file.describe(.vaultKeysFile)) must be the path of a key file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "\(file.describe(.vaultKeysFile)): \(path) cannot be read (does it exist, and may this user read it?)")
        }
        do {
            return try ProviderTokenKeys.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw SettingsError(description: "\(file.describe(.vaultKeysFile)): \(path): \(error) (hearth vault new-key makes one)")
        }
    }

    /// `HEARTH_*` variables the CLI does not know (a typo such as `HEARTH_PROT`), each with a suggestion.
    static func unknownEnvironmentVariables(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let known = Set(Key.allCases.map(\.environmentName) + ["HEARTH_CONFIG_FILE", "HEARTH_SERVER_URL", "HEARTH_API_KEY", "HEARTH_APP_ID",
                                                               "HEARTH_PASSWORD", "HEARTH_CLIENT_SECRET", "HEARTH_BINARY"])
        return environment.keys.filter { $0.hasPrefix("HEARTH_") && !$0.hasPrefix("HEARTH_TEST_") && !known.contains($0) }.sorted().map { name in
            let suggestion = known.min { editDistance($0, name) < editDistance($1, name) }.flatMap { editDistance($0, name) <= 3 ? $0 : nil }
            return "unknown environment variable \(name) is ignored" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
        }
    }

    /// Reads the JSON file: syntax errors with line and column, unknown keys with a suggestion.
    static func readFile(_ path: String) throws -> [Key: Source] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SettingsError(description: "the configuration file \(path) does not exist")
        }
        guard !isDirectory.boolValue else { throw SettingsError(description: "the configuration file \(path) is a directory, not a JSON file") }
        guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "the configuration file \(path) cannot be read (check its permissions)")
        }
        let root: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                throw SettingsError(description: "the configuration file \(path) must hold a JSON object, like {\"port\": 9099}")
            }
            root = object
        } catch let error as SettingsError {
            throw error
        } catch {
            throw SettingsError(description: "the configuration file \(path) is not valid JSON: \(jsonProblem(error, data: data))")
        }
        var flat: [String: JSONValue] = [:]
        func flatten(_ object: [String: JSONValue], prefix: String) {
            for (key, value) in object {
                let name = prefix.isEmpty ? key : "\(prefix).\(key)"
                // `hearth.` prefixes are accepted, as older files used them.
                let trimmed = name.hasPrefix("hearth.") ? String(name.dropFirst(7)) : name
                // No key takes an object, so an object always nests (`{"vault": {"keys": {"file": …}}}` too).
                if case .object(let nested) = value { flatten(nested, prefix: name) } else { flat[trimmed] = value }
            }
        }
        flatten(root, prefix: "")
        var result: [Key: Source] = [:]
        for (name, value) in flat.sorted(by: { $0.key < $1.key }) {
            guard let key = Key(rawValue: name) else {
                let known = Key.allCases.map(\.rawValue)
                let suggestion = known.min { editDistance($0, name) < editDistance($1, name) }
                    .flatMap { editDistance($0, name) <= max(2, name.count / 3) ? $0 : nil }
                throw SettingsError(description: "unknown key \"\(name)\" in \(path)"
                    + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "") + "; known keys: \(known.joined(separator: ", "))")
            }
            result[key] = Source(value: plain(value), origin: .file, path: path)
        }
        return result
    }

    /// Where and why a JSON text is invalid: line and column.
    static func jsonProblem(_ error: any Error, data: Data) -> String {
        let text = "\(error) \((error as NSError).userInfo)"
        if let match = text.range(of: #"line \d+, column \d+"#, options: .regularExpression) {
            return "syntax error at \(text[match])"
        }
        // Swift's parser reports a truncated file without a position: it is the end of the file.
        let content = String(decoding: data, as: UTF8.self)
        let lines = content.split(separator: "\n", omittingEmptySubsequences: false)
        let lastLine = lines.last.map { $0.count + 1 } ?? 1
        if text.localizedCaseInsensitiveContains("end of") || content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "the file ends too early (line \(lines.count), column \(lastLine)); is it truncated?"
        }
        return "syntax error (line \(lines.count), column \(lastLine) or before)"
    }

    /// A JSON value as Swift values: whole numbers as `Int`, lists of strings as `[String]`.
    static func plain(_ value: JSONValue) -> Any {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag
        case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? Int(number) : number
        case .string(let text): return text
        case .array(let items):
            let strings = items.compactMap { if case .string(let text) = $0 { text } else { nil } }
            return strings.count == items.count ? strings : items.map(plain)
        case .object: return [String: Any]()
        }
    }

    static func isProjectId(_ id: String) -> Bool {
        (1...64).contains(id.count) && id.first?.isLetter == true
            && id.allSatisfy { ($0.isLetter && $0.isLowercase && $0.isASCII) || ($0.isNumber && $0.isASCII) || $0 == "-" }
    }

    static func show(_ value: Any) -> String {
        switch value {
        case let text as String: "\"\(text)\""
        case let flag as Bool: flag ? "true" : "false"
        case let list as [Any]: "a list of \(list.count)"
        case is [String: Any]: "an object"
        default: "\(value)"
        }
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = a[i - 1] == b[j - 1] ? previous : min(previous, row[j], row[j - 1]) + 1
                previous = current
            }
        }
        return row[b.count]
    }

    /// The server's external address as the CLI knows it: `public.url`, else `http://<host>:<port>` (a wildcard
    /// host is replaced by 127.0.0.1).
    /// The server's public URL for a command run on its data: `--public-url` / `public.url`, else the one the server
    /// last started with (recorded in the store), else `http://<host>:<port>` — with a note on standard error when it
    /// falls back that far.
    func serverURL(store: any HearthStore, explicit: String? = nil) async -> String {
        if let explicit { return explicit.hasSuffix("/") ? String(explicit.dropLast()) : explicit }
        if publicURL != nil { return publicBaseURL }
        if let recorded = try? await store.projectConfig(projectId: projectId)?.servedPublicURL, !recorded.isEmpty { return recorded }
        FileHandle.standardError.write(Data("note: the server has not recorded its address yet (start it once); using \(publicBaseURL) — pass --public-url if it is reached elsewhere\n".utf8))
        return publicBaseURL
    }

    var publicBaseURL: String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let shown = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
        return "http://\(shown.contains(":") ? "[\(shown)]" : shown):\(port)"
    }
}

/// A configuration problem, reported before anything starts.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
}
