import Foundation
import HTTPTypes
@testable import HearthAuth
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// HearthAuth's phone sign-in and SMS second factor end to end against a real Hearth server, the codes read from
/// its dev SMS sink (the demo project sends no real SMS): sign-up and sign-in, reauthentication, linking and the
/// temporary-proof dance, SMS factor enrollment and sign-in through the resolver, and a phone first factor refused
/// for a user with an SMS factor.
@Suite struct PhoneAuthSDKTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// The code of the newest SMS to `number` (E.164) in the server's dev sink.
    static func code(_ h: HearthHarness, _ number: String) throws -> String {
        let sink = try #require(h.server.accounts.sms.devSink, "the demo project's server keeps a dev SMS sink")
        return try #require(sink.latest(to: number)?.code, "no SMS to \(number)")
    }

    /// SMS second factors on for the harness's project (`mfa.enabledProviders: ["PHONE_SMS"]`), as the Admin SDK sends it.
    static func enablePhoneMFA(_ h: HearthHarness) async throws {
        let body = #"{"mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"],"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":1}}]}}"#
        let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=mfa", body: body, headers: owner)
        guard reply.status == 200 else { throw HarnessError("enabling SMS MFA failed: \(reply.status) \(reply.text)") }
    }

    static func errorCode(_ error: any Error) -> Int { (error as NSError).code }

    /// Issue 40, items 1 and 6: a code signs up a new number (`isNewUser`, `phoneNumber`, `sign_in_provider: phone`),
    /// is used once, signs in again later; a wrong code is `invalidVerificationCode`; reauthentication keeps the user
    /// and refuses a number of no account (`userMismatch`).
    @Test func signUpSignInAndReauthenticateWithAPhoneNumber() async throws {
        try await HearthHarness.run { h in
            let auth = AuthSDKTests.makeAuth(h)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let number = "+15555550100"
            let id = try await provider.verifyPhoneNumber("+1 (555) 555-0100", uiDelegate: nil)
            let code = try Self.code(h, number)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            let wrong = code == "000000" ? "111111" : "000000"
            await #expect { try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: wrong)) } throws: {
                Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue
            }
            #expect(auth.currentUser == nil)
            let credential = provider.credential(withVerificationID: id, verificationCode: code)
            let created = try await auth.signIn(with: credential)
            #expect(created.additionalUserInfo?.isNewUser == true && created.additionalUserInfo?.providerID == "phone")
            #expect(created.user.phoneNumber == number && created.user.email == nil && !created.user.isAnonymous)
            #expect(created.user.providerData.map(\.providerID) == ["phone"])
            let token = try await created.user.getIDTokenResult()
            #expect(token.signInProvider == "phone" && token.claims["phone_number"] as? String == number)
            // The code was used: the same credential again is refused.
            await #expect { try await auth.signIn(with: credential) } throws: {
                [AuthErrorCode.invalidVerificationID.rawValue, AuthErrorCode.sessionExpired.rawValue].contains(Self.errorCode($0))
            }

            // A later sign-in is the same user, not new.
            try auth.signOut()
            let again = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let returning = try await auth.signIn(with: provider.credential(withVerificationID: again, verificationCode: try Self.code(h, number)))
            #expect(returning.user.uid == created.user.uid && returning.additionalUserInfo?.isNewUser == false)

            // Reauthentication: the same user continues with new tokens.
            h.clock.advance(by: 60)
            let before = try await returning.user.getIDTokenResult().authDate
            let reauthID = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let reauthenticated = try await returning.user.reauthenticate(with: provider.credential(withVerificationID: reauthID,
                                                                                                      verificationCode: try Self.code(h, number)))
            #expect(reauthenticated.user === returning.user && auth.currentUser === returning.user)
            #expect(try await returning.user.getIDTokenResult().authDate > before)
            // Another number (no account): no account is made, the SDK says userMismatch.
            let strangerID = try await provider.verifyPhoneNumber("+15555550111", uiDelegate: nil)
            await #expect {
                try await returning.user.reauthenticate(with: provider.credential(withVerificationID: strangerID, verificationCode: try Self.code(h, "+15555550111")))
            } throws: { Self.errorCode($0) == AuthErrorCode.userMismatch.rawValue }
            #expect(try await h.store.user(providerId: "phone", federatedId: "+15555550111") == nil)
            #expect(auth.currentUser === returning.user)
        }
    }

    /// Issue 40, items 1 and 6: linking a number to an email account; a number on another account fails with
    /// `credentialAlreadyInUse` whose `PhoneAuthCredential` signs in to that account without a new SMS (once);
    /// unlinking removes the number.
    @Test func linkAndTheTemporaryProofDance() async throws {
        try await HearthHarness.run { h in
            let auth = AuthSDKTests.makeAuth(h)
            let provider = PhoneAuthProvider.provider(auth: auth)
            // The number's owner signs up with it.
            let ownerID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            let owner = try await auth.signIn(with: provider.credential(withVerificationID: ownerID, verificationCode: try Self.code(h, "+15555550100"))).user
            try auth.signOut()

            let ada = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            let takenID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            var caught: NSError?
            do {
                _ = try await ada.link(with: provider.credential(withVerificationID: takenID, verificationCode: try Self.code(h, "+15555550100")))
            } catch {
                caught = error as NSError
            }
            let error = try #require(caught)
            #expect(error.code == AuthErrorCode.credentialAlreadyInUse.rawValue, "\(error)")
            let proof = try #require(error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? PhoneAuthCredential)
            #expect(proof.phoneNumber == "+15555550100")
            #expect(auth.currentUser === ada && ada.phoneNumber == nil)
            // The proof signs in to the number's account, once.
            let proved = try await auth.signIn(with: proof)
            #expect(proved.user.uid == owner.uid && proved.additionalUserInfo?.isNewUser == false)
            await #expect { try await auth.signIn(with: proof) } throws: { Self.errorCode($0) == AuthErrorCode.invalidCredential.rawValue }

            // A free number links; the account now signs in with it too.
            let back = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse").user
            let freeID = try await provider.verifyPhoneNumber("+15555550122", uiDelegate: nil)
            let linked = try await back.link(with: provider.credential(withVerificationID: freeID, verificationCode: try Self.code(h, "+15555550122")))
            #expect(linked.user === back && back.phoneNumber == "+15555550122")
            #expect(Set(back.providerData.map(\.providerID)) == ["password", "phone"])
            // A second number: the phone provider is linked already (no request).
            await #expect { try await back.link(with: provider.credential(withVerificationID: freeID, verificationCode: "123456")) } throws: {
                Self.errorCode($0) == AuthErrorCode.providerAlreadyLinked.rawValue
            }
            _ = try await back.unlink(fromProvider: PhoneAuthProvider.id)
            #expect(back.phoneNumber == nil && back.providerData.map(\.providerID) == ["password"])
        }
    }

    /// Issue 40, items 2 and 6: an SMS second factor enrolled through the SDK (the full number in
    /// `enrolledFactors`), a sign-in stopped at it (the hint's number masked), the code sent through the resolver's
    /// session completing it (`sign_in_second_factor: phone`); the phone number of such a user no longer signs in
    /// as a first factor (`unsupportedFirstFactor`).
    @Test func enrollAnSMSFactorAndResolveASignInWithIt() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePhoneMFA(h)
            let auth = AuthSDKTests.makeAuth(h)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let user = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse").user
            try await MultiFactorSDKTests.verifyEmail(h, user)
            // The user also signs in with a phone number (linked before the factor).
            let linkID = try await provider.verifyPhoneNumber("+15555550177", uiDelegate: nil)
            _ = try await user.link(with: provider.credential(withVerificationID: linkID, verificationCode: try Self.code(h, "+15555550177")))
            #expect(user.phoneNumber == "+15555550177")
            // The link's session counts as a phone sign-in (as at Firebase's emulator), which cannot enroll a factor.
            await #expect { try await provider.verifyPhoneNumber("+15555550142", uiDelegate: nil, multiFactorSession: try await user.multiFactor.session()) } throws: {
                Self.errorCode($0) == AuthErrorCode.unsupportedFirstFactor.rawValue
            }
            _ = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "grace@example.com", password: "correct horse"))

            let session = try await user.multiFactor.session()
            let enrollID = try await provider.verifyPhoneNumber("+15555550142", uiDelegate: nil, multiFactorSession: session)
            let enrollCode = try Self.code(h, "+15555550142")
            try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: provider.credential(
                withVerificationID: enrollID, verificationCode: enrollCode)), displayName: "Work phone")
            let factor = try #require(user.multiFactor.enrolledFactors.first as? PhoneMultiFactorInfo)
            #expect(factor.phoneNumber == "+15555550142" && factor.displayName == "Work phone" && factor.factorID == "phone")
            #expect(try await user.getIDTokenResult().signInSecondFactor == "phone")
            // The same number twice: secondFactorAlreadyEnrolled.
            await #expect { try await provider.verifyPhoneNumber("+15555550142", uiDelegate: nil, multiFactorSession: try await user.multiFactor.session()) } throws: {
                Self.errorCode($0) == AuthErrorCode.secondFactorAlreadyEnrolled.rawValue
            }

            try auth.signOut()
            h.clock.advance(by: 30)
            let resolver = try await MultiFactorSDKTests.resolver { try await auth.signIn(withEmail: "grace@example.com", password: "correct horse") }
            let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            #expect(hint.uid == factor.uid && hint.phoneNumber == "+*******0142", "the first factor alone does not reveal the number")
            let signInID = try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session)
            let signInCode = try Self.code(h, "+15555550142")
            #expect(signInCode != enrollCode || signInID != enrollID)
            let wrong = signInCode == "000000" ? "111111" : "000000"
            await #expect {
                try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: signInID, verificationCode: wrong)))
            } throws: { Self.errorCode($0) == AuthErrorCode.invalidVerificationCode.rawValue }
            let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: provider.credential(
                withVerificationID: signInID, verificationCode: signInCode)))
            #expect(result.user.uid == user.uid && auth.currentUser === result.user)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "password" && token.signInSecondFactor == "phone")
            #expect((token.claims["firebase"] as? [String: Any])?["second_factor_identifier"] as? String == factor.uid)

            // The user's own phone number is no longer a first factor.
            try auth.signOut()
            await #expect { try await provider.verifyPhoneNumber("+15555550177", uiDelegate: nil) } throws: {
                Self.errorCode($0) == AuthErrorCode.unsupportedFirstFactor.rawValue
            }
        }
    }
}
