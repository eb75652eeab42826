import Foundation
import HearthCore
import HearthStore
import HearthTesting
import Testing

/// Phone verifications and the SMS outbox (``PhoneVerificationStore``) on every store.
@Suite struct PhoneVerificationStoreTests {
    static func code(_ sessionInfo: String = PhoneVerificationRecord.newSessionInfo(), purpose: PhoneCodePurpose = .signIn,
                     number: String = "+15555550100", at: Date = t0, localId: String? = nil, binding: String? = nil) -> (String, PhoneVerificationRecord) {
        let code = "123456"
        return (sessionInfo, PhoneVerificationRecord(idHash: RefreshTokenRecord.hash(sessionInfo), kind: .code, purpose: purpose, phoneNumber: number,
                                                     codeHash: PhoneVerificationRecord.codeHash(code: code, sessionInfo: sessionInfo),
                                                     localId: localId, binding: binding, createdAt: at,
                                                     expiresAt: at.addingTimeInterval(PhoneVerificationRecord.codeLifetime)))
    }

    /// Issue 40, item 4: a code's checks are counted before the comparison, atomically — a burst of 50 parallel
    /// checks gets exactly 5 counted (attempts 1…5), then every check is refused; the record keeps every field.
    @Test(arguments: StoreKind.allCases)
    func attemptsAreCountedAtomicallyUnderABurst(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (sessionInfo, record) = Self.code(purpose: .mfaSignIn, localId: "u1", binding: "pending-hash")
            try await store.insertPhoneVerification(record)
            #expect(try await store.phoneVerification(idHash: record.idHash) == record)
            #expect(try await store.phoneVerification(idHash: sessionInfo) == nil)
            let counted = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await store.countPhoneCodeAttempt(idHash: record.idHash, maxAttempts: PhoneVerificationRecord.maximumAttempts,
                                                              now: t0.addingTimeInterval(1))?.attempts
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(counted.compactMap { $0 }.sorted() == [1, 2, 3, 4, 5])
            #expect(counted.filter { $0 == nil }.count == 45)
            let after = try #require(try await store.phoneVerification(idHash: record.idHash))
            #expect(after.attempts == 5)
            #expect(after.purpose == .mfaSignIn && after.localId == "u1" && after.binding == "pending-hash" && after.kind == .code)
            #expect(after.matches(code: "123456", sessionInfo: sessionInfo))
            #expect(!after.matches(code: "123457", sessionInfo: sessionInfo))
            #expect(try await store.countPhoneCodeAttempt(idHash: record.idHash, maxAttempts: 5, now: t0.addingTimeInterval(2)) == nil)
            // Another record's count is its own; an unknown one counts nothing.
            let (_, other) = Self.code()
            try await store.insertPhoneVerification(other)
            #expect(try await store.countPhoneCodeAttempt(idHash: other.idHash, maxAttempts: 5, now: t0)?.attempts == 1)
            #expect(try await store.countPhoneCodeAttempt(idHash: "unknown", maxAttempts: 5, now: t0) == nil)
        }
    }

    /// Issue 40, item 1: a code completes once — of 20 parallel deletes exactly one wins, and the record is gone.
    @Test(arguments: StoreKind.allCases)
    func aCodeIsUsedOnce(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (_, record) = Self.code()
            try await store.insertPhoneVerification(record)
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await store.deletePhoneVerification(idHash: record.idHash) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(wins == 1)
            #expect(try await store.phoneVerification(idHash: record.idHash) == nil)
            #expect(try await store.countPhoneCodeAttempt(idHash: record.idHash, maxAttempts: 5, now: t0) == nil)
            // A temporary proof has no code hash and never matches a code.
            let proof = PhoneVerificationRecord.newTemporaryProof()
            let proofRecord = PhoneVerificationRecord(idHash: RefreshTokenRecord.hash(proof), kind: .temporaryProof, purpose: .signIn,
                                                      phoneNumber: "+447700900123", codeHash: nil, createdAt: t0, expiresAt: t0.addingTimeInterval(300))
            try await store.insertPhoneVerification(proofRecord)
            let read = try #require(try await store.phoneVerification(idHash: proofRecord.idHash))
            #expect(read == proofRecord && read.codeHash == nil && !read.matches(code: "", sessionInfo: proof))
        }
    }

    /// Issue 40, item 1: an expired code is not counted (so never checked), is still readable (to answer
    /// SESSION_EXPIRED) until the flows are pruned, and pruning keeps live codes.
    @Test(arguments: StoreKind.allCases)
    func expiredCodesAreRefusedAndPruned(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let (_, old) = Self.code(at: t0)
            let (_, live) = Self.code(at: t0.addingTimeInterval(290))
            try await store.insertPhoneVerification(old)
            try await store.insertPhoneVerification(live)
            let expiry = t0.addingTimeInterval(PhoneVerificationRecord.codeLifetime)
            #expect(try await store.countPhoneCodeAttempt(idHash: old.idHash, maxAttempts: 5, now: expiry) == nil)
            #expect(try await store.countPhoneCodeAttempt(idHash: old.idHash, maxAttempts: 5, now: expiry.addingTimeInterval(-1))?.attempts == 1)
            #expect(try await store.phoneVerification(idHash: old.idHash)?.isExpired(at: expiry) == true)
            try await store.pruneExpiredFlows(now: expiry.addingTimeInterval(1))
            #expect(try await store.phoneVerification(idHash: old.idHash) == nil)
            #expect(try await store.phoneVerification(idHash: live.idHash) == live)
        }
    }

    /// Issue 40, item 1: a verification belongs to the tenant whose store wrote it (whatever the record claims):
    /// another tenant's store and the project's cannot read, count or delete it.
    @Test(arguments: StoreKind.allCases)
    func verificationsAreBoundToTheirTenant(_ kind: StoreKind) async throws {
        try await kind.with { root in
            let acme = root.bound(toTenant: "acme-aaaaa")
            let beta = root.bound(toTenant: "beta-bbbbb")
            var (_, record) = Self.code()
            record.tenantId = "beta-bbbbb"
            try await acme.insertPhoneVerification(record)
            #expect(try await acme.phoneVerification(idHash: record.idHash)?.tenantId == "acme-aaaaa")
            for other in [beta, root] {
                #expect(try await other.phoneVerification(idHash: record.idHash) == nil)
                #expect(try await other.countPhoneCodeAttempt(idHash: record.idHash, maxAttempts: 5, now: t0) == nil)
                #expect(try await other.deletePhoneVerification(idHash: record.idHash) == false)
            }
            #expect(try await acme.phoneVerification(idHash: record.idHash)?.attempts == 0)
            let (_, projects) = Self.code()
            try await root.insertPhoneVerification(projects)
            #expect(try await root.phoneVerification(idHash: projects.idHash)?.tenantId == nil)
            #expect(try await acme.phoneVerification(idHash: projects.idHash) == nil)
            // Deleting the tenant takes its verifications, not the project's.
            try await root.insertTenant(TenantRecord(id: "acme-aaaaa", displayName: "Acme", createdAt: t0))
            #expect(try await root.deleteTenant(id: "acme-aaaaa"))
            #expect(try await acme.phoneVerification(idHash: record.idHash) == nil)
            #expect(try await root.phoneVerification(idHash: projects.idHash) != nil)
        }
    }

    /// Issue 40, item 3: text messages share the mail outbox's table and leasing, on their own channel — parallel
    /// claims hand each message to one worker, mail and SMS never mix, a rescheduled message comes back when due,
    /// expired ones are pruned.
    @Test(arguments: StoreKind.allCases)
    func smsOutboxLeasesEachMessageToOneWorker(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for n in 0..<20 {
                let at = t0.addingTimeInterval(Double(n))
                try await store.enqueueSms(OutboxSms(id: "s\(n)", body: "sealed-\(n)", createdAt: at, expiresAt: at.addingTimeInterval(300)))
            }
            try await store.enqueueMail(EmailActionStoreTests.mail(1, at: t0))
            #expect(try await store.smsOutboxCount() == 20)
            #expect(try await store.outboxCount() == 1)
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await store.claimDueSms(now: t0.addingTimeInterval(60), leaseUntil: t0.addingTimeInterval(120), limit: 10).map(\.id) }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == 20 && Set(all).count == 20)
            // The mail is the mail outbox's alone.
            #expect(try await store.claimDueMail(now: t0.addingTimeInterval(60), leaseUntil: t0.addingTimeInterval(120), limit: 50).map(\.id) == ["m1"])
            #expect(try await store.claimDueSms(now: t0.addingTimeInterval(61), leaseUntil: t0.addingTimeInterval(200), limit: 50).isEmpty)
            try await store.rescheduleSms(id: "s0", attempts: 1, nextAttemptAt: t0.addingTimeInterval(90), lastError: "Twilio 503")
            #expect(try await store.claimDueSms(now: t0.addingTimeInterval(89), leaseUntil: t0.addingTimeInterval(200), limit: 50).isEmpty)
            let again = try await store.claimDueSms(now: t0.addingTimeInterval(91), leaseUntil: t0.addingTimeInterval(200), limit: 50)
            #expect(again.map(\.id) == ["s0"])
            #expect(again.first?.body == "sealed-0" && again.first?.attempts == 1 && again.first?.lastError == "Twilio 503")
            #expect(again.first?.expiresAt == t0.addingTimeInterval(300))
            // Deleting an SMS id from the mail side does nothing; from the SMS side it goes.
            try await store.deleteMail(id: "s0")
            #expect(try await store.smsOutboxCount() == 20)
            try await store.deleteSms(id: "s0")
            #expect(try await store.smsOutboxCount() == 19)
            // Expired text messages are pruned with the flows (s1…s19 expire at 301…319 s); the mail stays.
            try await store.pruneExpiredFlows(now: t0.addingTimeInterval(310))
            #expect(try await store.smsOutboxCount() == 10)
            #expect(try await store.outboxCount() == 1)
        }
    }

    /// Issue 40, item 4: a counter can be read without counting (the console's "sent today").
    @Test(arguments: StoreKind.allCases)
    func rateLimitCountsAreReadWithoutCounting(_ kind: StoreKind) async throws {
        try await kind.with { store in
            #expect(try await store.rateLimitCount(key: "sms|budget", window: 7) == RateLimitWindowCounts(current: 0, previous: 0))
            for _ in 0..<3 { _ = try await store.countRateLimitedRequest(key: "sms|budget", window: 6, expiresAt: t0.addingTimeInterval(86_400)) }
            for _ in 0..<2 { _ = try await store.countRateLimitedRequest(key: "sms|budget", window: 7, expiresAt: t0.addingTimeInterval(86_400)) }
            #expect(try await store.rateLimitCount(key: "sms|budget", window: 7) == RateLimitWindowCounts(current: 2, previous: 3))
            #expect(try await store.rateLimitCount(key: "sms|budget", window: 7) == RateLimitWindowCounts(current: 2, previous: 3))
            #expect(try await store.countRateLimitedRequest(key: "sms|budget", window: 7, expiresAt: t0.addingTimeInterval(86_400)).current == 3)
        }
    }
}
