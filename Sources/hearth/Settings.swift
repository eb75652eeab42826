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

/// The server settings, each declared once (``Settings/Table``) and read with swift-configuration's `ConfigReader` from
/// (first match wins) the command line, `HEARTH_*` environment variables and a JSON configuration file, then the
/// declared defaults. Every value is checked: a bad one stops the command with a message naming the key, where it came
/// from and the value. A setting's value is `settings[\.name]`; the properties below are the ones other commands use
/// and the values several settings make together (the PostgreSQL database, the SMTP relay, the vault keys, the limits).
struct Settings {
    /// Every declared setting's value (its default when no source gives it), by key.
    private let values: [Key: any Sendable]
    /// Where each setting given by a source (not a default) came from, for messages.
    private let sources: Sources
    private let given: [Key: Sources.Origin]

    /// The project: `project.id`, or the data's one project (a command on data that holds one other project uses that
    /// one, issue 35, item 12).
    var projectId: String
    /// The PostgreSQL database (`database.url`); nil: SQLite in `dataDir`.
    private(set) var database: PostgresStoreConfiguration?
    /// The provider token vault's keys (`vault.keys` or `vault.keys.file`); nil: the vault is off.
    private(set) var providerTokenKeys: ProviderTokenKeys?
    /// `smtp.url` (with `smtp.ca.file`): the relay email goes through; nil: none.
    private(set) var smtp: SMTPConfiguration?
    /// `sms.url` (with `sms.webhook.secret`): the gateway phone codes go through; nil: none.
    private(set) var smsSender: (any SmsSender)?
    /// `metrics.access`, or `token` when only `metrics.token` is given.
    private(set) var metricsAccess: MetricsAccess = .local

    /// The value of a setting (its default when none of the sources gives it).
    subscript<Value>(_ setting: KeyPath<Table, Setting<Value>>) -> Value {
        let key = Self.table[keyPath: setting].key
        guard let value = values[key] as? Value else { preconditionFailure("\(key) was not read as \(Value.self)") }
        return value
    }

    /// Whether a source (option, environment, file) gave the setting, rather than its default.
    func isGiven(_ setting: KeyPath<Table, some DeclaredSetting>) -> Bool { given[Self.table[keyPath: setting].key] != nil }

    /// Where a given setting came from, as messages say it (`--port`, `HEARTH_PORT`, `"port" in hearth.json`).
    func place(_ setting: KeyPath<Table, some DeclaredSetting>) -> String {
        let key = Self.table[keyPath: setting].key
        return given[key].map { sources.place(key, $0) } ?? key.optionName
    }

    /// A setting's every form, for a message that asks for it: `--metrics-token (env HEARTH_METRICS_TOKEN, config key metrics.token)`.
    static func forms(_ setting: KeyPath<Table, some DeclaredSetting>) -> String {
        let key = table[keyPath: setting].key
        return "\(key.optionName) (env \(key.environmentName), config key \(key.rawValue))"
    }

    var host: String { self[\.host] }
    var port: Int { self[\.port] }
    var dataDir: String { self[\.dataDir] }
    /// Whether the project id was given (option, environment, file) rather than the default.
    var projectIdGiven: Bool { isGiven(\.projectId) }
    var publicURL: String? { self[\.publicURL] }
    var sqliteDurability: SQLiteStore.Durability { self[\.sqliteSynchronous] }
    /// The file the vault keys came from, if any.
    var providerTokenKeysFile: String? { self[\.vaultKeysFile] }
    var storeTimeout: TimeInterval { self[\.storeTimeout] }

    /// The request limits these settings give for the project: on, except for `demo-*` projects without a configured
    /// limit; `rate.limits` decides when given.
    var rateLimits: RateLimitConfiguration {
        let limits: [KeyPath<Table, Setting<Int>>] = [\.rateLimitSignUpPerAddress, \.rateLimitPerAddress, \.rateLimitPerProject,
                                                      \.rateLimitEmailPerRecipient, \.rateLimitEmailPerAddress]
        return RateLimitConfiguration(
            enabled: self[\.rateLimits] ?? (limits.contains { isGiven($0) } || !projectId.hasPrefix("demo-")),
            signUpsPerAddressPerHour: self[\.rateLimitSignUpPerAddress], perAddressPerMinute: self[\.rateLimitPerAddress],
            perProjectPerMinute: self[\.rateLimitPerProject], emailsPerAddressPerHour: self[\.rateLimitEmailPerAddress],
            emailsPerRecipientPerHour: self[\.rateLimitEmailPerRecipient])
    }

    /// `oob.code.ttl.*`: how long action codes work.
    var oobLifetimes: OobCodeLifetimes {
        OobCodeLifetimes(reset: self[\.oobCodeTTLReset], verify: self[\.oobCodeTTLVerify], signIn: self[\.oobCodeTTLSignIn])
    }

    /// Where the data lives, safe to print: the SQLite file, or the PostgreSQL URL with its password masked.
    var storeDescription: String {
        database.map { $0.maskedURL } ?? (dataDir as NSString).appendingPathComponent("hearth.sqlite")
    }

    /// The log levels `log.level` accepts.
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// Loads and checks the settings. `options` holds command-line values by key (text, a list, a flag's presence).
    static func load(options: [Key: Any], configFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        var file: [Key: SettingValue] = [:]
        let path = configFile ?? environment["HEARTH_CONFIG_FILE"]
        if let path { file = try readFile(path) }
        let sources = Sources(options: Dictionary(uniqueKeysWithValues: options.map { ($0.key, $0.key.commandLineValue($0.value)) }),
                              environment: environment, file: file, filePath: path ?? "")
        var values: [Key: any Sendable] = [:]
        var given: [Key: Sources.Origin] = [:]
        for key in Key.all {
            let origin = sources.origin(of: key)
            if let origin, origin != .defaults { given[key] = origin }
            // A setting that only means something with another (database.tls without database.url) says so first.
            if let requirement = key.requirement, let origin = given[key], let needed = Key(rawValue: requirement.key),
               sources.origin(of: needed).map({ $0 == .defaults }) ?? true {
                throw SettingsError(description: "\(sources.place(key, origin)) applies to \(requirement.purpose): give \(needed.optionName) (env \(needed.environmentName)) too")
            }
            values[key] = try key.resolve(sources, key)
        }
        var settings = Settings(values: values, sources: sources, given: given, projectId: "")
        settings.projectId = settings[\.projectId]
        try settings.combine()
        return settings
    }

    /// The values several settings make together, and the checks across settings.
    private mutating func combine() throws {
        // The token is a secret: no message repeats it.
        if let access = self[\.metricsAccess] {
            if access == .token, self[\.metricsToken] == nil {
                throw SettingsError(description: "\(place(\.metricsAccess)) is token: give the token too with \(Self.forms(\.metricsToken))")
            }
            if access != .token, isGiven(\.metricsToken) {
                throw SettingsError(description: "\(place(\.metricsToken)) is set but \(place(\.metricsAccess)) is \(access.rawValue): the token applies only to metrics.access token (drop one of them)")
            }
            metricsAccess = access
        } else if self[\.metricsToken] != nil {
            metricsAccess = .token
        }
        // The URL holds the password: messages name the setting, never the value.
        if let url = self[\.databaseURL] {
            var configuration: PostgresStoreConfiguration
            do {
                configuration = try PostgresStoreConfiguration(url: url.trimmingCharacters(in: .whitespaces), tls: self[\.databaseTLS],
                                                               caFile: self[\.databaseCAFile], maximumConnections: self[\.databaseMaxConnections])
            } catch {
                throw SettingsError(description: "\(place(\.databaseURL)): \(error.description)")
            }
            configuration.operationTimeout = storeTimeout
            database = configuration
        }
        providerTokenKeys = try loadVaultKeys()
        if let url = self[\.smtpURL] {
            let caFile = self[\.smtpCAFile]
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                throw SettingsError(description: "\(place(\.smtpCAFile)) names \(caFile), which cannot be read")
            }
            do {
                smtp = try SMTPConfiguration(url: url.trimmingCharacters(in: .whitespaces), trustedCAFile: caFile)
            } catch let error as MailError {
                throw SettingsError(description: "\(place(\.smtpURL)): \(error.description)")
            }
        }
        // The URL holds the token and the secret is one: messages name the settings, never the values.
        if let url = self[\.smsURL] {
            do {
                smsSender = try SmsConfiguration.sender(url: url.trimmingCharacters(in: .whitespaces), webhookSecret: self[\.smsWebhookSecret])
            } catch {
                throw SettingsError(description: "\(place(\.smsURL)): \(error.description)")
            }
        }
    }

    /// The provider token vault's keys from `vault.keys` (the text form) or `vault.keys.file` (a file holding it).
    /// Messages name the key and the problem, never key material.
    private func loadVaultKeys() throws -> ProviderTokenKeys? {
        if isGiven(\.vaultKeys), isGiven(\.vaultKeysFile) {
            throw SettingsError(description: "give \(place(\.vaultKeys)) or \(place(\.vaultKeysFile)), not both")
        }
        if let text = self[\.vaultKeys] {
            do {
                return try ProviderTokenKeys.parse(text)
            } catch {
                throw SettingsError(description: "\(place(\.vaultKeys)): \(error) (hearth vault new-key makes one)")
            }
        }
        guard let path = self[\.vaultKeysFile] else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "\(place(\.vaultKeysFile)): \(path) cannot be read (does it exist, and may this user read it?)")
        }
        do {
            return try ProviderTokenKeys.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw SettingsError(description: "\(place(\.vaultKeysFile)): \(path): \(error) (hearth vault new-key makes one)")
        }
    }

    /// `HEARTH_*` variables the CLI does not know (a typo such as `HEARTH_PROT`), each with a suggestion.
    static func unknownEnvironmentVariables(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let known = Set(Key.all.map(\.environmentName) + ["HEARTH_CONFIG_FILE", "HEARTH_SERVER_URL", "HEARTH_API_KEY", "HEARTH_APP_ID",
                                                               "HEARTH_PASSWORD", "HEARTH_CLIENT_SECRET", "HEARTH_BINARY"])
        return environment.keys.filter { $0.hasPrefix("HEARTH_") && !$0.hasPrefix("HEARTH_TEST_") && !known.contains($0) }.sorted().map { name in
            let suggestion = known.min { editDistance($0, name) < editDistance($1, name) }.flatMap { editDistance($0, name) <= 3 ? $0 : nil }
            return "unknown environment variable \(name) is ignored" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
        }
    }

    /// Reads the JSON file: syntax errors with line and column, unknown keys with a suggestion.
    static func readFile(_ path: String) throws -> [Key: SettingValue] {
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
        var result: [Key: SettingValue] = [:]
        for (name, value) in flat.sorted(by: { $0.key < $1.key }) {
            guard let key = Key(rawValue: name) else {
                let known = Key.all.map(\.rawValue)
                let suggestion = known.min { editDistance($0, name) < editDistance($1, name) }
                    .flatMap { editDistance($0, name) <= max(2, name.count / 3) ? $0 : nil }
                throw SettingsError(description: "unknown key \"\(name)\" in \(path)"
                    + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "") + "; known keys: \(known.joined(separator: ", "))")
            }
            result[key] = SettingValue(json: value)
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

    static func isProjectId(_ id: String) -> Bool {
        (1...64).contains(id.count) && id.first?.isLetter == true
            && id.allSatisfy { ($0.isLetter && $0.isLowercase && $0.isASCII) || ($0.isNumber && $0.isASCII) || $0 == "-" }
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
