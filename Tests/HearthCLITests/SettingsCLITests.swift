import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import Testing

/// Issue 37, item 4: every setting declared once, read through one path from its option, its `HEARTH_*` variable and
/// its configuration file key, through the real `hearth` binary.
@Suite struct SettingsCLITests {
    /// A declared setting as `hearth serve --help` describes it (every option's help, and the discussion's list of the
    /// settings without one, end with "(default …, env HEARTH_…, config key …)").
    struct Declared: CustomStringConvertible {
        var key: String
        var environment: String
        var defaultText: String
        /// The long option (`--port`), nil: environment and file only.
        var option: String?
        /// Whether the option takes no value (`--dev`).
        var isFlag: Bool
        var description: String { key }
    }

    static var tail: Regex<(Substring, Substring, Substring, Substring)> { #/\(default (.+), env (HEARTH_[A-Z0-9_]+), config key ([a-z0-9.]+)\)$/# }

    /// The settings the binary declares, from `hearth serve --experimental-dump-help`.
    static func declared() throws -> [Declared] {
        let dump = try CLI.run(["serve", "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        func find(_ command: [String: Any]) -> [String: Any]? {
            if command["commandName"] as? String == "serve" { return command }
            return (command["subcommands"] as? [[String: Any]] ?? []).lazy.compactMap(find).first
        }
        let command = try #require(root["command"] as? [String: Any])
        let serve = try #require(find(command))
        var settings: [Declared] = []
        for argument in serve["arguments"] as? [[String: Any]] ?? [] {
            guard let abstract = argument["abstract"] as? String, let match = abstract.firstMatch(of: tail) else { continue }
            let long = (argument["names"] as? [[String: Any]] ?? []).first { $0["kind"] as? String == "long" }?["name"] as? String
            settings.append(Declared(key: String(match.3), environment: String(match.2), defaultText: String(match.1),
                                     option: long.map { "--\($0)" }, isFlag: argument["kind"] as? String == "flag"))
        }
        for line in (serve["discussion"] as? String ?? "").split(separator: "\n") {
            guard let match = line.trimmingCharacters(in: .whitespaces).firstMatch(of: tail) else { continue }
            settings.append(Declared(key: String(match.3), environment: String(match.2), defaultText: String(match.1), option: nil, isFlag: false))
        }
        return settings
    }

    func writeConfig(_ text: String) -> String {
        let path = CLI.temporaryDirectory() + "/hearth.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// Issue 37, item 4: every declared setting is reachable from its option, its environment variable and its file key:
    /// a value it refuses, given each way, stops `serve` with a message naming that way (so the value reached the
    /// setting's check through the one reader); the options that take no value and the one list that takes any text
    /// are shown working on a started server. Options win over the environment, which wins over the file.
    @Test func everyDeclaredSettingIsReachableFromItsOptionVariableAndFileKey() throws {
        let settings = try Self.declared()
        // Every setting of the issue's list is declared, the three that bypassed the reader among them.
        for key in ["host", "port", "data.dir", "project.id", "api.keys", "public.url", "store.timeout", "vault.keys", "smtp.url",
                    "trusted.proxies", "emulator.admin", "emulator.admin.allow.remote", "console.idle.timeout", "console.link"] {
            #expect(settings.contains { $0.key == key }, "\(key) is not declared: \(settings)")
        }
        #expect(Set(settings.map(\.key)).count == settings.count, "a key is declared twice: \(settings)")
        for setting in settings {
            #expect(setting.environment == "HEARTH_" + setting.key.uppercased().replacingOccurrences(of: ".", with: "_"))
        }

        let directory = CLI.temporaryDirectory()
        func refused(_ arguments: [String], _ environment: [String: String] = [:], naming place: String, _ setting: Declared) throws {
            let result = try CLI.run(["serve"] + arguments, environment: environment, in: directory, timeout: 20)
            #expect(result.status != 0 && result.stderr.contains(place), "\(setting) given as \(place): \(result.output)")
            #expect(!result.stdout.contains("Hearth is serving"), "\(setting) given as \(place) started a server")
        }
        // Blank is a value every setting refuses, except the list of API keys (any text is keys).
        let blank = "  "
        for setting in settings where setting.key != "api.keys" {
            let config = writeConfig("{\"\(setting.key)\": \"\(blank)\"}")
            try refused(["--config", config], naming: "\"\(setting.key)\" in \(config)", setting)
            try refused([], [setting.environment: blank], naming: setting.environment, setting)
            if let option = setting.option, !setting.isFlag { try refused([option, blank], naming: option, setting) }
        }
        let keysFile = writeConfig(#"{"api": {"keys": ["k1", 2]}}"#)
        try refused(["--config", keysFile], naming: "\"api.keys\" in \(keysFile)", Declared(key: "api.keys", environment: "", defaultText: "", option: nil, isFlag: false))
        #expect(!FileManager.default.fileExists(atPath: directory + "/.hearth"), "a refused start created the data directory")

        // The value-less options and the API keys, on the command line: a non-demo project, two keys, the dev IdPs,
        // the emulator credentials from any client, no console link.
        let flags = settings.filter(\.isFlag).compactMap(\.option)
        #expect(Set(flags) == ["--dev", "--emulator-admin", "--emulator-admin-allow-remote", "--no-console-link", "--hooks-allow-private-networks"], "\(flags)")
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start(["--project-id", "acme-flags", "--api-key", "k1", "--api-key", "k2"] + flags, dataDir: data)
        Thread.sleep(forTimeInterval: 1)
        server.stop()
        #expect(server.banner.contains("accepts:       2 configured API key(s)"), "\(server.banner)")
        #expect(server.banner.contains("dev clients:"), "\(server.banner)")
        #expect(server.banner.contains("accepted from ANY client"), "\(server.banner)")
        #expect(!server.banner.contains("Console:") && !FileManager.default.fileExists(atPath: data + "/console-login-link"), "\(server.banner)")
        // The API keys from the environment, comma-separated.
        let fromEnvironment = try RunningServer.start(["--project-id", "acme-flags", "--no-console-link"], dataDir: data,
                                                      environment: ["HEARTH_API_KEYS": "k1, k2,k3"])
        fromEnvironment.stop()
        #expect(fromEnvironment.banner.contains("accepts:       3 configured API key(s)"), "\(fromEnvironment.banner)")

        // First match wins: the option, then the environment, then the file.
        let file = writeConfig(#"{"port": "from-file"}"#)
        let all = try CLI.run(["serve", "--config", file, "--port", "from-option"], environment: ["HEARTH_PORT": "from-env"], in: directory)
        #expect(all.stderr.contains("--port must be a port number from 0 to 65535, got \"from-option\""), "\(all.stderr)")
        let environmentAndFile = try CLI.run(["serve", "--config", file], environment: ["HEARTH_PORT": "from-env"], in: directory)
        #expect(environmentAndFile.stderr.contains("HEARTH_PORT must be a port number from 0 to 65535, got \"from-env\""), "\(environmentAndFile.stderr)")
    }

    /// Issue 37, item 4: `--emulator-admin`, `--console-idle-timeout` and `--no-console-link` (and
    /// `--emulator-admin-allow-remote`) bypassed the settings' reader; now they are settings like the others, so the
    /// environment and the configuration file give them too, and their checks name where a value came from.
    @Test func formerlyBypassingFlagsWorkFromTheEnvironmentAndTheFile() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        let config = writeConfig(#"{"project": {"id": "acme-bypass"}, "api.keys": ["k1"], "console": {"link": false}}"#)
        let server = try RunningServer.start(["--config", config], dataDir: data,
                                             environment: ["HEARTH_EMULATOR_ADMIN": "true", "HEARTH_CONSOLE_IDLE_TIMEOUT": "120"])
        defer { server.stop() }
        // HEARTH_EMULATOR_ADMIN: the emulator credentials for a non-demo project.
        #expect(server.banner.contains("admin auth:    emulator credentials ('Bearer owner') accepted from programs on this machine"), "\(server.banner)")
        // HEARTH_CONSOLE_IDLE_TIMEOUT: the console's idle limit.
        let (page, _) = try await URLSession.shared.data(from: URL(string: "\(server.url)/console/login?expired=1")!)
        #expect(String(decoding: page, as: UTF8.self).contains("idle for more than 2 minutes"))
        // console.link false in the file: no start-up link, printed or written.
        try await Task.sleep(for: .seconds(1))
        server.stop()
        #expect(!server.banner.contains("Console:"), "\(server.banner)")
        #expect(!FileManager.default.fileExists(atPath: data + "/console-login-link"))

        // The same data without them: service-account tokens only, a 30-minute console limit, a link in a file.
        let plain = try RunningServer.start(["--project-id", "acme-bypass", "--api-key", "k1"], dataDir: data)
        defer { plain.stop() }
        #expect(plain.banner.contains("admin auth:    service-account access tokens only"), "\(plain.banner)")
        let (plainPage, _) = try await URLSession.shared.data(from: URL(string: "\(plain.url)/console/login?expired=1")!)
        #expect(String(decoding: plainPage, as: UTF8.self).contains("idle for more than 30 minutes"))
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: data + "/console-login-link"), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(FileManager.default.fileExists(atPath: data + "/console-login-link"))

        // The emulator credentials' refusal on a non-loopback address names the file key that turned them on.
        let remote = writeConfig(#"{"emulator": {"admin": true}, "host": "0.0.0.0"}"#)
        let refused = try CLI.run(["serve", "--config", remote, "--data-dir", CLI.temporaryDirectory() + "/x"], timeout: 20)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\"emulator.admin\" in \(remote) makes anyone who reaches the port an administrator"), "\(refused.stderr)")
        #expect(refused.stderr.contains("unless --emulator-admin-allow-remote (env HEARTH_EMULATOR_ADMIN_ALLOW_REMOTE, config key emulator.admin.allow.remote) is given too"),
                "\(refused.stderr)")
        // A bad idle timeout, from each place.
        let zero = writeConfig(#"{"console.idle.timeout": 0}"#)
        let badFile = try CLI.run(["serve", "--config", zero], timeout: 20)
        #expect(badFile.stderr.contains("\"console.idle.timeout\" in \(zero) must be a positive number of seconds, got 0"), "\(badFile.stderr)")
        let badOption = try CLI.run(["serve", "--console-idle-timeout", "soon"], timeout: 20)
        #expect(badOption.stderr.contains("--console-idle-timeout must be a positive number of seconds, got \"soon\""), "\(badOption.stderr)")
        let badLink = try CLI.run(["serve"], environment: ["HEARTH_CONSOLE_LINK": "never"], timeout: 20)
        #expect(badLink.stderr.contains("HEARTH_CONSOLE_LINK must be true or false, got \"never\""), "\(badLink.stderr)")
    }

    /// Issue 37, item 4: the messages read through the typed reader are today's, word for word (where the value came
    /// from, what was expected, the value as written; never a secret's).
    @Test func messagesNameThePlaceTheExpectationAndTheValue() throws {
        let directory = CLI.temporaryDirectory()
        let cases: [(arguments: [String], environment: [String: String], file: String?, message: String)] = [
            ([], [:], #"{"port": 70000}"#, "\"port\" in FILE must be a port number from 0 to 65535, got 70000"),
            ([], [:], #"{"port": "nine"}"#, "\"port\" in FILE must be a port number from 0 to 65535, got \"nine\""),
            ([], ["HEARTH_DEV": "yes"], nil, "HEARTH_DEV must be true or false, got \"yes\""),
            ([], [:], #"{"dev": 1}"#, "\"dev\" in FILE must be true or false, got 1"),
            (["--store-timeout", "0.1"], [:], nil, "--store-timeout must be a number of seconds from 0.5 to 55 (below a proxy's usual 60 s), got \"0.1\""),
            (["--log-level", "loud"], [:], nil, "--log-level must be one of trace, debug, info, notice, warning, error, critical, got \"loud\""),
            ([], [:], #"{"project": {"id": "Acme"}}"#,
             "\"project.id\" in FILE must be a project id (lower-case letters, digits and hyphens, starting with a letter, at most 64 characters), got \"Acme\""),
            (["--database-tls", "require"], [:], nil, "--database-tls applies to a PostgreSQL database: give --database-url (env HEARTH_DATABASE_URL) too"),
            ([], [:], #"{"smtp": {"ca": {"file": "/nowhere.pem"}}}"#, "\"smtp.ca.file\" in FILE applies to an SMTP relay: give --smtp-url (env HEARTH_SMTP_URL) too"),
            ([], ["HEARTH_METRICS_TOKEN": "short"], nil,
             "HEARTH_METRICS_TOKEN must be a string of at least 16 characters without spaces (a random value, e.g. from openssl rand -hex 32)"),
            (["--metrics-access", "token"], [:], nil,
             "--metrics-access is token: give the token too with --metrics-token (env HEARTH_METRICS_TOKEN, config key metrics.token)"),
            ([], [:], #"{"oob.code.ttl.reset": 30}"#, "\"oob.code.ttl.reset\" in FILE must be a duration from 60 seconds to 30 days: seconds, or 30m, 1h, 3d, got 30"),
            ([], ["HEARTH_RATE_LIMITS": "maybe"], nil, "HEARTH_RATE_LIMITS must be on or off, got \"maybe\""),
            (["--rate-limit-per-address", "0"], [:], nil, "--rate-limit-per-address must be a number of requests per minute from 1 to 10000000, got \"0\""),
            ([], [:], #"{"keys.rotation.hours": true}"#, "\"keys.rotation.hours\" in FILE must be a number of hours from 1 to 8760, got true"),
            ([], ["HEARTH_SQLITE_SYNCHRONOUS": "sometimes"], nil, "HEARTH_SQLITE_SYNCHRONOUS must be normal (the default) or full (see docs/security.md), got \"sometimes\""),
            ([], [:], #"{"host": {"name": "x"}}"#, "unknown key \"host.name\""),
            ([], [:], #"{"trusted.proxies": "10.0.0.0/8, nonsense"}"#, "\"trusted.proxies\" in FILE: "),
        ]
        for (arguments, environment, text, message) in cases {
            let file = text.map(writeConfig)
            let result = try CLI.run(["serve"] + (file.map { ["--config", $0] } ?? []) + arguments, environment: environment, in: directory, timeout: 20)
            let expected = file.map { message.replacingOccurrences(of: "FILE", with: $0) } ?? message
            #expect(result.status != 0 && result.stderr.contains(expected), "\(arguments) \(environment) \(text ?? ""): \(result.stderr)")
        }
        // Secrets are never repeated.
        let secret = try CLI.run(["serve"], environment: ["HEARTH_VAULT_KEYS": "k1:c2hvcnQtYnV0LXNlY3JldA"], in: directory, timeout: 20)
        #expect(secret.stderr.contains("HEARTH_VAULT_KEYS: ") && !secret.output.contains("c2hvcnQtYnV0LXNlY3JldA"), "\(secret.output)")
    }

    /// Issue 37, item 4: docs/configuration.md's table lists every declared setting, with its option, its variable, its
    /// file key and its default as the declaration says them, and no setting that is not declared.
    @Test func configurationDocListsEveryDeclaredSetting() throws {
        let settings = try Self.declared()
        let doc = try String(contentsOf: CLI.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let lines = doc.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("| Setting | Option | Environment | JSON file key | Default |") })
        let rows = lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        func plain(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "") }
        for setting in settings {
            guard let row = rows.first(where: { $0.count == 5 && $0[3] == "`\(setting.key)`" }) else {
                Issue.record("docs/configuration.md has no row for \(setting.key)")
                continue
            }
            #expect(row[2].hasPrefix("`\(setting.environment)`"), "\(setting.key): \(row)")
            if let option = setting.option {
                #expect(row[1].hasPrefix("`\(option)`"), "\(setting.key): \(row)")
            } else {
                #expect(row[1].hasPrefix("—"), "\(setting.key): \(row)")
            }
            #expect(plain(row[4]).hasPrefix(setting.defaultText), "\(setting.key): the default is \(setting.defaultText), the doc says \(row[4])")
        }
        let documented = rows.compactMap { $0.count == 5 ? plain($0[3]) : nil }
        #expect(Set(documented) == Set(settings.map(\.key)), "rows without a declaration: \(Set(documented).subtracting(settings.map(\.key)))")
    }
}
