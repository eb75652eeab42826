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
}
