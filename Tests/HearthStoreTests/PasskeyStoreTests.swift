import Foundation
import HearthCore
import HearthStore
import HearthTesting
import Testing

/// Passkeys and their challenges (``PasskeyStore``) on every store.
@Suite struct PasskeyStoreTests {
    static func passkey(_ id: String, user: String, at: Date) -> PasskeyCredential {
        PasskeyCredential(credentialId: id, localId: user, userHandle: "handle-\(user)", publicKey: "pQECAyYgASFYIA", algorithm: -7,
                          signCount: 5, name: "Laptop", transports: ["internal", "hybrid"], backupEligible: true, createdAt: at)
    }

    @Test(arguments: StoreKind.allCases)
    func passkeysAreUniqueCountedAndDeletedWithTheirUser(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(UserRecord(localId: "u1", createdAt: t0, validSince: t0))
            try await store.createUser(UserRecord(localId: "u2", createdAt: t0, validSince: t0))
            let first = Self.passkey("cred-1", user: "u1", at: t0)
            #expect(try await store.insertPasskey(first))
            // The same credential id, even for another user, is refused (a burst inserts one row).
            let raced = try await withThrowingTaskGroup(of: Bool.self) { group in
                for user in ["u1", "u2", "u2"] { group.addTask { try await store.insertPasskey(Self.passkey("cred-2", user: user, at: t0)) } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(raced.filter { $0 }.count == 1)
            #expect(try await !store.insertPasskey(Self.passkey("cred-1", user: "u2", at: t0)))
            #expect(try await store.passkey(credentialId: "cred-1") == first)
            #expect(try await store.passkeys(localId: "u1").first == first)
            // The counter moves once from the value verified against; a second use from the same value loses.
            let uses = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await store.recordPasskeyUse(credentialId: "cred-1", expected: 5, signCount: 6, backedUp: true, at: t0.addingTimeInterval(9)) }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(uses.filter { $0 }.count == 1)
            let used = try #require(try await store.passkey(credentialId: "cred-1"))
            #expect(used.signCount == 6 && used.backedUp && used.lastUsedAt == t0.addingTimeInterval(9))
            // Only its owner removes it.
            #expect(try await !store.deletePasskey(credentialId: "cred-1", localId: "u2"))
            #expect(try await store.deletePasskey(credentialId: "cred-1", localId: "u1"))
            #expect(try await store.passkey(credentialId: "cred-1") == nil)
            // Deleting a user deletes its passkeys.
            let holder = try #require(try await store.passkey(credentialId: "cred-2")).localId
            #expect(try await store.deleteUser(localId: holder))
            #expect(try await store.passkey(credentialId: "cred-2") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func challengesAreTakenOnceAndPruned(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let challenge = PasskeyChallenge(challengeHash: "h1", kind: .enrollment, localId: "u1", userHandle: "handle",
                                             createdAt: t0, expiresAt: t0.addingTimeInterval(300))
            try await store.insertPasskeyChallenge(challenge)
            let takes = try await withThrowingTaskGroup(of: PasskeyChallenge?.self) { group in
                for _ in 0..<10 { group.addTask { try await store.takePasskeyChallenge(hash: "h1") } }
                return try await group.reduce(into: [PasskeyChallenge?]()) { $0.append($1) }
            }
            #expect(takes.compactMap { $0 } == [challenge])
            #expect(try await store.takePasskeyChallenge(hash: "unknown") == nil)
            try await store.insertPasskeyChallenge(PasskeyChallenge(challengeHash: "h2", kind: .signIn, localId: nil, createdAt: t0,
                                                                    expiresAt: t0.addingTimeInterval(300)))
            try await store.pruneExpiredFlows(now: t0.addingTimeInterval(301))
            #expect(try await store.takePasskeyChallenge(hash: "h2") == nil)
        }
    }

    static func challenge(_ hash: String, _ kind: PasskeyChallenge.Kind, user: String?, at offset: TimeInterval) -> PasskeyChallenge {
        PasskeyChallenge(challengeHash: hash, kind: kind, localId: user, createdAt: t0.addingTimeInterval(offset),
                         expiresAt: t0.addingTimeInterval(300 + offset))
    }

    /// The hashes among `hashes` still stored (each is taken: counting consumes them).
    static func taken(_ hashes: [String], from store: any HearthStore) async throws -> [String] {
        var left: [String] = []
        for hash in hashes {
            if try await store.takePasskeyChallenge(hash: hash) != nil { left.append(hash) }
        }
        return left
    }

    /// Issue 35, item 8: an insert with `keepingNewest` deletes the user's older challenges of the same kind beyond
    /// the limit in the same transaction. 300 starts one after another leave the newest 5; 300 at once (the same
    /// moment, concurrent transactions) leave 5 too; other users, other kinds and sign-in challenges are untouched.
    @Test(arguments: StoreKind.allCases)
    func aUsersOpenChallengesOfAKindAreBounded(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for user in ["u1", "u2"] { try await store.createUser(UserRecord(localId: user, createdAt: t0, validSince: t0)) }
            try await store.insertPasskeyChallenge(Self.challenge("other-user", .enrollment, user: "u2", at: 0), keepingNewest: 5)
            try await store.insertPasskeyChallenge(Self.challenge("other-kind", .secondFactor, user: "u1", at: 0), keepingNewest: 5)
            try await store.insertPasskeyChallenge(Self.challenge("sign-in", .signIn, user: nil, at: 0), keepingNewest: 5)

            let sequential = (0..<300).map { "seq-\($0)" }
            for (index, hash) in sequential.enumerated() {
                try await store.insertPasskeyChallenge(Self.challenge(hash, .enrollment, user: "u1", at: Double(index) / 1000), keepingNewest: 5)
            }
            #expect(try await Self.taken(sequential, from: store) == Array(sequential.suffix(5)))

            let burst = (0..<300).map { "burst-\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for hash in burst {
                    group.addTask { try await store.insertPasskeyChallenge(Self.challenge(hash, .enrollment, user: "u1", at: 1), keepingNewest: 5) }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.taken(burst, from: store).count == 5)
            #expect(try await Self.taken(["other-user", "other-kind", "sign-in"], from: store) == ["other-user", "other-kind", "sign-in"])

            // The newest stays even when older rows carry a later time (a replica whose clock runs ahead).
            try await store.insertPasskeyChallenge(Self.challenge("ahead", .enrollment, user: "u1", at: 60), keepingNewest: 1)
            try await store.insertPasskeyChallenge(Self.challenge("behind", .enrollment, user: "u1", at: 2), keepingNewest: 1)
            #expect(try await Self.taken(["ahead", "behind"], from: store) == ["behind"])
            // Without a limit nothing is deleted.
            let unbounded = (0..<8).map { "free-\($0)" }
            for hash in unbounded { try await store.insertPasskeyChallenge(Self.challenge(hash, .enrollment, user: "u1", at: 3)) }
            #expect(try await Self.taken(unbounded, from: store) == unbounded)
        }
    }
}
