import Foundation
import HearthCore
import HearthStore
@testable import HearthStorePostgres
@testable import HearthStoreSQLite
import HearthTesting
import Testing

/// Issue 17's storage items on every store: attempts reserved atomically under a burst, native ID tokens used once,
/// NUL refused, one canonical form of an email, client secrets sealed at rest.
@Suite struct TrustStoreTests {
    /// Item 3: 40 parallel reservations of one account are held to its limit (10); a settled one gives room back.
    @Test(arguments: StoreKind.allCases)
    func passwordAttemptReservationsHoldABurstToTheLimit(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let keys = [ThrottleKey("account:ada@example.com", limit: 10), ThrottleKey("address:203.0.113.7", limit: 100)]
            let since = t0.addingTimeInterval(-900)
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask { try await store.reserveThrottleAttempt(keys: keys, attemptId: "a\(index)", at: t0, since: since) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 10)
            #expect(try await !store.reserveThrottleAttempt(keys: keys, attemptId: "late", at: t0, since: since))
            // A refused reservation counted nothing: the address has exactly the 10 granted ones.
            let address = [ThrottleKey("address:203.0.113.7", limit: 11)]
            #expect(try await store.reserveThrottleAttempt(keys: address, attemptId: "b", at: t0, since: since))
            #expect(try await !store.reserveThrottleAttempt(keys: address, attemptId: "c", at: t0, since: since))
            // Success clears the account's attempts and takes its own reservation back from the address.
            try await store.settleThrottleAttempt(attemptId: "b", clearing: "account:ada@example.com")
            #expect(try await store.reserveThrottleAttempt(keys: keys, attemptId: "d", at: t0, since: since))
        }
    }

    /// A credential change and the end of the old sessions are one transaction: a conflicting update revokes nothing,
    /// a successful one revokes every refresh token of the user (and only of that user).
    @Test(arguments: StoreKind.allCases)
    func anUpdateRevokesSessionsInItsOwnTransaction(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(UserRecord(localId: "pw1", email: "pw1@example.com", createdAt: t0, validSince: t0))
            try await store.createUser(UserRecord(localId: "pw2", email: "pw2@example.com", createdAt: t0, validSince: t0))
            let mine = RefreshTokenRecord.issue(localId: "pw1", authTime: t0, signInProvider: "password", now: t0).record
            let theirs = RefreshTokenRecord.issue(localId: "pw2", authTime: t0, signInProvider: "password", now: t0).record
            try await store.insertRefreshToken(mine)
            try await store.insertRefreshToken(theirs)
            var user = try #require(try await store.user(localId: "pw1"))
            user.passwordHash = "scrypt$new"
            var stale = user
            stale.version += 7
            await #expect(throws: StoreError.conflict) { try await store.updateUser(stale, revokingSessions: true) }
            #expect(try await store.refreshToken(hash: mine.tokenHash)?.revoked == false)
            let stored = try await store.updateUser(user, revokingSessions: true)
            #expect(stored.passwordHash == "scrypt$new")
            #expect(try await store.refreshToken(hash: mine.tokenHash)?.revoked == true)
            #expect(try await store.refreshToken(hash: theirs.tokenHash)?.revoked == false)
        }
    }

    /// Item 6: a native ID token's use is recorded once; a second use (any replica) is refused until it expires.
    @Test(arguments: StoreKind.allCases)
    func aNativeTokenIsUsedOnce(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let expires = t0.addingTimeInterval(600)
            let uses = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.markIDTokenUsed(keyHash: "k1", expiresAt: expires, now: t0) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(uses == 1)
            #expect(try await store.markIDTokenUsed(keyHash: "k2", expiresAt: expires, now: t0))
            // After expiry the record is gone (pruned or replaced): the token itself is refused as expired then.
            #expect(try await store.markIDTokenUsed(keyHash: "k1", expiresAt: expires.addingTimeInterval(600), now: expires.addingTimeInterval(1)))
            try await store.pruneExpiredFlows(now: t0.addingTimeInterval(86_400))
            #expect(try await store.markIDTokenUsed(keyHash: "k2", expiresAt: t0.addingTimeInterval(90_000), now: t0.addingTimeInterval(86_400)))
        }
    }

    /// Item 10: no text with U+0000 reaches either engine (SQLite would cut it, PostgreSQL fails the statement).
    @Test(arguments: StoreKind.allCases)
    func nulIsRefusedBeforeTheDatabase(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var user = makeUser("u1", email: "ada@example.com")
            user.displayName = "Ada\u{0}Lovelace"
            await #expect(throws: StoreError.textWithNUL) { try await store.createUser(user) }
            #expect(try await store.userCount() == 0)
            try await store.createUser(makeUser("uid", email: "ada@example.com"))
            // A lookup for "uid\0x" must not find "uid".
            await #expect(throws: StoreError.textWithNUL) { _ = try await store.user(localId: "uid\u{0}x") }
            await #expect(throws: StoreError.textWithNUL) { _ = try await store.user(email: "ada@example.com\u{0}x") }
        }
    }

    /// Item 11: composed and decomposed, upper- and lower-case spellings of one address are one account.
    @Test(arguments: StoreKind.allCases)
    func oneAccountPerEmailWhateverItsUnicodeForm(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let composed = "ren\u{E9}@example.com"
            let decomposed = "rene\u{301}@example.com"
            try await store.createUser(makeUser("u1", email: composed))
            await #expect(throws: StoreError.emailExists) { try await store.createUser(makeUser("u2", email: decomposed)) }
            await #expect(throws: StoreError.emailExists) { try await store.createUser(makeUser("u3", email: "REN\u{C9}@example.com")) }
            #expect(try await store.user(email: decomposed)?.localId == "u1")
            #expect(try await store.user(email: "RENE\u{301}@EXAMPLE.COM")?.localId == "u1")
            #expect(try await store.queryUsers(UserQuery(emails: [decomposed])).users.map(\.localId) == ["u1"])
        }
    }

    /// Item 8: with vault keys a provider's client secret is stored sealed and read back in plaintext; without the
    /// key it stays sealed; plaintext secrets stored before the keys are sealed by one pass.
    @Test(arguments: StoreKind.allCases)
    func clientSecretsAreSealedAtRest(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let keys = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "k1"))
            try await store.saveIdPConfig(IdPConfig(providerId: "yahoo.com", kind: .yahoo, clientId: "old", clientSecret: "plain-before-keys"))
            store.clientSecrets.use(keys)
            try await store.saveIdPConfig(IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: "c", clientSecret: "s3cret-value"))
            #expect(try await store.idpConfig(providerId: "microsoft.com")?.clientSecret == "s3cret-value")
            #expect(try await store.sealStoredClientSecrets() == 1)
            #expect(try await store.sealStoredClientSecrets() == 0)
            store.clientSecrets.use(nil)
            for providerId in ["microsoft.com", "yahoo.com"] {
                let stored = try #require(try await store.idpConfig(providerId: providerId))
                #expect(ProviderTokenKeys.sealingKeyId(stored.clientSecret) == "k1")
                #expect(!stored.clientSecret.contains("s3cret") && !stored.clientSecret.contains("plain"))
            }
            store.clientSecrets.use(keys)
            #expect(try await store.idpConfig(providerId: "yahoo.com")?.clientSecret == "plain-before-keys")
        }
    }

    /// Emails an older version stored in NFD are rewritten in canonical form at start; one whose canonical form
    /// another account holds is reported, not merged.
    @Test(arguments: StoreKind.allCases)
    func storedNFDEmailsAreCanonicalized(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1", email: "placeholder1@example.com"))
            try await store.createUser(makeUser("u2", email: "zo\u{E9}@example.com"))
            try await store.createUser(makeUser("u3", email: "placeholder3@example.com"))
            // As an older version stored them: the client's decomposed bytes.
            let legacy: [(String, String)] = [("u1", "rene\u{301}@example.com"), ("u3", "zoe\u{301}@example.com")]
            for (uid, email) in legacy {
                if let sqlite = store as? SQLiteStore {
                    try await sqlite.transaction { db in try db.execute("UPDATE users SET email = \(email) WHERE local_id = \(uid)") }
                } else if let postgres = store as? PostgresStore {
                    try await postgres.single { db in try await db.execute("UPDATE users SET email = \(email) WHERE local_id = \(uid)") }
                }
            }
            // Found before the rewrite too (lookups try the decomposed form).
            #expect(try await store.user(email: "ren\u{E9}@example.com")?.localId == "u1")
            let result = try await store.canonicalizeStoredEmails()
            #expect(result.rewritten == 1)
            #expect(result.conflicts == ["u3"])
            #expect(try await store.user(localId: "u1")?.email?.utf8.elementsEqual("ren\u{E9}@example.com".utf8) == true)
            await #expect(throws: StoreError.emailExists) { try await store.createUser(makeUser("u4", email: "rene\u{301}@example.com")) }
            #expect(try await store.canonicalizeStoredEmails().rewritten == 0)
        }
    }
}
