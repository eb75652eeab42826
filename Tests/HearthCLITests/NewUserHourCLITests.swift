import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35's "new user's first hour" findings in the command-line tools, each as a user meets it: the built binary,
/// real servers on loopback ports.
@Suite struct NewUserHourCLITests {
    /// GETs a URL: the status and the body as text.
    static func get(_ url: String) async throws -> (status: Int, text: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    static func mode(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int).map { $0 & 0o777 }
    }

    /// A data directory holding `database` as its hearth.sqlite (and nothing else), as a restore makes it.
    static func restore(_ database: String, key: String? = nil) throws -> String {
        let directory = CLI.temporaryDirectory() + "/restored"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: database, toPath: directory + "/hearth.sqlite")
        if let key { try FileManager.default.copyItem(atPath: key, toPath: directory + "/totp-secrets.key") }
        return directory
    }

    /// Signs in with password and the TOTP code of the next step (the enrollment used the current one).
    static func signInWithSecondFactor(_ server: String, email: String, totp: TOTP) throws -> CLI.Result {
        try CLI.run(["signin", "password", "--email", email, "--server", server, "--totp-code", totp.code(at: Date().addingTimeInterval(30))],
                    environment: ["HEARTH_PASSWORD": "correct horse"])
    }

    /// Issue 35, item 11: `hearth backup` writes the TOTP key beside the database copy and says what it wrote and what
    /// else to keep; a database restored without the key is refused at start (no new key is made over sealed factors)
    /// with the way to put it back; put back, the user's second factor works; and when the key is lost for good,
    /// `hearth users mfa remove-unopenable` removes the stranded factors so the server starts again.
    @Test func backupCarriesTheTOTPKeyAndARestoreWithoutItIsRefused() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        var server = try RunningServer.start([], dataDir: data)
        let (totp, _) = try await MultiFactorCLITests.enrolledUser(server.url, email: "kept-factor@example.com")
        let copy = CLI.temporaryDirectory() + "/nightly.sqlite"
        let backup = try CLI.run(["backup", "--data-dir", data, "--to", copy])
        server.stop()
        #expect(backup.status == 0, "\(backup.output)")
        #expect(backup.stdout.contains("backed up \(data)/totp-secrets.key to \(copy).totp-secrets.key"), "\(backup.stdout)")
        #expect(backup.stdout.contains("1 TOTP second factor(s) of 1 user(s) sealed with key local-"), "\(backup.stdout)")
        #expect(backup.stdout.contains("cp \(copy).totp-secrets.key \(data)/totp-secrets.key"), "\(backup.stdout)")
        #expect(backup.stdout.contains("rm -f \(data)/hearth.sqlite-wal"), "\(backup.stdout)")
        #expect(Self.mode(copy + ".totp-secrets.key") == 0o600)
        #expect(FileManager.default.contents(atPath: copy + ".totp-secrets.key") == FileManager.default.contents(atPath: data + "/totp-secrets.key"))
        let keyLine = try String(contentsOfFile: data + "/totp-secrets.key", encoding: .utf8)
        let keyMaterial = try #require(keyLine.split(separator: ":").last).prefix(20)
        #expect(!backup.output.contains(keyMaterial), "never the key itself")

        // Restored as the old steps said (the database only): refused, and no new key is made.
        let bare = try Self.restore(copy)
        let refused = try CLI.run(["serve", "--port", "0", "--data-dir", bare], timeout: 20)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("refusing to start: \(bare)/totp-secrets.key is missing"), "\(refused.output)")
        #expect(refused.stderr.contains("1 TOTP second factor(s) of 1 user(s) sealed with key local-"), "\(refused.stderr)")
        #expect(refused.stderr.contains(".totp-secrets.key") && refused.stderr.contains("remove-unopenable"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bare + "/totp-secrets.key"), "no new key over sealed factors")
        #expect(!refused.stdout.contains("Hearth is serving"))

        // With the key the backup wrote beside it: ready, and the factor signs in.
        let whole = try Self.restore(copy, key: copy + ".totp-secrets.key")
        server = try RunningServer.start([], dataDir: whole)
        let ready = try await Self.get(server.url + "/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        let signedIn = try Self.signInWithSecondFactor(server.url, email: "kept-factor@example.com", totp: totp)
        server.stop()
        #expect(signedIn.status == 0, "\(signedIn.output)")
        #expect(signedIn.stdout.contains("second factor totp"), "\(signedIn.stdout)")

        // The key lost for good: the stranded factors go, the user is told, the server starts.
        let removed = try CLI.run(["users", "mfa", "remove-unopenable", "--data-dir", bare, "--yes"])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(removed.stdout.contains("Removed 1 second factor(s) of 1 user(s) sealed with key local-"), "\(removed.stdout)")
        #expect(removed.stdout.contains("told by email"), "\(removed.stdout)")
        let nothingLeft = try CLI.run(["users", "mfa", "remove-unopenable", "--data-dir", bare, "--yes"])
        #expect(nothingLeft.stdout.contains("nothing to remove"), "\(nothingLeft.output)")
        server = try RunningServer.start([], dataDir: bare)
        defer { server.stop() }
        #expect(try await Self.get(server.url + "/readyz").status == 200)
        #expect(FileManager.default.fileExists(atPath: bare + "/totp-secrets.key"))
    }

    /// Issue 35, item 11 on PostgreSQL: no local key file (the key is per data directory, and a PostgreSQL server has
    /// none); the TOTP secrets are sealed with the vault keys, found through --vault-keys-file. Started with another
    /// key file the server says so in its log and /readyz is not ready with the reason; with the right one it is
    /// ready and the factor signs in.
    @Test(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
    func postgresFindsTheTOTPKeyInTheVaultKeysFile() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let database = ReplicaTests.url(configuration)
            let directory = CLI.temporaryDirectory()
            let right = directory + "/vault.keys", wrong = directory + "/other.keys"
            _ = FileManager.default.createFile(atPath: right, contents: Data((ProviderTokenKeys.generate(id: "k-right") + "\n").utf8), attributes: [.posixPermissions: 0o600])
            _ = FileManager.default.createFile(atPath: wrong, contents: Data((ProviderTokenKeys.generate(id: "k-other") + "\n").utf8), attributes: [.posixPermissions: 0o600])
            let data = directory + "/data"
            var server = try RunningServer.start(["--database-url", database, "--vault-keys-file", right], dataDir: data)
            #expect(server.banner.contains("TOTP secrets:  sealed with the vault keys"), "\(server.banner)")
            let (totp, _) = try await MultiFactorCLITests.enrolledUser(server.url, email: "pg-factor@example.com")
            server.stop()
            #expect(!FileManager.default.fileExists(atPath: data + "/totp-secrets.key"), "no local key with PostgreSQL")

            server = try RunningServer.start(["--database-url", database, "--vault-keys-file", wrong], dataDir: data)
            let notReady = try await Self.get(server.url + "/readyz")
            server.stop()
            #expect(notReady.status == 503)
            #expect(notReady.text.contains("1 TOTP second factor(s) of 1 user(s) sealed with key k-right, which this server does not have"), "\(notReady.text)")
            #expect(server.log.contains("sealed with key k-right"), "\(server.log)")

            server = try RunningServer.start(["--database-url", database, "--vault-keys-file", right], dataDir: data)
            defer { server.stop() }
            #expect(try await Self.get(server.url + "/readyz").status == 200)
            let signedIn = try Self.signInWithSecondFactor(server.url, email: "pg-factor@example.com", totp: totp)
            #expect(signedIn.status == 0, "\(signedIn.output)")
        }
    }

    struct DevClients: Decodable {
        struct Client: Decodable { var id: String; var secret: String }
        var microsoft: Client
    }

    /// Issue 35, item 12: on data holding one project other than demo-hearth, the admin commands use that project and
    /// the URL its server recorded: the console link and the redirect URI `providers test` names are on the server's
    /// port, and `project`, `project mfa`, `project passkeys` and `apps domains` work. With two projects, the refusal
    /// names them.
    @Test func commandsUseTheOneProjectOfTheDataAndItsServersURL() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start(["--project-id", "acme-prod", "--api-key", "k1", "--dev", "--no-console-link"], dataDir: data)
        defer { server.stop() }
        let link = try CLI.run(["console", "login-link", "--data-dir", data])
        #expect(link.status == 0, "\(link.output)")
        #expect(link.stdout.contains("\(server.url)/console/login/link?token="), "\(link.output)")
        #expect(!link.stderr.contains("has not recorded its address"), "\(link.stderr)")

        let project = try CLI.run(["project", "--data-dir", data])
        #expect(project.status == 0, "\(project.output)")
        #expect(project.stdout.contains("project                        acme-prod"), "\(project.stdout)")
        let mfa = try CLI.run(["project", "mfa", "show", "--data-dir", data])
        #expect(mfa.status == 0 && mfa.stdout.contains("acme-prod"), "\(mfa.output)")
        let passkeys = try CLI.run(["project", "passkeys", "--data-dir", data])
        #expect(passkeys.status == 0, "\(passkeys.output)")
        let domains = try CLI.run(["apps", "domains", "--data-dir", data])
        #expect(domains.status == 0 && domains.stdout.contains("localhost"), "\(domains.output)")

        let clients = try JSONDecoder().decode(DevClients.self, from: Data(contentsOf: URL(fileURLWithPath: data + "/dev-idp-clients.json")))
        let base = server.url + "/__dev/microsoft"
        let enabled = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--client-id", clients.microsoft.id,
                                   "--endpoint-base", base, "--graph-base", base], environment: ["HEARTH_CLIENT_SECRET": clients.microsoft.secret])
        #expect(enabled.status == 0, "\(enabled.output)")
        let tested = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data])
        #expect(tested.stdout.contains("\(server.url)/__/auth/handler"), "\(tested.output)")
        #expect(!tested.stdout.contains("127.0.0.1:9099"), "\(tested.stdout)")

        // A second project in the same data: no guess; the refusal names both.
        server.stop()
        let second = try RunningServer.start(["--project-id", "acme-staging", "--api-key", "k2", "--no-console-link"], dataDir: data)
        second.stop()
        let ambiguous = try CLI.run(["project", "--data-dir", data])
        #expect(ambiguous.status != 0)
        #expect(ambiguous.stderr.contains("no project demo-hearth in \(data)/hearth.sqlite, which holds acme-prod, acme-staging: pass --project-id acme-prod"), "\(ambiguous.stderr)")
        #expect(try CLI.run(["project", "--data-dir", data, "--project-id", "acme-staging"]).stdout.contains("acme-staging"))
    }

    /// Issue 35, item 14: `hearth users mfa remove` tells the user by email — queued in the outbox for the running
    /// server, which delivers it (here into its dev mailbox) — and says honestly when no mail can go.
    @Test func usersMFARemoveTellsTheUserByEmail() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start([], dataDir: data)
        defer { server.stop() }
        let created = try CLI.run(["users", "create", "--email", "told@example.com", "--password", "correct horse", "--data-dir", data])
        #expect(created.status == 0, "\(created.output)")
        try await Self.giveFactor(data: data, email: "told@example.com")

        let removed = try CLI.run(["users", "mfa", "remove", "told@example.com", "--yes", "--data-dir", data])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(removed.stdout.contains("The user is told by email at told@example.com (queued: the server sends it through the dev mailbox"), "\(removed.stdout)")
        var mailbox = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            mailbox = try await Self.get(server.url + WirePaths.devMail).text
            if mailbox.contains("Two-step verification was removed") { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(mailbox.contains("Two-step verification was removed"), "\(mailbox.prefix(2000))")
        #expect(mailbox.contains("told@example.com"))

        // A production server without a relay: the command does not promise mail.
        let quiet = CLI.temporaryDirectory() + "/quiet"
        try RunningServer.start(["--project-id", "acme-prod", "--api-key", "k1", "--no-console-link"], dataDir: quiet).stop()
        #expect(try CLI.run(["users", "create", "--email", "quiet@example.com", "--password", "correct horse", "--data-dir", quiet]).status == 0)
        try await Self.giveFactor(data: quiet, email: "quiet@example.com")
        let unannounced = try CLI.run(["users", "mfa", "remove", "quiet@example.com", "--yes", "--data-dir", quiet])
        #expect(unannounced.status == 0, "\(unannounced.output)")
        #expect(unannounced.stdout.contains("No email was sent to quiet@example.com: the server that last ran on this data has no SMTP relay"), "\(unannounced.stdout)")
    }

    static func giveFactor(data: String, email: String) async throws {
        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        var user = try #require(try await store.user(email: email))
        user.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "enr-phone", displayName: "Work phone", enrolledAt: Date(), secret: "JBSWY3DPEHPK3PXP")],
                           recoveryCodeHashes: RecoveryCodes.generate(count: 3).compactMap(RecoveryCodes.hash))
        _ = try await store.updateUser(user)
        _ = try await store.insertPasskey(PasskeyCredential(
            credentialId: "cred-0123456789abcdef-\(user.localId)", localId: user.localId, userHandle: "handle-\(user.localId)",
            publicKey: "pQECAyYgASFYIPUBLICKEY", algorithm: -7, signCount: 3, name: "YubiKey 5", createdAt: Date(timeIntervalSince1970: 1_790_000_000)))
        try await store.close()
    }

    /// Issue 35 (smaller): `hearth users get` shows the user's second factors and passkeys — names, dates, ids —
    /// never a secret or a key.
    @Test func usersGetShowsFactorsAndPasskeys() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        #expect(try CLI.run(["users", "create", "--email", "shown@example.com", "--password", "correct horse", "--data-dir", data]).status == 0)
        let before = try CLI.run(["users", "get", "shown@example.com", "--data-dir", data])
        #expect(before.stdout.contains("second factors   none") && before.stdout.contains("passkeys         none"), "\(before.stdout)")
        try await Self.giveFactor(data: data, email: "shown@example.com")
        let shown = try CLI.run(["users", "get", "shown@example.com", "--data-dir", data])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.stdout.contains("second factors   1"), "\(shown.stdout)")
        #expect(shown.stdout.contains("enr-phone  totp  Work phone  enrolled "), "\(shown.stdout)")
        #expect(shown.stdout.contains("recovery codes left: 3"), "\(shown.stdout)")
        #expect(shown.stdout.contains("passkeys         1"), "\(shown.stdout)")
        #expect(shown.stdout.contains("YubiKey 5  created 2026-09-21T"), "\(shown.stdout)")
        #expect(shown.stdout.contains("last used never"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("JBSWY3DPEHPK3PXP") && !shown.stdout.contains("PUBLICKEY"), "never a secret or a key")
    }

    /// Issue 35 (smaller): `hearth whoami` exits non-zero when no one is signed in, still saying so.
    @Test func whoamiFailsWhenNotSignedIn() throws {
        let whoami = try CLI.run(["whoami", "--server", "http://127.0.0.1:9"], configHome: CLI.temporaryDirectory())
        #expect(whoami.status == 1, "\(whoami.output)")
        #expect(whoami.stdout.contains("Not signed in to http://127.0.0.1:9"), "\(whoami.output)")
        #expect(whoami.stderr.contains("hearth signin"), "\(whoami.stderr)")
    }

    /// Issue 35 (smaller): SIGTERM is logged when it arrives, and the end of the shutdown too.
    @Test func sigtermIsLogged() throws {
        let server = try RunningServer.start()
        server.stop()
        let deadline = Date().addingTimeInterval(5)
        while !server.log.contains("stopped"), Date() < deadline { usleep(50_000) }
        #expect(server.log.contains("shutting down: a stop signal (SIGTERM or SIGINT) arrived"), "\(server.log)")
        #expect(server.log.contains("stopped"), "\(server.log)")
        #expect(server.process.terminationStatus == 0)
    }

    /// Issue 35 (smaller): a plain-http public URL on a host other than this machine starts with a warning; a
    /// localhost one does not.
    @Test func plainHTTPPublicURLOnAnotherHostWarns() throws {
        let remote = try RunningServer.start(["--public-url", "http://auth.example.test:9099"])
        remote.stop()
        #expect(remote.log.contains("warning: the public URL http://auth.example.test:9099 is plain http on auth.example.test"), "\(remote.log)")
        #expect(remote.log.contains("https"))
        let local = try RunningServer.start(["--public-url", "http://localhost:9099"])
        local.stop()
        #expect(!local.log.contains("is plain http"), "\(local.log)")
        let secure = try RunningServer.start(["--public-url", "https://auth.example.test"])
        secure.stop()
        #expect(!secure.log.contains("is plain http"), "\(secure.log)")
    }

    /// Issue 35 (smaller): `serve --help` says every setting applies in --config, and --dev names all four dev IdPs.
    @Test func serveHelpIsTrue() throws {
        let help = try CLI.run(["serve", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("every setting by its key"), "\(text)")
        #expect(!text.contains("host, port and public.url apply"))
        #expect(text.contains("Microsoft-, Yahoo-, Apple- and Google-shaped identity providers"), "\(text)")
        #expect(!text.contains("Microsoft- and Yahoo-shaped"))
    }
}
