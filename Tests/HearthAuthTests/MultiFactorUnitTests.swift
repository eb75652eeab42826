import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthTesting
import HearthWire
import Testing

/// HearthAuth's TOTP second factor against a scripted backend: the requests it sends (the shapes Firebase's SDKs
/// send), the resolver raised from first-factor answers, the error mapping, the factor list and the QR URL.
@Suite struct MultiFactorUnitTests {
    /// An unsigned JWT whose payload the SDK reads (it never verifies tokens).
    static func idToken(_ uid: String, secondFactor: String? = nil, lifetime: Int = 3600) -> String {
        let now = Int(Date().timeIntervalSince1970)
        var firebase: [String: Any] = ["sign_in_provider": "password"]
        if let secondFactor { firebase["sign_in_second_factor"] = secondFactor }
        let payload: [String: Any] = ["sub": uid, "iat": now, "exp": now + lifetime, "auth_time": now, "firebase": firebase]
        let header = Data(#"{"alg":"none"}"#.utf8).base64URLEncodedString()
        return header + "." + (try! JSONSerialization.data(withJSONObject: payload)).base64URLEncodedString() + ".sig"
    }

    static let factor = #"{"mfaEnrollmentId":"enr-1","displayName":"Phone","enrolledAt":"2026-11-24T06:00:00.123Z","totpInfo":{}}"#
    static let phoneFactor = #"{"mfaEnrollmentId":"enr-2","enrolledAt":"2026-11-24T06:00:00Z","phoneInfo":"+1******1234"}"#

    static func lookup(_ uid: String, factors: [String]) -> String {
        let mfa = factors.isEmpty ? "" : #","mfaInfo":[\#(factors.joined(separator: ","))]"#
        return #"{"kind":"k","users":[{"localId":"\#(uid)","email":"ada@example.com","emailVerified":true,"providerUserInfo":[],"validSince":"0","disabled":false,"createdAt":"0"\#(mfa)}]}"#
    }

    static func tokens(_ token: String, refresh: String) -> String { #"{"idToken":"\#(token)","refreshToken":"\#(refresh)"}"# }

    static let pendingPasswordAnswer = #"{"kind":"k","localId":"u1","email":"ada@example.com","registered":true,"mfaPendingCredential":"pending-1","mfaInfo":[\#(factor),\#(phoneFactor)]}"#

    /// A password sign-in of an enrolled user: `secondFactorRequired` with a resolver over the factors; resolving
    /// with a TOTP code sends Firebase's `mfaSignIn:finalize` body and signs the user in.
    @Test func passwordSignInRaisesTheResolverAndResolvingSignsIn() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.pendingPasswordAnswer)
        var caught: NSError?
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "pw")
        } catch {
            caught = error as NSError
        }
        let error = try #require(caught)
        #expect(error.domain == AuthErrorDomain)
        #expect(error.code == AuthErrorCode.secondFactorRequired.rawValue && error.code == 17078)
        #expect(AuthErrorUserInfoMultiFactorResolverKey == "FIRAuthErrorUserInfoMultiFactorResolverKey")
        let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        #expect(auth.currentUser == nil, "nobody is signed in before the second factor")
        #expect(resolver.hints.map(\.uid) == ["enr-1", "enr-2"])
        #expect(resolver.hints.map(\.factorID) == ["totp", "phone"])
        #expect(resolver.hints[0] is TOTPMultiFactorInfo && resolver.hints[0].displayName == "Phone")
        #expect((resolver.hints[1] as? PhoneMultiFactorInfo)?.phoneNumber == "+1******1234")
        #expect(abs(resolver.hints[0].enrollmentDate.timeIntervalSince1970 - 1_795_500_000.123) < 0.001)
        #expect(resolver.hints[1].enrollmentDate == Date(timeIntervalSince1970: 1_795_500_000))
        #expect(resolver.auth.currentUser == nil)

        let token = Self.idToken("u1", secondFactor: "totp")
        backend.answer(WirePaths.mfaSignInFinalize, Self.tokens(token, refresh: "r-2"))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: [Self.factor]))
        let result = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "enr-1", oneTimePassword: "123456"))
        #expect(result.user.uid == "u1" && auth.currentUser === result.user)
        #expect(result.additionalUserInfo?.providerID == "password")
        #expect(try await result.user.getIDToken() == token)
        #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
        #expect(result.user.multiFactor.enrolledFactors.map(\.uid) == ["enr-1"])
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize })
        #expect(finalize.body["mfaPendingCredential"] as? String == "pending-1")
        #expect(finalize.body["mfaEnrollmentId"] as? String == "enr-1")
        #expect((finalize.body["totpVerificationInfo"] as? [String: Any])?["verificationCode"] as? String == "123456")
        #expect(finalize.body["recoveryCodeVerificationInfo"] == nil && finalize.body["phoneVerificationInfo"] == nil)
    }

    /// Hearth's recovery code: `recoveryCodeVerificationInfo`, no enrollment id. An enrollment assertion cannot
    /// sign in (no request is sent).
    @Test func recoveryCodeAssertionAndMisusedAssertions() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.pendingPasswordAnswer)
        let resolver = try await Self.resolver(auth)
        let secret = TOTPSecret(secretKey: "JBSWY3DPEHPK3PXP", hashingAlgorithm: "SHA1", codeLength: 6, codeIntervalSeconds: 30,
                                enrollmentCompletionDeadline: nil, sessionInfo: "s")
        let before = backend.requests.value.count
        await #expect {
            try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "123456"))
        } throws: { ($0 as NSError).code == AuthErrorCode.missingMultiFactorInfo.rawValue }
        #expect(backend.requests.value.count == before)

        backend.answer(WirePaths.mfaSignInFinalize, Self.tokens(Self.idToken("u1", secondFactor: "totp"), refresh: "r"))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: [Self.factor]))
        let assertion = RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode: "abcde-fghjk")
        #expect(assertion.factorID == "recoveryCode")
        _ = try await resolver.resolveSignIn(with: assertion)
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize })
        #expect((finalize.body["recoveryCodeVerificationInfo"] as? [String: Any])?["recoveryCode"] as? String == "abcde-fghjk")
        #expect(finalize.body["mfaEnrollmentId"] == nil && finalize.body["totpVerificationInfo"] == nil)
    }

    struct NoSecondFactor: Error {}

    static func resolver(_ auth: Auth) async throws -> MultiFactorResolver {
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "pw")
        } catch let error as NSError {
            if let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver { return resolver }
            throw error
        }
        throw NoSecondFactor()
    }

    /// Enrollment: `mfaEnrollment:start` with `totpEnrollmentInfo: {}`, the secret's fields and QR URL,
    /// `mfaEnrollment:finalize` with the session and code (and Hearth's `generateRecoveryCodes`), then the answer's
    /// tokens and a reload; withdrawal with `mfaEnrollmentId`; recovery codes regenerated.
    @Test func enrollmentAndWithdrawalRequests() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        let first = Self.idToken("u1")
        backend.answer(SignInWithPasswordRequest.method.clientPath,
                       #"{"kind":"k","localId":"u1","registered":true,"idToken":"\#(first)","refreshToken":"r-1","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: []))
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user
        #expect(user.multiFactor.enrolledFactors.isEmpty)

        backend.answer(WirePaths.mfaEnrollmentStart, #"""
            {"totpSessionInfo":{"sharedSecretKey":"JBSWY3DPEHPK3PXP","verificationCodeLength":6,"hashingAlgorithm":"SHA1","periodSec":30,
             "sessionInfo":"enroll-session","finalizeEnrollmentTime":"2026-11-24T06:10:00.5Z"}}
            """#)
        let session = try await user.multiFactor.session()
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
        let start = try #require(backend.requests.value.last)
        #expect(start.path == WirePaths.mfaEnrollmentStart)
        #expect(start.body["idToken"] as? String == first)
        #expect((start.body["totpEnrollmentInfo"] as? [String: Any])?.isEmpty == true)
        #expect(secret.sharedSecretKey() == "JBSWY3DPEHPK3PXP")
        #expect(secret.codeLength == 6 && secret.codeIntervalSeconds == 30 && secret.hashingAlgorithm == "SHA1")
        #expect(secret.enrollmentCompletionDeadline == Date(timeIntervalSince1970: 1_795_500_600.5))  // .5 is exact in binary
        #expect(secret.generateQRCodeURL(withAccountName: "ada@example.com", issuer: "My App")
            == "otpauth://totp/My%20App:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=My%20App&algorithm=SHA1&digits=6&period=30")
        #expect(secret.generateQRCodeURL(withAccountName: "ada", issuer: "") == "otpauth://totp/ada?secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30")
        #if !canImport(UIKit) && !canImport(AppKit)
        #expect(secret.openInOTPApp(withQRCodeURL: secret.generateQRCodeURL(withAccountName: "ada", issuer: "X")) == false)
        #endif
        #expect(secret.openInOTPApp(withQRCodeURL: "https://example.com/") == false)

        // A sign-in assertion cannot enroll; nothing is sent.
        let count = backend.requests.value.count
        await #expect {
            try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "x", oneTimePassword: "1"), displayName: nil)
        } throws: { ($0 as NSError).code == AuthErrorCode.missingMultiFactorSession.rawValue }
        #expect(backend.requests.value.count == count)

        let enrolled = Self.idToken("u1", secondFactor: "totp", lifetime: 1800)
        backend.answer(WirePaths.mfaEnrollmentFinalize, #"{"idToken":"\#(enrolled)","refreshToken":"r-2","totpAuthInfo":{},"recoveryCodes":["aaaaa-bbbbb","ccccc-ddddd"]}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: [Self.factor]))
        let codes = try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "654321"),
                                                      displayName: "Phone", generatingRecoveryCodes: true)
        #expect(codes == ["aaaaa-bbbbb", "ccccc-ddddd"])
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.mfaEnrollmentFinalize })
        #expect(finalize.body["idToken"] as? String == first && finalize.body["displayName"] as? String == "Phone")
        #expect(finalize.body["generateRecoveryCodes"] as? Bool == true)
        let verification = finalize.body["totpVerificationInfo"] as? [String: Any]
        #expect(verification?["sessionInfo"] as? String == "enroll-session" && verification?["verificationCode"] as? String == "654321")
        // The answer's tokens replaced the old ones (lifetime from the token itself), and the profile was reloaded.
        #expect(try await user.getIDToken() == enrolled)
        #expect(await user.refreshToken == "r-2")
        let expiry = await user.tokens.tokens.expirationDate.timeIntervalSinceNow
        #expect(expiry > 1700 && expiry <= 1800)
        #expect(backend.requests.value.last?.path == LookupRequest.method.clientPath)
        let factors = user.multiFactor.enrolledFactors
        #expect(factors.count == 1 && factors[0].uid == "enr-1" && factors[0].factorID == TOTPMultiFactorGenerator.factorID)

        // Firebase's form without recovery codes sends no `generateRecoveryCodes`.
        try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "111111"), displayName: nil)
        #expect(backend.requests.value.last { $0.path == WirePaths.mfaEnrollmentFinalize }?.body["generateRecoveryCodes"] == nil)

        backend.answer(WirePaths.mfaRecoveryCodesGenerate, #"{"recoveryCodes":["eeeee-fffff"]}"#)
        #expect(try await user.multiFactor.generateRecoveryCodes() == ["eeeee-fffff"])
        #expect(backend.requests.value.last { $0.path == WirePaths.mfaRecoveryCodesGenerate }?.body["idToken"] as? String == enrolled)

        backend.answer(WirePaths.mfaEnrollmentWithdraw, Self.tokens(Self.idToken("u1"), refresh: "r-3"))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: []))
        try await user.multiFactor.unenroll(with: factors[0])
        let withdraw = try #require(backend.requests.value.last { $0.path == WirePaths.mfaEnrollmentWithdraw })
        #expect(withdraw.body["mfaEnrollmentId"] as? String == "enr-1" && withdraw.body["idToken"] as? String == enrolled)
        #expect(user.multiFactor.enrolledFactors.isEmpty)
        #expect(await user.refreshToken == "r-3")

        // A sign-in session cannot make a secret.
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.pendingPasswordAnswer)
        let resolver = try await Self.resolver(auth)
        await #expect { try await TOTPMultiFactorGenerator.generateSecret(with: resolver.session) } throws: {
            ($0 as NSError).code == AuthErrorCode.missingMultiFactorSession.rawValue
        }
    }

    /// A federated sign-in answer with `mfaPendingCredential` raises the resolver too (with the provider's
    /// profile kept for the result); a reauthentication answered for another user is `userMismatch` first.
    @Test func federatedAnswerRaisesTheResolverAndReauthenticationChecksTheUser() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        backend.answer(SignInWithIdpRequest.method.clientPath, #"""
            {"kind":"k","providerId":"microsoft.com","localId":"u1","email":"ada@example.com","rawUserInfo":"{\"displayName\":\"Ada\"}",
             "mfaPendingCredential":"pending-idp","mfaInfo":[\#(Self.factor)]}
            """#)
        let credential = OAuthProvider.credential(providerID: "microsoft.com", idToken: "provider-id-token", rawNonce: nil)
        var resolver: MultiFactorResolver?
        do {
            _ = try await auth.signIn(with: credential)
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
            #expect(error.userInfo[AuthErrorUserInfoEmailKey] as? String == "ada@example.com")
        }
        let found = try #require(resolver)
        #expect(found.hints.map(\.uid) == ["enr-1"])
        backend.answer(WirePaths.mfaSignInFinalize, Self.tokens(Self.idToken("u1", secondFactor: "totp"), refresh: "r"))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", factors: [Self.factor]))
        let result = try await found.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "enr-1", oneTimePassword: "000000"))
        #expect(result.additionalUserInfo?.providerID == "microsoft.com")
        #expect(result.additionalUserInfo?.profile?["displayName"] as? String == "Ada")
        #expect(result.credential?.provider == "microsoft.com")
        #expect(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize }?.body["mfaPendingCredential"] as? String == "pending-idp")

        // Reauthenticating as someone else: userMismatch, not a resolver for the other account.
        backend.answer(SignInWithIdpRequest.method.clientPath, #"""
            {"kind":"k","providerId":"microsoft.com","localId":"someone-else","mfaPendingCredential":"p","mfaInfo":[\#(Self.factor)]}
            """#)
        await #expect { try await result.user.reauthenticate(with: credential) } throws: {
            ($0 as NSError).code == AuthErrorCode.userMismatch.rawValue
        }
        // Reauthenticating as this user: the resolver keeps the same User object.
        backend.answer(SignInWithIdpRequest.method.clientPath, #"""
            {"kind":"k","providerId":"microsoft.com","localId":"u1","mfaPendingCredential":"p2","mfaInfo":[\#(Self.factor)]}
            """#)
        var reauthResolver: MultiFactorResolver?
        do {
            _ = try await result.user.reauthenticate(with: credential)
        } catch let error as NSError {
            reauthResolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        }
        let fresh = Self.idToken("u1", secondFactor: "totp", lifetime: 3000)
        backend.answer(WirePaths.mfaSignInFinalize, Self.tokens(fresh, refresh: "r-fresh"))
        let reauthenticated = try await #require(reauthResolver).resolveSignIn(
            with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "enr-1", oneTimePassword: "000000"))
        #expect(reauthenticated.user === result.user)
        #expect(try await result.user.getIDToken() == fresh)
    }

    /// Every MFA server string maps to Firebase's code, and the codes carry Firebase's numbers.
    @Test func serverStringsAndNumbers() {
        let expected: [ServerErrorCode: AuthErrorCode] = [
            .missingMfaPendingCredential: .missingMultiFactorSession, .invalidMfaPendingCredential: .invalidMultiFactorSession,
            .missingMfaEnrollmentId: .missingMultiFactorInfo, .mfaEnrollmentNotFound: .multiFactorInfoNotFound,
            .unverifiedEmail: .unverifiedEmail, .secondFactorExists: .secondFactorAlreadyEnrolled,
            .secondFactorLimitExceeded: .maximumSecondFactorCountExceeded, .unsupportedFirstFactor: .unsupportedFirstFactor,
            .invalidCode: .invalidVerificationCode, .missingCode: .missingVerificationCode, .invalidSessionInfo: .invalidVerificationID,
            .missingSessionInfo: .missingVerificationID, .sessionExpired: .sessionExpired,
        ]
        for (server, client) in expected {
            #expect(AuthErrorUtils.code(forServerError: server.rawValue, reason: server.reason) == client, "\(server.rawValue)")
        }
        let numbers: [AuthErrorCode: Int] = [
            .missingVerificationCode: 17043, .invalidVerificationCode: 17044, .missingVerificationID: 17045, .invalidVerificationID: 17046,
            .sessionExpired: 17051, .secondFactorRequired: 17078, .missingMultiFactorSession: 17081, .missingMultiFactorInfo: 17082,
            .invalidMultiFactorSession: 17083, .multiFactorInfoNotFound: 17084, .unverifiedEmail: 17086, .secondFactorAlreadyEnrolled: 17087,
            .maximumSecondFactorCountExceeded: 17088, .unsupportedFirstFactor: 17089,
        ]
        for (code, number) in numbers { #expect(code.rawValue == number, "\(code)") }
        #expect(Set(AuthErrorCode.allCases.map(\.rawValue)).count == AuthErrorCode.allCases.count)
    }

    /// The loopback page of a web sign-in that needs a second factor sends the person back to the app (which asks
    /// for the code), rather than calling the sign-in refused.
    @Test func loopbackPageOfASecondFactorSendsBackToTheApp() {
        #expect(LoopbackReceiver.outcome(of: AuthErrorUtils.error(.secondFactorRequired), providerID: "microsoft.com") == .confirmed(providerID: "microsoft.com"))
    }

    /// `enrolledAt` in the shapes servers send; anything else is nil (the factor then reports the epoch).
    @Test(arguments: [
        ("2026-11-24T06:00:00.123Z", 1_795_500_000.123), ("2026-11-24T06:00:00Z", 1_795_500_000),
        ("2026-11-24T07:00:00.5+01:00", 1_795_500_000.5), ("2026-11-24T06:00:00.123456Z", 1_795_500_000.123456),
    ])
    func enrollmentDates(text: String, seconds: Double) throws {
        let date = try #require(MultiFactorInfo.enrollmentDate(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.001, "\(text)")
    }

    @Test func unreadableEnrollmentDates() {
        for text in ["", "yesterday", "1763964000", "2026-11-24"] { #expect(MultiFactorInfo.enrollmentDate(from: text) == nil, "\(text)") }
        let factors = MultiFactorInfo.factors(from: [MFAEnrollmentInfo(mfaEnrollmentId: "e", displayName: nil, enrolledAt: "garbage")])
        #expect(factors.first?.enrollmentDate == Date(timeIntervalSince1970: 0))
        // A kind this SDK does not know is left out.
        var unknown = MFAEnrollmentInfo(mfaEnrollmentId: "u", displayName: nil, enrolledAt: nil)
        unknown.totpInfo = nil
        #expect(MultiFactorInfo.factors(from: [unknown]).isEmpty)
    }
}
