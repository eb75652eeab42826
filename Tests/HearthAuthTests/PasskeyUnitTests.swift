import Foundation
@testable import HearthAuth
import HearthTesting
import HearthWire
import Testing

/// HearthAuth's passkeys against a scripted backend: the requests the neutral layer sends (the Apple SDK's shapes:
/// standard padded base64), the challenges it reads (either base64 alphabet), the user's passkey list, removal, the
/// second-factor extension, WebAuthn JSON input and the error mapping.
@Suite struct PasskeyUnitTests {
    /// Bytes whose standard base64 holds `+`, `/` and padding, and whose base64url differs.
    static let challengeBytes = Data([0xfb, 0xff, 0xbf, 0x01, 0x02])
    static let userHandle = Data([0xfe, 0xef, 0x7f, 0x10])

    static func lookup(_ uid: String, passkeys: [(String, String)]) -> String {
        let list = passkeys.map { #"{"name":"\#($0.0)","credentialId":"\#($0.1)"}"# }.joined(separator: ",")
        let field = passkeys.isEmpty ? "" : #","passkeyInfo":[\#(list)]"#
        return #"{"kind":"k","users":[{"localId":"\#(uid)","email":"ada@example.com","emailVerified":true,"providerUserInfo":[],"validSince":"0","disabled":false,"createdAt":"0"\#(field)}]}"#
    }

    /// A signed-in user `u1` over `backend`.
    static func signedIn(_ backend: RecordingBackend) async throws -> (Auth, User, String) {
        let auth = EmailActionsUnitTests.auth(backend)
        let token = MultiFactorUnitTests.idToken("u1")
        backend.answer(SignInWithPasswordRequest.method.clientPath,
                       #"{"kind":"k","localId":"u1","registered":true,"idToken":"\#(token)","refreshToken":"r-1","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", passkeys: []))
        let user = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user
        return (auth, user, token)
    }

    static func creationOptions(challenge: String, userId: String) -> String {
        #"""
        {"credentialCreationOptions":{"rp":{"id":"auth.example.com","name":"Hearth"},"user":{"id":"\#(userId)","name":"ada@example.com","displayName":"Ada"},
         "challenge":"\#(challenge)","pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-257},{"type":"public-key","alg":-8}],
         "timeout":300000,"excludeCredentials":[{"type":"public-key","id":"AQID"}],"authenticatorSelection":{"residentKey":"required","requireResidentKey":true,"userVerification":"required"},
         "attestation":"none"}}
        """#
    }

    @Test func enrollmentReadsTheOptionsAndSendsTheAppleSDKsShapes() async throws {
        let backend = RecordingBackend()
        let (_, user, token) = try await Self.signedIn(backend)
        #expect(user.enrolledPasskeys == [])

        // The server's standard padded base64 decodes; so would base64url (checked below with the sign-in options).
        backend.answer(WirePaths.passkeyEnrollmentStart, Self.creationOptions(challenge: Self.challengeBytes.base64EncodedString(),
                                                                              userId: Self.userHandle.base64EncodedString()))
        let challenge = try await user.passkeyEnrollmentChallenge(withName: "")
        let start = try #require(backend.requests.value.last)
        #expect(start.path == WirePaths.passkeyEnrollmentStart)
        #expect(start.body.keys.sorted() == ["idToken"] && start.body["idToken"] as? String == token)
        #expect(challenge.rpId == "auth.example.com")
        #expect(challenge.challenge == Self.challengeBytes && challenge.userId == Self.userHandle)
        #expect(challenge.name == "Unnamed account (Apple)", "an empty name is the preview's default")
        #expect(challenge.algorithms == [-7, -257, -8])
        #expect(challenge.excludedCredentialIds == [Data([1, 2, 3])])
        #expect(challenge.userVerification == "required" && challenge.timeout == 300)
        let options = try #require(try JSONSerialization.jsonObject(with: challenge.optionsJSON) as? [String: Any])
        #expect((options["rp"] as? [String: Any])?["id"] as? String == "auth.example.com")
        #expect(options["challenge"] as? String == Self.challengeBytes.base64EncodedString())

        let named = try await user.passkeyEnrollmentChallenge(withName: "MacBook")
        #expect(named.name == "MacBook")

        // Finalize: the name of the start, every binary member in standard padded base64, then the answer's tokens.
        let enrolled = MultiFactorUnitTests.idToken("u1", lifetime: 1800)
        backend.answer(WirePaths.passkeyEnrollmentFinalize, #"{"localId":"u1","idToken":"\#(enrolled)","refreshToken":"r-2","expiresIn":"1800"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", passkeys: [("MacBook", "-_-_AQ")]))
        let registration = PasskeyRegistration(credentialId: Data([0xfb, 0xef, 0xbe, 0xfb, 0xef]), clientDataJSON: Data(#"{"type":"webauthn.create"}"#.utf8),
                                               attestationObject: Data([0xa3, 0x63, 0x66, 0x6d, 0x74]))
        let result = try await user.finalizePasskeyEnrollment(with: registration)
        #expect(result.user === user && result.additionalUserInfo == nil)
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.passkeyEnrollmentFinalize })
        #expect(finalize.body["idToken"] as? String == token && finalize.body["name"] as? String == "MacBook")
        let response = try #require(finalize.body["authenticatorRegistrationResponse"] as? [String: Any])
        #expect(response["id"] as? String == "++++++8=", "standard alphabet, padded")
        #expect(response["type"] as? String == "public-key")
        let body = try #require(response["response"] as? [String: Any])
        #expect(body["clientDataJSON"] as? String == Data(#"{"type":"webauthn.create"}"#.utf8).base64EncodedString())
        #expect(body["attestationObject"] as? String == "o2NmbXQ=")
        #expect(try await user.getIDToken() == enrolled)
        #expect(await user.refreshToken == "r-2")
        #expect(user.enrolledPasskeys == [PasskeyInfo(name: "MacBook", credentialID: "-_-_AQ")])

        // The name is used once: the next finalize without a start sends the default.
        _ = try await user.finalizePasskeyEnrollment(with: registration)
        #expect(backend.requests.value.last { $0.path == WirePaths.passkeyEnrollmentFinalize }?.body["name"] as? String == "Unnamed account (Apple)")
        _ = try await user.finalizePasskeyEnrollment(with: registration, name: "Key")
        #expect(backend.requests.value.last { $0.path == WirePaths.passkeyEnrollmentFinalize }?.body["name"] as? String == "Key")
    }

    @Test func unreadableOptionsAreAnInternalErrorNotAWrongChallenge() async throws {
        let backend = RecordingBackend()
        let (auth, user, _) = try await Self.signedIn(backend)
        backend.answer(WirePaths.passkeyEnrollmentStart, Self.creationOptions(challenge: "not base64!", userId: "AQID"))
        await #expect { try await user.passkeyEnrollmentChallenge(withName: nil) } throws: { ($0 as NSError).code == AuthErrorCode.internalError.rawValue }
        backend.answer(WirePaths.passkeySignInStart, #"{"credentialRequestOptions":{"rpId":"auth.example.com","challenge":""}}"#)
        await #expect { try await auth.passkeySignInChallenge() } throws: { ($0 as NSError).code == AuthErrorCode.internalError.rawValue }
    }

    @Test func signInSendsAnEmptyStartAndTheAssertion() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        // base64url without padding decodes too (the JS SDK's form).
        backend.answer(WirePaths.passkeySignInStart, #"""
            {"credentialRequestOptions":{"rpId":"auth.example.com","challenge":"\#(Self.challengeBytes.base64URLEncodedString())","timeout":60000,"userVerification":"required"}}
            """#)
        let challenge = try await auth.passkeySignInChallenge()
        let start = try #require(backend.requests.value.last)
        #expect(start.path == WirePaths.passkeySignInStart && start.body.isEmpty, "no tenant: an empty object")
        #expect(challenge.rpId == "auth.example.com" && challenge.challenge == Self.challengeBytes)
        #expect(challenge.allowedCredentialIds.isEmpty && challenge.timeout == 60 && challenge.userVerification == "required")

        let token = MultiFactorUnitTests.idToken("u1")
        backend.answer(WirePaths.passkeySignInFinalize, #"{"localId":"u1","idToken":"\#(token)","refreshToken":"r-9","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", passkeys: [("Phone", "AQID")]))
        let assertion = PasskeyAssertion(credentialId: Data([1, 2, 3]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([0xff, 0xfe]),
                                         signature: Data([0x30, 0x44]), userHandle: Self.userHandle)
        let result = try await auth.finalizePasskeySignIn(with: assertion)
        #expect(auth.currentUser === result.user && result.user.uid == "u1")
        #expect(result.additionalUserInfo?.providerID == "passkey" && result.additionalUserInfo?.isNewUser == false)
        #expect(await result.user.refreshToken == "r-9")
        #expect(result.user.enrolledPasskeys?.first?.credentialID == "AQID")
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.passkeySignInFinalize })
        let response = try #require(finalize.body["authenticatorAuthenticationResponse"] as? [String: Any])
        #expect(response["id"] as? String == "AQID")
        let body = try #require(response["response"] as? [String: Any])
        #expect(body["clientDataJSON"] as? String == "e30=")
        #expect(body["authenticatorData"] as? String == "//4=")
        #expect(body["signature"] as? String == "MEQ=")
        #expect(body["userHandle"] as? String == Self.userHandle.base64EncodedString())
        // An authenticator without a user handle (a non-discoverable credential): no `userHandle` member.
        var anonymous = assertion
        anonymous.userHandle = Data()
        _ = try await auth.finalizePasskeySignIn(with: anonymous)
        let second = backend.requests.value.last { $0.path == WirePaths.passkeySignInFinalize }
        #expect(((second?.body["authenticatorAuthenticationResponse"] as? [String: Any])?["response"] as? [String: Any])?.keys.contains("userHandle") == false)
    }

    @Test func unenrollSendsDeletePasskeyAndReloads() async throws {
        let backend = RecordingBackend()
        let (_, user, token) = try await Self.signedIn(backend)
        await #expect { try await user.unenrollPasskey(withCredentialID: "") } throws: {
            ($0 as NSError).code == AuthErrorCode.missingPasskeyEnrollment.rawValue && ($0 as NSError).code == 17212
        }
        backend.answer(UpdateRequest.method.clientPath, #"{"kind":"k","localId":"u1","emailVerified":true,"providerUserInfo":[]}"#)
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1", passkeys: [("Other", "BBBB")]))
        try await user.unenrollPasskey(withCredentialID: "AQID")
        let update = try #require(backend.requests.value.last { $0.path == UpdateRequest.method.clientPath })
        #expect(update.body["idToken"] as? String == token)
        #expect(update.body["deletePasskey"] as? [String] == ["AQID"])
        #expect(backend.requests.value.last?.path == LookupRequest.method.clientPath)
        #expect(user.enrolledPasskeys?.map(\.credentialID) == ["BBBB"])
    }

    /// Hearth's second-factor extension: `mfaSignIn:start` with `passkeySignInInfo: {}` → the user's passkeys in
    /// `allowCredentials`; `mfaSignIn:finalize` with `passkeyVerificationInfo`.
    @Test func passkeyAsSecondFactor() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        backend.answer(SignInWithPasswordRequest.method.clientPath, MultiFactorUnitTests.pendingPasswordAnswer)
        let resolver = try await MultiFactorUnitTests.resolver(auth)
        backend.answer(WirePaths.mfaSignInStart, #"""
            {"passkeyResponseInfo":{"credentialRequestOptions":{"rpId":"auth.example.com","challenge":"AAEC","allowCredentials":[{"type":"public-key","id":"AQID"},{"type":"public-key","id":"_-8"}]}}}
            """#)
        let challenge = try await resolver.passkeyChallenge()
        let start = try #require(backend.requests.value.last)
        #expect(start.path == WirePaths.mfaSignInStart)
        #expect(start.body["mfaPendingCredential"] as? String == "pending-1")
        #expect((start.body["passkeySignInInfo"] as? [String: Any])?.isEmpty == true)
        #expect(start.body["mfaEnrollmentId"] == nil)
        #expect(challenge.challenge == Data([0, 1, 2]) && challenge.allowedCredentialIds == [Data([1, 2, 3]), Data([0xff, 0xef])])

        let token = MultiFactorUnitTests.idToken("u1", secondFactor: "passkey")
        backend.answer(WirePaths.mfaSignInFinalize, MultiFactorUnitTests.tokens(token, refresh: "r-5"))
        backend.answer(LookupRequest.method.clientPath, MultiFactorUnitTests.lookup("u1", factors: [MultiFactorUnitTests.factor]))
        let assertion = PasskeyAssertion(credentialId: Data([0xff, 0xef]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([1]),
                                         signature: Data([2]), userHandle: nil)
        let generated = PasskeyMultiFactorGenerator.assertionForSignIn(with: assertion)
        #expect(generated.factorID == "passkey")
        let result = try await resolver.resolveSignIn(with: generated)
        #expect(auth.currentUser === result.user)
        #expect(try await result.user.getIDTokenResult().signInSecondFactor == "passkey")
        let finalize = try #require(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize })
        #expect(finalize.body["mfaPendingCredential"] as? String == "pending-1")
        #expect(finalize.body["totpVerificationInfo"] == nil && finalize.body["mfaEnrollmentId"] == nil)
        let info = (finalize.body["passkeyVerificationInfo"] as? [String: Any])?["authenticatorAuthenticationResponse"] as? [String: Any]
        #expect(info?["id"] as? String == "/+8=")
        #expect((info?["response"] as? [String: Any])?.keys.sorted() == ["authenticatorData", "clientDataJSON", "signature"])
    }

    /// The page's `passkeyResponse` / `PublicKeyCredential.toJSON()`: base64url members, either alphabet accepted.
    @Test func webAuthnJSONBecomesNeutralValues() throws {
        let registration = try PasskeyRegistration(json: Data(#"""
            {"id":"-_8","rawId":"-_8","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"o2NmbXQ=","transports":["internal"]}}
            """#.utf8))
        #expect(registration == PasskeyRegistration(credentialId: Data([0xfb, 0xff]), clientDataJSON: Data("{}".utf8),
                                                    attestationObject: Data([0xa3, 0x63, 0x66, 0x6d, 0x74])))
        let assertion = try PasskeyAssertion(json: Data(#"""
            {"id":"AQID","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"__4","signature":"MEQ","userHandle":"/u9/EA=="}}
            """#.utf8))
        #expect(assertion.credentialId == Data([1, 2, 3]) && assertion.authenticatorData == Data([0xff, 0xfe]))
        #expect(assertion.signature == Data([0x30, 0x44]) && assertion.userHandle == Self.userHandle)
        let noHandle = try PasskeyAssertion(json: Data(#"{"id":"AQID","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":null}}"#.utf8))
        #expect(noHandle.userHandle == nil)
        for bad in [#"{"id":"AQID","response":{"clientDataJSON":"e30","authenticatorData":"AA"}}"#, #"{"response":{}}"#, "not json",
                    #"{"id":"AQID","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":"%%"}}"#] {
            #expect(throws: NSError.self) { try PasskeyAssertion(json: Data(bad.utf8)) }
            #expect((try? PasskeyAssertion(json: Data(bad.utf8))) == nil)
        }
        #expect {
            try PasskeyRegistration(json: Data(#"{"id":"AQID","response":{"clientDataJSON":"e30"}}"#.utf8))
        } throws: { ($0 as NSError).code == AuthErrorCode.invalidAuthenticatorResponse.rawValue && ($0 as NSError).code == 17211 }
    }

    @Test func passkeyServerErrorsMapToTheirCodes() {
        let cases: [(String, AuthErrorCode)] = [
            ("PASSKEY_NOT_ENABLED", .operationNotAllowed), ("PASSKEY_EXISTS", .passkeyAlreadyEnrolled),
            ("PASSKEY_LIMIT_EXCEEDED", .passkeyLimitExceeded), ("PASSKEY_CHALLENGE_TIMEOUT", .passkeyChallengeExpired),
            ("PASSKEY_ENROLLMENT_NOT_FOUND", .missingPasskeyEnrollment), ("INVALID_AUTHENTICATOR_RESPONSE", .invalidAuthenticatorResponse),
        ]
        for (name, code) in cases { #expect(AuthErrorUtils.code(forServerError: name) == code, "\(name)") }
        #expect(AuthErrorCode.invalidAuthenticatorResponse.rawValue == 17211 && AuthErrorCode.missingPasskeyEnrollment.rawValue == 17212)
    }
}
