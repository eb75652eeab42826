import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthTesting
import Testing

/// What only the shared store has to get right: replicas (several `PostgresStore`s on one database) starting and
/// racing at once, errors, the bulk path. The conformance suites cover the rest (`StoreKind.postgres`).
@Suite(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
struct PostgresStoreTests {
    /// Opens `count` stores on one fresh database at the same moment (as replicas starting together).
    func withReplicas(_ count: Int, _ body: ([PostgresStore]) async throws -> Void) async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<count { group.addTask { try await PostgresStore.open(configuration) } }
                return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
            }
            do { try await body(stores) } catch {
                for store in stores { try? await store.close() }
                throw error
            }
            for store in stores { try await store.close() }
        }
    }

    @Test func replicasStartingTogetherMigrateOnce() async throws {
        try await withReplicas(4) { stores in
            for store in stores { #expect(try await store.appliedMigrations() == Array(1...12)) }
            try await stores[0].createUser(makeUser("u1", email: "ada@example.com"))
            #expect(try await stores[3].user(email: "ada@example.com")?.localId == "u1")
        }
    }

    @Test func oneEmailRacedOnTwoReplicasYieldsOneAccount() async throws {
        try await withReplicas(2) { stores in
            let outcomes = await withTaskGroup(of: Result<Void, StoreError>.self) { group in
                for index in 0..<20 {
                    let store = stores[index % 2]
                    group.addTask {
                        do {
                            try await store.createUser(makeUser("racer-\(index)", email: "race@example.com"))
                            return .success(())
                        } catch let error as StoreError {
                            return .failure(error)
                        } catch {
                            return .failure(.backend("\(error)"))
                        }
                    }
                }
                return await group.reduce(into: [Result<Void, StoreError>]()) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .success = $0 { true } else { false } }.count == 1)
            // Every loser is told the email exists (not a backend error).
            #expect(outcomes.allSatisfy { if case .failure(let error) = $0 { error == .emailExists } else { true } })
            let count = try await stores[1].userCount()
            #expect(count == 1)
        }
    }

    /// Issue 38, item 3 (isolation on PostgreSQL with replicas): a tenant made on one replica is another's at once;
    /// one email raced into a tenant on two replicas is one account there, and the same email in another tenant and
    /// in the project are other accounts; neither replica's tenant-bound store sees another tenant's user; a tenant
    /// deleted on one replica is gone, with its users, for the other.
    @Test func tenantsAreIsolatedAcrossReplicas() async throws {
        try await withReplicas(2) { stores in
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for id in ["acme-aaaaa", "beta-bbbbb"] {
                try await stores[0].insertTenant(TenantRecord(id: id, displayName: "Tenant \(id.prefix(4))", settings: TenantSettings(), createdAt: t0))
            }
            #expect(try await stores[1].tenant(id: "acme-aaaaa")?.displayName == "Tenant acme")
            let acme = stores.map { $0.bound(toTenant: "acme-aaaaa") }
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    let store = acme[index % 2]
                    group.addTask { (try? await store.createUser(makeUser("acme-\(index)", email: "race@example.com"))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            try await stores[1].bound(toTenant: "beta-bbbbb").createUser(makeUser("beta-1", email: "race@example.com"))
            try await stores[0].createUser(makeUser("project-1", email: "race@example.com"))
            let acmeUser = try #require(try await acme[1].user(email: "race@example.com"))
            #expect(acmeUser.tenantId == "acme-aaaaa")
            #expect(try await stores[0].bound(toTenant: "beta-bbbbb").user(email: "race@example.com")?.localId == "beta-1")
            #expect(try await stores[1].user(email: "race@example.com")?.localId == "project-1")
            // Another tenant's user is not found by key through either replica's bound store.
            #expect(try await stores[0].bound(toTenant: "beta-bbbbb").user(localId: acmeUser.localId) == nil)
            #expect(try await stores[1].user(localId: acmeUser.localId) == nil)
            // Deleted on one replica: gone for the other, with its users; the others stay.
            #expect(try await stores[0].deleteTenant(id: "acme-aaaaa"))
            #expect(try await stores[1].tenant(id: "acme-aaaaa") == nil)
            #expect(try await acme[1].user(localId: acmeUser.localId) == nil)
            #expect(try await stores[1].bound(toTenant: "beta-bbbbb").user(localId: "beta-1") != nil)
            #expect(try await stores[1].user(localId: "project-1") != nil)
        }
    }

    @Test func oneFederatedIdentityRacedOnTwoReplicasYieldsOneUser() async throws {
        try await withReplicas(2) { stores in
            let identity = ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-race")
            let outcomes = await withTaskGroup(of: StoreError?.self) { group in
                for index in 0..<10 {
                    let store = stores[index % 2]
                    group.addTask {
                        do {
                            try await store.createUser(makeUser("fed-\(index)", identities: [identity]))
                            return nil
                        } catch {
                            return error as? StoreError ?? .backend("\(error)")
                        }
                    }
                }
                return await group.reduce(into: [StoreError?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.compactMap(\.self).allSatisfy { $0 == .federatedIdTaken(providerId: "microsoft.com") })
            let count = try await stores[0].userCount()
            #expect(count == 1)
        }
    }

    @Test func oneKeyGenerationRacedOnTwoReplicasIsAddedOnce() async throws {
        try await withReplicas(2) { stores in
            let results = await withTaskGroup(of: StoreError?.self) { group in
                for index in 0..<2 {
                    let key = SigningKey(generation: 7, kid: "kid-\(index)", privateKeyPEM: "pem", certificatePEM: "cert",
                                         createdAt: t0, activatesAt: t0)
                    let store = stores[index]
                    group.addTask {
                        do { try await store.insertSigningKey(key); return nil } catch { return error as? StoreError ?? .backend("\(error)") }
                    }
                }
                return await group.reduce(into: [StoreError?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 1)
            #expect(results.contains(.duplicateKeyGeneration))
            let generations = try await stores[0].signingKeys().map(\.generation)
            #expect(generations == [7])
        }
    }

    @Test func oneRefreshTokenRefreshedOnTwoReplicasAtOnceRotatesOnce() async throws {
        try await withReplicas(2) { stores in
            try await stores[0].createUser(makeUser("u1", email: "ada@example.com"))
            let (_, record) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "password", now: t0)
            try await stores[0].insertRefreshToken(record)
            let moment = t0.addingTimeInterval(5)
            let outcomes = try await withThrowingTaskGroup(of: RefreshSessionOutcome.self) { group in
                for index in 0..<2 {
                    let store = stores[index]
                    group.addTask {
                        let (_, next) = RefreshTokenRecord.issue(localId: "", authTime: moment, signInProvider: "", now: moment)
                        return try await store.refreshSession(presentedHash: record.tokenHash, replacement: next, now: moment, graceWindow: 30)
                    }
                }
                return try await group.reduce(into: [RefreshSessionOutcome]()) { $0.append($1) }
            }
            // Both within the grace window: both rotate, the presented token is marked rotated once, and the
            // user's version moved by exactly two (the row lock serialized them).
            #expect(outcomes.allSatisfy { if case .refreshed = $0 { true } else { false } })
            #expect(try await stores[1].refreshToken(hash: record.tokenHash)?.rotatedAt == moment)
            #expect(try await stores[1].user(localId: "u1")?.version == 2)
            // After the grace window the same token is reuse, on either replica, and the family is revoked.
            let late = t0.addingTimeInterval(60)
            let (_, again) = RefreshTokenRecord.issue(localId: "", authTime: late, signInProvider: "", now: late)
            #expect(try await stores[1].refreshSession(presentedHash: record.tokenHash, replacement: again, now: late, graceWindow: 30) == .reuseDetected)
        }
    }

    @Test func throttleReservationsAreSharedByReplicasAndHeldToTheLimitUnderABurst() async throws {
        try await withReplicas(2) { stores in
            let since = t0.addingTimeInterval(-60)
            // 40 parallel reservations of one account from two replicas: exactly the limit pass (10).
            let keys = [ThrottleKey("account:a", limit: 10), ThrottleKey("address:1", limit: 1000)]
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask { try await stores[index % 2].reserveThrottleAttempt(keys: keys, attemptId: "r\(index)", at: t0, since: since) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 10)
            // A settled (successful) attempt clears the account, on the other replica too.
            try await stores[0].settleThrottleAttempt(attemptId: "r0", clearing: "account:a")
            #expect(try await stores[1].reserveThrottleAttempt(keys: keys, attemptId: "after", at: t0, since: since))
            // Attempts outside the window no longer count; pruning drops day-old ones.
            let later = t0.addingTimeInterval(120)
            let one = [ThrottleKey("address:2", limit: 1)]
            #expect(try await stores[0].reserveThrottleAttempt(keys: one, attemptId: "x1", at: t0, since: since))
            #expect(try await !stores[1].reserveThrottleAttempt(keys: one, attemptId: "x2", at: t0, since: since))
            #expect(try await stores[1].reserveThrottleAttempt(keys: one, attemptId: "x3", at: later, since: later.addingTimeInterval(-60)))
            try await stores[1].pruneExpiredFlows(now: t0.addingTimeInterval(86_400 * 2))
            #expect(try await stores[0].reserveThrottleAttempt(keys: one, attemptId: "x4", at: t0, since: .distantPast))
        }
    }

    @Test func bulkImportIsAllOrNothing() async throws {
        try await withReplicas(1) { stores in
            let store = stores[0]
            try await store.importUsers((0..<1_200).map { makeUser("bulk-\($0)", email: "bulk\($0)@example.com") })
            #expect(try await store.userCount() == 1_200)
            #expect(try await store.user(email: "bulk1199@example.com")?.localId == "bulk-1199")
            let batch = (0..<600).map { makeUser("again-\($0)", email: $0 == 599 ? "bulk3@example.com" : "again\($0)@example.com") }
            await #expect(throws: StoreError.emailExists) { try await store.importUsers(batch) }
            #expect(try await store.userCount() == 1_200)
        }
    }

    @Test func aWrongPasswordIsAClearErrorWithoutThePassword() async throws {
        var configuration = try PostgresStoreConfiguration(url: try #require(PostgresTestDatabase.url), tls: .disable)
        configuration.password = "not-the-password-XYZZY"
        do {
            let store = try await PostgresStore.open(configuration)
            try? await store.close()
            Issue.record("opened with a wrong password")
        } catch let error as StoreError {
            guard case .backend(let message) = error else { Issue.record("unexpected \(error)"); return }
            #expect(message.contains("28P01") || message.contains("authentication"), "\(message)")
            #expect(!message.contains("XYZZY"))
        }
    }
}

/// URL parsing and masking: no server needed.
@Suite struct PostgresConfigurationTests {
    @Test func parsesAndMasks() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgres://hearth:s%40cret%2F1@db.internal:6432/auth?sslmode=require")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6432)
        #expect(configuration.username == "hearth")
        #expect(configuration.password == "s@cret/1")
        #expect(configuration.database == "auth")
        #expect(configuration.tls == .require)
        #expect(configuration.maskedURL == "postgres://hearth:***@db.internal:6432/auth")
        #expect(!configuration.description.contains("cret"))
        #expect(!"\(configuration)".contains("cret"))
        // The explicit option wins over the URL's sslmode; the default is prefer.
        #expect(try PostgresStoreConfiguration(url: "postgresql://u:p@h/db?sslmode=require", tls: .disable).tls == .disable)
        #expect(try PostgresStoreConfiguration(url: "postgres://u@h/db").tls == .prefer)
        #expect(try PostgresStoreConfiguration(url: "postgres://u@h/db").port == 5432)
    }

    @Test(arguments: ["postgres://h/db", "postgres://u:p@/db", "postgres://u:p@h", "postgres://u:p@h/a/b", "mysql://u:p@h/db",
                      "postgres://u:p@h/db?sslmode=verify-full", "postgres://u:p@h/db?options=x"])
    func refusesMalformedURLs(_ url: String) {
        #expect(throws: PostgresStoreConfiguration.ConfigurationError.self) { try PostgresStoreConfiguration(url: url) }
    }
}
