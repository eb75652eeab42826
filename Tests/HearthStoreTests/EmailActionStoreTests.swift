import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// Email action codes and the mail outbox (``EmailActionStore``) on every store.
@Suite struct EmailActionStoreTests {
    static func mail(_ n: Int, at: Date) -> OutboxMail {
        OutboxMail(id: "m\(n)", recipient: "r\(n)@example.com",
                   message: OutgoingMail(from: "a@example.com", to: "r\(n)@example.com", subject: "s", text: "t", html: "h"),
                   createdAt: at, expiresAt: at.addingTimeInterval(3600))
    }

    @Test(arguments: StoreKind.allCases)
    func codesAreUsedOnceAndExpire(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (code, record) = OobCodeRecord.issue(.passwordReset, localId: "u1", email: "a@example.com", now: t0, lifetime: 60)
            try await store.insertOobCode(record)
            #expect(try await store.oobCode(hash: OobCodeRecord.hash(code)) == record)
            #expect(try await store.oobCode(hash: code) == nil)
            // A burst of consumers: exactly one wins.
            let outcomes = try await withThrowingTaskGroup(of: OobCodeConsumeOutcome.self) { group in
                for _ in 0..<20 { group.addTask { try await store.consumeOobCode(hash: record.codeHash, now: t0.addingTimeInterval(1)) } }
                return try await group.reduce(into: [OobCodeConsumeOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .consumed = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .used }.count == 19)
            // Taken back, it works once more; expired it does not.
            try await store.releaseOobCode(hash: record.codeHash)
            #expect(try await store.consumeOobCode(hash: record.codeHash, now: t0.addingTimeInterval(61)) == .expired)
            #expect(try await store.consumeOobCode(hash: "oob:unknown", now: t0) == .unknown)
            // Revoking the user's reset codes marks the unused ones used.
            let (_, other) = OobCodeRecord.issue(.passwordReset, localId: "u1", email: "a@example.com", now: t0, lifetime: 60)
            let (_, verify) = OobCodeRecord.issue(.verifyEmail, localId: "u1", email: "a@example.com", now: t0, lifetime: 60)
            try await store.insertOobCode(other)
            try await store.insertOobCode(verify)
            try await store.revokeOobCodes(localId: "u1", types: [.passwordReset], now: t0)
            #expect(try await store.consumeOobCode(hash: other.codeHash, now: t0) == .used)
            #expect(try await store.consumeOobCode(hash: verify.codeHash, now: t0) == .consumed(verify))
            #expect(try await store.pruneOobCodes(before: t0.addingTimeInterval(120)) == 3)
            #expect(try await store.oobCode(hash: record.codeHash) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func outboxLeasesEachMessageToOneWorker(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for n in 0..<30 { try await store.enqueueMail(Self.mail(n, at: t0.addingTimeInterval(Double(n)))) }
            #expect(try await store.outboxCount() == 30)
            // Two replicas claim at once: every message goes to exactly one of them.
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await store.claimDueMail(now: t0.addingTimeInterval(60), leaseUntil: t0.addingTimeInterval(180), limit: 10).map(\.id) }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == 30)
            #expect(Set(all).count == 30)
            // Leased messages are not handed out again until the lease ends; a rescheduled one comes back when due.
            #expect(try await store.claimDueMail(now: t0.addingTimeInterval(61), leaseUntil: t0.addingTimeInterval(200), limit: 50).isEmpty)
            try await store.rescheduleMail(id: "m0", attempts: 1, nextAttemptAt: t0.addingTimeInterval(100), lastError: "451 later")
            #expect(try await store.claimDueMail(now: t0.addingTimeInterval(99), leaseUntil: t0.addingTimeInterval(200), limit: 50).isEmpty)
            let again = try await store.claimDueMail(now: t0.addingTimeInterval(101), leaseUntil: t0.addingTimeInterval(200), limit: 50)
            #expect(again.map(\.id) == ["m0"])
            #expect(again.first?.attempts == 1)
            #expect(again.first?.lastError == "451 later")
            #expect(again.first?.message == Self.mail(0, at: t0).message)
            try await store.deleteMail(id: "m0")
            #expect(try await store.outboxCount() == 29)
            // After the lease, the others are due again (a replica that died does not strand its messages).
            #expect(try await store.claimDueMail(now: t0.addingTimeInterval(181), leaseUntil: t0.addingTimeInterval(400), limit: 50).count == 29)
        }
    }
}
