import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// HearthAuth's passkeys end to end against a real Hearth server over loopback HTTP: enrollment, the list, sign-in,
/// replays and a wrong origin refused, removal, passkeys off, and a passkey as the second factor after TOTP. The
/// authenticator is HearthTesting's `SoftwarePasskey` (swift-crypto keys), fed the options the SDK's challenges carry
/// (`optionsJSON`) and read back through `PasskeyRegistration(json:)` / `PasskeyAssertion(json:)`; its client data names
/// `https://<rp id>`, the origin Apple's platform authenticator reports.
@Suite struct PasskeySDKTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    /// Passkeys on (rp id: the harness's public host, 127.0.0.1 — fine for a software authenticator).
    static func enablePasskeys(_ h: HearthHarness) async throws {
        let body = #"{"passkeys":{"enabled":true}}"#
        let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=passkeys", body: body, headers: owner)
        guard reply.status == 200 else { throw HarnessError("enabling passkeys failed: \(reply.status) \(reply.text)") }
    }

    /// The origin Apple's platform authenticator writes for an app associated with the rp id.
    static func origin(_ rpId: String) -> String { "https://\(rpId)" }

    /// Runs `body` on the authenticator and keeps its new state (counter, user handle).
    static func using<T>(_ device: Locked<SoftwarePasskey>, _ body: (inout SoftwarePasskey) throws -> T) rethrows -> T {
        var copy = device.value
        let result = try body(&copy)
        device.mutate { $0 = copy }
        return result
    }

    /// `device`'s new credential for `challenge`, as the neutral value.
    static func registration(_ device: Locked<SoftwarePasskey>, _ challenge: PasskeyEnrollmentChallenge) throws -> PasskeyRegistration {
        let options = try JSONDecoder().decode(PasskeyCreationOptions.self, from: challenge.optionsJSON)
        let response = try Self.using(device) { try $0.register(options, origin: Self.origin(challenge.rpId)) }
        return try PasskeyRegistration(json: JSONEncoder().encode(response))
    }

    /// Enrolls `device` for `user` through the neutral layer.
    static func enroll(_ user: User, _ device: Locked<SoftwarePasskey>, name: String?) async throws -> AuthDataResult {
        let challenge = try await user.passkeyEnrollmentChallenge(withName: name)
        return try await user.finalizePasskeyEnrollment(with: try Self.registration(device, challenge))
    }

    /// `device`'s assertion over `challenge` (from `origin`, else the rp id's https origin).
    static func assertion(_ device: Locked<SoftwarePasskey>, _ challenge: PasskeySignInChallenge, origin: String? = nil) throws -> PasskeyAssertion {
        let options = try JSONDecoder().decode(PasskeyRequestOptions.self, from: challenge.optionsJSON)
        let response = try Self.using(device) { try $0.assert(options, origin: origin ?? Self.origin(challenge.rpId)) }
        return try PasskeyAssertion(json: JSONEncoder().encode(response))
    }

    static func code(_ error: any Error) -> Int { (error as NSError).code }

    /// `device` as the guide's authenticator.
    static func authenticator(_ device: Locked<SoftwarePasskey>) -> PasskeyExamples.Authenticator {
        PasskeyExamples.Authenticator(create: { challenge in try Self.registration(device, challenge) },
                                      sign: { challenge in try Self.assertion(device, challenge) })
    }

    /// The guide's flows (Examples/Passkeys.swift): add, sign in with the passkey alone, remove.
    @Test func theGuideFlowsRun() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePasskeys(h)
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse").user
            let device = Locked(SoftwarePasskey())
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
            #expect(challenge.rpId == "127.0.0.1" && challenge.challenge.count == 32 && challenge.userId.count == 32)
            #expect(challenge.userId != Data(user.uid.utf8) && challenge.userId != Data("ada@example.com".utf8), "the user handle is neither uid nor email")
            #expect(challenge.algorithms.sorted() == [-257, -8, -7] && challenge.userVerification == "required" && challenge.timeout == 300)
            let device = Locked(SoftwarePasskey())
            let enrolled = try await user.finalizePasskeyEnrollment(with: try Self.registration(device, challenge))
            #expect(enrolled.user === user && auth.currentUser === user)
            let id = device.value.id
            #expect(user.enrolledPasskeys == [PasskeyInfo(name: "Laptop", credentialID: id)])

            // A second enrollment excludes the first credential; registering the same credential again is refused.
            let again = try await user.passkeyEnrollmentChallenge(withName: nil)
            #expect(again.excludedCredentialIds == [device.value.credentialId])

            // Sign in with the passkey alone.
            try auth.signOut()
            let signIn = try await auth.passkeySignInChallenge()
            #expect(signIn.rpId == "127.0.0.1" && signIn.allowedCredentialIds.isEmpty)
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
            try await signedIn.unenrollPasskey(withCredentialID: id)
            #expect(signedIn.enrolledPasskeys == [])
            await #expect { try await signedIn.unenrollPasskey(withCredentialID: id) } throws: {
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
            let device = Locked(SoftwarePasskey())
            _ = try await Self.enroll(user, device, name: "Phone passkey")
            #expect(user.multiFactor.enrolledFactors.count == 1, "a passkey is not listed as a MultiFactorInfo")
            try auth.signOut()

            let resolver = try await MultiFactorSDKTests.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "correct horse") }
            let challenge = try await resolver.passkeyChallenge()
            #expect(challenge.allowedCredentialIds == [device.value.credentialId])
            let first = try await resolver.resolveSignIn(with: PasskeyMultiFactorGenerator.assertionForSignIn(with: try Self.assertion(device, challenge)))
            #expect(first.user.uid == user.uid)
            // The guide's flow does the same in one call.
            try auth.signOut()
            let result = try await PasskeyExamples.signIn(auth: auth, email: "ada@example.com", password: "correct horse",
                                                          authenticator: Self.authenticator(device))
            #expect(result.user.uid == user.uid && auth.currentUser === result.user)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInSecondFactor == "passkey")
            #expect((token.claims["firebase"] as? [String: Any])?["second_factor_identifier"] as? String == device.value.id)
        }
    }

    /// Issue 35, item 4: with `userVerification: PREFERRED`, `finalizePasskeySignIn(with:)` of an assertion without
    /// user verification (one factor) for a TOTP user throws `secondFactorRequired` with a resolver (no user signed
    /// in); the TOTP code resolves it. With user verification the same passkey signs in at once.
    @Test func aPasskeyWithoutUserVerificationNeedsTheSecondFactor() async throws {
        try await HearthHarness.run { h in
            try await MultiFactorSDKTests.enableTOTP(h)
            let body = #"{"passkeys":{"enabled":true,"userVerification":"PREFERRED"}}"#
            let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=passkeys", body: body, headers: Self.owner)
            #expect(reply.status == 200, "\(reply.text)")
            let auth = AuthSDKTests.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            try await MultiFactorSDKTests.verifyEmail(h, user)
            let (secret, _) = try await MultiFactorSDKTests.enroll(h, user)
            let device = Locked(SoftwarePasskey())
            _ = try await Self.enroll(user, device, name: "Security key")
            try auth.signOut()

            let challenge = try await auth.passkeySignInChallenge()
            #expect(challenge.userVerification == "preferred")
            let options = try JSONDecoder().decode(PasskeyRequestOptions.self, from: challenge.optionsJSON)
            let presenceOnly = try PasskeyAssertion(json: JSONEncoder().encode(
                try Self.using(device) { try $0.assert(options, origin: Self.origin(challenge.rpId), flags: 0x01) }))
            let resolver = try await MultiFactorSDKTests.resolver { try await auth.finalizePasskeySignIn(with: presenceOnly) }
            #expect(auth.currentUser == nil)
            let hint = try #require(resolver.hints.first)
            #expect(hint.factorID == TOTPMultiFactorGenerator.factorID)
            h.clock.advance(by: 30)
            let result = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: hint.uid, oneTimePassword: try MultiFactorSDKTests.code(secret, h)))
            #expect(result.user.uid == user.uid && auth.currentUser === result.user)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "passkey" && token.signInSecondFactor == "totp")

            try auth.signOut()
            let verified = try await auth.finalizePasskeySignIn(with: try Self.assertion(device, try await auth.passkeySignInChallenge()))
            #expect(verified.user.uid == user.uid)
            #expect(try await verified.user.getIDTokenResult().signInSecondFactor == nil)
        }
    }
}
