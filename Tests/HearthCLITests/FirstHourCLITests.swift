import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18's first-hour findings in the command-line tools, each as a new user met it.
@Suite struct FirstHourCLITests {
    /// 18.2: against a server where the CLI's desktop app is not registered, `hearth signin` says so in seconds, with
    /// the exact command — no browser, no countdown, no "cancelled by the user".
    @Test func signinSaysTheAppIsNotRegisteredWithTheCommand() throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let enabled = try CLI.run(["providers", "enable", "microsoft.com", "--client-id", "11111111-2222-3333-4444-555555555555", "--data-dir", data],
                                  environment: ["HEARTH_CLIENT_SECRET": "a-client-secret"])
        #expect(enabled.status == 0, "\(enabled.output)")
        let server = try RunningServer.start([], dataDir: data)
        defer { server.stop() }
        let started = Date()
        let result = try CLI.run(["signin", "microsoft.com", "--server", server.url], timeout: 30)
        #expect(result.status != 0)
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(result.stderr.contains("hearth apps add-desktop --id hearth-cli"), "\(result.stderr)")
        #expect(!result.stderr.contains("Opening the browser") && !result.stderr.contains("cancelled"))
        // Registered, the preflight passes (the browser part is other tests').
        #expect(try CLI.run(["apps", "add-desktop", "--id", "hearth-cli", "--data-dir", data]).status == 0)
    }

    /// 18.4: commands on a server's data use the URL it runs at (recorded at start), not port 9099.
    @Test func commandsUseTheAddressTheServerRecorded() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start([], dataDir: data)
        server.stop()
        let out = CLI.temporaryDirectory() + "/sa.json"
        let created = try CLI.run(["service-accounts", "create", "--email", "admin@demo-hearth.iam.gserviceaccount.com", "--out", out, "--data-dir", data])
        #expect(created.status == 0, "\(created.output)")
        let file = try String(contentsOfFile: out, encoding: .utf8)
        #expect(file.contains("\(server.url)/oauth2.googleapis.com/token"), "\(file)")
        let link = try CLI.run(["console", "login-link", "--data-dir", data, "--project-id", "demo-hearth"])
        #expect(link.stdout.contains("\(server.url)/console/login/link?token="), "\(link.output)")
    }

    /// 18.5: signout keeps the server; password sign-in without a terminal or HEARTH_PASSWORD, and with a wrong
    /// password, says what happened and what to do.
    @Test func signoutKeepsTheServerAndPasswordErrorsArePlain() async throws {
        let server = try RunningServer.start()
        defer { server.stop() }
        try await CLITests.signUp(server.url, email: "plain@example.com", password: "correct horse")
        let home = CLI.temporaryDirectory()
        #expect(try CLI.run(["signin", "password", "--email", "plain@example.com", "--server", server.url],
                            environment: ["HEARTH_PASSWORD": "correct horse"], configHome: home).status == 0)
        #expect(try CLI.run(["signout"], configHome: home).status == 0)
        let whoami = try CLI.run(["whoami"], configHome: home)
        #expect(whoami.stdout.contains("Not signed in to \(server.url)"), "\(whoami.output)")
        let noPassword = try CLI.run(["signin", "password", "--email", "plain@example.com"], configHome: home)
        #expect(noPassword.status != 0)
        #expect(noPassword.stderr.contains("set HEARTH_PASSWORD"), "\(noPassword.stderr)")
        #expect(!noPassword.stderr.contains("17999") && !noPassword.stderr.contains("internalError"))
        let wrong = try CLI.run(["signin", "password", "--email", "plain@example.com"], environment: ["HEARTH_PASSWORD": "wrong horse"], configHome: home)
        #expect(wrong.stderr.contains("wrong email or password"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("malformed"))
        let again = try CLI.run(["signin", "password", "--email", "plain@example.com"], environment: ["HEARTH_PASSWORD": "correct horse"], configHome: home)
        #expect(again.status == 0, "the remembered server is used: \(again.stderr)")
        // --timeout belongs to the commands that wait for a browser only.
        #expect(!(try CLI.run(["whoami", "--help"]).stdout.contains("--timeout")))
        #expect(!(try CLI.run(["signout", "--help"]).stdout.contains("--timeout")))
        #expect(try CLI.run(["signin", "--help"]).stdout.contains("--timeout"))
    }

    /// 18.11: the polish list — vault state told as the server applies it, not-found is not a usage error, export
    /// never overwrites silently, the production banner offers no emulator host, a bad database URL mentions
    /// percent-encoding.
    @Test func polish() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start(["--project-id", "acme-prod", "--api-key", "k1"], dataDir: data)
        server.stop()
        #expect(!server.banner.contains("FIREBASE_AUTH_EMULATOR_HOST"), "\(server.banner)")
        let demo = try RunningServer.start()
        demo.stop()
        #expect(demo.banner.contains("FIREBASE_AUTH_EMULATOR_HOST"))
        let enabled = try CLI.run(["providers", "enable", "yahoo.com", "--client-id", "yahoo-client", "--data-dir", data],
                                  environment: ["HEARTH_CLIENT_SECRET": "a-client-secret"])
        #expect(enabled.stdout.contains("token vault off (no vault keys"), "\(enabled.output)")
        #expect(try CLI.run(["providers", "list", "--data-dir", data]).stdout.contains("token vault off (no vault keys"))
        let missing = try CLI.run(["users", "get", "nobody@example.com", "--data-dir", data])
        #expect(missing.status == 1, "\(missing.output)")
        #expect(missing.stderr.contains("no user with uid or email nobody@example.com"))
        #expect(!missing.stderr.contains("Usage:"))
        let file = CLI.temporaryDirectory() + "/users.json"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep me".utf8)))
        let refused = try CLI.run(["users", "export", file, "--data-dir", data])
        #expect(refused.status != 0 && refused.stderr.contains("--force"), "\(refused.output)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        #expect(try CLI.run(["users", "export", file, "--force", "--data-dir", data]).status == 0)
        let badTimeout = try CLI.run(["serve", "--store-timeout", "0", "--data-dir", data])
        #expect(badTimeout.status != 0 && badTimeout.stderr.contains("--store-timeout must be a number of seconds"), "\(badTimeout.stderr)")
        // --project-id is accepted where people pass it by habit.
        let admin = try CLI.run(["console", "admins", "add", "grace", "--project-id", "acme-prod", "--data-dir", data],
                                environment: ["HEARTH_CONSOLE_PASSWORD": "a long passphrase"])
        #expect(admin.status == 0, "\(admin.output)")
        let badURL = try CLI.run(["users", "list", "--database-url", "postgres://hearth:p@ss/word@127.0.0.1:5432/hearth"])
        #expect(badURL.status != 0)
        #expect(badURL.stderr.contains("percent-encode"), "\(badURL.stderr)")
        #expect(!badURL.stderr.contains("ss/word"))
    }

    /// 18.7: "providers test" without network answers in seconds, shows progress, and names the real failure first
    /// (connect, DNS) — never the tenant allow-list when the network is what failed.
    @Test func providersTestIsBoundedShowsProgressAndNamesTheRealFailure() throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let secret = ["HEARTH_CLIENT_SECRET": "a-client-secret"]
        #expect(try CLI.run(["providers", "enable", "microsoft.com", "--client-id", "11111111-2222-3333-4444-555555555555", "--endpoint-base",
                             "http://127.0.0.1:9", "--allowed-tenant", "contoso.com", "--data-dir", data], environment: secret).status == 0)
        var started = Date()
        let refused = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data], timeout: 60)
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("checking that http://127.0.0.1:9/common/v2.0/.well-known/openid-configuration answers"), "\(refused.stderr)")
        #expect(refused.stdout.contains("connect: 127.0.0.1 refused the connection"), "\(refused.stdout)")
        #expect(!refused.stdout.lowercased().contains("tenant"), "\(refused.stdout)")
        #expect(try CLI.run(["providers", "enable", "oidc.nowhere", "--client-id", "c", "--issuer", "http://hearth-no-such-host.invalid",
                             "--data-dir", data], environment: secret).status == 0)
        started = Date()
        let unresolved = try CLI.run(["providers", "test", "oidc.nowhere", "--data-dir", data], timeout: 60)
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(unresolved.stdout.contains("DNS: the host hearth-no-such-host.invalid does not resolve") || unresolved.stdout.contains("timeout:"),
                "\(unresolved.stdout)")
    }

    /// 18.10: an email user is not made password-less silently; one made on purpose is shown as an email user.
    @Test func usersCreateNeverMakesASilentPasswordlessUser() throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let refused = try CLI.run(["users", "create", "--email", "nopass@example.com", "--data-dir", data])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--no-password"), "\(refused.stderr)")
        let made = try CLI.run(["users", "create", "--email", "nopass@example.com", "--no-password", "--data-dir", data])
        #expect(made.status == 0, "\(made.output)")
        let list = try CLI.run(["users", "list", "--data-dir", data])
        #expect(list.stdout.contains("email (no password)"), "\(list.stdout)")
        #expect(!list.stdout.contains("anonymous"))
    }
}
