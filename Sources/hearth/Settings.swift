import Configuration
import Foundation
import HearthServer
import HearthStoreSQLite
import SystemPackage

/// The server settings, read from (first match wins) the command line, `HEARTH_*` environment variables, and a
/// JSON configuration file, then defaults.
struct Settings {
    var host: String
    var port: Int
    var dataDir: String
    var projectId: String
    var apiKeys: [String]
    var dev: Bool
    var logLevel: String
    var keyRotationHours: Double
    var publicURL: String?
    var sqliteDurability: SQLiteStore.Durability

    /// Keys (environment names in brackets): `host` (HEARTH_HOST), `port` (HEARTH_PORT), `data.dir`
    /// (HEARTH_DATA_DIR), `project.id` (HEARTH_PROJECT_ID), `api.keys` (HEARTH_API_KEYS, comma-separated),
    /// `dev` (HEARTH_DEV), `log.level` (HEARTH_LOG_LEVEL), `keys.rotation.hours` (HEARTH_KEYS_ROTATION_HOURS),
    /// `public.url` (HEARTH_PUBLIC_URL), `sqlite.synchronous` (HEARTH_SQLITE_SYNCHRONOUS: `normal`, the default, or
    /// `full`; see docs/security.md).
    static func load(arguments: [AbsoluteConfigKey: ConfigValue], configFile: String?) async throws -> Settings {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "arguments", values: arguments),
            EnvironmentVariablesProvider(secretsSpecifier: .specific(["HEARTH_API_KEYS"])),
        ]
        let environment = ProcessInfo.processInfo.environment
        if let path = configFile ?? environment["HEARTH_CONFIG_FILE"] {
            let file: FileProvider<JSONSnapshot>
            do {
                file = try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
            } catch {
                throw SettingsError(description: "cannot read the configuration file \(path): \(error)")
            }
            // The file holds the keys without the `hearth.` prefix: {"port": 9099, "project": {"id": "..."}}.
            providers.append(file.mapKeys { key in
                key.components.first == "hearth"
                    ? AbsoluteConfigKey(Array(key.components.dropFirst()), context: key.context) : key
            })
        }
        let reader = ConfigReader(providers: providers).scoped(to: "hearth")
        let synchronous = reader.string(forKey: "sqlite.synchronous", default: "normal").lowercased()
        guard let durability = SQLiteStore.Durability(rawValue: synchronous) else {
            throw SettingsError(description: "sqlite.synchronous (HEARTH_SQLITE_SYNCHRONOUS) must be normal or full, not \(synchronous)")
        }
        return Settings(
            host: reader.string(forKey: "host", default: "127.0.0.1"),
            port: reader.int(forKey: "port", default: 9099),
            dataDir: reader.string(forKey: "data.dir", default: "./.hearth"),
            projectId: reader.string(forKey: "project.id", default: "demo-hearth"),
            apiKeys: reader.stringArray(forKey: "api.keys", isSecret: true, default: []).filter { !$0.isEmpty },
            dev: reader.bool(forKey: "dev", default: false),
            logLevel: reader.string(forKey: "log.level", default: "info"),
            keyRotationHours: reader.double(forKey: "keys.rotation.hours", default: 24),
            publicURL: reader.string(forKey: "public.url"),
            sqliteDurability: durability
        )
    }
}

/// A configuration problem, reported before the server starts.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
}
