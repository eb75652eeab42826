import Foundation
import HearthStore
import HearthStoreSQLite
import HearthTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `hearth console`: the start-up login link, `login-link`, and named administrators, as a user runs them.
@Suite struct ConsoleCLITests {
    @Test func serveAndLoginLinkPrintOneTimeLinksAndAdminsAreManaged() async throws {
        let server = try RunningServer.start()
        var banner = server.banner
        let deadline = Date().addingTimeInterval(20)
        while !banner.contains("Console: open"), Date() < deadline {
            usleep(50_000)
            banner = server.banner
        }
        server.stop()
        #expect(banner.contains("Console: open http://127.0.0.1:\(server.port)/console/login/link?token="), "\(banner)")
        let data = ["--data-dir", server.dataDir]

        let link = try CLI.run(["console", "login-link"] + data + ["--public-url", "https://auth.example.com"])
        #expect(link.status == 0, "\(link.stderr)")
        #expect(link.stdout.contains("https://auth.example.com/console/login/link?token="), "\(link.stdout)")
        let unknown = try CLI.run(["console", "login-link", "--admin", "nobody"] + data)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no console administrator named nobody"))

        let short = try CLI.run(["console", "admins", "add", "grace"] + data, environment: ["HEARTH_CONSOLE_PASSWORD": "short"])
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 10 characters"))
        let added = try CLI.run(["console", "admins", "add", "grace"] + data, environment: ["HEARTH_CONSOLE_PASSWORD": "a long passphrase"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try CLI.run(["console", "admins", "add", "owner"] + data, environment: ["HEARTH_CONSOLE_PASSWORD": "a long passphrase"]).status != 0)
        #expect(try CLI.run(["console", "admins", "list"] + data).stdout.contains("grace"))
        #expect(try CLI.run(["console", "login-link", "--admin", "grace"] + data).status == 0)

        let store = try await SQLiteStore.open(path: server.dataDir + "/hearth.sqlite")
        let admin = try #require(try await store.consoleAdmin(name: "grace"))
        #expect(admin.passwordHash.hasPrefix("$") || !admin.passwordHash.contains("a long passphrase"), "stored hashed")
        #expect(!admin.passwordHash.contains("a long passphrase"))
        let entries = try await store.auditEntries(before: nil, limit: 10)
        #expect(entries.contains { $0.action == "consoleAdmins.create" && $0.target == "grace" && $0.actor.hasPrefix("cli:") })
        try await store.close()

        #expect(try CLI.run(["console", "admins", "remove", "grace"] + data).status == 0)
        #expect(try CLI.run(["console", "admins", "remove", "grace"] + data).status != 0)
        #expect(try CLI.run(["console", "admins", "list"] + data).stdout.contains("No console administrators"))
    }
}
