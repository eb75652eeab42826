import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Several `hearth serve` processes on one PostgreSQL database, and `hearth migrate` between the stores — the
/// built binary, real servers on loopback ports, a real PostgreSQL server (`HEARTH_TEST_POSTGRES_URL`).
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
struct ReplicaTests {
    /// The URL a server is given for `configuration`'s database (plain TCP: the test server is on loopback).
    static func url(_ configuration: PostgresStoreConfiguration) -> String {
        let password = (configuration.password ?? "").addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? ""
        return "postgres://\(configuration.username):\(password)@\(configuration.host):\(configuration.port)/\(configuration.database)?sslmode=disable"
    }

    /// POSTs JSON; returns the status and the decoded object.
    static func post(_ base: String, _ path: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: base + path + "?key=k")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    static func kids(_ base: String) async throws -> Set<String> {
        let (data, _) = try await URLSession.shared.data(from: URL(string: base + WirePaths.wellKnownJWKS)!)
        let keys = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
        return Set(keys.compactMap { $0["kid"] as? String })
    }

    /// Starts two servers on one database at the same moment (separate data directories: nothing is shared
    /// through the file system).
    static func startPair(_ databaseURL: String, arguments: [String] = []) async throws -> (RunningServer, RunningServer) {
        let environment = ["HEARTH_DATABASE_URL": databaseURL]
        async let first = Task.detached { try RunningServer.start(arguments, environment: environment) }.value
        async let second = Task.detached { try RunningServer.start(arguments, environment: environment) }.value
        return try await (first, second)
    }

    @Test func twoReplicasOnOneDatabase() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let databaseURL = Self.url(configuration)
            // At trace level, so the check below covers everything the database driver could log.
            let (a, b) = try await Self.startPair(databaseURL, arguments: ["--log-level", "trace"])
            defer { a.stop(); b.stop() }
            let password = try #require(configuration.password)

            // The banner names the database with its password masked; neither output holds the password.
            #expect(a.banner.contains("data:          postgres://\(configuration.username):***@\(configuration.host):\(configuration.port)/\(configuration.database)"), "\(a.banner)")
            for output in [a.banner, a.log, b.banner, b.log] { #expect(!output.contains(password)) }

            // Both started on an empty database: they publish the same signing keys.
            let kidsA = try await Self.kids(a.url)
            #expect(!kidsA.isEmpty)
            #expect(try await Self.kids(b.url) == kidsA)

            // Sign up on A, sign in on B: the same account; B's refresh of A's token works.
            let signUp = try await Self.post(a.url, WirePaths.accounts("signUp"), ["email": "ada@example.com", "password": "correct horse", "returnSecureToken": true])
            #expect(signUp.status == 200, "\(signUp.json)")
            let signIn = try await Self.post(b.url, WirePaths.accounts("signInWithPassword"), ["email": "ada@example.com", "password": "correct horse", "returnSecureToken": true])
            #expect(signIn.status == 200, "\(signIn.json)")
            #expect(signIn.json["localId"] as? String == signUp.json["localId"] as? String)
            let refreshToken = try #require(signUp.json["refreshToken"] as? String)
            let refreshed = try await Self.post(b.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": refreshToken])
            #expect(refreshed.status == 200, "\(refreshed.json)")
            #expect(refreshed.json["user_id"] as? String == signUp.json["localId"] as? String)

            // Concurrent sign-ups of one email on both replicas: exactly one account.
            let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<12 {
                    let server = index % 2 == 0 ? a : b
                    group.addTask {
                        let reply = try await Self.post(server.url, WirePaths.accounts("signUp"), ["email": "race@example.com", "password": "correct horse", "returnSecureToken": true])
                        return (reply.status, ((reply.json["error"] as? [String: Any])?["message"] as? String) ?? "")
                    }
                }
                return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0.0 != 200 }.allSatisfy { $0.0 == 400 && $0.1 == "EMAIL_EXISTS" }, "\(statuses)")

            // Failed password sign-ins count across replicas: 10 failures (the per-account limit) spread over A and B,
            // then even the right password is throttled on either (each process alone saw only 5).
            for index in 0..<10 {
                let reply = try await Self.post(index % 2 == 0 ? a.url : b.url, WirePaths.accounts("signInWithPassword"),
                                                ["email": "ada@example.com", "password": "wrong \(index)"])
                #expect(reply.status == 400, "\(reply.json)")
            }
            for server in [a, b] {
                let throttled = try await Self.post(server.url, WirePaths.accounts("signInWithPassword"), ["email": "ada@example.com", "password": "correct horse"])
                let message = (throttled.json["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER"), "\(throttled.json)")
            }

            // Administration commands open the same database (here through the environment).
            let list = try CLI.run(["users", "list"], environment: ["HEARTH_DATABASE_URL": databaseURL])
            #expect(list.status == 0, "\(list.output)")
            #expect(list.stdout.contains("ada@example.com") && list.stdout.contains("race@example.com"), "\(list.output)")
            #expect(!list.output.contains(password))
            // No secret reached either log, even at trace level: passwords, refresh tokens, signing keys, hashes.
            for output in [a.log, b.log] {
                #expect(!output.contains("correct horse") && !output.contains("hrt1.") && !output.contains("PRIVATE KEY"))
                #expect(!output.contains(password) && !output.contains("scrypt$"))
            }
        }
    }

    @Test func killingAReplicaUnderSignUpLoadLosesNoAcknowledgedAccount() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let databaseURL = Self.url(configuration)
            let (a, b) = try await Self.startPair(databaseURL)
            defer { a.stop(); b.stop() }
            let acknowledged = Locked<[String]>([])
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<4 {
                        group.addTask {
                            for index in 0..<500 {
                                let email = "w\(worker)-\(index)@load.example.com"
                                guard let reply = try? await Self.post(a.url, WirePaths.accounts("signUp"), ["email": email, "password": "correct horse"]) else { return }
                                if reply.status == 200 { acknowledged.mutate { $0.append(email) } }
                            }
                        }
                    }
                }
            }
            let deadline = Date().addingTimeInterval(60)
            while acknowledged.value.count < 20, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            kill(a.process.processIdentifier, SIGKILL)
            await load.value
            let emails = acknowledged.value
            #expect(emails.count >= 20)
            // Every account A acknowledged before it died is on B.
            let list = try CLI.run(["users", "list", "--limit", "1000"], environment: ["HEARTH_DATABASE_URL": databaseURL])
            #expect(list.status == 0, "\(list.output)")
            let missing = emails.filter { !list.stdout.contains($0) }
            #expect(missing.isEmpty, "lost: \(missing)")
            let sample = try #require(emails.last)
            let signIn = try await Self.post(b.url, WirePaths.accounts("signInWithPassword"), ["email": sample, "password": "correct horse"])
            #expect(signIn.status == 200, "\(signIn.json)")
        }
    }

    @Test func aWrongDatabaseURLIsAPlainErrorWithoutThePassword() throws {
        let result = try CLI.run(["users", "list", "--database-url", "postgres://hearth:sekrit-XYZZY@127.0.0.1:1/hearth?sslmode=disable"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot open the PostgreSQL database postgres://hearth:***@127.0.0.1:1/hearth"), "\(result.output)")
        #expect(!result.output.contains("XYZZY"))
        for marker in rawErrorMarkers { #expect(!result.output.contains(marker), "\(result.output)") }
        let malformed = try CLI.run(["users", "list", "--database-url", "postgres://hearth:sekrit-XYZZY@/hearth"])
        #expect(malformed.status != 0)
        #expect(malformed.stderr.contains("--database-url"), "\(malformed.output)")
        #expect(!malformed.output.contains("XYZZY"))
        let tlsWithoutURL = try CLI.run(["users", "list", "--database-tls", "require", "--data-dir", CLI.temporaryDirectory()])
        #expect(tlsWithoutURL.status != 0)
        #expect(tlsWithoutURL.stderr.contains("give --database-url"), "\(tlsWithoutURL.output)")
    }

    @Test func migrateSQLiteToPostgresAndBack() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let databaseURL = Self.url(configuration)
            let dataDir = CLI.temporaryDirectory() + "/data"
            let sqlite = try RunningServer.start(dataDir: dataDir)
            let signUp = try await Self.post(sqlite.url, WirePaths.accounts("signUp"), ["email": "old@example.com", "password": "old password", "returnSecureToken": true])
            #expect(signUp.status == 200, "\(signUp.json)")
            let kids = try await Self.kids(sqlite.url)
            sqlite.stop()
            // A federated user with a provider token vault record (sealed; copied as it is).
            let vaultRecord = ProviderTokenRecord(localId: "vault-user", providerId: "microsoft.com", federatedId: "oid-v", keyId: "k1",
                                                  sealed: "c2VhbGVkLWJveA==", accessTokenExpiresAt: nil, updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
            let local = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
            try await local.createUser(UserRecord(localId: "vault-user", createdAt: Date(), validSince: Date(),
                                                  identities: [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-v", email: nil, displayName: nil)]))
            #expect(try await local.saveProviderTokens(vaultRecord))
            try await local.close()

            let copy = try CLI.run(["migrate", "--from", dataDir, "--to", databaseURL])
            #expect(copy.status == 0, "\(copy.output)")
            #expect(copy.stdout.contains("count check: ok"), "\(copy.output)")
            #expect(copy.stdout.contains("provider tokens             1        1        1"), "\(copy.output)")
            let copied = try await PostgresStore.open(configuration)
            #expect(try await copied.providerTokens(localId: "vault-user", providerId: "microsoft.com") == vaultRecord)
            try await copied.close()
            #expect(!copy.output.contains(configuration.password ?? "-"))
            // A second copy into the now non-empty database is refused unless told.
            let again = try CLI.run(["migrate", "--from", dataDir, "--to", databaseURL])
            #expect(again.status != 0)
            #expect(again.stderr.contains("--allow-non-empty"), "\(again.output)")
            let added = try CLI.run(["migrate", "--from", dataDir, "--to", databaseURL, "--allow-non-empty"])
            #expect(added.status == 0, "\(added.output)")

            // The PostgreSQL server signs the old user in with the old password, with the same keys.
            let postgres = try RunningServer.start(environment: ["HEARTH_DATABASE_URL": databaseURL])
            defer { postgres.stop() }
            #expect(try await Self.kids(postgres.url) == kids)
            let signIn = try await Self.post(postgres.url, WirePaths.accounts("signInWithPassword"), ["email": "old@example.com", "password": "old password", "returnSecureToken": true])
            #expect(signIn.status == 200, "\(signIn.json)")
            #expect(signIn.json["localId"] as? String == signUp.json["localId"] as? String)
            let refreshed = try await Self.post(postgres.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": try #require(signUp.json["refreshToken"] as? String)])
            #expect(refreshed.status == 200, "\(refreshed.json)")

            // And back, into a new SQLite directory.
            let back = CLI.temporaryDirectory() + "/back"
            let reverse = try CLI.run(["migrate", "--from", databaseURL, "--to", back])
            #expect(reverse.status == 0, "\(reverse.output)")
            #expect(reverse.stdout.contains("count check: ok"), "\(reverse.output)")
            let list = try CLI.run(["users", "list", "--data-dir", back])
            #expect(list.stdout.contains("old@example.com"), "\(list.output)")
        }
    }
}

/// `hearth backup`: SQLite's online backup while the server runs.
@Suite struct BackupTests {
    @Test func backupWhileServingIsACompleteDatabase() async throws {
        let dataDir = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start(dataDir: dataDir)
        defer { server.stop() }
        let signUp = try await ReplicaTests.post(server.url, WirePaths.accounts("signUp"), ["email": "kept@example.com", "password": "correct horse"])
        #expect(signUp.status == 200, "\(signUp.json)")
        let restored = CLI.temporaryDirectory()
        let backup = try CLI.run(["backup", "--data-dir", dataDir, "--to", restored + "/hearth.sqlite"])
        #expect(backup.status == 0, "\(backup.output)")
        let list = try CLI.run(["users", "list", "--data-dir", restored])
        #expect(list.status == 0 && list.stdout.contains("kept@example.com"), "\(list.output)")
        // An existing file is never overwritten; PostgreSQL is pointed at pg_dump.
        let again = try CLI.run(["backup", "--data-dir", dataDir, "--to", restored + "/hearth.sqlite"])
        #expect(again.status != 0 && again.stderr.contains("exists"), "\(again.output)")
        let postgres = try CLI.run(["backup", "--database-url", "postgres://u:secret-XYZZY@127.0.0.1:1/db", "--to", restored + "/x.sqlite"])
        #expect(postgres.status != 0 && postgres.stderr.contains("pg_dump"), "\(postgres.output)")
        #expect(!postgres.output.contains("XYZZY"))
    }
}
