import ArgumentParser
import Configuration
import Foundation
import HearthCore
import HearthDevIdP
import HearthServer
import HearthStoreSQLite
import Hummingbird
import Logging

/// `hearth serve`: runs the server until SIGINT/SIGTERM, then shuts down gracefully.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Hearth server (the default command).")

    @Option(help: "Address to listen on (default 127.0.0.1, env HEARTH_HOST).")
    var host: String?

    @Option(help: "Port to listen on (default 9099, env HEARTH_PORT).")
    var port: Int?

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("project-id"), help: "Firebase project id (default demo-hearth, env HEARTH_PROJECT_ID).")
    var projectId: String?

    @Option(name: .customLong("api-key"), help: "An accepted API key; repeat for several (env HEARTH_API_KEYS, comma-separated). With none, demo-* projects accept any key.")
    var apiKeys: [String] = []

    @Flag(help: "Run the built-in Microsoft- and Yahoo-shaped identity providers and enable microsoft.com and yahoo.com against them.")
    var dev = false

    @Option(name: .customLong("public-url"), help: "The server's external base URL (default http://<host>:<port>, env HEARTH_PUBLIC_URL). Register <public-url>/__/auth/handler at providers.")
    var publicURL: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (default info).")
    var logLevel: String?

    func run() async throws {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let host { values["hearth.host"] = .init(.string(host), isSecret: false) }
        if let port { values["hearth.port"] = .init(.int(port), isSecret: false) }
        if let dataDir = storeOptions.dataDir { values["hearth.data.dir"] = .init(.string(dataDir), isSecret: false) }
        if let projectId { values["hearth.project.id"] = .init(.string(projectId), isSecret: false) }
        if !apiKeys.isEmpty { values["hearth.api.keys"] = .init(.stringArray(apiKeys), isSecret: true) }
        if dev { values["hearth.dev"] = .init(.bool(true), isSecret: false) }
        if let publicURL { values["hearth.public.url"] = .init(.string(publicURL), isSecret: false) }
        if let logLevel { values["hearth.log.level"] = .init(.string(logLevel), isSecret: false) }
        let settings = try await Settings.load(arguments: values, configFile: storeOptions.configFile)

        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "hearth")
        guard (1...65535).contains(settings.port) || settings.port == 0 else {
            throw ValidationError("port must be between 0 and 65535")
        }
        let store = try await HearthCLI.openStore(directory: settings.dataDir, durability: settings.sqliteDurability,
                                                  logger: Logger(label: "hearth.store"))
        let configuration = HearthServerConfiguration(
            projectId: settings.projectId, apiKeys: Set(settings.apiKeys), host: settings.host, port: settings.port,
            keyRotation: KeyRotationPolicy(rotationInterval: settings.keyRotationHours * 3600),
            publicURL: settings.publicURL.map { PublicBaseURL($0) })
        let devIdPs = settings.dev ? try await DevIdentityProviders(publicURL: configuration.publicURL) : nil
        let app = try await buildApplication(configuration: configuration, store: store, devIdPs: devIdPs, logger: logger) { port in
            Self.printBanner(settings: settings, configuration: configuration, port: port)
        }
        do {
            try await app.runService()
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    static func printBanner(settings: Settings, configuration: HearthServerConfiguration, port: Int) {
        let base = "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)"
        let keys = configuration.acceptsAnyAPIKey
            ? "any API key (demo project, no --api-key given)"
            : configuration.apiKeys.isEmpty ? "no API key: give --api-key (every request will be refused)"
            : "\(configuration.apiKeys.count) configured API key(s)"
        let lines = [
            "Hearth is serving project \(settings.projectId) at \(base)",
            "  data:          \(settings.dataDir)/hearth.sqlite",
            "  accepts:       \(keys)",
            "  accounts v1:   \(base)/identitytoolkit.googleapis.com/v1/accounts:{signUp,signInWithPassword,lookup,update,delete,createAuthUri,signInWithCustomToken}",
            "  accounts v3:   \(base)/www.googleapis.com/identitytoolkit/v3/relyingparty/*",
            "  refresh:       \(base)/securetoken.googleapis.com/v1/token",
            "  x509 keys:     \(base)/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            "  JWKS:          \(base)/.well-known/jwks.json",
            "  emulator host: FIREBASE_AUTH_EMULATOR_HOST=\(settings.host):\(port)",
            "  auth handler:  \(configuration.publicURL.authHandlerURL)  (the redirect URI to register at providers)",
            settings.dev ? "  dev IdPs:      microsoft.com at \(configuration.publicURL.url)/__dev/microsoft, yahoo.com at \(configuration.publicURL.url)/__dev/yahoo" : nil,
            settings.dev ? "  try it:        open \(configuration.publicURL.url)/__dev/try?provider=microsoft.com (or yahoo.com, or add &tenant=organizations) in a browser" : nil,
            "Press Ctrl-C to stop.",
        ].compactMap { $0 }
        // Unbuffered, so the banner shows at once even when stdout is a pipe.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
