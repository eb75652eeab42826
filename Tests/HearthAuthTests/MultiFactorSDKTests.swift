import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthCore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// HearthAuth's TOTP second factor end to end against a real Hearth server: enrollment, sign-in through the resolver
/// (password, Microsoft, reauthentication), wrong and replayed codes, recovery codes, withdrawal. The codes come from
/// HearthCore's `TOTP` over the shared secret the server handed out (the e2e test uses pyotp instead).
@Suite struct MultiFactorSDKTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// TOTP on for the harness's project, through the admin API as the Node Admin SDK sends it.
    static func enableTOTP(_ h: HearthHarness, adjacentIntervals: Int = 1) async throws {
        let body = #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":\#(adjacentIntervals)}}]}}"#
        let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=mfa", body: body, headers: owner)
        guard reply.status == 200 else { throw HarnessError("enabling TOTP failed: \(reply.status) \(reply.text)") }
    }

    /// Marks the user's email verified through the admin API (a second factor needs it).
    static func verifyEmail(_ h: HearthHarness, _ user: User) async throws {
        let reply = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "update"),
                                     body: #"{"localId":"\#(user.uid)","emailVerified":true}"#, headers: owner)
        guard reply.status == 200 else { throw HarnessError("verifying the email failed: \(reply.status) \(reply.text)") }
        try await user.reload()
    }

    /// The authenticator app: the code for `secret` at the server's time (plus `offset` seconds).
    static func code(_ secret: String, _ h: HearthHarness, offset: TimeInterval = 0) throws -> String {
        let bytes = try #require(Base32.decode(secret))
        let generator = try #require(TOTP(secret: bytes))
        return generator.code(at: h.clock.now.addingTimeInterval(offset))
    }

    static func errorCode(_ error: any Error) -> Int { (error as NSError).code }

    /// The first factor of an enrolled user: the resolver of its `secondFactorRequired` error.
    static func resolver(_ body: () async throws -> AuthDataResult) async throws -> MultiFactorResolver {
        do {
            _ = try await body()
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            return try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        }
        throw HarnessError("signed in without a second factor")
    }

    /// Enrolls a TOTP factor through the guide's code; returns the shared secret and the recovery codes.
    static func enroll(_ h: HearthHarness, _ user: User, name: String = "Phone") async throws -> (secret: String, recoveryCodes: [String]) {
        let seen = Locked<String?>(nil)
        let codes = try await MultiFactorExamples.enrollTOTP(user: user, issuer: "Hearth Tests", factorName: name) { secret, url in
            seen.mutate { $0 = secret.sharedSecretKey() }
            #expect(url.hasPrefix("otpauth://totp/Hearth%20Tests:\(user.email ?? "")?secret=\(secret.sharedSecretKey())&issuer=Hearth%20Tests"), "\(url)")
            #expect(url.hasSuffix("&algorithm=SHA1&digits=6&period=30"), "\(url)")
            return try Self.code(secret.sharedSecretKey(), h)
        }
        return (try #require(seen.value), codes)
    }

    @Test func enrollSignInWithTOTPAndRecoveryCodesReauthenticateAndUnenroll() async throws {
        try await HearthHarness.run { h in
            try await Self.enableTOTP(h)
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            try await Self.verifyEmail(h, user)
            let (secret, recoveryCodes) = try await Self.enroll(h, user)
            #expect(recoveryCodes.count == 10 && Set(recoveryCodes).count == 10)
            #expect(recoveryCodes.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" }, "\(recoveryCodes)")
            let factors = user.multiFactor.enrolledFactors
            let factor = try #require(factors.first)
            #expect(factors.count == 1 && factor is TOTPMultiFactorInfo && factor.factorID == "totp" && factor.displayName == "Phone")
            #expect(abs(factor.enrollmentDate.timeIntervalSince(h.clock.now)) < 60, "enrolledAt parsed: \(factor.enrollmentDate)")
            // The enrollment answered new tokens, which carry the second factor.
            let enrolledToken = try await user.getIDTokenResult()
            #expect(enrolledToken.signInSecondFactor == "totp")
            #expect(auth.currentUser === user)

            // Sign out; the password alone no longer signs in.
            try auth.signOut()
            h.clock.advance(by: 30)
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "correct horse") }
            #expect(auth.currentUser == nil)
            #expect(resolver.hints.map(\.uid) == [factor.uid] && resolver.hints.first?.displayName == "Phone")
            #expect(resolver.hints.first?.factorID == TOTPMultiFactorGenerator.factorID)
            // A wrong code (an hour off): invalidVerificationCode, and the resolver stays usable.
            let wrong = try Self.code(secret, h, offset: 3600)
            await #expect { try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: wrong)) } throws: {
                Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue
            }
            let current = try Self.code(secret, h)
            let result = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: current))
            #expect(auth.currentUser === result.user && result.user.uid == user.uid)
            #expect(result.additionalUserInfo?.providerID == "password")
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "password")
            #expect(token.signInSecondFactor == "totp")
            #expect((token.claims["firebase"] as? [String: Any])?["second_factor_identifier"] as? String == factor.uid)
            // A used pending credential cannot be used again.
            await #expect { try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: current)) } throws: {
                Self.errorCode($0) == AuthErrorCode.invalidMultiFactorSession.rawValue
            }
            // The same code in a new sign-in: replayed, refused.
            try auth.signOut()
            let again = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "correct horse") }
            await #expect { try await again.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: current)) } throws: {
                Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue
            }

            // A recovery code (Hearth) signs in once, through the guide's code.
            let withRecovery = try await MultiFactorExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse") { hints in
                #expect(hints.map(\.uid) == [factor.uid])
                return .recoveryCode(recoveryCodes[0].uppercased())
            }
            #expect(try await withRecovery.user.getIDTokenResult().signInSecondFactor == "totp")
            try auth.signOut()
            await #expect {
                try await MultiFactorExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse") { _ in .recoveryCode(recoveryCodes[0]) }
            } throws: { Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue }
            #expect(auth.currentUser == nil)

            // Signed in with a TOTP code through the guide's code.
            h.clock.advance(by: 30)
            let signedIn = try await MultiFactorExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse") { hints in
                .totp(enrollmentID: hints[0].uid, code: try Self.code(secret, h))
            }
            let signedInUser = signedIn.user
            // Reauthenticating asks for the second factor too, and keeps the same user.
            await #expect {
                try await signedInUser.reauthenticate(with: EmailAuthProvider.credential(withEmail: "ada@example.com", password: "correct horse"))
            } throws: { Self.errorCode($0) == AuthErrorCode.secondFactorRequired.rawValue }
            h.clock.advance(by: 30)
            let reauthenticated = try await MultiFactorExamples.reauthenticate(user: signedInUser, password: "correct horse") { hints in
                .totp(enrollmentID: hints[0].uid, code: try Self.code(secret, h))
            }
            #expect(reauthenticated.user === signedInUser && auth.currentUser === signedInUser)

            // New recovery codes replace the old set.
            let fresh = try await signedInUser.multiFactor.generateRecoveryCodes()
            #expect(fresh.count == 10 && Set(fresh).isDisjoint(with: recoveryCodes))
            try auth.signOut()
            await #expect {
                try await MultiFactorExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse") { _ in .recoveryCode(recoveryCodes[1]) }
            } throws: { Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue }
            let viaFresh = try await MultiFactorExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse") { _ in .recoveryCode(fresh[0]) }

            // Withdrawal: an unknown id, then the factor; the password alone signs in again.
            await #expect { try await viaFresh.user.multiFactor.unenroll(withFactorUID: "no-such-factor") } throws: {
                Self.errorCode($0) == AuthErrorCode.multiFactorInfoNotFound.rawValue
            }
            try await MultiFactorExamples.removeAllFactors(user: viaFresh.user)
            #expect(viaFresh.user.multiFactor.enrolledFactors.isEmpty)
            #expect(auth.currentUser === viaFresh.user)
            try auth.signOut()
            let plain = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse")
            #expect(try await plain.user.getIDTokenResult().signInSecondFactor == nil)
        }
    }

    /// What enrollment refuses: TOTP off for the project, an unverified email, a wrong first code; and a sign-in
    /// assertion cannot enroll.
    @Test func enrollmentRefusals() async throws {
        try await HearthHarness.run { h in
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse").user
            try await Self.verifyEmail(h, user)
            await #expect { try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session()) } throws: {
                Self.errorCode($0) == AuthErrorCode.operationNotAllowed.rawValue
            }
            try await Self.enableTOTP(h)
            let unverified = try await auth.createUser(withEmail: "alan@example.com", password: "correct horse").user
            await #expect { try await TOTPMultiFactorGenerator.generateSecret(with: try await unverified.multiFactor.getSession()) } throws: {
                Self.errorCode($0) == AuthErrorCode.unverifiedEmail.rawValue
            }
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            #expect(secret.codeLength == 6 && secret.codeIntervalSeconds == 30 && secret.hashingAlgorithm == "SHA1")
            #expect(Base32.decode(secret.sharedSecretKey())?.count ?? 0 >= 16)
            if let deadline = secret.enrollmentCompletionDeadline { #expect(deadline > h.clock.now) }
            let wrong = try Self.code(secret.sharedSecretKey(), h, offset: 3600)
            await #expect {
                try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: wrong), displayName: "x")
            } throws: { Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue }
            #expect(user.multiFactor.enrolledFactors.isEmpty)
            // The right code still enrolls with the same secret (Firebase's form: no recovery codes).
            let right = try Self.code(secret.sharedSecretKey(), h)
            try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: right), displayName: nil)
            #expect(user.multiFactor.enrolledFactors.count == 1)
        }
    }

    /// An email-link sign-in of an enrolled user goes through the resolver; so does reauthenticating with a link.
    @Test func emailLinkSignInAsksForTheSecondFactor() async throws {
        try await HearthHarness.run { h in
            try await Self.enableTOTP(h)
            let auth = AuthSDKTests.makeAuth(h)
            let settings = ActionCodeSettings()
            settings.url = URL(string: h.baseURL + "/finish")
            settings.handleCodeInApp = true
            try await auth.sendSignInLink(toEmail: "lin@example.com", actionCodeSettings: settings)
            let first = try await EmailActionsSDKTests.mail(h, to: "lin@example.com", .emailSignIn)
            let user = try await auth.signIn(withEmail: "lin@example.com", link: first.oobLink).user
            #expect(user.emailVerified)
            let (secret, _) = try await Self.enroll(h, user)
            try auth.signOut()
            h.clock.advance(by: 30)
            try await auth.sendSignInLink(toEmail: "lin@example.com", actionCodeSettings: settings)
            let second = try await EmailActionsSDKTests.mail(h, to: "lin@example.com", .emailSignIn, after: first.oobCode)
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "lin@example.com", link: second.oobLink) }
            #expect(auth.currentUser == nil)
            let hint = try #require(resolver.hints.first)
            let result = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid,
                                                                                                            oneTimePassword: try Self.code(secret, h)))
            #expect(result.user.uid == user.uid && result.additionalUserInfo?.providerID == "password")
            #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
        }
    }

    /// A Microsoft sign-in of an enrolled user goes through the resolver too, and the result keeps the provider's
    /// profile and tokens.
    @Test func federatedSignInAsksForTheSecondFactor() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await Self.enableTOTP(h)
            let auth = AuthSDKTests.makeAuth(h)
            let first = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com", name: "Ada"),
                                                                   tenant: "consumers")
            #expect(first.user.emailVerified)
            let (secret, _) = try await Self.enroll(h, first.user)
            try auth.signOut()
            h.clock.advance(by: 30)
            let resolver = try await Self.resolver {
                try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com", name: "Ada"),
                                                          tenant: "consumers")
            }
            let hint = try #require(resolver.hints.first)
            let result = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid,
                                                                                                            oneTimePassword: try Self.code(secret, h)))
            #expect(result.user.uid == first.user.uid)
            #expect(result.additionalUserInfo?.providerID == "microsoft.com")
            #expect(result.credential?.accessToken?.isEmpty == false)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "microsoft.com" && token.signInSecondFactor == "totp")
        }
    }
}
