import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// Every `HearthStore` implementation; the suites run unchanged on each. `postgres` needs a server
/// (`HEARTH_TEST_POSTGRES_URL`): without it, it is left out of `allCases` and `PostgresStoreTests` shows as skipped.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqliteMemory
    case sqliteFile
    case postgres

    static var allCases: [StoreKind] {
        PostgresTestDatabase.url == nil ? [.sqliteMemory, .sqliteFile] : [.sqliteMemory, .sqliteFile, .postgres]
    }

    var testDescription: String { rawValue }

    /// Opens a fresh, empty store, runs `body`, closes it.
    func with(_ body: (any HearthStore) async throws -> Void) async throws {
        switch self {
        case .sqliteMemory:
            let store = try await SQLiteStore.inMemory()
            do { try await body(store) } catch { try? await store.close(); throw error }
            try await store.close()
        case .sqliteFile:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try await SQLiteStore.open(path: directory.appendingPathComponent("hearth.sqlite").path)
            do { try await body(store) } catch { try? await store.close(); throw error }
            try await store.close()
        case .postgres:
            try await PostgresTestDatabase.withDatabase { configuration in
                let store = try await PostgresStore.open(configuration)
                do { try await body(store) } catch { try? await store.close(); throw error }
                try await store.close()
            }
        }
    }
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func makeUser(_ id: String = RandomID.localId(), email: String? = nil, identities: [ProviderIdentity] = []) -> UserRecord {
    UserRecord(localId: id, email: email, displayName: "User \(id.prefix(4))", passwordHash: email == nil ? nil : "scrypt$1024$8$1$AAAA$AAAA",
               createdAt: t0, validSince: t0, customClaims: ["role": .string("reader")], identities: identities)
}

@Suite struct StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func usersRoundTrip(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let user = makeUser("u1", email: "ada@example.com", identities: [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-1", email: "ada@contoso.com", displayName: "Ada")])
            try await store.createUser(user)
            let byId = try #require(try await store.user(localId: "u1"))
            #expect(byId == user)
            #expect(try await store.user(email: "ada@example.com")?.localId == "u1")
            #expect(try await store.user(providerId: "microsoft.com", federatedId: "oid-1")?.localId == "u1")
            #expect(try await store.user(providerId: "microsoft.com", federatedId: "oid-2") == nil)
            #expect(try await store.user(localId: "nobody") == nil)
            #expect(try await store.userCount() == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func uniqueness(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1", email: "ada@example.com", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "G1")]))
            await #expect(throws: StoreError.emailExists) { try await store.createUser(makeUser("u2", email: "ada@example.com")) }
            await #expect(throws: StoreError.federatedIdTaken(providerId: "yahoo.com")) {
                try await store.createUser(makeUser("u3", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "G1")]))
            }
            await #expect(throws: StoreError.duplicateLocalId) { try await store.createUser(makeUser("u1")) }
            // Nothing of the failed inserts remains.
            #expect(try await store.userCount() == 1)
            #expect(try await store.user(localId: "u3") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func optimisticUpdates(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1", email: "ada@example.com"))
            try await store.createUser(makeUser("u2", email: "bob@example.com"))
            var first = try #require(try await store.user(localId: "u1"))
            let stale = first
            first.displayName = "Ada Lovelace"
            first.identities = [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-9")]
            let saved = try await store.updateUser(first)
            #expect(saved.version == stale.version + 1)
            var lost = stale
            lost.displayName = "overwrite"
            await #expect(throws: StoreError.conflict) { try await store.updateUser(lost) }
            let reloaded = try #require(try await store.user(localId: "u1"))
            #expect(reloaded.displayName == "Ada Lovelace")
            #expect(reloaded.identities.map(\.federatedId) == ["oid-9"])
            var bob = try #require(try await store.user(localId: "u2"))
            bob.email = "ada@example.com"
            await #expect(throws: StoreError.emailExists) { try await store.updateUser(bob) }
            bob.email = "bob@example.com"
            bob.identities = [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-9")]
            await #expect(throws: StoreError.federatedIdTaken(providerId: "microsoft.com")) { try await store.updateUser(bob) }
            var ghost = makeUser("ghost")
            ghost.version = 0
            await #expect(throws: StoreError.notFound) { try await store.updateUser(ghost) }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesIdentitiesAndTokens(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "G1")]))
            let (_, record) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "yahoo.com", now: t0)
            try await store.insertRefreshToken(record)
            #expect(try await store.deleteUser(localId: "u1"))
            #expect(try await !store.deleteUser(localId: "u1"))
            #expect(try await store.user(providerId: "yahoo.com", federatedId: "G1") == nil)
            #expect(try await store.refreshToken(hash: record.tokenHash) == nil)
            // The federated id is free again.
            try await store.createUser(makeUser("u2", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "G1")]))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refreshRotation(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (token, record) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "password",
                                                           sessionClaims: ["tier": .string("gold")], now: t0)
            try await store.insertRefreshToken(record)
            #expect(try await store.refreshToken(hash: RefreshTokenRecord.hash(token)) == record)

            try await store.createUser(makeUser("u1"))
            func refresh(_ hash: String, _ replacement: RefreshTokenRecord, at seconds: TimeInterval) async throws -> RefreshSessionOutcome {
                try await store.refreshSession(presentedHash: hash, replacement: replacement, now: t0.addingTimeInterval(seconds), graceWindow: 30)
            }

            let (_, next) = RefreshTokenRecord.issue(localId: "", authTime: t0.addingTimeInterval(99), signInProvider: "", now: t0.addingTimeInterval(10))
            guard case .refreshed(let previous, let user) = try await refresh(record.tokenHash, next, at: 10) else {
                Issue.record("a live token must refresh")
                return
            }
            #expect(previous == record)
            #expect(user.localId == "u1")
            #expect(user.lastRefreshAt == t0.addingTimeInterval(10))
            // The replacement inherits the family, the user, the sign-in time, provider and claims.
            let stored = try #require(try await store.refreshToken(hash: next.tokenHash))
            #expect(stored.familyId == record.familyId)
            #expect(stored.localId == "u1")
            #expect(stored.authTime == t0)
            #expect(stored.signInProvider == "password")
            #expect(stored.sessionClaims == ["tier": .string("gold")])
            #expect(try await store.refreshToken(hash: record.tokenHash)?.rotatedAt == t0.addingTimeInterval(10))

            // Within the grace window the old token still rotates (a concurrent refresh), keeping its first rotation time.
            let (_, sibling) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0.addingTimeInterval(20))
            if case .refreshed = try await refresh(record.tokenHash, sibling, at: 20) {} else {
                Issue.record("a rotated token inside the grace window must rotate")
            }
            #expect(try await store.refreshToken(hash: record.tokenHash)?.rotatedAt == t0.addingTimeInterval(10))
            // After it, reuse revokes the whole family, including the newest token.
            let (_, late) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0.addingTimeInterval(100))
            #expect(try await refresh(record.tokenHash, late, at: 100) == .reuseDetected)
            #expect(try await refresh(next.tokenHash, late, at: 101) == .revoked)
            #expect(try await store.refreshToken(hash: sibling.tokenHash)?.revoked == true)
            #expect(try await store.refreshToken(hash: late.tokenHash) == nil)
            #expect(try await refresh("nope", late, at: 0) == .unknown)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func revokeAllOfAUser(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (_, a) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "password", now: t0)
            let (_, b) = RefreshTokenRecord.issue(localId: "u2", authTime: t0, signInProvider: "password", now: t0)
            try await store.insertRefreshToken(a)
            try await store.insertRefreshToken(b)
            try await store.revokeRefreshTokens(localId: "u1")
            #expect(try await store.refreshToken(hash: a.tokenHash)?.revoked == true)
            #expect(try await store.refreshToken(hash: b.tokenHash)?.revoked == false)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func signingKeys(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let key = SigningKey(generation: 1, kid: "k1", privateKeyPEM: "p", certificatePEM: "c", createdAt: t0, activatesAt: t0)
            try await store.insertSigningKey(key)
            await #expect(throws: StoreError.duplicateKeyGeneration) {
                try await store.insertSigningKey(SigningKey(generation: 1, kid: "k1b", privateKeyPEM: "p", certificatePEM: "c", createdAt: t0, activatesAt: t0))
            }
            try await store.insertSigningKey(SigningKey(generation: 2, kid: "k2", privateKeyPEM: "p", certificatePEM: "c", createdAt: t0, activatesAt: t0.addingTimeInterval(5)))
            #expect(try await store.signingKeys().map(\.kid) == ["k1", "k2"])
            #expect(try await store.signingKeys().first == key)
            try await store.deleteSigningKeys(generations: [1])
            #expect(try await store.signingKeys().map(\.kid) == ["k2"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func projectAndServiceAccounts(_ kind: StoreKind) async throws {
        try await kind.with { store in
            #expect(try await store.projectConfig(projectId: "p") == nil)
            var config = ProjectConfig(projectId: "p")
            config.emailEnumerationProtection = true
            try await store.saveProjectConfig(config)
            #expect(try await store.projectConfig(projectId: "p") == config)
            config.authorizedDomains = ["example.com"]
            try await store.saveProjectConfig(config)
            #expect(try await store.projectConfig(projectId: "p")?.authorizedDomains == ["example.com"])

            let key = ServiceAccountKey(clientEmail: "sa@p.iam.gserviceaccount.com", keyId: "k1", publicKeyPEM: "PEM", createdAt: t0)
            try await store.saveServiceAccountKey(key)
            try await store.saveServiceAccountKey(ServiceAccountKey(clientEmail: "sa@p.iam.gserviceaccount.com", keyId: "k2", publicKeyPEM: "PEM2", createdAt: t0))
            #expect(try await store.serviceAccountKeys(clientEmail: "sa@p.iam.gserviceaccount.com").map(\.keyId) == ["k1", "k2"])
            #expect(try await store.allServiceAccountKeys().count == 2)
            #expect(try await store.deleteServiceAccountKey(clientEmail: "sa@p.iam.gserviceaccount.com", keyId: "k1"))
            #expect(try await !store.deleteServiceAccountKey(clientEmail: "sa@p.iam.gserviceaccount.com", keyId: "k1"))
            #expect(try await store.serviceAccountKeys(clientEmail: "other") == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentCreatesWithOneEmailYieldOneAccount(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<25 {
                    group.addTask {
                        do {
                            try await store.createUser(makeUser("racer-\(index)", email: "race@example.com"))
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            let count = try await store.userCount()
            #expect(results.filter { $0 }.count == 1)
            #expect(count == 1)
        }
    }
}

@Suite struct SQLiteMigrationTests {
    @Test func reopeningKeepsDataAndDoesNotRerunMigrations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hearth.sqlite").path
        let first = try await SQLiteStore.open(path: path)
        try await first.createUser(makeUser("keep", email: "keep@example.com"))
        try await first.close()
        let second = try await SQLiteStore.open(path: path)
        #expect(try await second.user(localId: "keep")?.email == "keep@example.com")
        try await second.close()
    }
}
