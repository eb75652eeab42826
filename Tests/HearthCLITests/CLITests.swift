import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// Issue 7 through the `hearth` binary: configuration errors, plain error messages, admin commands, client
/// commands, help and version.
@Suite(.serialized) struct CLITests {
    // MARK: 5. Bad configuration names the key and the value.

    func writeConfig(_ text: String) -> String {
        let path = CLI.temporaryDirectory() + "/hearth.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test func badConfigurationNamesKeyAndValue() throws {
        let data = CLI.temporaryDirectory()
        let cases: [([String], [String: String], [String])] = [
            (["serve", "--config", writeConfig(#"{"port":"nine"}"#)], [:], ["\"port\"", "\"nine\""]),
            (["serve", "--data-dir", data], ["HEARTH_PORT": "abc"], ["HEARTH_PORT", "\"abc\""]),
            (["serve", "--config", writeConfig(#"{"dev":"yes"}"#)], [:], ["\"dev\"", "\"yes\"", "true or false"]),
            (["serve", "--config", writeConfig(#"{"prot": 9099}"#)], [:], ["unknown key \"prot\"", "did you mean \"port\""]),
            (["serve", "--config", writeConfig(#"{"project": {"idd": "x"}}"#)], [:], ["unknown key \"project.idd\"", "did you mean \"project.id\""]),
            (["serve", "--data-dir", data, "--log-level", "loud"], [:], ["--log-level", "\"loud\""]),
            (["serve", "--data-dir", data, "--port", "70000"], [:], ["--port", "70000"]),
        ]
        for (arguments, environment, expected) in cases {
            let result = try CLI.run(arguments, environment: environment, timeout: 20)
            #expect(result.status != 0, "\(arguments) started")
            for text in expected { #expect(result.stderr.contains(text), "\(arguments): \(result.stderr)") }
            #expect(!result.stdout.contains("Hearth is serving"))
        }
    }

    // MARK: 6. No raw error text; no signing key before the listener is bound.

    @Test func plainErrorsForFilesystemAndConfigProblems() throws {
        let dir = CLI.temporaryDirectory()
        let file = dir + "/not-a-dir"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let truncated = writeConfig("{\n  \"port\": 9099,\n  \"project\": {\"id\": \"demo-x\"")
        let cases: [([String], [String])] = [
            (["serve", "--data-dir", file], ["is a file, not a directory"]),
            (["providers", "list", "--data-dir", file], ["is a file, not a directory"]),
            (["serve", "--config", truncated], ["not valid JSON", "line 3", "column"]),
            (["serve", "--config", dir + "/missing.json"], ["does not exist"]),
            (["serve", "--config", dir], ["is a directory"]),
            (["service-accounts", "add", "--data-dir", dir, "--email", "a@b.co", "--key-id", "k", "--public-key", dir + "/missing.pem"],
             ["does not exist"]),
        ]
        for (arguments, expected) in cases {
            let result = try CLI.run(arguments, timeout: 20)
            #expect(result.status != 0)
            for text in expected { #expect(result.stderr.contains(text), "\(arguments): \(result.stderr)") }
            for marker in rawErrorMarkers { #expect(!result.output.contains(marker), "\(arguments): \(result.output)") }
        }
    }

    @Test func portInUseIsSaidPlainlyAndNoKeyIsMade() async throws {
        let first = try RunningServer.start()
        defer { first.stop() }
        let data = CLI.temporaryDirectory() + "/second"
        let result = try CLI.run(["serve", "--port", "\(first.port)", "--data-dir", data], timeout: 30)
        #expect(result.status != 0)
        #expect(result.stderr.contains("port \(first.port) is in use; pick another with --port"), "\(result.stderr)")
        for marker in rawErrorMarkers { #expect(!result.output.contains(marker), "\(result.output)") }
        // Issue 18.11: a start that failed leaves nothing behind — no database, no data directory it created.
        #expect(!FileManager.default.fileExists(atPath: data + "/hearth.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: data))
        // An existing database is kept, and gets no key either.
        RunningServer.startAndStop(dataDir: data)
        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let keys = try await store.signingKeys().count
        try await store.close()
        let again = try CLI.run(["serve", "--port", "\(first.port)", "--data-dir", data], timeout: 30)
        #expect(again.status != 0)
        let reopened = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        #expect(try await reopened.signingKeys().count == keys, "a signing key was generated before the listener was bound")
        try await reopened.close()
    }

    // MARK: 7. Admin commands.

    @Test func adminCommandsUseConfigAndRefuseMissingStores() async throws {
        let server = try RunningServer.start(["--project-id", "demo-admin"])
        server.stop()
        let config = writeConfig(#"{"data": {"dir": "\#(server.dataDir)"}, "project": {"id": "demo-admin"}, "public": {"url": "https://auth.example.com"}}"#)
        // --config gives the data directory to every store command.
        let list = try CLI.run(["providers", "list", "--config", config])
        #expect(list.status == 0, "\(list.stderr)")
        let project = try CLI.run(["project", "--config", config])
        #expect(project.stdout.contains("demo-admin"), "\(project.output)")
        // A mistyped data dir or project id creates nothing.
        let typo = CLI.temporaryDirectory() + "/typo"
        let missing = try CLI.run(["providers", "list", "--data-dir", typo])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no Hearth data in \(typo)"))
        #expect(!FileManager.default.fileExists(atPath: typo))
        let wrongProject = try CLI.run(["project", "--config", config, "--project-id", "demo-admni"])
        #expect(wrongProject.status != 0)
        #expect(wrongProject.stderr.contains("no project demo-admni"))

        // service-accounts create: email checked, token_uri follows the public URL, no overwrite without --force.
        let out = CLI.temporaryDirectory() + "/sa.json"
        let badEmail = try CLI.run(["service-accounts", "create", "--config", config, "--email", "not-an-email", "--out", out])
        #expect(badEmail.status != 0)
        #expect(badEmail.stderr.contains("not an email address"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let created = try CLI.run(["service-accounts", "create", "--config", config, "--email", "admin@demo-admin.iam.gserviceaccount.com", "--out", out])
        #expect(created.status == 0, "\(created.stderr)")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: String])
        #expect(file["token_uri"] == "https://auth.example.com/oauth2.googleapis.com/token")
        #expect(file["project_id"] == "demo-admin")
        let attributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try CLI.run(["service-accounts", "create", "--config", config, "--email", "admin@demo-admin.iam.gserviceaccount.com", "--out", out])
        #expect(again.status != 0)
        #expect(again.stderr.contains("already exists"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: out)))
        let explicit = try CLI.run(["service-accounts", "create", "--config", config, "--email", "admin@demo-admin.iam.gserviceaccount.com",
                                    "--out", out, "--force", "--public-url", "http://127.0.0.1:9171"])
        #expect(explicit.status == 0)
        let replaced = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: String])
        #expect(replaced["token_uri"] == "http://127.0.0.1:9171/oauth2.googleapis.com/token")
        // The file is written before the key is registered: an unwritable --out registers nothing.
        let unwritable = try CLI.run(["service-accounts", "create", "--config", config, "--email", "other@demo-admin.iam.gserviceaccount.com",
                                      "--out", CLI.temporaryDirectory() + "/no/such/dir/sa.json"])
        #expect(unwritable.status != 0)
        let keys = try CLI.run(["service-accounts", "list", "--config", config])
        #expect(!keys.stdout.contains("other@demo-admin"))
        #expect(keys.stdout.components(separatedBy: "admin@demo-admin").count - 1 == 2)

        // apps add-apple: ids checked, no silent replacement.
        let badBundle = try CLI.run(["apps", "add-apple", "--config", config, "--bundle-id", "not a bundle", "--app-id", "1:2:ios:3"])
        #expect(badBundle.status != 0)
        #expect(badBundle.stderr.contains("is not a bundle id"))
        let badAppId = try CLI.run(["apps", "add-apple", "--config", config, "--bundle-id", "com.example.notes", "--app-id", "notes"])
        #expect(badAppId.stderr.contains("is not a Firebase Apple app id"))
        let first = try CLI.run(["apps", "add-apple", "--config", config, "--bundle-id", "com.example.notes", "--app-id", "1:1234:ios:abcd"])
        #expect(first.status == 0, "\(first.stderr)")
        let other = try CLI.run(["apps", "add-apple", "--config", config, "--bundle-id", "com.example.notes", "--app-id", "1:1234:ios:ffff"])
        #expect(other.status != 0)
        #expect(other.stderr.contains("already registered"))
        let apps = try CLI.run(["apps", "list", "--config", config])
        #expect(apps.stdout.contains("1:1234:ios:abcd"))
        #expect(!apps.stdout.contains("1:1234:ios:ffff"))

        // providers: disable then enable keeps the stored secret.
        let enabled = try CLI.run(["providers", "enable", "microsoft.com", "--config", config, "--client-id", "REAL", "--client-secret", "s3cret-value"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try CLI.run(["providers", "disable", "microsoft.com", "--config", config]).status == 0)
        let reenabled = try CLI.run(["providers", "enable", "microsoft.com", "--config", config])
        #expect(reenabled.status == 0, "\(reenabled.stderr)")
        #expect(reenabled.stdout.contains("stored secret kept"))
        // An oidc.* provider keeps its issuer too.
        #expect(try CLI.run(["providers", "enable", "oidc.corp", "--config", config, "--issuer", "https://id.example.com",
                             "--client-id", "corp", "--client-secret", "corp-secret"]).status == 0)
        #expect(try CLI.run(["providers", "disable", "oidc.corp", "--config", config]).status == 0)
        let oidcAgain = try CLI.run(["providers", "enable", "oidc.corp", "--config", config])
        #expect(oidcAgain.status == 0, "\(oidcAgain.stderr)")
        let store = try await SQLiteStore.open(path: server.dataDir + "/hearth.sqlite")
        #expect(try await store.idpConfig(providerId: "oidc.corp")?.issuer == "https://id.example.com")
        let stored = try #require(try await store.idpConfig(providerId: "microsoft.com"))
        try await store.close()
        #expect(stored.clientSecret == "s3cret-value")
        #expect(stored.clientId == "REAL")
        #expect(stored.enabled)
    }

    @Test func wildcardHostWithoutPublicURLWarns() throws {
        let server = try RunningServer.start(["--host", "0.0.0.0"], environment: ["HEARTH_PROT": "9099"])
        server.stop()
        #expect(server.log.contains("unknown environment variable HEARTH_PROT is ignored (did you mean HEARTH_PORT?)"), "\(server.log)")
        #expect(server.log.contains("without --public-url"))
        #expect(server.log.contains("not reachable from other machines"))
        #expect(server.banner.contains("auth handler:  http://127.0.0.1:\(server.port)/__/auth/handler"), "\(server.banner)")
    }

    // MARK: 2. The banner says which providers are real and which are dev IdPs.

    @Test func devServeKeepsRealProvidersAndSaysSo() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        let first = try RunningServer.start(dataDir: data)
        first.stop()
        #expect(try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--client-id", "REAL-ID", "--client-secret", "real"]).status == 0)
        let dev = try RunningServer.start(["--dev"], dataDir: data)
        dev.stop()
        #expect(dev.banner.contains("microsoft.com: real, configured (client id REAL-ID)"), "\(dev.banner)")
        #expect(dev.banner.contains("yahoo.com: dev IdP"))
        let list = try CLI.run(["providers", "list", "--data-dir", data])
        #expect(list.stdout.contains("client REAL-ID"))
        #expect(!list.stdout.contains("yahoo.com"), "dev settings were stored: \(list.stdout)")
    }

    // MARK: 4 and 8. Client commands: checks before the browser, timeout, remembered server, account-exists hint.

    @Test func signinChecksFirstAndFailsFast() throws {
        let unknown = try CLI.run(["signin", "facebook.com"], timeout: 10)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("unknown provider facebook.com"))
        #expect(unknown.stderr.contains("Usage: hearth signin"))
        let started = Date()
        let nobody = try CLI.run(["signin", "microsoft.com", "--server", "http://127.0.0.1:9"], timeout: 30)
        #expect(nobody.status != 0)
        #expect(nobody.stderr.contains("does not answer"), "\(nobody.stderr)")
        // Sign in with Apple and Google go through the same web flow: known to the CLI, checked with the server.
        for providerId in ["apple.com", "google.com"] {
            let offline = try CLI.run(["signin", providerId, "--server", "http://127.0.0.1:9"], timeout: 30)
            #expect(!offline.stderr.contains("unknown provider"), "\(offline.stderr)")
            #expect(offline.stderr.contains("does not answer"), "\(offline.stderr)")
        }
        let server = try RunningServer.start()
        defer { server.stop() }
        let disabled = try CLI.run(["signin", "yahoo.com", "--server", server.url], timeout: 30)
        #expect(disabled.status != 0)
        #expect(disabled.stderr.contains("yahoo.com sign-in is not enabled"), "\(disabled.stderr)")
        #expect(Date().timeIntervalSince(started) < 25)
        #expect(!disabled.stderr.contains("Opening the browser"))
    }

    @Test func signinShowsWhatItWaitsForAndHonoursTimeout() throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let started = Date()
        let result = try CLI.run(["signin", "yahoo.com", "--server", server.url, "--timeout", "5"], timeout: 40)
        #expect(result.status != 0)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(result.stderr.contains("Waiting for you to sign in with yahoo.com in the browser: 0:0"), "\(result.stderr)")
        #expect(result.stderr.contains("left"))
        #expect(result.stderr.contains("--timeout"))
    }

    @Test func clientCommandsRememberTheServer() async throws {
        let server = try RunningServer.start()
        defer { server.stop() }
        try await Self.signUp(server.url, email: "remember@example.com", password: "correct horse")
        let home = CLI.temporaryDirectory()
        let signin = try CLI.run(["signin", "password", "--email", "remember@example.com", "--server", server.url],
                                 environment: ["HEARTH_PASSWORD": "correct horse"], configHome: home)
        #expect(signin.status == 0, "\(signin.stderr)")
        let whoami = try CLI.run(["whoami"], configHome: home)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(whoami.stdout.contains("remember@example.com"), "\(whoami.output)")
        let signout = try CLI.run(["signout"], configHome: home)
        #expect(signout.stdout.contains("from \(server.url)"), "\(signout.output)")
        #expect(try CLI.run(["whoami"], configHome: home).stdout.contains("Not signed in"))
    }

    @Test func accountExistsHintNamesTheRealMethods() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        try await Self.signUp(server.url, email: "exists@outlook.com", password: "correct horse")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["signin", "microsoft.com", "--server", server.url]
        process.environment = CLI.environment([:], configHome: CLI.temporaryDirectory())
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        var text = ""
        var url: String?
        let deadline = Date().addingTimeInterval(30)
        while url == nil, Date() < deadline {
            let data = err.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"http://\S+/__/auth/handler\?\S+"#, options: .regularExpression) { url = String(text[range]) }
        }
        let handlerURL = try #require(url.flatMap(URL.init(string:)), "no URL in \(text)")
        try await ScriptedBrowserUIDelegate(email: "exists@outlook.com").open(handlerURL)
        let rest = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        text += String(decoding: rest, as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(text.contains("it signs in with password"), "\(text)")
        #expect(text.contains("hearth signin password --email exists@outlook.com && hearth link microsoft.com"), "\(text)")
    }

    static func signUp(_ server: String, email: String, password: String) async throws {
        var request = URLRequest(url: URL(string: server + WirePaths.accounts("signUp") + "?key=k")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(SignUpRequest(email: email, password: password))
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    // MARK: 9. Help, usage, version.

    @Test func versionHelpAndSubcommandUsage() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil)
        // Every option and argument of every command has help text.
        let dump = try CLI.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var missing: [String] = []
        func visit(_ command: [String: Any], path: String) {
            let name = path + " " + (command["commandName"] as? String ?? "?")
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if ["help", "version", "h"].contains(where: names.contains) { continue }
                if (argument["abstract"] as? String ?? "").isEmpty { missing.append("\(name) \(names.first ?? argument["valueName"] as? String ?? "?")") }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where (sub["commandName"] as? String) != "help" {
                visit(sub, path: name)
            }
        }
        visit(try #require(root["command"] as? [String: Any]), path: "")
        #expect(missing.isEmpty, "options without help: \(missing)")
        // A run-time usage error shows the subcommand's own usage.
        let addApple = try CLI.run(["apps", "add-apple", "--bundle-id", "com.example.x"])
        #expect(addApple.status == 64)
        #expect(addApple.stderr.contains("give --app-id or --client-id"))
        #expect(addApple.stderr.contains("Usage: hearth apps add-apple"), "\(addApple.stderr)")
        let password = try CLI.run(["signin", "password"])
        #expect(password.stderr.contains("Usage: hearth signin"), "\(password.stderr)")
    }
}
