import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Synchronization
import Testing

/// TOTP second factors over HTTP against a real server: the project setting, enrollment, every first factor asking
/// for the second, recovery codes, the administrator's removal, and the attacks (replay, another user's pending
/// sign-in, expiry, brute force in a burst, stale sessions).
@Suite struct MultiFactorTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let enableBody = #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":1}}]}}"#

    static func configPath(_ h: HearthHarness) -> String { WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config" }

    static func enableTOTP(_ h: HearthHarness) async throws {
        let reply = try await h.send(.patch, configPath(h) + "?updateMask=mfa", body: enableBody, headers: owner)
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// A signed-up user with a verified email (what enrollment needs).
    static func verifiedUser(_ h: HearthHarness, _ email: String) async throws -> SignUpResponse {
        let created = try await h.signUp(email: email)
        var user = try #require(try await h.store.user(localId: created.localId))
        user.emailVerified = true
        try await h.store.updateUser(user)
        return created
    }

    struct Enrolled {
        var secret: Data
        var enrollmentId: String
        var tokens: FinalizeMFAEnrollmentResponse
        var generator: TOTP { TOTP(secret: secret)! }
    }

    /// Enrolls a TOTP factor for the holder of `idToken`, with the code of the current step.
    static func enroll(_ h: HearthHarness, idToken: String, name: String = "Phone", recoveryCodes: Bool = false) async throws -> Enrolled {
        let started = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: idToken))
        #expect(started.status == 200, "\(started.text)")
        let info = try #require(try started.decode(StartMFAEnrollmentResponse.self).totpSessionInfo)
        #expect(info.verificationCodeLength == 6 && info.periodSec == 30 && info.hashingAlgorithm == "SHA1")
        let secret = try #require(Base32.decode(info.sharedSecretKey))
        let totp = try #require(TOTP(secret: secret))
        let code = totp.code(at: h.clock.now)
        let finalized = try await h.post(WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
            idToken: idToken, displayName: name, totpVerificationInfo: .init(sessionInfo: info.sessionInfo, verificationCode: code),
            generateRecoveryCodes: recoveryCodes))
        #expect(finalized.status == 200, "\(finalized.text)")
        let tokens = try finalized.decode(FinalizeMFAEnrollmentResponse.self)
        let firebase = try #require(secondFactorClaims(tokens.idToken))
        return Enrolled(secret: secret, enrollmentId: try #require(firebase["second_factor_identifier"] as? String), tokens: tokens)
    }

    static func finalize(_ h: HearthHarness, _ pending: String, _ enrollmentId: String?, code: String) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
            mfaPendingCredential: pending, mfaEnrollmentId: enrollmentId, verificationCode: code))
    }

    static func finalize(_ h: HearthHarness, _ pending: String, recoveryCode: String) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
            mfaPendingCredential: pending, recoveryCode: recoveryCode))
    }

    /// A password sign-in that must stop at the second factor: its pending credential.
    static func pendingPasswordSignIn(_ h: HearthHarness, _ email: String, factor: String) async throws -> String {
        let reply = try await h.signIn(email: email)
        #expect(reply.status == 200, "\(reply.text)")
        let body = try reply.decode(SignInWithPasswordResponse.self)
        #expect(body.idToken == nil && body.refreshToken == nil && body.expiresIn == nil)
        #expect(body.mfaInfo?.map(\.mfaEnrollmentId).contains(factor) == true)
        return try #require(body.mfaPendingCredential)
    }

    static func secondFactorClaims(_ idToken: String?) -> [String: Any]? {
        idToken.flatMap(jwtPayload).flatMap { $0["firebase"] as? [String: Any] }
    }

    // MARK: The whole flow

    @Test(arguments: HearthHarness.StoreChoice.available)
    func enrollSignInAndRecoveryCodes(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            // Off until the project turns it on; GET shows it off.
            let initial = try await h.send(.get, Self.configPath(h), headers: Self.owner)
            #expect((initial.json?["mfa"] as? [String: Any])?["state"] as? String == "DISABLED")
            let ada = try await h.signUp(email: "ada@example.com")
            let off = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: ada.idToken))
            #expect(off.errorCode == "OPERATION_NOT_ALLOWED")
            try await Self.enableTOTP(h)
            let shown = try await h.send(.get, Self.configPath(h), headers: Self.owner)
            let mfa = try #require(shown.json?["mfa"] as? [String: Any])
            #expect(mfa["state"] as? String == "ENABLED")
            #expect((((mfa["providerConfigs"] as? [[String: Any]])?.first)?["totpProviderConfig"] as? [String: Any])?["adjacentIntervals"] as? Int == 1)
            // Firebase asks for a verified email first.
            let unverified = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: ada.idToken))
            #expect(unverified.errorCode == "UNVERIFIED_EMAIL")
            var record = try #require(try await h.store.user(localId: ada.localId))
            record.emailVerified = true
            try await h.store.updateUser(record)

            // A wrong first code keeps the enrollment open; the right one enrolls and answers codes once.
            let started = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: ada.idToken))
            let info = try #require(try started.decode(StartMFAEnrollmentResponse.self).totpSessionInfo)
            #expect(info.sharedSecretKey.count == 32)
            let secretBytes = try #require(Base32.decode(info.sharedSecretKey))
            let generator = try #require(TOTP(secret: secretBytes))
            let current = generator.code(at: h.clock.now)
            let wrong = current == "000000" ? "111111" : "000000"
            let refused = try await h.post(WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
                idToken: ada.idToken, displayName: "Phone", totpVerificationInfo: .init(sessionInfo: info.sessionInfo, verificationCode: wrong)))
            #expect(refused.errorCode == "INVALID_CODE")
            let finalized = try await h.post(WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
                idToken: ada.idToken, displayName: "Phone", totpVerificationInfo: .init(sessionInfo: info.sessionInfo, verificationCode: current),
                generateRecoveryCodes: true))
            #expect(finalized.status == 200, "\(finalized.text)")
            let enrolled = try finalized.decode(FinalizeMFAEnrollmentResponse.self)
            let codes = try #require(enrolled.recoveryCodes)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(finalized.json?["totpAuthInfo"] as? [String: Any] != nil)
            let claims = try #require(Self.secondFactorClaims(enrolled.idToken))
            #expect(claims["sign_in_second_factor"] as? String == "totp")
            // The user is told a factor was added (someone with the password alone could have done it).
            let added = try #require(h.server.emailActions.mailer.devMailbox?.messages.first?.mail)
            #expect(added.to == "ada@example.com" && added.subject.contains("Two-step verification was turned on"))
            #expect(added.text.contains("Phone") && !added.text.contains(info.sharedSecretKey))
            let factorId = try #require(claims["second_factor_identifier"] as? String)
            // The session is used once.
            let again = try await h.post(WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
                idToken: ada.idToken, displayName: "Twice", totpVerificationInfo: .init(sessionInfo: info.sessionInfo, verificationCode: current)))
            #expect(again.errorCode == "INVALID_SESSION_INFO")

            // Lookups show the factor in Firebase's shape, never the secret or the codes.
            let lookup = try await h.lookup(try #require(enrolled.idToken))
            let entry = try #require(((lookup.json?["users"] as? [[String: Any]])?.first?["mfaInfo"] as? [[String: Any]])?.first)
            #expect(entry["mfaEnrollmentId"] as? String == factorId)
            #expect(entry["displayName"] as? String == "Phone")
            #expect(entry["totpInfo"] as? [String: Any] != nil)
            let enrolledAt = try #require(entry["enrolledAt"] as? String)
            #expect(enrolledAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(enrolledAt)")
            #expect(!lookup.text.contains(info.sharedSecretKey))
            #expect(!codes.contains { lookup.text.contains($0) })
            let stored = try #require(try await h.store.user(localId: ada.localId))
            #expect(stored.mfa.recoveryCodeHashes.count == 10 && !codes.contains { stored.mfa.recoveryCodeHashes.contains($0) })

            // Password sign-in now stops at the second factor.
            let pending = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: factorId)
            // The enrollment's code was used: the same step is a replay.
            #expect(try await Self.finalize(h, pending, factorId, code: current).errorCode == "INVALID_CODE")
            h.clock.advance(by: 30)
            let next = generator.code(at: h.clock.now)
            let signedIn = try await Self.finalize(h, pending, factorId, code: next)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let session = try signedIn.decode(FinalizeMFASignInResponse.self)
            let second = try #require(Self.secondFactorClaims(session.idToken))
            #expect(second["sign_in_provider"] as? String == "password")
            #expect(second["sign_in_second_factor"] as? String == "totp")
            #expect(second["second_factor_identifier"] as? String == factorId)
            // Refreshed tokens keep the second factor.
            let refreshed = try await h.refresh(try #require(session.refreshToken))
            #expect(Self.secondFactorClaims(refreshed.json?["id_token"] as? String)?["second_factor_identifier"] as? String == factorId)
            // The pending sign-in is used up.
            h.clock.advance(by: 30)
            #expect(try await Self.finalize(h, pending, factorId, code: generator.code(at: h.clock.now)).errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

            // A recovery code stands in for the app once, and only once.
            let viaRecovery = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: factorId)
            let recovered = try await Self.finalize(h, viaRecovery, recoveryCode: codes[3].uppercased())
            #expect(recovered.status == 200, "\(recovered.text)")
            #expect(Self.secondFactorClaims(recovered.json?["idToken"] as? String)?["sign_in_second_factor"] as? String == "totp")
            let reuse = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: factorId)
            #expect(try await Self.finalize(h, reuse, recoveryCode: codes[3]).errorCode == "INVALID_CODE")
            #expect(try await h.store.user(localId: ada.localId)?.mfa.recoveryCodeHashes.count == 9)
            let audit = try await h.store.auditEntries(before: nil, limit: 20).map(\.action)
            #expect(audit.contains("mfa.enroll") && audit.contains("mfa.recovery_code_used"))
        }
    }

    @Test func emailLinkAndFederatedSignInsAskForTheSecondFactor() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            try await Self.enableTOTP(h)
            // Microsoft vouches for outlook.com addresses: the new account's email is verified.
            let first = try await h.federatedSignIn(providerId: "microsoft.com", email: "grace@outlook.com", name: "Grace")
            let created = try first.decode(SignInWithIdpResponse.self)
            let enrolled = try await Self.enroll(h, idToken: try #require(created.idToken))
            let again = try await h.federatedSignIn(providerId: "microsoft.com", email: "grace@outlook.com")
            #expect(again.status == 200, "\(again.text)")
            let answer = try again.decode(SignInWithIdpResponse.self)
            #expect(answer.idToken == nil && answer.refreshToken == nil)
            #expect(answer.providerId == "microsoft.com" && answer.localId == created.localId && answer.federatedId == created.federatedId)
            #expect(answer.mfaInfo?.first?.mfaEnrollmentId == enrolled.enrollmentId)
            let pending = try #require(answer.mfaPendingCredential)
            h.clock.advance(by: 30)
            let done = try await Self.finalize(h, pending, enrolled.enrollmentId, code: enrolled.generator.code(at: h.clock.now))
            #expect(done.status == 200, "\(done.text)")
            let claims = try #require(Self.secondFactorClaims(done.json?["idToken"] as? String))
            #expect(claims["sign_in_provider"] as? String == "microsoft.com")
            #expect(claims["sign_in_second_factor"] as? String == "totp")

            // Email-link sign-in of the same account stops at the second factor too.
            _ = try await h.post(WirePaths.accounts("sendOobCode"), SendOobCodeRequest(requestType: .emailSignIn, email: "grace@outlook.com"))
            let code = try #require((h.server.emailActions.mailer.devMailbox?.messages ?? []).compactMap(\.code).first { $0.requestType == "EMAIL_SIGNIN" })
            let link = try await h.post(WirePaths.accounts("signInWithEmailLink"), SignInWithEmailLinkRequest(email: "grace@outlook.com", oobCode: code.oobCode))
            #expect(link.status == 200, "\(link.text)")
            let linked = try link.decode(SignInWithEmailLinkResponse.self)
            #expect(linked.idToken == nil && linked.mfaPendingCredential != nil)
            #expect(linked.mfaInfo?.count == 1)
        }
    }

    // MARK: Attacks

    @Test func anotherUsersPendingSignInExpiryAndStaleSessionsAreRefused() async throws {
        try await HearthHarness.run { h in
            try await Self.enableTOTP(h)
            let ada = try await Self.verifiedUser(h, "ada@example.com")
            let bob = try await Self.verifiedUser(h, "bob@example.com")
            let adas = try await Self.enroll(h, idToken: try #require(ada.idToken))
            let bobs = try await Self.enroll(h, idToken: try #require(bob.idToken))
            h.clock.advance(by: 30)
            // Bob's pending sign-in with Ada's factor and Ada's code: not Bob's factor.
            let bobPending = try await Self.pendingPasswordSignIn(h, "bob@example.com", factor: bobs.enrollmentId)
            let crossed = try await Self.finalize(h, bobPending, adas.enrollmentId, code: adas.generator.code(at: h.clock.now))
            #expect(crossed.errorCode == "MFA_ENROLLMENT_NOT_FOUND")
            // Bob's factor id with Ada's code: wrong code.
            #expect(try await Self.finalize(h, bobPending, bobs.enrollmentId, code: adas.generator.code(at: h.clock.now)).status == 400)
            // Garbage, oversized and NUL credentials.
            for bad in ["nope", String(repeating: "a", count: 5000), "hmp1.é😀"] {
                let reply = try await Self.finalize(h, bad, bobs.enrollmentId, code: "123456")
                #expect(reply.errorCode == "INVALID_MFA_PENDING_CREDENTIAL", "\(reply.text)")
            }
            // A NUL is refused before any service sees it.
            #expect(try await Self.finalize(h, "hmp1.\u{0}", bobs.enrollmentId, code: "123456").errorCode == "INVALID_ARGUMENT")
            #expect(try await Self.finalize(h, "", bobs.enrollmentId, code: "123456").errorCode == "MISSING_MFA_PENDING_CREDENTIAL")
            #expect(try await Self.finalize(h, bobPending, nil, code: "123456").errorCode == "MISSING_MFA_ENROLLMENT_ID")
            #expect(try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(mfaPendingCredential: bobPending, mfaEnrollmentId: bobs.enrollmentId, verificationCode: nil)).errorCode == "MISSING_CODE")
            // Expired after five minutes.
            let adaPending = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: adas.enrollmentId)
            h.clock.advance(by: 301)
            #expect(try await Self.finalize(h, adaPending, adas.enrollmentId, code: adas.generator.code(at: h.clock.now)).errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            // A pending sign-in from before a password change is over.
            let stale = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: adas.enrollmentId)
            h.clock.advance(by: 2)
            let changed = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId) + ":update",
                                           body: #"{"localId":"\#(ada.localId)","password":"a brand new one"}"#, headers: Self.owner)
            #expect(changed.status == 200)
            #expect(try await Self.finalize(h, stale, adas.enrollmentId, code: adas.generator.code(at: h.clock.now)).errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            // SMS is not offered; mfaSignIn:start says what to do instead.
            let phone = try await h.post(WirePaths.mfaEnrollmentStart, raw: #"{"idToken":"\#(bob.idToken ?? "")","phoneEnrollmentInfo":{"phoneNumber":"+15555550100"}}"#)
            #expect(phone.errorCode == "OPERATION_NOT_ALLOWED")
            let start = try await h.post(WirePaths.mfaSignInStart, StartMFASignInRequest(mfaPendingCredential: bobPending, mfaEnrollmentId: bobs.enrollmentId))
            #expect(start.status == 400 && start.text.contains("mfaSignIn:finalize"))
        }
    }

    @Test(arguments: HearthHarness.StoreChoice.available)
    func aBurstOfGuessesIsHeldToTheLimitAndACodeCompletesOnce(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.enableTOTP(h)
            let ada = try await Self.verifiedUser(h, "ada@example.com")
            let enrolled = try await Self.enroll(h, idToken: try #require(ada.idToken))
            h.clock.advance(by: 30)
            // Two sign-ins racing with the same right code: exactly one session.
            let first = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: enrolled.enrollmentId)
            let second = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: enrolled.enrollmentId)
            let code = enrolled.generator.code(at: h.clock.now)
            let raced = try await withThrowingTaskGroup(of: Int.self) { group in
                for pending in [first, second, first, second] {
                    group.addTask { try await Self.finalize(h, pending, enrolled.enrollmentId, code: code).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(raced.filter { $0 == 200 }.count == 1, "\(raced)")

            // Twenty wrong guesses at once: at most five are checked, the rest (and then the right code) refused.
            h.clock.advance(by: 30)
            let pending = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: enrolled.enrollmentId)
            let right = enrolled.generator.code(at: h.clock.now)
            let guesses = (0..<20).map { String(format: "%06d", (Int(right)! + 1 + $0 * 7919) % 1_000_000) }.filter { $0 != right }
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for guess in guesses { group.addTask { try await Self.finalize(h, pending, enrolled.enrollmentId, code: guess).errorCode } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == "INVALID_CODE" }.count <= 5, "\(answers)")
            #expect(answers.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count >= guesses.count - 5)
            #expect(try await Self.finalize(h, pending, enrolled.enrollmentId, code: right).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Recovery codes share the limit.
            #expect(try await Self.finalize(h, pending, recoveryCode: "abcde-fghjk").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test func enrollAndWithdrawNeedARecentSignInAndWithdrawEndsOtherSessions() async throws {
        try await HearthHarness.run { h in
            try await Self.enableTOTP(h)
            let ada = try await Self.verifiedUser(h, "ada@example.com")
            h.clock.advance(by: 301)
            let old = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: ada.idToken))
            #expect(old.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let fresh = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            let enrolled = try await Self.enroll(h, idToken: try #require(fresh.idToken))
            // A sixth factor is refused.
            for index in 0..<4 { _ = try await Self.enroll(h, idToken: try #require(fresh.idToken), name: "Key \(index)") }
            let sixth = try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: fresh.idToken))
            #expect(sixth.errorCode == "SECOND_FACTOR_LIMIT_EXCEEDED")
            h.clock.advance(by: 301)
            let stale = try await h.post(WirePaths.mfaEnrollmentWithdraw, WithdrawMFARequest(idToken: enrolled.tokens.idToken, mfaEnrollmentId: enrolled.enrollmentId))
            #expect(stale.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let missing = try await h.post(WirePaths.mfaEnrollmentWithdraw, WithdrawMFARequest(idToken: enrolled.tokens.idToken, mfaEnrollmentId: "nope"))
            #expect(missing.errorCode == "MFA_ENROLLMENT_NOT_FOUND")
            // Signed in again (with the second factor), the user withdraws the factor: other sessions end.
            let pending = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: enrolled.enrollmentId)
            let session = try await Self.finalize(h, pending, enrolled.enrollmentId, code: enrolled.generator.code(at: h.clock.now)).decode(FinalizeMFASignInResponse.self)
            h.clock.advance(by: 2)
            let withdrawn = try await h.post(WirePaths.mfaEnrollmentWithdraw, WithdrawMFARequest(idToken: session.idToken, mfaEnrollmentId: enrolled.enrollmentId))
            #expect(withdrawn.status == 200, "\(withdrawn.text)")
            let newTokens = try withdrawn.decode(WithdrawMFAResponse.self)
            #expect(try await h.refresh(try #require(newTokens.refreshToken)).status == 200)
            #expect(try await h.refresh(try #require(enrolled.tokens.refreshToken)).errorCode == "TOKEN_EXPIRED")
            // The withdrawn factor is gone from the new token's claims.
            #expect(Self.secondFactorClaims(newTokens.idToken)?["second_factor_identifier"] == nil)
            #expect(try await h.store.user(localId: ada.localId)?.mfa.factors.count == 4)
            #expect(try await h.store.auditEntries(before: nil, limit: 5).map(\.action).contains("mfa.withdraw"))
        }
    }

    // MARK: Administrators and settings

    @Test func administratorsRemoveFactorsEndingSessionsAndTellingTheUser() async throws {
        try await HearthHarness.run { h in
            try await Self.enableTOTP(h)
            let ada = try await Self.verifiedUser(h, "ada@example.com")
            let one = try await Self.enroll(h, idToken: try #require(ada.idToken), name: "Phone")
            let two = try await Self.enroll(h, idToken: try #require(ada.idToken), name: "Tablet")
            let update = WirePaths.adminAccounts(projectId: h.projectId) + ":update"
            h.clock.advance(by: 2)
            // Keep one (renamed), the Node Admin SDK's shape.
            let kept = try await h.send(.post, update, body: #"{"localId":"\#(ada.localId)","mfa":{"enrollments":[{"mfaEnrollmentId":"\#(two.enrollmentId)","displayName":"iPad"}]}}"#, headers: Self.owner)
            #expect(kept.status == 200, "\(kept.text)")
            let afterKeep = try #require(try await h.store.user(localId: ada.localId))
            #expect(afterKeep.mfa.factors.map(\.enrollmentId) == [two.enrollmentId])
            #expect(afterKeep.mfa.factors.first?.displayName == "iPad")
            #expect(try await h.refresh(try #require(one.tokens.refreshToken)).errorCode == "TOKEN_EXPIRED")
            let unknown = try await h.send(.post, update, body: #"{"localId":"\#(ada.localId)","mfa":{"enrollments":[{"mfaEnrollmentId":"forged"}]}}"#, headers: Self.owner)
            #expect(unknown.errorCode == "MFA_ENROLLMENT_NOT_FOUND")
            // The admin lookup carries mfaInfo.
            let looked = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId) + ":lookup", body: #"{"localId":["\#(ada.localId)"]}"#, headers: Self.owner)
            #expect(((looked.json?["users"] as? [[String: Any]])?.first?["mfaInfo"] as? [[String: Any]])?.first?["displayName"] as? String == "iPad")
            // `mfa: {}` removes them all; the user is told.
            h.clock.advance(by: 2)
            let cleared = try await h.send(.post, update, body: #"{"localId":"\#(ada.localId)","mfa":{}}"#, headers: Self.owner)
            #expect(cleared.status == 200)
            #expect(try await h.store.user(localId: ada.localId)?.mfa == UserMultiFactor())
            let notice = try #require(h.server.emailActions.mailer.devMailbox?.messages.first?.mail)
            #expect(notice.to == "ada@example.com" && notice.subject.contains("Two-step verification was removed"))
            #expect(try await h.store.auditEntries(before: nil, limit: 5).map(\.action).contains("mfa.remove"))
            let signedIn = try await h.signIn(email: "ada@example.com")
            #expect(signedIn.json?["idToken"] != nil)
            // Imports cannot carry factors.
            let imported = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId) + ":batchCreate",
                                            body: #"{"users":[{"localId":"imp","email":"imp@example.com","mfaInfo":[{"mfaEnrollmentId":"x","totpInfo":{}}]}]}"#,
                                            headers: Self.owner)
            #expect((imported.json?["error"] as? [[String: Any]])?.first?["message"] as? String == "INVALID_ARGUMENT : second factors (mfaInfo) cannot be imported: their secrets are never exported; import the user without mfaInfo and have them enroll again")
        }
    }

    @Test func theProjectSettingIsChecked() async throws {
        try await HearthHarness.run { h in
            let path = Self.configPath(h) + "?updateMask=mfa"
            for body in [#"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":11}}]}}"#,
                         #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":-1}}]}}"#,
                         #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":"x"}}]}}"#,
                         #"{"mfa":{"state":"MANDATORY"}}"#, #"{"mfa":{"state":"ENABLED","enabledProviders":["EMAIL_OTP"]}}"#,
                         #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED"}]}}"#, #"{"mfa":{"state":7}}"#] {
                let reply = try await h.send(.patch, path, body: body, headers: Self.owner)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_CONFIG", "\(body): \(reply.text)")
            }
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.totpEnabled == false)
            // The leaf form of the mask works as well; DISABLED turns enrollment off again.
            let leaf = try await h.send(.patch, Self.configPath(h) + "?updateMask=mfa.state,mfa.providerConfigs", body: Self.enableBody, headers: Self.owner)
            #expect(leaf.status == 200)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.totpAdjacentIntervals == 1)
            _ = try await h.send(.patch, Self.configPath(h) + "?updateMask=mfa.state", body: #"{"mfa":{"state":"DISABLED"}}"#, headers: Self.owner)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.totpEnabled == false)
        }
    }

    @Test func secretsAreSealedWithTheVaultKeys() async throws {
        let keys = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "k1"))
        try await HearthHarness.run(configure: { $0.providerTokenKeys = keys }) { h in
            try await Self.enableTOTP(h)
            let ada = try await Self.verifiedUser(h, "ada@example.com")
            let enrolled = try await Self.enroll(h, idToken: try #require(ada.idToken))
            let factor = try #require(try await h.store.user(localId: ada.localId)?.mfa.factors.first)
            #expect(ProviderTokenKeys.isSealedSecret(factor.secret))
            #expect(factor.secret != Base32.encode(enrolled.secret))
            h.clock.advance(by: 30)
            let pending = try await Self.pendingPasswordSignIn(h, "ada@example.com", factor: enrolled.enrollmentId)
            #expect(try await Self.finalize(h, pending, enrolled.enrollmentId, code: enrolled.generator.code(at: h.clock.now)).status == 200)
        }
    }
}
