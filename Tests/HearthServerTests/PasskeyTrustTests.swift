import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Issue 35's passkey items over HTTP against a real server with a software authenticator: an assertion without
/// user verification is one factor (item 4), and a user's open ceremonies are bounded (item 8).
@Suite struct PasskeyTrustTests {
    /// The flags of an assertion that tested presence only (UP), and of one that verified the user too (UP|UV).
    static let presenceOnly: UInt8 = 0x01
    static let verified: UInt8 = 0x05

    /// A verified user with a TOTP factor and a passkey (registered with UV, accepted by either setting).
    static func totpUserWithPasskey(_ h: HearthHarness, _ email: String) async throws -> (localId: String, totp: MultiFactorTests.Enrolled, passkey: SoftwarePasskey) {
        let user = try await MultiFactorTests.verifiedUser(h, email)
        let totp = try await MultiFactorTests.enroll(h, idToken: try #require(user.idToken))
        var passkey = SoftwarePasskey()
        _ = try await PasskeyTests.enroll(h, totp.tokens.idToken, &passkey)
        return (user.localId, totp, passkey)
    }

    static func signIn(_ h: HearthHarness, _ passkey: inout SoftwarePasskey, flags: UInt8) async throws -> HearthHarness.Reply {
        try await PasskeyTests.finalizeSignIn(h, try passkey.assert(try await PasskeyTests.signInOptions(h), origin: h.baseURL, flags: flags))
    }

    // MARK: Item 4

    /// Issue 35, item 4: with `userVerification: PREFERRED`, a passkey assertion without user verification proves
    /// possession only. A user with a TOTP factor gets the second-factor challenge (`mfaPendingCredential` and
    /// `mfaInfo`, no tokens, as after a password); a passkey cannot be the second factor of a sign-in a passkey began;
    /// the TOTP code completes it (provider `passkey`, second factor `totp`). An assertion with user verification
    /// is both factors and signs in at once; a user without a second factor signs in with presence alone.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aPasskeyWithoutUserVerificationIsOneFactor(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await MultiFactorTests.enableTOTP(h)
            try await PasskeyTests.enablePasskeys(h, #","userVerification":"PREFERRED""#)
            let (localId, totp, key) = try await Self.totpUserWithPasskey(h, "ada@example.com")
            var passkey = key

            let reply = try await Self.signIn(h, &passkey, flags: Self.presenceOnly)
            #expect(reply.status == 200, "\(reply.text)")
            let answer = try reply.decode(PasskeySessionResponse.self)
            #expect(answer.idToken == nil && answer.refreshToken == nil && answer.expiresIn == nil, "\(reply.text)")
            #expect(answer.mfaInfo?.map(\.mfaEnrollmentId) == [totp.enrollmentId])
            let pending = try #require(answer.mfaPendingCredential)
            #expect(answer.localId == localId)

            // The same passkey (or another) cannot stand in for the second factor.
            let again = try await h.post(WirePaths.mfaSignInStart, raw: #"{"mfaPendingCredential":"\#(pending)","passkeySignInInfo":{}}"#)
            #expect(again.errorCode == "PASSKEY_ENROLLMENT_NOT_FOUND" && again.text.contains("began with a passkey"), "\(again.text)")

            // The TOTP code completes it (the enrollment spent the current step: the next one).
            h.clock.advance(by: 30)
            let finalized = try await MultiFactorTests.finalize(h, pending, totp.enrollmentId, code: totp.generator.code(at: h.clock.now))
            #expect(finalized.status == 200, "\(finalized.text)")
            let firebase = try #require(MultiFactorTests.secondFactorClaims(try finalized.decode(FinalizeMFASignInResponse.self).idToken))
            #expect(firebase["sign_in_provider"] as? String == "passkey")
            #expect(firebase["sign_in_second_factor"] as? String == "totp" && firebase["second_factor_identifier"] as? String == totp.enrollmentId)

            // With user verification the passkey is both factors: tokens at once, no second-factor claims.
            let direct = try await Self.signIn(h, &passkey, flags: Self.verified)
            #expect(direct.status == 200 && direct.json?["mfaPendingCredential"] == nil, "\(direct.text)")
            let claims = try #require(MultiFactorTests.secondFactorClaims(try direct.decode(PasskeySessionResponse.self).idToken))
            #expect(claims["sign_in_provider"] as? String == "passkey" && claims["sign_in_second_factor"] == nil)

            // A user without a second factor has nothing more to give: presence alone signs in.
            let bob = try await h.signUp(email: "bob@example.com")
            var bobsKey = SoftwarePasskey()
            _ = try await PasskeyTests.enroll(h, bob.idToken, &bobsKey)
            let plain = try await Self.signIn(h, &bobsKey, flags: Self.presenceOnly)
            #expect(plain.status == 200 && plain.json?["idToken"] != nil && plain.json?["mfaPendingCredential"] == nil, "\(plain.text)")

            // A disabled user is refused before any pending sign-in is made.
            var disabled = try #require(try await h.store.user(localId: localId))
            disabled.disabled = true
            try await h.store.updateUser(disabled)
            #expect(try await Self.signIn(h, &passkey, flags: Self.presenceOnly).errorCode == "USER_DISABLED")
        }
    }

    /// Issue 35, item 4: `userVerification: REQUIRED` (the default) is unchanged: an assertion without user
    /// verification is refused outright (no pending sign-in), one with it signs a TOTP user in without a code.
    @Test func requiredUserVerificationIsUnchanged() async throws {
        try await HearthHarness.run { h in
            try await MultiFactorTests.enableTOTP(h)
            try await PasskeyTests.enablePasskeys(h)
            var passkey = try await Self.totpUserWithPasskey(h, "ada@example.com").passkey
            let refused = try await Self.signIn(h, &passkey, flags: Self.presenceOnly)
            #expect(refused.errorCode == "INVALID_AUTHENTICATOR_RESPONSE" && refused.text.contains("did not verify the user"), "\(refused.text)")
            #expect(refused.json?["mfaPendingCredential"] == nil)
            let signedIn = try await Self.signIn(h, &passkey, flags: Self.verified)
            #expect(signedIn.status == 200 && signedIn.json?["idToken"] != nil && signedIn.json?["mfaPendingCredential"] == nil, "\(signedIn.text)")
        }
    }

    // MARK: Item 8

    /// The stored challenges among `options` (each is taken: counting consumes them).
    static func stored(_ challenges: [String], in h: HearthHarness) async throws -> Int {
        var count = 0
        for challenge in challenges {
            let bytes = try #require(PasskeyBytes.decode(challenge))
            if try await h.store.takePasskeyChallenge(hash: WireDigest.sha256Hex(bytes: bytes)) != nil { count += 1 }
        }
        return count
    }

    /// Issue 35, item 8: `passkeyEnrollment:start` keeps a user's newest 5 enrollment challenges: 300 starts of one
    /// anonymous user, one after another, leave 5 rows; the oldest answer is refused saying its challenge was
    /// replaced, the newest completes; 300 concurrent starts leave 5 rows too.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func enrollmentStartsAreBoundedPerUser(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await PasskeyTests.enablePasskeys(h)
            let signedUp = try await h.post(WirePaths.accounts("signUp"), raw: "{}")
            #expect(signedUp.status == 200, "\(signedUp.text)")
            let anonymous = try signedUp.decode(SignUpResponse.self)

            var started: [PasskeyCreationOptions] = []
            for _ in 0..<300 {
                started.append(try await PasskeyTests.startEnrollment(h, anonymous.idToken))
                h.clock.advance(by: 0.001)
            }
            var oldest = SoftwarePasskey()
            let dropped = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: anonymous.idToken, name: "Old", authenticatorRegistrationResponse: try oldest.register(started[0], origin: h.baseURL)))
            #expect(dropped.errorCode == "INVALID_AUTHENTICATOR_RESPONSE" && dropped.text.contains("replaced by newer ones"), "\(dropped.text)")
            var newest = SoftwarePasskey()
            let completed = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: anonymous.idToken, name: "New", authenticatorRegistrationResponse: try newest.register(started[299], origin: h.baseURL)))
            #expect(completed.status == 200, "\(completed.text)")
            #expect(try await h.store.passkeys(localId: anonymous.localId).map(\.credentialId) == [newest.id])
            // Four more stay open (the newest was taken by its finalize).
            #expect(try await Self.stored(started.dropLast().map(\.challenge), in: h) == 4)

            let idToken = anonymous.idToken
            let burst = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<300 {
                    group.addTask {
                        let reply = try await h.post(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: idToken))
                        guard reply.status == 200 else { throw HarnessError("start failed: \(reply.status) \(reply.text)") }
                        return try reply.decode(StartPasskeyEnrollmentResponse.self).credentialCreationOptions.challenge
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(burst.count == 300)
            #expect(try await Self.stored(burst, in: h) == 5)
        }
    }
}
