import Foundation
@testable import HearthAuth
import HearthTesting
import HearthWire
import Testing

/// HearthAuth's phone sign-in and SMS second factor against a scripted backend: the requests it sends (the shapes
/// and `operation`s of Firebase's Apple SDK), the proof credential of a number on another account, and the checks
/// made before anything is sent.
@Suite struct PhoneAuthUnitTests {
    static let number = "+15555550100"

    static func lookup(_ uid: String, phoneNumber: String?, factors: [String] = []) -> String {
        let phone = phoneNumber.map { #","phoneNumber":"\#($0)""# } ?? ""
        let providers = phoneNumber.map { #"[{"providerId":"phone","rawId":"\#($0)","federatedId":"\#($0)","phoneNumber":"\#($0)"}]"# } ?? "[]"
        let mfa = factors.isEmpty ? "" : #","mfaInfo":[\#(factors.joined(separator: ","))]"#
        return #"{"kind":"k","users":[{"localId":"\#(uid)","emailVerified":false\#(phone),"providerUserInfo":\#(providers),"validSince":"0","disabled":false,"createdAt":"0"\#(mfa)}]}"#
    }

    static func phoneAnswer(_ token: String, uid: String, isNewUser: Bool) -> String {
        #"{"idToken":"\#(token)","refreshToken":"r-\#(uid)","expiresIn":"3600","localId":"\#(uid)","isNewUser":\#(isNewUser),"phoneNumber":"\#(number)"}"#
    }

    static func sent(_ backend: RecordingBackend, _ path: String) throws -> [String: Any] {
        try #require(backend.requests.value.last { $0.path == path }?.body)
    }

    /// Issue 40, item 6: `verifyPhoneNumber` sends `sendVerificationCode` (the number, a reCAPTCHA token when given)
    /// and returns the `sessionInfo`; `signIn(with:)` sends Firebase's `verifyPhoneNumber` body with
    /// `operation: SIGN_UP_OR_IN` and signs the user in with the number as `phoneNumber`.
    @Test func sendingACodeAndSigningInWithIt() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        let provider = PhoneAuthProvider.provider(auth: auth)
        backend.answer(SendVerificationCodeRequest.method.clientPath, #"{"sessionInfo":"hps1.session"}"#)
        #expect(try await provider.verifyPhoneNumber(Self.number, uiDelegate: nil) == "hps1.session")
        var send = try Self.sent(backend, SendVerificationCodeRequest.method.clientPath)
        #expect(send["phoneNumber"] as? String == Self.number && send["recaptchaToken"] == nil)
        _ = try await provider.verifyPhoneNumber(Self.number, recaptchaToken: "token-from-recaptcha")
        send = try Self.sent(backend, SendVerificationCodeRequest.method.clientPath)
        #expect(send["recaptchaToken"] as? String == "token-from-recaptcha")
        // No number: refused before anything is sent (Firebase's missingPhoneNumber).
        let count = backend.requests.value.count
        await #expect { try await provider.verifyPhoneNumber("  ", uiDelegate: nil) } throws: {
            ($0 as NSError).code == AuthErrorCode.missingPhoneNumber.rawValue && ($0 as NSError).code == 17041
        }
        // An empty code or verification ID: refused before a request.
        await #expect { try await auth.signIn(with: provider.credential(withVerificationID: "hps1.session", verificationCode: "")) } throws: {
            ($0 as NSError).code == AuthErrorCode.missingVerificationCode.rawValue
        }
        await #expect { try await auth.signIn(with: PhoneAuthProvider.credential(withVerificationID: "", verificationCode: "123456")) } throws: {
            ($0 as NSError).code == AuthErrorCode.missingVerificationID.rawValue
        }
        #expect(backend.requests.value.count == count)

        let token = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath, Self.phoneAnswer(token, uid: "u1", isNewUser: true))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", phoneNumber: Self.number))
        let credential = provider.credential(withVerificationID: "hps1.session", verificationCode: "123456")
        #expect(credential.provider == "phone" && credential.phoneNumber == nil)
        let result = try await auth.signIn(with: credential)
        let body = try Self.sent(backend, SignInWithPhoneNumberRequest.method.clientPath)
        #expect(SignInWithPhoneNumberRequest.method.clientPath.hasSuffix("/relyingparty/verifyPhoneNumber"))
        #expect(body["sessionInfo"] as? String == "hps1.session" && body["code"] as? String == "123456")
        #expect(body["operation"] as? String == "SIGN_UP_OR_IN" && body["idToken"] == nil)
        #expect(result.user.uid == "u1" && auth.currentUser === result.user)
        #expect(result.additionalUserInfo?.providerID == "phone" && result.additionalUserInfo?.isNewUser == true)
        #expect(result.user.phoneNumber == Self.number && !result.user.isAnonymous)
        #expect(result.user.providerData.first?.phoneNumber == Self.number)
        // The number survives persistence (the profile is stored).
        let stored = try JSONDecoder().decode(User.Stored.self, from: JSONEncoder().encode(User.Stored(profile: result.user.profile, tokens: await result.user.tokens.tokens)))
        #expect(stored.profile.phoneNumber == Self.number)
    }

    /// Issue 40, item 6: linking sends the user's ID token with `operation: LINK`; a number on another account
    /// answers `temporaryProof` + `phoneNumber`, which the SDK raises as `credentialAlreadyInUse` holding a
    /// `PhoneAuthCredential` — that credential signs in with `{temporaryProof, phoneNumber}` and no SMS.
    @Test func aNumberOnAnotherAccountGivesTheProofCredential() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        let first = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPasswordRequest.method.clientPath, #"{"kind":"k","localId":"u1","email":"ada@example.com","registered":true,"idToken":"\#(first)","refreshToken":"r-1","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", phoneNumber: nil))
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath,
                       #"{"phoneNumber":"\#(Self.number)","temporaryProof":"hpp1.proof","temporaryProofExpiresIn":"3600"}"#)
        var caught: NSError?
        do {
            _ = try await user.link(with: PhoneAuthProvider.credential(withVerificationID: "hps1.s", verificationCode: "123456"))
        } catch {
            caught = error as NSError
        }
        let error = try #require(caught)
        #expect(error.domain == AuthErrorDomain && error.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
        let proof = try #require(error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? PhoneAuthCredential)
        #expect(proof.phoneNumber == Self.number && proof.provider == PhoneAuthProvider.id)
        let link = try Self.sent(backend, SignInWithPhoneNumberRequest.method.clientPath)
        #expect(link["idToken"] as? String == first && link["operation"] as? String == "LINK")
        #expect(auth.currentUser === user, "a refused link leaves the user signed in")

        let other = MultiFactorUnitTests.idToken("u2")
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath, Self.phoneAnswer(other, uid: "u2", isNewUser: false))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u2", phoneNumber: Self.number))
        let result = try await auth.signIn(with: proof)
        let body = try Self.sent(backend, SignInWithPhoneNumberRequest.method.clientPath)
        #expect(body["temporaryProof"] as? String == "hpp1.proof" && body["phoneNumber"] as? String == Self.number)
        #expect(body["sessionInfo"] == nil && body["code"] == nil && body["idToken"] == nil)
        #expect(result.user.uid == "u2" && auth.currentUser === result.user && result.additionalUserInfo?.isNewUser == false)
    }

    /// Issue 40, item 6: reauthentication sends `operation: REAUTH` without an ID token and refuses an answer for
    /// another user (`userMismatch`), as it does for `USER_NOT_FOUND` (a number of no account).
    @Test func reauthenticationIsForTheSameUser() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        let token = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath, Self.phoneAnswer(token, uid: "u1", isNewUser: false))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", phoneNumber: Self.number))
        let user = try await auth.signIn(with: PhoneAuthProvider.credential(withVerificationID: "hps1.a", verificationCode: "111111")).user
        let again = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath, Self.phoneAnswer(again, uid: "u1", isNewUser: false))
        let result = try await user.reauthenticate(with: PhoneAuthProvider.credential(withVerificationID: "hps1.b", verificationCode: "222222"))
        let body = try Self.sent(backend, SignInWithPhoneNumberRequest.method.clientPath)
        #expect(body["operation"] as? String == "REAUTH" && body["idToken"] == nil && body["sessionInfo"] as? String == "hps1.b")
        #expect(result.user === user)
        backend.answer(SignInWithPhoneNumberRequest.method.clientPath, Self.phoneAnswer(MultiFactorUnitTests.idToken("u9"), uid: "u9", isNewUser: false))
        await #expect { try await user.reauthenticate(with: PhoneAuthProvider.credential(withVerificationID: "hps1.c", verificationCode: "333333")) } throws: {
            ($0 as NSError).code == AuthErrorCode.userMismatch.rawValue
        }
        #expect(auth.currentUser === user && user.uid == "u1")
    }

    /// Issue 40, items 2 and 6: an SMS factor's enrollment sends `phoneEnrollmentInfo` then `phoneVerificationInfo`;
    /// the resolver's SMS factor sends `mfaSignIn:start` with the factor's id and `phoneSignInInfo`, then
    /// `mfaSignIn:finalize` with `phoneVerificationInfo` and no enrollment id (as Firebase's SDKs).
    @Test func smsSecondFactorRequests() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        let provider = PhoneAuthProvider.provider(auth: auth)
        let first = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPasswordRequest.method.clientPath, #"{"kind":"k","localId":"u1","email":"ada@example.com","registered":true,"idToken":"\#(first)","refreshToken":"r-1","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", phoneNumber: nil))
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user
        backend.answer(WirePaths.mfaEnrollmentStart, #"{"phoneSessionInfo":{"sessionInfo":"hps1.enroll"}}"#)
        let session = try await user.multiFactor.session()
        #expect(try await provider.verifyPhoneNumber("+1 555 555 0142", uiDelegate: nil, multiFactorSession: session) == "hps1.enroll")
        let start = try Self.sent(backend, WirePaths.mfaEnrollmentStart)
        #expect(start["idToken"] as? String == first && start["totpEnrollmentInfo"] == nil)
        #expect((start["phoneEnrollmentInfo"] as? [String: Any])?["phoneNumber"] as? String == "+1 555 555 0142")

        let full = #"{"mfaEnrollmentId":"enr-p","displayName":"Work","enrolledAt":"2026-11-24T06:00:00Z","phoneInfo":"+15555550142"}"#
        let enrolled = MultiFactorUnitTests.idToken("u1", secondFactor: "phone")
        backend.answer(WirePaths.mfaEnrollmentFinalize, #"{"idToken":"\#(enrolled)","refreshToken":"r-2","phoneAuthInfo":{"phoneNumber":"+15555550142"}}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", phoneNumber: nil, factors: [full]))
        let assertion = PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: "hps1.enroll", verificationCode: "424242"))
        #expect(assertion.factorID == "phone" && PhoneMultiFactorGenerator.factorID == PhoneMultiFactorInfo.PhoneMultiFactorID)
        try await user.multiFactor.enroll(with: assertion, displayName: "Work")
        let finalize = try Self.sent(backend, WirePaths.mfaEnrollmentFinalize)
        #expect(finalize["displayName"] as? String == "Work" && finalize["totpVerificationInfo"] == nil)
        let verification = finalize["phoneVerificationInfo"] as? [String: Any]
        #expect(verification?["sessionInfo"] as? String == "hps1.enroll" && verification?["code"] as? String == "424242")
        let factor = try #require(user.multiFactor.enrolledFactors.first as? PhoneMultiFactorInfo)
        #expect(factor.phoneNumber == "+15555550142" && factor.uid == "enr-p" && factor.displayName == "Work")
        #expect(try await user.getIDTokenResult().signInSecondFactor == "phone")

        // The next sign-in stops at the factor; the resolver sends its code and finalizes with it.
        try auth.signOut()
        let masked = #"{"mfaEnrollmentId":"enr-p","displayName":"Work","phoneInfo":"+*******0142"}"#
        backend.answer(SignInWithPasswordRequest.method.clientPath, #"{"kind":"k","localId":"u1","email":"ada@example.com","registered":true,"mfaPendingCredential":"pending-1","mfaInfo":[\#(masked)]}"#)
        let resolver = try await MultiFactorSDKTests.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "pw") }
        let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
        #expect(hint.phoneNumber == "+*******0142")
        backend.answer(WirePaths.mfaSignInStart, #"{"phoneResponseInfo":{"sessionInfo":"hps1.signin"}}"#)
        #expect(try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session) == "hps1.signin")
        let challenge = try Self.sent(backend, WirePaths.mfaSignInStart)
        #expect(challenge["mfaPendingCredential"] as? String == "pending-1" && challenge["mfaEnrollmentId"] as? String == "enr-p")
        #expect((challenge["phoneSignInInfo"] as? [String: Any])?["phoneNumber"] as? String == "+*******0142")
        // Firebase's form without the factor: the only SMS factor is meant.
        _ = try await provider.verifyPhoneNumber("+*******0142", uiDelegate: nil, multiFactorSession: resolver.session)
        #expect(try Self.sent(backend, WirePaths.mfaSignInStart)["mfaEnrollmentId"] as? String == "enr-p")

        let signedIn = MultiFactorUnitTests.idToken("u1", secondFactor: "phone")
        backend.answer(WirePaths.mfaSignInFinalize, #"{"idToken":"\#(signedIn)","refreshToken":"r-3","phoneAuthInfo":{"phoneNumber":"+15555550142"}}"#)
        let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: provider.credential(
            withVerificationID: "hps1.signin", verificationCode: "135790")))
        let done = try Self.sent(backend, WirePaths.mfaSignInFinalize)
        #expect(done["mfaPendingCredential"] as? String == "pending-1" && done["mfaEnrollmentId"] == nil && done["totpVerificationInfo"] == nil)
        let phone = done["phoneVerificationInfo"] as? [String: Any]
        #expect(phone?["sessionInfo"] as? String == "hps1.signin" && phone?["code"] as? String == "135790")
        #expect(result.user.uid == "u1" && auth.currentUser === result.user)

        // A proof credential carries no code: it cannot be a second factor, and nothing is sent.
        let count = backend.requests.value.count
        let proof = PhoneAuthCredential(kind: .temporaryProof(phoneNumber: Self.number, proof: "hpp1.x"))
        await #expect { try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: proof)) } throws: {
            ($0 as NSError).code == AuthErrorCode.missingVerificationCode.rawValue
        }
        #expect(backend.requests.value.count == count)
    }

    /// Issue 40, item 6: the server's phone errors reach apps as the Apple SDK's codes and Firebase's names.
    @Test func phoneErrorsMapToFirebaseCodes() {
        #expect(AuthErrorUtils.code(forServerError: "INVALID_PHONE_NUMBER") == .invalidPhoneNumber && AuthErrorCode.invalidPhoneNumber.rawValue == 17042)
        #expect(AuthErrorUtils.code(forServerError: "QUOTA_EXCEEDED") == .quotaExceeded && AuthErrorCode.quotaExceeded.rawValue == 17052)
        #expect(AuthErrorUtils.code(forServerError: "CAPTCHA_CHECK_FAILED") == .captchaCheckFailed && AuthErrorCode.captchaCheckFailed.rawValue == 17056)
        #expect(AuthErrorUtils.code(forServerError: "MISSING_RECAPTCHA_TOKEN") == .missingRecaptchaToken && AuthErrorCode.missingRecaptchaToken.rawValue == 17201)
        #expect(AuthErrorUtils.code(forServerError: "PHONE_NUMBER_EXISTS") == .credentialAlreadyInUse)
        #expect(AuthErrorUtils.code(forServerError: "INVALID_TEMPORARY_PROOF") == .invalidCredential)
        #expect(AuthErrorUtils.code(forServerError: "UNSUPPORTED_FIRST_FACTOR") == .unsupportedFirstFactor)
        #expect(AuthErrorUtils.code(forServerError: "SECOND_FACTOR_EXISTS") == .secondFactorAlreadyEnrolled)
        #expect(AuthErrorUtils.code(forServerError: "INVALID_APP_CREDENTIAL") == .invalidAppCredential && AuthErrorCode.invalidAppCredential.rawValue == 17048)
        #expect(AuthErrorUtils.code(forServerError: "MISSING_APP_CREDENTIAL") == .missingAppCredential && AuthErrorCode.missingAppCredential.rawValue == 17047)
    }
}
