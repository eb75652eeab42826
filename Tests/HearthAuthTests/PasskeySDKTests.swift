import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// HearthAuth's passkeys end to end against a real Hearth server over loopback HTTP: enrollment, the list, sign-in,
/// replays and a wrong origin refused, removal, passkeys off, and a passkey as the second factor after TOTP. The
/// authenticator is HearthTesting's `SoftwarePasskey` (swift-crypto keys); the client data names `https://localhost`,
/// the origin Apple's platform authenticator reports for the rp id `localhost`.
@Suite struct PasskeySDKTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let origin = "https://localhost"

    /// Passkeys on, rp id `localhost` (the harness's public URL is an IP address, which cannot be an rp id).
    static func enablePasskeys(_ h: HearthHarness) async throws {
        let body = #"{"passkeys":{"enabled":true,"rpId":"localhost"}}"#
        let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=passkeys", body: body, headers: owner)
        guard reply.status == 200 else { throw HarnessError("enabling passkeys failed: \(reply.status) \(reply.text)") }
    }

    /// Enrolls `device` for `user` through the neutral layer.
    static func enroll(_ user: User, _ device: SoftwarePasskey, name: String?, origin: String = origin) async throws -> AuthDataResult {
        let challenge = try await user.passkeyEnrollmentChallenge(withName: name)
        let made = device.register(rpId: challenge.rpId, challenge: challenge.challenge, userHandle: challenge.userId, origin: origin)
        return try await user.finalizePasskeyEnrollment(with: PasskeyRegistration(credentialId: made.credentialId, clientDataJSON: made.clientDataJSON,
                                                                                   attestationObject: made.attestationObject))
    }

    /// `device`'s assertion over `challenge`.
    static func assertion(_ device: SoftwarePasskey, _ challenge: PasskeySignInChallenge, origin: String = origin) throws -> PasskeyAssertion {
        let got = try device.assert(rpId: challenge.rpId, challenge: challenge.challenge, origin: origin)
        return PasskeyAssertion(credentialId: got.credentialId, clientDataJSON: got.clientDataJSON, authenticatorData: got.authenticatorData,
                                signature: got.signature, userHandle: got.userHandle)
    }

    static func code(_ error: any Error) -> Int { (error as NSError).code }

    /// `device` as the guide's authenticator.
    static func authenticator(_ device: SoftwarePasskey) -> PasskeyExamples.Authenticator {
        PasskeyExamples.Authenticator(create: { challenge in
            let made = device.register(rpId: challenge.rpId, challenge: challenge.challenge, userHandle: challenge.userId, origin: Self.origin)
            return PasskeyRegistration(credentialId: made.credentialId, clientDataJSON: made.clientDataJSON, attestationObject: made.attestationObject)
        }, sign: { challenge in try Self.assertion(device, challenge) })
    }

    /// The guide's flows (Examples/Passkeys.swift): add, sign in with the passkey alone, remove.
    @Test func theGuideFlowsRun() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePasskeys(h)
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse").user
            let device = SoftwarePasskey()
            let passkeys = try await PasskeyExamples.addPasskey(user: user, name: "Desk key", authenticator: Self.authenticator(device))
            #expect(passkeys.map(\.name) == ["Desk key"])
            try auth.signOut()
            let result = try await PasskeyExamples.signIn(auth: auth, authenticator: Self.authenticator(device))
            #expect(result.user.uid == user.uid && result.user.email == "grace@example.com")
            #expect(try await PasskeyExamples.removePasskeys(user: result.user, named: "Desk key") == 1)
            #expect(result.user.enrolledPasskeys == [])
        }
    }

    @Test func enrollListSignInAndRemove() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePasskeys(h)
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            #expect(user.enrolledPasskeys == [])

            let challenge = try await user.passkeyEnrollmentChallenge(withName: "Laptop")
            #expect(challenge.rpId == "localhost" && challenge.challenge.count >= 16 && !challenge.userId.isEmpty)
            #expect(challenge.userId != Data(user.uid.utf8) && challenge.userId != Data("ada@example.com".utf8), "the user handle is neither uid nor email")
            #expect(challenge.algorithms.contains(-7))
            let device = SoftwarePasskey()
            let made = device.register(rpId: challenge.rpId, challenge: challenge.challenge, userHandle: challenge.userId, origin: Self.origin)
            let enrolled = try await user.finalizePasskeyEnrollment(with: PasskeyRegistration(
                credentialId: made.credentialId, clientDataJSON: made.clientDataJSON, attestationObject: made.attestationObject))
            #expect(enrolled.user === user && auth.currentUser === user)
            #expect(user.enrolledPasskeys == [PasskeyInfo(name: "Laptop", credentialID: device.credentialId.base64URLEncodedString())])

            // A second enrollment excludes the first credential; registering the same credential again is refused.
            let again = try await user.passkeyEnrollmentChallenge(withName: nil)
            #expect(again.excludedCredentialIds == [device.credentialId])

            // Sign in with the passkey alone.
            try auth.signOut()
            let signIn = try await auth.passkeySignInChallenge()
            #expect(signIn.rpId == "localhost" && signIn.allowedCredentialIds.isEmpty)
            let assertion = try Self.assertion(device, signIn)
            let result = try await auth.finalizePasskeySignIn(with: assertion)
            #expect(result.user.uid == user.uid && auth.currentUser === result.user)
            #expect(try await result.user.getIDTokenResult().signInProvider == "passkey")
            #expect(result.user.enrolledPasskeys?.count == 1)

            // The same answer again: its challenge is used.
            await #expect { try await auth.finalizePasskeySignIn(with: assertion) } throws: {
                [AuthErrorCode.passkeyChallengeExpired.rawValue, AuthErrorCode.invalidAuthenticatorResponse.rawValue].contains(Self.code($0))
            }
            // Another page's origin is refused.
            let elsewhere = try Self.assertion(device, try await auth.passkeySignInChallenge(), origin: "https://evil.example")
            await #expect { try await auth.finalizePasskeySignIn(with: elsewhere) } throws: {
                Self.code($0) == AuthErrorCode.invalidAuthenticatorResponse.rawValue
            }

            // Removal: the list empties and the passkey no longer signs in.
            let signedIn = try #require(auth.currentUser)
            try await signedIn.unenrollPasskey(withCredentialID: device.credentialId.base64URLEncodedString())
            #expect(signedIn.enrolledPasskeys == [])
            await #expect { try await signedIn.unenrollPasskey(withCredentialID: device.credentialId.base64URLEncodedString()) } throws: {
                Self.code($0) == AuthErrorCode.missingPasskeyEnrollment.rawValue
            }
            let removed = try Self.assertion(device, try await auth.passkeySignInChallenge())
            await #expect { try await auth.finalizePasskeySignIn(with: removed) } throws: {
                [AuthErrorCode.missingPasskeyEnrollment.rawValue, AuthErrorCode.invalidAuthenticatorResponse.rawValue].contains(Self.code($0))
            }
        }
    }

    @Test func passkeysOffIsOperationNotAllowed() async throws {
        try await HearthHarness.run { h in
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            await #expect { try await user.passkeyEnrollmentChallenge(withName: nil) } throws: {
                Self.code($0) == AuthErrorCode.operationNotAllowed.rawValue
                    && ($0 as NSError).userInfo[AuthErrorUserInfoNameKey] as? String == "PASSKEY_NOT_ENABLED"
            }
            await #expect { try await auth.passkeySignInChallenge() } throws: { Self.code($0) == AuthErrorCode.operationNotAllowed.rawValue }
        }
    }

    /// Hearth's extension: a user with TOTP and a passkey completes a password sign-in with the passkey.
    @Test func passkeyAsTheSecondFactorAfterTOTP() async throws {
        try await HearthHarness.run { h in
            try await MultiFactorSDKTests.enableTOTP(h)
            try await Self.enablePasskeys(h)
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            try await MultiFactorSDKTests.verifyEmail(h, user)
            _ = try await MultiFactorSDKTests.enroll(h, user)
            let device = SoftwarePasskey()
            _ = try await Self.enroll(user, device, name: "Phone passkey")
            #expect(user.multiFactor.enrolledFactors.count == 1, "a passkey is not listed as a MultiFactorInfo")
            try auth.signOut()

            let resolver = try await MultiFactorSDKTests.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "correct horse") }
            let challenge = try await resolver.passkeyChallenge()
            #expect(challenge.allowedCredentialIds == [device.credentialId])
            let first = try await resolver.resolveSignIn(with: PasskeyMultiFactorGenerator.assertionForSignIn(with: try Self.assertion(device, challenge)))
            #expect(first.user.uid == user.uid)
            // The guide's flow does the same in one call.
            try auth.signOut()
            let result = try await PasskeyExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse",
                                                          authenticator: Self.authenticator(device))
            #expect(result.user.uid == user.uid && auth.currentUser === result.user)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInSecondFactor == "passkey")
            #expect((token.claims["firebase"] as? [String: Any])?["second_factor_identifier"] as? String == device.credentialId.base64URLEncodedString())
        }
    }
}
