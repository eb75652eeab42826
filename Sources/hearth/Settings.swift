import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthWire

/// The server settings, read from (first match wins) the command line, `HEARTH_*` environment variables and a
/// JSON configuration file, then defaults. Every value is checked: a bad one stops the command with a message
/// naming the key, where it came from and the value.
struct Settings {
    var host: String
    var port: Int
    var dataDir: String
    var projectId: String
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

    /// The request limits these settings give for the project.
    var rateLimits: RateLimitConfiguration {
        let configured = signUpsPerAddressPerHour != nil || perAddressPerMinute != nil || perProjectPerMinute != nil
        return RateLimitConfiguration(
            enabled: rateLimitsEnabled ?? (configured || !projectId.hasPrefix("demo-")),
            signUpsPerAddressPerHour: signUpsPerAddressPerHour ?? RateLimitConfiguration.defaultSignUpsPerAddressPerHour,
            perAddressPerMinute: perAddressPerMinute ?? RateLimitConfiguration.defaultPerAddressPerMinute,
            perProjectPerMinute: perProjectPerMinute ?? RateLimitConfiguration.defaultPerProjectPerMinute)
    }

    /// Where the data lives, safe to print: the SQLite file, or the PostgreSQL URL with its password masked.
    var storeDescription: String {
        database.map { $0.maskedURL } ?? (dataDir as NSString).appendingPathComponent("hearth.sqlite")
    }

    /// The log levels `log.level` accepts.
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// One setting: its key in the file (`project.id`, nested `{"project":{"id":…}}` also works) and its
    /// environment variable.
    enum Key: String, CaseIterable {
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

        var environmentName: String { "HEARTH_" + rawValue.uppercased().replacingOccurrences(of: ".", with: "_") }
        var optionName: String {
            switch self {
            case .dataDir: "--data-dir"
            case .projectId: "--project-id"
            case .apiKeys: "--api-key"
            case .logLevel: "--log-level"
            case .logFormat: "--log-format"
            case .metricsAccess: "--metrics-access"
            case .metricsToken: "--metrics-token"
            case .publicURL: "--public-url"
            case .keyRotationHours: "keys.rotation.hours"
            case .sqliteSynchronous: "sqlite.synchronous"
            case .databaseURL: "--database-url"
            case .databaseTLS: "--database-tls"
            case .databaseCAFile: "--database-ca-file"
            case .databaseMaxConnections: "database.max.connections"
            // Keys on a command line are visible to other users of the machine: environment or file only.
            case .vaultKeys: "vault.keys"
            case .vaultKeysFile: "--vault-keys-file"
            case .rateLimits: "--rate-limits"
            case .rateLimitSignUpPerAddress: "--rate-limit-signup-per-address"
            case .rateLimitPerAddress: "--rate-limit-per-address"
            case .rateLimitPerProject: "--rate-limit-per-project"
            case .trustedProxies: "--trusted-proxy"
            case .storeTimeout: "--store-timeout"
            default: "--\(rawValue)"
            }
        }
    }

    /// A raw value and where it came from.
    struct Source {
        enum Origin {
            case option, environment, file(String)
        }

        var value: Any
        var origin: Origin

        func describe(_ key: Key) -> String {
            switch origin {
            case .option: key.optionName
            case .environment: key.environmentName
            case .file(let path): "\"\(key.rawValue)\" in \(path)"
            }
        }
    }

    /// Loads and checks the settings. `options` holds command-line values by key.
    static func load(options: [Key: Any], configFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        var file: [Key: Source] = [:]
        if let path = configFile ?? environment["HEARTH_CONFIG_FILE"] {
            file = try readFile(path)
        }
        func source(_ key: Key) -> Source? {
            if let value = options[key] { return Source(value: value, origin: .option) }
            if let value = environment[key.environmentName] { return Source(value: value, origin: .environment) }
            return file[key]
        }
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
        var settings = Settings(host: "127.0.0.1", port: 9099, dataDir: "./.hearth", projectId: "demo-hearth", apiKeys: [], dev: false,
                                logLevel: "info", keyRotationHours: 24, publicURL: nil, sqliteDurability: .normal, database: nil)
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
            var maximumConnections = 20
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
            for key in [Key.databaseTLS, .databaseCAFile, .databaseMaxConnections] where source(key) != nil {
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
            result[key] = Source(value: plain(value), origin: .file(path))
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
