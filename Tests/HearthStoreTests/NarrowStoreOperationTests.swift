import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthWire
import Testing

/// The hot paths' single-transaction operations: refresh and sign-in, for every store.
@Suite struct NarrowStoreOperationTests {
    @Test(arguments: StoreKind.allCases)
    func refreshSessionRotatesAndTouchesLastRefreshInOneStep(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let user = makeUser("u1", email: "ada@example.com", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "G1")])
            try await store.createUser(user)
            let (_, record) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "password",
                                                       sessionClaims: ["tier": .string("gold")], now: t0)
            try await store.insertRefreshToken(record)
            let moment = t0.addingTimeInterval(10)
            let (_, next) = RefreshTokenRecord.issue(localId: "", authTime: moment, signInProvider: "", now: moment)
            let outcome = try await store.refreshSession(presentedHash: record.tokenHash, replacement: next, now: moment, graceWindow: 30)
            guard case .refreshed(let previous, let refreshed) = outcome else {
                Issue.record("expected a refresh, got \(outcome)")
                return
            }
            #expect(previous == record)
            #expect(refreshed.lastRefreshAt == moment)
            #expect(refreshed.identities == user.identities)
            #expect(refreshed.customClaims == user.customClaims)
            // What it returns is what is stored, and only lastRefreshAt (and the version) changed.
            let stored = try #require(try await store.user(localId: "u1"))
            #expect(stored == refreshed)
            var expected = user
            expected.lastRefreshAt = moment
            expected.version = stored.version
            #expect(stored == expected)
            #expect(stored.version == user.version + 1)
            let replacement = try #require(try await store.refreshToken(hash: next.tokenHash))
            #expect(replacement.familyId == record.familyId && replacement.localId == "u1" && replacement.authTime == t0)
            #expect(replacement.sessionClaims == ["tier": .string("gold")])
            #expect(try await store.refreshToken(hash: record.tokenHash)?.rotatedAt == moment)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusedRefreshesWriteNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var disabled = makeUser("off")
            disabled.disabled = true
            try await store.createUser(disabled)
            var revoked = makeUser("late")
            revoked.validSince = t0.addingTimeInterval(60)
            try await store.createUser(revoked)
            let (_, offToken) = RefreshTokenRecord.issue(localId: "off", authTime: t0, signInProvider: "password", now: t0)
            let (_, lateToken) = RefreshTokenRecord.issue(localId: "late", authTime: t0, signInProvider: "password", now: t0)
            let (_, ghostToken) = RefreshTokenRecord.issue(localId: "ghost", authTime: t0, signInProvider: "password", now: t0)
            for token in [offToken, lateToken, ghostToken] { try await store.insertRefreshToken(token) }
            let moment = t0.addingTimeInterval(120)
            func attempt(_ token: RefreshTokenRecord) async throws -> (RefreshSessionOutcome, RefreshTokenRecord) {
                let (_, next) = RefreshTokenRecord.issue(localId: "", authTime: moment, signInProvider: "", now: moment)
                let outcome = try await store.refreshSession(presentedHash: token.tokenHash, replacement: next, now: moment, graceWindow: 30)
                return (outcome, next)
            }
            for (token, expected, localId) in [(offToken, RefreshSessionOutcome.userDisabled, "off"), (lateToken, .sessionExpired, "late"),
                                               (ghostToken, .userNotFound, "ghost")] {
                let (outcome, next) = try await attempt(token)
                #expect(outcome == expected)
                // Not rotated, no replacement, the user untouched.
                #expect(try await store.refreshToken(hash: token.tokenHash)?.rotatedAt == nil)
                #expect(try await store.refreshToken(hash: next.tokenHash) == nil)
                #expect(try await store.user(localId: localId)?.lastRefreshAt == nil)
            }
            #expect(try await attempt(RefreshTokenRecord(tokenHash: "nope", familyId: "f", localId: "off", authTime: t0, signInProvider: "", createdAt: t0)).0 == .unknown)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refreshSessionReuseRevokesTheFamily(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("u1"))
            let (_, first) = RefreshTokenRecord.issue(localId: "u1", authTime: t0, signInProvider: "password", now: t0)
            try await store.insertRefreshToken(first)
            let (_, second) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0)
            if case .refreshed = try await store.refreshSession(presentedHash: first.tokenHash, replacement: second, now: t0.addingTimeInterval(1), graceWindow: 30) {} else {
                Issue.record("the first refresh must succeed")
            }
            // Inside the grace window a concurrent refresh with the old token still works.
            let (_, sibling) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0)
            if case .refreshed = try await store.refreshSession(presentedHash: first.tokenHash, replacement: sibling, now: t0.addingTimeInterval(5), graceWindow: 30) {} else {
                Issue.record("a refresh inside the grace window must succeed")
            }
            // After it: theft. The whole family, the newest token included, is revoked.
            let (_, stolen) = RefreshTokenRecord.issue(localId: "", authTime: t0, signInProvider: "", now: t0)
            #expect(try await store.refreshSession(presentedHash: first.tokenHash, replacement: stolen, now: t0.addingTimeInterval(100), graceWindow: 30) == .reuseDetected)
            #expect(try await store.refreshSession(presentedHash: second.tokenHash, replacement: stolen, now: t0.addingTimeInterval(101), graceWindow: 30) == .revoked)
            #expect(try await store.refreshToken(hash: stolen.tokenHash) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func recordSignInTouchesOnlyWhatChanges(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let identity = ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-1", email: "ada@contoso.com", displayName: "Ada")
            let other = ProviderIdentity(providerId: "yahoo.com", federatedId: "G1", email: "ada@yahoo.com", displayName: "Ada Y")
            let user = makeUser("u1", email: "ada@example.com", identities: [identity, other])
            try await store.createUser(user)
            let moment = t0.addingTimeInterval(30)
            let (_, token) = RefreshTokenRecord.issue(localId: "u1", authTime: moment, signInProvider: "microsoft.com", now: moment)
            var renamed = identity
            renamed.displayName = "Ada L."
            let signedIn = try #require(try await store.recordSignIn(localId: "u1", at: moment, identity: renamed, passwordRehash: nil, refreshToken: token))
            var expected = user
            expected.lastLoginAt = moment
            expected.identities = [renamed, other]
            expected.version = user.version + 1
            #expect(signedIn == expected)
            #expect(try await store.user(localId: "u1") == expected)
            #expect(try await store.refreshToken(hash: token.tokenHash) == token)

            // A rehash applies only over the hash it was computed from.
            let stale = try #require(try await store.recordSignIn(localId: "u1", at: moment, identity: nil,
                                                                    passwordRehash: PasswordRehash(old: "other", new: "scrypt$new"), refreshToken: nil))
            #expect(stale.passwordHash == user.passwordHash)
            let fresh = try #require(try await store.recordSignIn(localId: "u1", at: moment, identity: nil,
                                                                    passwordRehash: PasswordRehash(old: user.passwordHash!, new: "scrypt$new"), refreshToken: nil))
            #expect(fresh.passwordHash == "scrypt$new")
            #expect(try await store.user(localId: "u1")?.passwordHash == "scrypt$new")

            #expect(try await store.recordSignIn(localId: "ghost", at: moment, identity: nil, passwordRehash: nil, refreshToken: nil) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func recordSignInOfADisabledUserWritesNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var user = makeUser("off")
            user.disabled = true
            try await store.createUser(user)
            let (_, token) = RefreshTokenRecord.issue(localId: "off", authTime: t0, signInProvider: "password", now: t0)
            let answer = try await store.recordSignIn(localId: "off", at: t0.addingTimeInterval(5), identity: nil, passwordRehash: nil, refreshToken: token)
            #expect(answer?.disabled == true)
            #expect(try await store.user(localId: "off") == user)
            #expect(try await store.refreshToken(hash: token.tokenHash) == nil)
        }
    }

    @Test func bulkImportIsAllOrNothing() async throws {
        try await StoreKind.sqliteFile.with { store in
            guard let sqlite = store as? SQLiteStore else { return }
            try await sqlite.importUsers((0..<1_200).map { makeUser("bulk-\($0)", email: "bulk\($0)@example.com") })
            #expect(try await store.userCount() == 1_200)
            #expect(try await store.user(email: "bulk1199@example.com")?.localId == "bulk-1199")
            // One duplicate email in the batch: nothing of it is written.
            let batch = (0..<600).map { makeUser("again-\($0)", email: $0 == 599 ? "bulk3@example.com" : "again\($0)@example.com") }
            await #expect(throws: StoreError.self) { try await sqlite.importUsers(batch) }
            #expect(try await store.userCount() == 1_200)
        }
    }
}
