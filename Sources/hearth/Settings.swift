import Configuration
import Foundation
import HearthServer
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

    /// Keys (environment names in brackets): `host` (HEARTH_HOST), `port` (HEARTH_PORT), `data.dir`
    /// (HEARTH_DATA_DIR), `project.id` (HEARTH_PROJECT_ID), `api.keys` (HEARTH_API_KEYS, comma-separated),
    /// `dev` (HEARTH_DEV), `log.level` (HEARTH_LOG_LEVEL), `keys.rotation.hours` (HEARTH_KEYS_ROTATION_HOURS),
    /// `public.url` (HEARTH_PUBLIC_URL).
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
        return Settings(
            host: reader.string(forKey: "host", default: "127.0.0.1"),
            port: reader.int(forKey: "port", default: 9099),
            dataDir: reader.string(forKey: "data.dir", default: "./.hearth"),
            projectId: reader.string(forKey: "project.id", default: "demo-hearth"),
            apiKeys: reader.stringArray(forKey: "api.keys", isSecret: true, default: []).filter { !$0.isEmpty },
            dev: reader.bool(forKey: "dev", default: false),
            logLevel: reader.string(forKey: "log.level", default: "info"),
            keyRotationHours: reader.double(forKey: "keys.rotation.hours", default: 24),
            publicURL: reader.string(forKey: "public.url")
        )
    }
}

/// A configuration problem, reported before the server starts.
struct SettingsError: Error, CustomStringConvertible {
    let description: String
}
