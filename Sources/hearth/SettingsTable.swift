import Foundation
import HearthCore
import HearthMail
import HearthServer
import HearthStorePostgres
import HearthStoreSQLite

extension Settings {
    /// Every setting of `hearth serve` and the commands that open its data, declared once (``Setting``): key, command-line
    /// form, default, help and check. Adding a setting is one line here and the line that uses it (`settings[\.name]`);
    /// with a command-line form, `serve` also gets a property named like its option (ArgumentParser has no other way
    /// to take an option). In the order of the table in docs/configuration.md, which lists each one (a test checks).
    struct Table: Sendable {
        let host = Setting<String>("host", .option("host"), default: "127.0.0.1", help: "Address to listen on.", .text)
        let port = Setting<Int>("port", .option("port"), default: "9099", help: "Port to listen on, 0 for any free port.",
                                .integer(0...65535, "must be a port number from 0 to 65535"))
        let dataDir = Setting<String>("data.dir", .option("data-dir"), default: "./.hearth", help: "Directory holding hearth.sqlite.", .text)
        let projectId = Setting<String>("project.id", .option("project-id"), default: "demo-hearth", help: "Firebase project id.", .projectId)
        let apiKeys = Setting<[String]>("api.keys", .list("api-key"), default: "", documented: "none",
                                        help: "An accepted API key; repeat for several (comma-separated in the environment). With none, demo-* projects accept any key.",
                                        .strings("must be a list of strings or a comma-separated string"))
        let dev = Setting<Bool>("dev", .flag("dev"), default: "false", documented: "off",
                                help: "Run the built-in Microsoft-, Yahoo-, Apple- and Google-shaped identity providers; they serve microsoft.com, yahoo.com, apple.com and google.com unless you configured those yourself.",
                                .flag)
        let publicURL = Setting<String?>("public.url", .option("public-url"), documented: "http://<host>:<port>",
                                        help: "The server's external base URL. Register <public-url>/__/auth/handler at providers.", .publicURL)
        let logLevel = Setting<String>("log.level", .option("log-level"), default: "info",
                                       help: "trace, debug, info, notice, warning, error or critical.",
                                       .oneOf(Settings.logLevels, "must be one of \(Settings.logLevels.joined(separator: ", "))"))
        let logFormat = Setting<HearthLogHandler.Format>("log.format", .option("log-format"), default: "text",
                                                         help: "text or json: one JSON object per line, for log collectors.", .choice("must be text or json"))
        let metricsAccess = Setting<MetricsAccess?>("metrics.access", .option("metrics-access"), documented: "local (token when a token is given)",
                                                   help: "Who may read /metrics: local (programs on this machine), public, token (Authorization: Bearer <metrics token>) or off.",
                                                   .choice("must be local, public, token or off"))
        let metricsToken = Setting<String?>("metrics.token", .option("metrics-token"), documented: "none", secret: true,
                                           help: "The bearer token /metrics wants; implies --metrics-access token.", .metricsToken)
        let emulatorAdmin = Setting<Bool>("emulator.admin", .flag("emulator-admin"), default: "false", documented: "off (on for demo-* projects)",
                                          help: "Accept the Firebase Admin SDKs' emulator credentials ('Authorization: Bearer owner', unsigned custom tokens) for a non-demo project: anyone who reaches the port is an administrator. Always on for demo-* projects.",
                                          .flag)
        let emulatorAdminAllowRemote = Setting<Bool>("emulator.admin.allow.remote", .flag("emulator-admin-allow-remote"), default: "false",
                                                     documented: "off", help: "Accept the emulator credentials from non-loopback clients too (dangerous).", .flag)
        let keyRotationHours = Setting<Double>("keys.rotation.hours", default: "24", help: "Signing-key rotation, hours.",
                                               .number(1...8760, "must be a number of hours from 1 to 8760"))
        let rsaSigner = Setting<RSASignerPreference>("crypto.rsa.signer", default: "auto",
                                                     help: "Which RSA implementation signs tokens: auto (OpenSSL 3's libcrypto when present, else swift-crypto), openssl or swift-crypto.",
                                                     .choice("must be auto (the default), openssl or swift-crypto (see docs/performance.md)"))
        let sqliteSynchronous = Setting<SQLiteStore.Durability>("sqlite.synchronous", default: "normal",
                                                                help: "SQLite commit durability: normal or full.",
                                                                .choice("must be normal (the default) or full (see docs/security.md)"))
        let consoleIdleTimeout = Setting<Int>("console.idle.timeout", .option("console-idle-timeout"),
                                              default: "\(Int(HearthServerConfiguration.defaultConsoleIdleTimeout))",
                                              help: "Seconds a web-console session may stay idle before it must sign in again.",
                                              .integer(1...Int.max, "must be a positive number of seconds"))
        let consoleLink = Setting<Bool>("console.link", .negatedFlag("no-console-link"), default: "true",
                                        help: "Do not make a one-time console login link at start-up (by default one is printed for demo-* projects and on an interactive terminal, otherwise written to <data-dir>/console-login-link, mode 0600); as a setting: console.link false.",
                                        .flag)
        let databaseURL = Setting<String?>("database.url", .option("database-url"), documented: "none (SQLite)", secret: true,
                                          help: "A PostgreSQL database instead of SQLite: postgres://user:password@host:5432/database.",
                                          discussion: "Several servers can share one PostgreSQL database.",
                                          .secret("must be a postgres://user:password@host:5432/database URL"))
        let databaseTLS = Setting<PostgresStoreConfiguration.TLSMode?>("database.tls", .option("database-tls"), documented: "the URL's sslmode, else prefer",
                                                                      requires: .database,
                                                                      help: "TLS to PostgreSQL: disable, prefer or require (verified certificate and host name).",
                                                                      .choice("must be disable, prefer or require"))
        let databaseCAFile = Setting<String?>("database.ca.file", .option("database-ca-file"), documented: "system trust roots", requires: .database,
                                             help: "PEM certificate authorities that sign the PostgreSQL server's certificate.", .text)
        let databaseMaxConnections = Setting<Int>("database.max.connections", default: "20", requires: .database,
                                                  help: "Most PostgreSQL connections per process.",
                                                  .integer(1...1000, "must be a number of connections from 1 to 1000"))
        let storeTimeout = Setting<Double>("store.timeout", .option("store-timeout"), default: "\(Int(HearthServerConfiguration.defaultStoreTimeout))",
                                           help: "Seconds a request may wait for the database before it answers 503 UNAVAILABLE (0.5 to 55).",
                                           .number(0.5...55, "must be a number of seconds from 0.5 to 55 (below a proxy's usual 60 s)"))
        let vaultKeysFile = Setting<String?>("vault.keys.file", .option("vault-keys-file"), documented: "none (vault off)",
                                            help: "A file of provider token vault keys, one id:base64 per line, the first sealing (or the keys themselves in HEARTH_VAULT_KEYS / vault.keys). Without keys no provider refresh token is kept. 'hearth vault new-key' makes a key.",
                                            .checking(String.self, "must be the path of a key file") { path, place in
                                                guard !path.isEmpty else { throw SettingsError(description: "\(place) must be the path of a key file") }
                                                return path
                                            })
        // Keys on a command line are visible to other users of the machine: environment or file only.
        let vaultKeys = Setting<String?>("vault.keys", documented: "none", secret: true,
                                        help: "The provider token vault's keys themselves (id:base64, comma-separated).",
                                        .secret("must be a string of id:base64 keys (comma-separated)"))
        let rateLimits = Setting<Bool?>("rate.limits", .option("rate-limits"), documented: "on, off for demo-* projects unless a limit below is set",
                                       help: "on or off: limit sign-up, password sign-in, createAuthUri and the auth handler per client address and per project.",
                                       .onOff)
        let rateLimitSignUpPerAddress = Setting<Int>("rate.limit.signup.per.address", .option("rate-limit-signup-per-address"),
                                                     default: "\(RateLimitConfiguration.defaultSignUpsPerAddressPerHour)",
                                                     help: "Sign-ups per client address per hour.", .requests("per hour"))
        let rateLimitPerAddress = Setting<Int>("rate.limit.per.address", .option("rate-limit-per-address"),
                                               default: "\(RateLimitConfiguration.defaultPerAddressPerMinute)",
                                               help: "Requests per client address per minute to each of password sign-in, createAuthUri and the auth handler.",
                                               .requests("per minute"))
        let rateLimitPerProject = Setting<Int>("rate.limit.per.project", .option("rate-limit-per-project"),
                                               default: "\(RateLimitConfiguration.defaultPerProjectPerMinute)",
                                               help: "Requests per minute to each limited endpoint from all clients together.", .requests("per minute"))
        let rateLimitEmailPerRecipient = Setting<Int>("rate.limit.email.per.recipient", .option("rate-limit-email-per-recipient"),
                                                      default: "\(RateLimitConfiguration.defaultEmailsPerRecipientPerHour)",
                                                      help: "Emails to one address per hour, whoever asks.", .requests("per hour"))
        let rateLimitEmailPerAddress = Setting<Int>("rate.limit.email.per.address", .option("rate-limit-email-per-address"),
                                                    default: "\(RateLimitConfiguration.defaultEmailsPerAddressPerHour)",
                                                    help: "sendOobCode requests per client address per hour.", .requests("per hour"))
        let smtpURL = Setting<String?>("smtp.url", .option("smtp-url"), documented: "none (dev mailbox for --dev and demo-* projects; otherwise sending is refused)",
                                      secret: true,
                                      help: "The SMTP relay email goes through: smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (implicit TLS).",
                                      valueName: "url", .secret("must be an smtp:// or smtps:// URL"))
        let smtpCAFile = Setting<String?>("smtp.ca.file", .option("smtp-ca-file"), documented: "system trust roots", requires: .smtp,
                                         help: "PEM certificate authorities to trust for the SMTP relay besides the system's (a private CA).", .text)
        let mailFrom = Setting<String>("mail.from", .option("mail-from"), default: "Hearth <noreply@localhost>",
                                       help: "The sender of Hearth's email, \"Name <address>\".", .mailFrom)
        let oobCodeTTLReset = Setting<TimeInterval>("oob.code.ttl.reset", .option("oob-code-ttl-reset"), default: "1h",
                                                    help: "How long a password-reset link works: seconds, or 30m, 1h, 3d (60 seconds to 30 days).", .duration)
        let oobCodeTTLVerify = Setting<TimeInterval>("oob.code.ttl.verify", .option("oob-code-ttl-verify"), default: "3d",
                                                     help: "How long email verification, email change and email recovery links work.", .duration)
        let oobCodeTTLSignIn = Setting<TimeInterval>("oob.code.ttl.signin", .option("oob-code-ttl-signin"), default: "1h",
                                                     help: "How long an email sign-in link works.", .duration)
        let smsURL = Setting<String?>("sms.url", .option("sms-url"), documented: "none (dev SMS sink for --dev and demo-* projects; otherwise sending is refused)",
                                     secret: true,
                                     help: "The SMS gateway phone codes go through: twilio://<AccountSID>:<AuthToken>@api.twilio.com?from=%2B15555550100 (or ?messagingServiceSid=MG…), or the https:// URL of your webhook (docs/phone.md).",
                                     valueName: "url", .secret("must be a twilio:// or https:// URL"))
        // A command line is visible to other users of the machine: environment or file only.
        let smsWebhookSecret = Setting<String?>("sms.webhook.secret", documented: "none (the webhook's calls are unsigned)", secret: true, requires: .sms,
                                               help: "The key the SMS webhook's calls are signed with (X-Hearth-Signature, HMAC-SHA256; at least 16 characters).",
                                               .secret("must be a string of at least 16 characters"))
        let trustedProxies = Setting<[String]>("trusted.proxies", .list("trusted-proxy"), default: "", documented: "none (the header is ignored)",
                                               help: "A reverse proxy's address or CIDR network whose X-Forwarded-For gives the client address; repeat for several (comma-separated in the environment).",
                                               .trustedProxies)
        let hooksAllowPrivateNetworks = Setting<Bool>("hooks.allow.private.networks", .flag("hooks-allow-private-networks"), default: "false",
                                                      documented: "off", help: "Blocking-function URLs may be or resolve to private, loopback and link-local addresses (by default only public addresses; with --dev, loopback too).",
                                                      .flag)
    }
}

extension Settings.Key.Requirement {
    static let database = Self(key: "database.url", purpose: "a PostgreSQL database")
    static let smtp = Self(key: "smtp.url", purpose: "an SMTP relay")
    static let sms = Self(key: "sms.url", purpose: "an SMS gateway")
}

// The checks of the declarations above.

extension SettingType where Value == String {
    static var projectId: Self {
        reading(String.self, "must be a project id (lower-case letters, digits and hyphens, starting with a letter, at most 64 characters)") {
            Settings.isProjectId($0) ? $0 : nil
        }
    }

    static var publicURL: Self {
        reading(String.self, "must be an http(s) URL such as https://auth.example.com") { text in
            guard let components = URLComponents(string: text), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
                  components.host?.isEmpty == false, components.query == nil, components.fragment == nil
            else { return nil }
            return text
        }
    }

    /// A secret's text: its checks are the settings that use it (messages never repeat it).
    static func secret(_ expectation: String) -> Self { reading(String.self, expectation) { $0 } }

    /// The token is a secret: no message repeats it.
    static var metricsToken: Self {
        reading(String.self, "must be a string of at least 16 characters without spaces (a random value, e.g. from openssl rand -hex 32)") { token in
            token.utf8.count >= 16 && !token.contains(where: \.isWhitespace) ? token : nil
        }
    }

    static var mailFrom: Self {
        reading(String.self, "must be an address or \"Name <address>\", e.g. \"Acme <no-reply@acme.example>\"") { text in
            (try? MailAddress(parsing: text)) != nil ? text : nil
        }
    }
}

extension SettingType where Value == Int {
    /// A request limit.
    static func requests(_ unit: String) -> Self { integer(1...10_000_000, "must be a number of requests \(unit) from 1 to 10000000") }
}

extension SettingType where Value == TimeInterval {
    /// Seconds, or a number with s, m, h or d; 60 seconds to 30 days.
    static var duration: Self {
        reading(String.self, "must be a duration from 60 seconds to 30 days: seconds, or 30m, 1h, 3d") { written in
            let text = written.trimmingCharacters(in: .whitespaces).lowercased()
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            let seconds: Double? = if let unit = text.last.flatMap({ units[$0] }) { Double(text.dropLast()).map { $0 * unit } } else { Double(text) }
            guard let seconds, seconds.isFinite, seconds >= 60, seconds <= 30 * 86_400 else { return nil }
            return seconds
        }
    }
}

extension SettingType where Value == [String] {
    /// Non-empty strings.
    static func strings(_ expectation: String) -> Self { reading([String].self, expectation) { $0.filter { !$0.isEmpty } } }

    /// Addresses and CIDR networks ``TrustedProxies`` accepts.
    static var trustedProxies: Self {
        checking([String].self, "must be a list of IP addresses or CIDR networks") { entries, place in
            do {
                _ = try TrustedProxies(entries)
            } catch {
                throw SettingsError(description: "\(place): \(error)")
            }
            return entries.filter { !$0.isEmpty }
        }
    }
}

/// The settings the store options name (`StoreOptions`, `hearth vault`): the same declarations, by the names those
/// commands use as keys of ``Settings/load(options:configFile:environment:)``'s `options`.
extension Settings.Key {
    static var dataDir: Self { Settings.table.dataDir.key }
    static var projectId: Self { Settings.table.projectId.key }
    static var databaseURL: Self { Settings.table.databaseURL.key }
    static var databaseTLS: Self { Settings.table.databaseTLS.key }
    static var databaseCAFile: Self { Settings.table.databaseCAFile.key }
    static var vaultKeysFile: Self { Settings.table.vaultKeysFile.key }
}
