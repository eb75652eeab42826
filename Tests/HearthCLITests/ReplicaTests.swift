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

    /// The browser part of a sign-in that starts on `handlerBase`: the auth handler there, the provider's form
    /// (oidc-provider-mock posts the subject back), and the provider's redirect — to whichever replica the
    /// public URL names. Returns the link the app receives and the replica that served the callback.
    static func browserPart(handlerBase: String, providerId: String, subject: String, rawSessionId: String) async throws -> (link: String, callback: String) {
        let start = try await Browser.get(HearthHarness.handlerURL(baseURL: handlerBase, providerId: providerId, rawSessionId: rawSessionId,
                                                                        extra: [("appId", "replica-test")]))
        let authorize = try #require(start.location, "the handler did not redirect: \(start.status) \(start.body.prefix(300))")
        let submitted = try await Browser.post(authorize, form: [("sub", subject)])
        let callback = try #require(submitted.location, "the provider did not redirect: \(submitted.status) \(submitted.body.prefix(300))")
        let delivered = try await Browser.get(callback)
        let app = try #require(delivered.location, "the callback did not redirect: \(delivered.status) \(delivered.body.prefix(300))")
        let link = try #require(Browser.query(app, AuthHandlerParameter.link.rawValue), "no link in \(app)")
        return (link, callback)
    }

    /// The split flow of a load-balanced deployment: the auth handler runs on A, the provider's callback lands on
    /// B (the public URL), `signInWithIdp` runs on A again — everything in between is in the shared database.
    /// Then concurrent first sign-ins of one federated identity on both replicas make one user, and a refresh
    /// token rotated on A and presented on B after the grace window revokes the session on both.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] != nil, "needs the Python OpenID provider that scripts/test starts"))
    func federatedSignInSplitAcrossReplicasAndRefreshReuse() async throws {
        let issuer = try #require(ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"])
        try await PostgresTestDatabase.withDatabase { configuration in
            let databaseURL = Self.url(configuration)
            let environment = ["HEARTH_DATABASE_URL": databaseURL]
            // B's address is the deployment's public URL (the redirect URI registered at the provider); the app
            // reaches A directly, and A is told that public URL.
            let b = try RunningServer.start(environment: environment)
            defer { b.stop() }
            let a = try RunningServer.start(["--public-url", b.url], environment: environment)
            defer { a.stop() }

            // Refresh reuse across replicas, part 1: rotate on A; B still accepts the old token inside the grace
            // window (two tabs refreshing at once), which starts the clock for part 2 below.
            let signUp = try await Self.post(a.url, WirePaths.accounts("signUp"), ["email": "grace@example.com", "password": "correct horse", "returnSecureToken": true])
            #expect(signUp.status == 200, "\(signUp.json)")
            let original = try #require(signUp.json["refreshToken"] as? String)
            let rotatedAt = Date()
            let rotated = try await Self.post(a.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": original])
            #expect(rotated.status == 200, "\(rotated.json)")
            let current = try #require(rotated.json["refresh_token"] as? String)
            let sibling = try await Self.post(b.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": original])
            #expect(sibling.status == 200, "inside the grace window: \(sibling.json)")

            // The provider, configured once in the shared database by the administration command.
            let providerId = "oidc.replicas"
            let client = try await OIDCProviderMock.registerClient(issuer: issuer, redirectUri: b.url + "/__/auth/handler")
            let enable = try CLI.run(["providers", "enable", providerId, "--client-id", client.id, "--issuer", issuer],
                                     environment: environment.merging(["HEARTH_CLIENT_SECRET": client.secret]) { $1 })
            #expect(enable.status == 0, "\(enable.output)")

            let app = try CLI.run(["apps", "add-desktop", "--id", "replica-test"], environment: environment)
            #expect(app.status == 0, "\(app.output)")

            // Handler on A, callback on B, signInWithIdp on A.
            let subject = "split-\(UUID().uuidString.prefix(8).lowercased())"
            let rawSessionId = "SPLITSESSION\(Int.random(in: 1000...9999))"
            let flow = try await Self.browserPart(handlerBase: a.url, providerId: providerId, subject: subject, rawSessionId: rawSessionId)
            #expect(flow.callback.hasPrefix(b.url + "/__/auth/handler?"), "the provider redirected to \(flow.callback)")
            let signIn = try await Self.post(a.url, WirePaths.v3("verifyAssertion"), [
                "requestUri": flow.link, "postBody": "providerId=\(providerId)", "sessionId": rawSessionId,
                "returnSecureToken": true, "returnIdpCredential": true])
            #expect(signIn.status == 200, "\(signIn.json)")
            #expect(signIn.json["federatedId"] as? String == subject)
            #expect(signIn.json["isNewUser"] as? Bool == true)
            // The session was used up: the same link and session on B are refused.
            let replay = try await Self.post(b.url, WirePaths.v3("verifyAssertion"), [
                "requestUri": flow.link, "postBody": "providerId=\(providerId)", "sessionId": rawSessionId, "returnSecureToken": true])
            #expect(replay.status == 400, "\(replay.json)")

            // Concurrent first sign-ins of one new federated identity, half finished on A and half on B: one user.
            let racer = "race-\(UUID().uuidString.prefix(8).lowercased())"
            var flows: [(link: String, session: String)] = []
            for index in 0..<6 {
                let session = "RACESESSION\(index)\(Int.random(in: 1000...9999))"
                flows.append(((try await Self.browserPart(handlerBase: index % 2 == 0 ? a.url : b.url, providerId: providerId,
                                                         subject: racer, rawSessionId: session)).link, session))
            }
            let users = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for (index, flow) in flows.enumerated() {
                    let server = index % 2 == 0 ? a : b
                    group.addTask {
                        let reply = try await Self.post(server.url, WirePaths.v3("verifyAssertion"), [
                            "requestUri": flow.link, "postBody": "providerId=\(providerId)", "sessionId": flow.session, "returnSecureToken": true])
                        return (reply.status, reply.json["localId"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(users.allSatisfy { $0.0 == 200 }, "\(users)")
            #expect(Set(users.compactMap(\.1)).count == 1, "\(users)")
            let list = try CLI.run(["users", "list", "--limit", "100"], environment: environment)
            // Two accounts carry the provider in the whole database: the split flow's and the race's.
            let federatedAccounts = list.stdout.split(separator: "\n").filter { $0.split(separator: "\t").dropFirst(2).first == Substring(providerId) }
            #expect(federatedAccounts.count == 2, "\(list.output)")

            // Refresh reuse across replicas, part 2: after the grace window the old token on B is reuse (theft):
            // refused, and the whole session family with it — A refuses the current token too.
            let wait = 31 - Date().timeIntervalSince(rotatedAt)
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            let reused = try await Self.post(b.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": original])
            #expect(reused.status == 400 && (reused.json["error"] as? [String: Any])?["message"] as? String == "TOKEN_EXPIRED", "\(reused.json)")
            let revoked = try await Self.post(a.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": current])
            #expect(revoked.status == 400 && (revoked.json["error"] as? [String: Any])?["message"] as? String == "TOKEN_EXPIRED", "\(revoked.json)")
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
            var vaultUser = UserRecord(localId: "vault-user", createdAt: Date(), validSince: Date(),
                                       identities: [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-v", email: nil, displayName: nil)])
            // With a second factor and recovery codes: `hearth migrate` keeps them.
            vaultUser.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "f1", displayName: "Phone", enrolledAt: Date(timeIntervalSince1970: 1_800_000_000.5),
                                                        secret: "JBSWY3DPEHPK3PXP", lastUsedStep: 60_000_000)],
                                    recoveryCodeHashes: [String(repeating: "a", count: 64)], recoveryCodesUsed: 1)
            try await local.createUser(vaultUser)
            let passkey = PasskeyCredential(credentialId: "Y3JlZC0x", localId: "vault-user", userHandle: "aGFuZGxl", publicKey: "pQECAyYgASFYIA",
                                            algorithm: -7, signCount: 7, name: "Laptop", transports: ["internal"], backupEligible: true,
                                            createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try await local.insertPasskey(passkey))
            #expect(try await local.saveProviderTokens(vaultRecord))
            try await local.close()

            let copy = try CLI.run(["migrate", "--from", dataDir, "--to", databaseURL])
            #expect(copy.status == 0, "\(copy.output)")
            #expect(copy.stdout.contains("count check: ok"), "\(copy.output)")
            #expect(copy.stdout.contains("provider tokens             1        1        1"), "\(copy.output)")
            let copied = try await PostgresStore.open(configuration)
            #expect(try await copied.providerTokens(localId: "vault-user", providerId: "microsoft.com") == vaultRecord)
            #expect(try await copied.user(localId: "vault-user")?.mfa == vaultUser.mfa)
            #expect(try await copied.passkey(credentialId: "Y3JlZC0x") == passkey)
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
