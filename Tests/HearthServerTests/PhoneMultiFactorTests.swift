import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Synchronization
import Testing

/// SMS second factors over HTTP against a real server, the codes read from the dev SMS sink: the project setting,
/// enrollment (`phoneEnrollmentInfo` → `phoneVerificationInfo`), a sign-in stopped at the factor (its number
/// masked) and completed through `mfaSignIn:start|finalize`, and the attacks — another user's or another pending
/// sign-in's code, a number enrolled twice, a burst of guesses, a phone first factor enrolling.
@Suite struct PhoneMultiFactorTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let factorNumber = "+15555550142"

    static func setMFA(_ h: HearthHarness, phone: Bool) async throws {
        let providers = phone ? #","enabledProviders":["PHONE_SMS"]"# : #","enabledProviders":[]"#
        let body = #"{"mfa":{"state":"ENABLED"\#(providers),"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":1}}]}}"#
        let reply = try await h.send(.patch, MultiFactorTests.configPath(h) + "?updateMask=mfa", body: body, headers: owner)
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// The code of the newest SMS to `number`.
    static func code(_ h: HearthHarness, _ number: String = factorNumber) throws -> String {
        try #require(h.server.accounts.sms.devSink?.latest(to: number)?.code, "no SMS to \(number)")
    }

    static func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

    static func startEnrollment(_ h: HearthHarness, _ idToken: String?, _ number: String = factorNumber) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: idToken, phoneEnrollmentInfo: PhoneEnrollmentInfo(phoneNumber: number)))
    }

    static func finalizeEnrollment(_ h: HearthHarness, _ idToken: String?, _ sessionInfo: String?, _ code: String, name: String? = "Work phone") async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
            idToken: idToken, displayName: name, phoneVerificationInfo: PhoneVerificationInfo(sessionInfo: sessionInfo, code: code)))
    }

    static func startSignIn(_ h: HearthHarness, _ pending: String, _ enrollmentId: String) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaSignInStart, StartMFASignInRequest(
            mfaPendingCredential: pending, mfaEnrollmentId: enrollmentId, phoneSignInInfo: PhoneSignInInfo(phoneNumber: "+*******0142")))
    }

    static func finalizeSignIn(_ h: HearthHarness, _ pending: String, _ sessionInfo: String?, _ code: String) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
            mfaPendingCredential: pending, phoneVerificationInfo: PhoneVerificationInfo(sessionInfo: sessionInfo, code: code)))
    }

    /// Enrolls `factorNumber` for the holder of `idToken`: the factor's id and the answer's tokens.
    static func enroll(_ h: HearthHarness, _ idToken: String?) async throws -> (enrollmentId: String, tokens: FinalizeMFAEnrollmentResponse) {
        let started = try await startEnrollment(h, idToken)
        #expect(started.status == 200, "\(started.text)")
        let sessionInfo = try started.decode(StartMFAEnrollmentResponse.self).phoneSessionInfo?.sessionInfo
        let finalized = try await finalizeEnrollment(h, idToken, sessionInfo, try code(h))
        #expect(finalized.status == 200, "\(finalized.text)")
        let tokens = try finalized.decode(FinalizeMFAEnrollmentResponse.self)
        let claims = try #require(MultiFactorTests.secondFactorClaims(tokens.idToken))
        return (try #require(claims["second_factor_identifier"] as? String), tokens)
    }

    /// Issue 40, item 2: the whole flow on both stores — off until `PHONE_SMS` is enabled; an invalid number; another
    /// user's code refused (and not spent); a wrong code; the enrollment (`phoneAuthInfo`, `sign_in_second_factor:
    /// phone`, the notice mail, the audit); the number twice (`SECOND_FACTOR_EXISTS`); the full number in lookups and
    /// masked in the first factor's answer; `mfaSignIn:start|finalize` with another pending sign-in's code refused;
    /// completion once; a TOTP code named for the SMS factor refused; the factor withdrawn.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func enrollAndSignInWithAnSMSFactor(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let ada = try await MultiFactorTests.verifiedUser(h, "ada@example.com")
            let bob = try await MultiFactorTests.verifiedUser(h, "bob@example.com")
            let off = try await Self.startEnrollment(h, ada.idToken)
            #expect(off.errorCode == "OPERATION_NOT_ALLOWED" && off.text.contains("SMS based MFA not enabled"), "\(off.text)")
            #expect(h.server.accounts.sms.devSink?.messages.isEmpty == true, "nothing is sent while SMS MFA is off")
            try await Self.setMFA(h, phone: true)
            #expect(try await Self.startEnrollment(h, ada.idToken, "555-0100").errorCode == "INVALID_PHONE_NUMBER")
            #expect(try await Self.startEnrollment(h, ada.idToken, "").errorCode == "INVALID_PHONE_NUMBER")
            // A NUL inside the number: refused (the request's strings are checked first), nothing sent.
            let nul = try await Self.startEnrollment(h, ada.idToken, "+1555\u{0}5550142")
            #expect(nul.status == 400 && nul.json?["phoneSessionInfo"] == nil, "\(nul.text)")
            #expect(h.server.accounts.sms.devSink?.messages.isEmpty == true)

            let started = try await Self.startEnrollment(h, ada.idToken, "+1 (555) 555-0142")
            #expect(started.status == 200 && started.json?["totpSessionInfo"] == nil, "\(started.text)")
            let sessionInfo = try #require(try started.decode(StartMFAEnrollmentResponse.self).phoneSessionInfo?.sessionInfo)
            let code = try Self.code(h)
            #expect(h.server.accounts.sms.devSink?.latest(to: Self.factorNumber)?.text.contains(code) == true)
            // Bob holds Ada's sessionInfo and code: refused, and the code is not spent.
            let stolen = try await Self.finalizeEnrollment(h, bob.idToken, sessionInfo, code)
            #expect(stolen.errorCode == "INVALID_SESSION_INFO", "\(stolen.text)")
            #expect(try await Self.finalizeEnrollment(h, ada.idToken, sessionInfo, Self.wrong(code)).errorCode == "INVALID_CODE")
            #expect(try await Self.finalizeEnrollment(h, ada.idToken, nil, code).errorCode == "MISSING_SESSION_INFO")
            let finalized = try await Self.finalizeEnrollment(h, ada.idToken, sessionInfo, code)
            #expect(finalized.status == 200, "\(finalized.text)")
            let enrolled = try finalized.decode(FinalizeMFAEnrollmentResponse.self)
            #expect(enrolled.phoneAuthInfo?.phoneNumber == Self.factorNumber && finalized.json?["totpAuthInfo"] == nil)
            let claims = try #require(MultiFactorTests.secondFactorClaims(enrolled.idToken))
            #expect(claims["sign_in_second_factor"] as? String == "phone")
            let factorId = try #require(claims["second_factor_identifier"] as? String)
            // Used once.
            #expect(try await Self.finalizeEnrollment(h, ada.idToken, sessionInfo, code).errorCode == "INVALID_SESSION_INFO")
            let mail = try #require(h.server.emailActions.mailer.devMailbox?.messages.last?.mail)
            #expect(mail.to == "ada@example.com" && mail.subject.contains("Two-step verification was turned on") && mail.text.contains("Work phone"))
            #expect(!mail.text.contains(Self.factorNumber), "the notice names no full number")
            let audit = try await h.store.auditEntries(before: nil, limit: 10)
            let entry = try #require(audit.first { $0.action == "mfa.enroll" })
            let detail = try #require(entry.detail)
            #expect(detail.hasPrefix("phone \(factorId)") && !detail.contains(Self.factorNumber), "\(detail)")
            // The same number again: Firebase's SECOND_FACTOR_EXISTS, nothing sent.
            let sent = h.server.accounts.sms.devSink?.messages.count
            let twice = try await Self.startEnrollment(h, enrolled.idToken, "+15555550142")
            #expect(twice.errorCode == "SECOND_FACTOR_EXISTS", "\(twice.text)")
            #expect(h.server.accounts.sms.devSink?.messages.count == sent)

            // The user's own lookup: the full number; the first factor's answer: masked.
            let lookup = try await h.lookup(try #require(enrolled.idToken))
            let info = try #require(((lookup.json?["users"] as? [[String: Any]])?.first?["mfaInfo"] as? [[String: Any]])?.first)
            #expect(info["phoneInfo"] as? String == Self.factorNumber && info["totpInfo"] == nil && info["mfaEnrollmentId"] as? String == factorId)
            h.clock.advance(by: 30)
            let first = try await h.signIn(email: "ada@example.com")
            let pendingAnswer = try first.decode(SignInWithPasswordResponse.self)
            #expect(pendingAnswer.idToken == nil && pendingAnswer.mfaInfo?.first?.phoneInfo == "+*******0142", "\(first.text)")
            #expect(!first.text.contains(Self.factorNumber))
            let pending = try #require(pendingAnswer.mfaPendingCredential)
            let otherPending = try #require(try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self).mfaPendingCredential)

            // Start: the factor's number gets the code (the masked number sent along is not used).
            let challenge = try await Self.startSignIn(h, pending, factorId)
            #expect(challenge.status == 200, "\(challenge.text)")
            let signInSession = try #require(try challenge.decode(StartMFASignInResponse.self).phoneResponseInfo?.sessionInfo)
            let signInCode = try Self.code(h)
            #expect(h.server.accounts.sms.devSink?.latest(to: Self.factorNumber)?.sessionInfo == signInSession)
            // Another pending sign-in (of the same user) cannot use it; nor can an enrollment.
            #expect(try await Self.finalizeSignIn(h, otherPending, signInSession, signInCode).errorCode == "INVALID_SESSION_INFO")
            #expect(try await Self.finalizeEnrollment(h, enrolled.idToken, signInSession, signInCode).errorCode == "INVALID_SESSION_INFO")
            // A TOTP code named for the SMS factor says what to do.
            let asTOTP = try await MultiFactorTests.finalize(h, pending, factorId, code: "123456")
            #expect(asTOTP.status == 400 && asTOTP.text.contains("mfaSignIn:start"), "\(asTOTP.text)")
            #expect(try await Self.finalizeSignIn(h, pending, signInSession, Self.wrong(signInCode)).errorCode == "INVALID_CODE")
            let done = try await Self.finalizeSignIn(h, pending, signInSession, signInCode)
            #expect(done.status == 200, "\(done.text)")
            let tokens = try done.decode(FinalizeMFASignInResponse.self)
            #expect(tokens.phoneAuthInfo?.phoneNumber == Self.factorNumber)
            let signedIn = try #require(MultiFactorTests.secondFactorClaims(tokens.idToken))
            #expect(signedIn["sign_in_second_factor"] as? String == "phone" && signedIn["second_factor_identifier"] as? String == factorId)
            #expect(signedIn["sign_in_provider"] as? String == "password")
            // Once.
            #expect(try await Self.finalizeSignIn(h, pending, signInSession, signInCode).status == 400)

            // SMS MFA turned off: no more codes are sent for it (Firebase's OPERATION_NOT_ALLOWED).
            try await Self.setMFA(h, phone: false)
            #expect(try await Self.startSignIn(h, otherPending, factorId).errorCode == "OPERATION_NOT_ALLOWED")
            try await Self.setMFA(h, phone: true)

            // Withdrawn: the audit names the kind; the next sign-in needs no second factor.
            let withdrawn = try await h.post(WirePaths.mfaEnrollmentWithdraw, WithdrawMFARequest(idToken: tokens.idToken, mfaEnrollmentId: factorId))
            #expect(withdrawn.status == 200, "\(withdrawn.text)")
            #expect(try await h.store.auditEntries(before: nil, limit: 5).first { $0.action == "mfa.withdraw" }?.detail == "phone \(factorId)")
            #expect(try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self).idToken != nil)
        }
    }

    /// Issue 40, items 2 and 4: a parallel burst of wrong codes on one SMS sign-in code is held to 5 checked guesses;
    /// after it the right code is refused too, and the pending sign-in takes a new code.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aBurstOfGuessesOnAnSMSFactorIsHeldToTheLimit(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await Self.setMFA(h, phone: true)
            let ada = try await MultiFactorTests.verifiedUser(h, "ada@example.com")
            let (factorId, _) = try await Self.enroll(h, ada.idToken)
            h.clock.advance(by: 30)
            let pending = try #require(try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self).mfaPendingCredential)
            let sessionInfo = try #require(try await Self.startSignIn(h, pending, factorId).decode(StartMFASignInResponse.self).phoneResponseInfo?.sessionInfo)
            let right = try Self.code(h)
            let guesses = (0..<30).map { index in String(format: "%06d", (Int(right)! + 1 + index * 7919) % 1_000_000) }.filter { $0 != right }
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for guess in guesses {
                    group.addTask { try await Self.finalizeSignIn(h, pending, sessionInfo, guess).errorCode }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            let wrongCodes = answers.filter { $0 == "INVALID_CODE" }.count
            #expect(wrongCodes <= 5, "at most 5 guesses are compared: \(answers)")
            #expect(answers.allSatisfy { ["INVALID_CODE", "TOO_MANY_ATTEMPTS_TRY_LATER", "INVALID_SESSION_INFO"].contains($0 ?? "") }, "\(answers)")
            #expect(answers.contains("TOO_MANY_ATTEMPTS_TRY_LATER"))
            let late = try await Self.finalizeSignIn(h, pending, sessionInfo, right)
            #expect(late.status == 400 && late.json?["idToken"] == nil, "the right code after the burst: \(late.text)")
            // The pending sign-in itself was not spent by the guesses: a new code completes it.
            let fresh = try #require(try await Self.startSignIn(h, pending, factorId).decode(StartMFASignInResponse.self).phoneResponseInfo?.sessionInfo)
            let completed = try await Self.finalizeSignIn(h, pending, fresh, try Self.code(h))
            #expect(completed.status == 200, "\(completed.text)")
        }
    }

    /// Issue 40, item 2: Firebase's first-factor rules — a phone sign-in cannot enroll a second factor
    /// (`UNSUPPORTED_FIRST_FACTOR`, nothing sent), and a number with an SMS second factor on its account no longer
    /// signs in as a first factor (`UNSUPPORTED_FIRST_FACTOR`).
    @Test func phoneAsFirstAndSecondFactorAreKeptApart() async throws {
        try await HearthHarness.run { h in
            try await Self.setMFA(h, phone: true)
            // A phone user (demo project: phone sign-in is on).
            let sent = try await h.post(WirePaths.sendVerificationCode, SendVerificationCodeRequest(phoneNumber: "+15555550188"))
            let phoneSession = try #require(try sent.decode(SendVerificationCodeResponse.self).sessionInfo, "\(sent.text)")
            let phoneUser = try await h.post(WirePaths.signInWithPhoneNumber, SignInWithPhoneNumberRequest(sessionInfo: phoneSession, code: try Self.code(h, "+15555550188")))
            let phoneTokens = try phoneUser.decode(SignInWithPhoneNumberResponse.self)
            let before = h.server.accounts.sms.devSink?.messages.count
            let refused = try await Self.startEnrollment(h, phoneTokens.idToken)
            #expect(refused.errorCode == "UNSUPPORTED_FIRST_FACTOR", "\(refused.text)")
            #expect(h.server.accounts.sms.devSink?.messages.count == before)

            // An email user links that kind of number, enrolls an SMS factor, and the linked number stops signing in.
            let ada = try await MultiFactorTests.verifiedUser(h, "ada@example.com")
            let linkSent = try await h.post(WirePaths.sendVerificationCode, SendVerificationCodeRequest(phoneNumber: "+15555550199"))
            let linkSession = try linkSent.decode(SendVerificationCodeResponse.self).sessionInfo
            var link = SignInWithPhoneNumberRequest(sessionInfo: linkSession, code: try Self.code(h, "+15555550199"), idToken: ada.idToken)
            link.operation = "LINK"
            let linked = try await h.post(WirePaths.signInWithPhoneNumber, link)
            #expect(linked.status == 200, "\(linked.text)")
            // The link's session is a phone sign-in (as at Firebase's emulator), which cannot enroll: sign in with the password.
            let linkedTokens = try linked.decode(SignInWithPhoneNumberResponse.self)
            #expect(try await Self.startEnrollment(h, linkedTokens.idToken).errorCode == "UNSUPPORTED_FIRST_FACTOR")
            let password = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            _ = try await Self.enroll(h, password.idToken)
            let firstFactor = try await h.post(WirePaths.sendVerificationCode, SendVerificationCodeRequest(phoneNumber: "+15555550199"))
            #expect(firstFactor.errorCode == "UNSUPPORTED_FIRST_FACTOR", "\(firstFactor.text)")
        }
    }
}
