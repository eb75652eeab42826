import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Passkeys over HTTP against a real server with a software authenticator: the project setting, enrollment,
/// discoverable sign-in, records and removal, a passkey as the second factor after TOTP, and each attack of issue 23.
@Suite struct PasskeyTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    static func enablePasskeys(_ h: HearthHarness, _ extra: String = "") async throws {
        let reply = try await h.send(.patch, MultiFactorTests.configPath(h) + "?updateMask=passkeys",
                                     body: #"{"passkeys":{"enabled":true\#(extra)}}"#, headers: owner)
        #expect(reply.status == 200, "\(reply.text)")
    }

    static func startEnrollment(_ h: HearthHarness, _ idToken: String?) async throws -> PasskeyCreationOptions {
        let reply = try await h.post(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: idToken))
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(StartPasskeyEnrollmentResponse.self).credentialCreationOptions
    }

    /// Registers `passkey` for the holder of `idToken`: the finalize answer.
    static func enroll(_ h: HearthHarness, _ idToken: String?, _ passkey: inout SoftwarePasskey, name: String = "Laptop") async throws -> PasskeySessionResponse {
        let options = try await startEnrollment(h, idToken)
        let response = try passkey.register(options, origin: h.baseURL)
        let reply = try await h.post(WirePaths.passkeyEnrollmentFinalize,
                                     FinalizePasskeyEnrollmentRequest(idToken: idToken, name: name, authenticatorRegistrationResponse: response))
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(PasskeySessionResponse.self)
    }

    static func signInOptions(_ h: HearthHarness) async throws -> PasskeyRequestOptions {
        let reply = try await h.post(WirePaths.passkeySignInStart, raw: "")
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(StartPasskeySignInResponse.self).credentialRequestOptions
    }

    static func finalizeSignIn(_ h: HearthHarness, _ response: PasskeyAuthenticationResponse) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.passkeySignInFinalize, FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: response))
    }

    // MARK: The whole flow

    @Test(arguments: HearthHarness.StoreChoice.available)
    func enrollSignInListAndRemove(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let initial = try await h.send(.get, MultiFactorTests.configPath(h), headers: Self.owner)
            let shown = try #require(initial.json?["passkeys"] as? [String: Any])
            #expect(shown["enabled"] as? Bool == false && shown["rpId"] as? String == "127.0.0.1" && shown["userVerification"] as? String == "REQUIRED")
            let ada = try await h.signUp(email: "ada@example.com")
            let off = try await h.post(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: ada.idToken))
            #expect(off.status == 400 && off.errorCode == "PASSKEY_NOT_ENABLED")
            #expect(try await h.post(WirePaths.passkeySignInStart, raw: "{}").errorCode == "PASSKEY_NOT_ENABLED")
            try await Self.enablePasskeys(h)

            let options = try await Self.startEnrollment(h, ada.idToken)
            #expect(options.rp.id == "127.0.0.1")
            // The Apple SDK decodes challenge and user.id with the standard alphabet, padding required.
            let challenge = try #require(Data(base64Encoded: options.challenge))
            let handle = try #require(Data(base64Encoded: options.user.id))
            #expect(challenge.count == 32 && handle.count == 32)
            #expect(options.user.name == "ada@example.com" && !options.user.id.contains(ada.localId))
            #expect(options.pubKeyCredParams.map(\.alg).sorted() == [-257, -8, -7])
            #expect(options.authenticatorSelection?.residentKey == "required" && options.authenticatorSelection?.userVerification == "required")
            #expect(options.attestation == "none" && options.excludeCredentials == [])

            var laptop = SoftwarePasskey()
            let registration = try laptop.register(options, origin: h.baseURL)
            let enrolled = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: ada.idToken, name: "Laptop", authenticatorRegistrationResponse: registration))
            #expect(enrolled.status == 200, "\(enrolled.text)")
            let session = try enrolled.decode(PasskeySessionResponse.self)
            #expect(session.localId == ada.localId && session.idToken != nil && session.refreshToken != nil)
            // The same registration again: its challenge was taken.
            let again = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: ada.idToken, name: "Laptop", authenticatorRegistrationResponse: registration))
            #expect(again.errorCode == "INVALID_AUTHENTICATOR_RESPONSE")

            let looked = try await h.post(WirePaths.accounts("lookup"), LookupRequest(idToken: session.idToken))
            #expect(try looked.decode(LookupResponse.self).users.first?.passkeyInfo == [PasskeyInfo(name: "Laptop", credentialId: laptop.id)])
            // A second enrollment names the same user handle and excludes the registered passkey.
            let second = try await Self.startEnrollment(h, session.idToken)
            #expect(second.user.id == options.user.id && second.excludeCredentials?.map(\.id) == [laptop.id])
            // The same credential registered again (an authenticator ignoring excludeCredentials).
            let duplicate = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: session.idToken, name: "Again", authenticatorRegistrationResponse: try laptop.register(second, origin: h.baseURL)))
            #expect(duplicate.errorCode == "PASSKEY_EXISTS")

            // Sign-in with a discoverable credential: no user named, no body (as the Apple SDK sends it).
            let request = try await Self.signInOptions(h)
            #expect(request.rpId == "127.0.0.1" && request.allowCredentials == nil && request.userVerification == "required")
            #expect(Data(base64Encoded: request.challenge)?.count == 32)
            let assertion = try laptop.assert(request, origin: h.baseURL)
            let signedIn = try await Self.finalizeSignIn(h, assertion)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let tokens = try signedIn.decode(PasskeySessionResponse.self)
            #expect(tokens.localId == ada.localId)
            let firebase = try #require(MultiFactorTests.secondFactorClaims(tokens.idToken))
            #expect(firebase["sign_in_provider"] as? String == "passkey")
            #expect(try await h.store.passkey(credentialId: laptop.id)?.signCount == 1)
            // Replayed: the challenge was taken.
            #expect(try await Self.finalizeSignIn(h, assertion).errorCode == "INVALID_AUTHENTICATOR_RESPONSE")

            // The administrator sees it.
            let admin = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:lookup",
                                         body: #"{"localId":["\#(ada.localId)"]}"#, headers: Self.owner)
            let adminUsers = try #require(admin.json?["users"] as? [[String: Any]])
            #expect((adminUsers.first?["passkeyInfo"] as? [[String: Any]])?.first?["credentialId"] as? String == laptop.id)

            // Removal by the user, naming the id in the standard alphabet with padding (as the Apple SDK may).
            let unknown = try await h.post(WirePaths.accounts("update"), raw: #"{"idToken":"\#(tokens.idToken ?? "")","deletePasskey":["AAAA"]}"#)
            #expect(unknown.errorCode == "PASSKEY_ENROLLMENT_NOT_FOUND")
            let removed = try await h.post(WirePaths.accounts("update"),
                                           raw: #"{"idToken":"\#(tokens.idToken ?? "")","deletePasskey":["\#(laptop.credentialId.base64EncodedString())"]}"#)
            #expect(removed.status == 200, "\(removed.text)")
            #expect(removed.json?["idToken"] as? String != nil && removed.json?["refreshToken"] as? String != nil)
            let after = try await h.post(WirePaths.accounts("lookup"), LookupRequest(idToken: tokens.idToken))
            #expect(try after.decode(LookupResponse.self).users.first?.passkeyInfo == nil)
            let gone = try await Self.finalizeSignIn(h, try laptop.assert(try await Self.signInOptions(h), origin: h.baseURL))
            #expect(gone.errorCode == "PASSKEY_ENROLLMENT_NOT_FOUND")
            let audit = try await h.store.auditEntries(before: nil, limit: 20)
            #expect(audit.contains { $0.action == "passkey.enroll" && $0.actor == "user:\(ada.localId)" })
            #expect(audit.contains { $0.action == "passkey.remove" && $0.actor == "user:\(ada.localId)" && $0.detail == String(laptop.id.prefix(24)) })
        }
    }

    // MARK: Attacks

    @Test func attacksAreRefused() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePasskeys(h)
            let ada = try await h.signUp(email: "ada@example.com")
            let bob = try await h.signUp(email: "bob@example.com")
            var adas = SoftwarePasskey()
            _ = try await Self.enroll(h, ada.idToken, &adas)
            var bobs = SoftwarePasskey(.edDSA)
            _ = try await Self.enroll(h, bob.idToken, &bobs, name: "Bob's key")

            func signIn(_ make: (PasskeyRequestOptions) throws -> PasskeyAuthenticationResponse) async throws -> HearthHarness.Reply {
                try await Self.finalizeSignIn(h, try make(try await Self.signInOptions(h)))
            }
            func refused(_ reply: HearthHarness.Reply, _ words: String, code: String = "INVALID_AUTHENTICATOR_RESPONSE") {
                #expect(reply.status == 400 && reply.errorCode == code && reply.text.contains(words), "\(reply.text)")
            }
            refused(try await signIn { try adas.assert($0, origin: "https://evil.example") }, "is not allowed")
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, rpId: "evil.example") }, "another relying party")
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, flags: 0x01) }, "did not verify the user")
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, tamper: true) }, "signature does not verify")
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, crossOrigin: true) }, "cross-origin")
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, type: "webauthn.create") }, "not the ceremony's")
            // Ada's passkey presenting Bob's user handle.
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, userHandle: bobs.userHandle) }, "userHandle")
            // Bob's assertion signed by Ada's key under Bob's credential id is a forged signature.
            refused(try await signIn { options in
                var forged = try adas.assert(options, origin: h.baseURL)
                forged.id = bobs.id
                forged.response?.userHandle = bobs.userHandle?.base64URLEncodedString()
                return forged
            }, "signature does not verify")
            // A good sign-in moves the counter to 1…
            let good = try await signIn { try adas.assert($0, origin: h.baseURL) }
            #expect(good.status == 200, "\(good.text)")
            // …so a clone still at 1 is caught and audited.
            refused(try await signIn { try adas.assert($0, origin: h.baseURL, counter: adas.counter) }, "cloned")
            #expect(try await h.store.auditEntries(before: nil, limit: 10).map(\.action).contains("passkey.clone_suspected"))
            // Malformed input: never a 500.
            let garbage = try await h.post(WirePaths.passkeySignInFinalize, raw: #"{"authenticatorAuthenticationResponse":{"id":"!!","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}}"#)
            refused(garbage, "id")
            let enrollment = try await Self.startEnrollment(h, ada.idToken)
            let notCBOR = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: ada.idToken, name: "x", authenticatorRegistrationResponse: .init(id: "AAAA", response: .init(
                    clientDataJSON: SoftwarePasskey.clientData("webauthn.create", challenge: Data(try #require(PasskeyBytes.decode(enrollment.challenge))),
                                                               origin: h.baseURL).base64URLEncodedString(),
                    attestationObject: "oWNmbXQ"))))
            #expect(notCBOR.status == 400 && notCBOR.errorCode == "INVALID_AUTHENTICATOR_RESPONSE" && notCBOR.text.contains("malformed"), "\(notCBOR.text)")
            let huge = String(repeating: "A", count: 40_000)
            refused(try await h.post(WirePaths.passkeySignInFinalize, raw: #"{"authenticatorAuthenticationResponse":{"id":"AAAA","response":{"clientDataJSON":"\#(huge)","authenticatorData":"AA","signature":"AA"}}}"#),
                    "longer than")
            refused(try await h.post(WirePaths.passkeySignInFinalize, raw: #"{}"#), "required")

            // Bob finalizing with the response to Ada's enrollment challenge.
            var stolen = SoftwarePasskey()
            let adasOptions = try await Self.startEnrollment(h, ada.idToken)
            let crossed = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: bob.idToken, name: "stolen", authenticatorRegistrationResponse: try stolen.register(adasOptions, origin: h.baseURL)))
            refused(crossed, "another ceremony")
            // A sign-in challenge answered with a registration, and an enrollment without user verification.
            var weak = SoftwarePasskey()
            let unverified = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                idToken: ada.idToken, name: "weak", authenticatorRegistrationResponse: try weak.register(try await Self.startEnrollment(h, ada.idToken),
                                                                                                       origin: h.baseURL, flags: 0x41)))
            refused(unverified, "did not verify the user")
            // Expired challenge.
            let late = try await Self.signInOptions(h)
            h.clock.advance(by: 301)
            let expired = try await Self.finalizeSignIn(h, try adas.assert(late, origin: h.baseURL))
            refused(expired, "expired", code: "PASSKEY_CHALLENGE_TIMEOUT")
            // Enrollment needs a recent sign-in: Ada signed in more than 5 minutes ago now.
            let stale = try await h.post(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: ada.idToken))
            #expect(stale.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "\(stale.text)")
        }
    }

    @Test func aBurstOfReplaysSignsInOnce() async throws {
        try await HearthHarness.run { h in
            try await Self.enablePasskeys(h)
            let ada = try await h.signUp(email: "ada@example.com")
            var passkey = SoftwarePasskey()
            _ = try await Self.enroll(h, ada.idToken, &passkey)
            let assertion = try passkey.assert(try await Self.signInOptions(h), origin: h.baseURL)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 { group.addTask { try await Self.finalizeSignIn(h, assertion).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1 && statuses.filter { $0 == 400 }.count == 11, "\(statuses)")
        }
    }

    @Test func theLimitAndTheSettingsChecks() async throws {
        try await HearthHarness.run { h in
            for (body, words) in [(#"{"passkeys":{"rpId":"10.0.0.1"}}"#, "IP address"), (#"{"passkeys":{"rpId":"example.com"}}"#, "parent domain"),
                                  (#"{"passkeys":{"allowedOrigins":["https://evil.example"]}}"#, "not on the rp id"),
                                  (#"{"passkeys":{"allowedOrigins":["http://127.0.0.1/path"]}}"#, "not an origin"),
                                  (#"{"passkeys":{"userVerification":"NEVER"}}"#, "REQUIRED")] {
                let reply = try await h.send(.patch, MultiFactorTests.configPath(h), body: body, headers: Self.owner)
                #expect(reply.status == 400 && reply.text.contains(words), "\(body): \(reply.text)")
            }
            try await Self.enablePasskeys(h, #","userVerification":"preferred""#)
            let ada = try await h.signUp(email: "ada@example.com")
            var keys: [SoftwarePasskey] = []
            for index in 0..<10 {
                var key = SoftwarePasskey()
                let options = try await Self.startEnrollment(h, ada.idToken)
                #expect(options.authenticatorSelection?.userVerification == "preferred")
                // PREFERRED: a registration with presence only is accepted.
                let reply = try await h.post(WirePaths.passkeyEnrollmentFinalize, FinalizePasskeyEnrollmentRequest(
                    idToken: ada.idToken, name: "key \(index)", authenticatorRegistrationResponse: try key.register(options, origin: h.baseURL, flags: 0x41)))
                #expect(reply.status == 200, "\(reply.text)")
                keys.append(key)
            }
            let full = try await h.post(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: ada.idToken))
            #expect(full.errorCode == "PASSKEY_LIMIT_EXCEEDED")
            // Deleting the account deletes its passkeys.
            let deleted = try await h.post(WirePaths.accounts("delete"), raw: #"{"idToken":"\#(ada.idToken ?? "")"}"#)
            #expect(deleted.status == 200, "\(deleted.text)")
            let left = try await h.store.passkeys(localId: ada.localId)
            let first = try await h.store.passkey(credentialId: keys[0].id)
            #expect(left.isEmpty && first == nil)
        }
    }

    // MARK: The second factor

    @Test func aPasskeyCompletesATOTPSignIn() async throws {
        try await HearthHarness.run { h in
            try await MultiFactorTests.enableTOTP(h)
            try await Self.enablePasskeys(h)
            let ada = try await MultiFactorTests.verifiedUser(h, "ada@example.com")
            let bob = try await MultiFactorTests.verifiedUser(h, "bob@example.com")
            let adas = try await MultiFactorTests.enroll(h, idToken: try #require(ada.idToken))
            _ = try await MultiFactorTests.enroll(h, idToken: try #require(bob.idToken))
            // Bob has TOTP only: a passkey challenge for his pending sign-in says to use the code.
            let bobPending = try await MultiFactorTests.pendingPasswordSignIn(h, "bob@example.com", factor: try #require(
                try await h.store.user(email: "bob@example.com")?.mfa.factors.first?.enrollmentId))
            let none = try await h.post(WirePaths.mfaSignInStart, raw: #"{"mfaPendingCredential":"\#(bobPending)","passkeySignInInfo":{}}"#)
            #expect(none.errorCode == "PASSKEY_ENROLLMENT_NOT_FOUND" && none.text.contains("TOTP"))
            var passkey = SoftwarePasskey()
            _ = try await Self.enroll(h, adas.tokens.idToken, &passkey, name: "Security key")
            var bobsKey = SoftwarePasskey()
            _ = try await Self.enroll(h, bob.idToken, &bobsKey)

            let pending = try await MultiFactorTests.pendingPasswordSignIn(h, "ada@example.com", factor: adas.enrollmentId)
            let started = try await h.post(WirePaths.mfaSignInStart, raw: #"{"mfaPendingCredential":"\#(pending)","passkeySignInInfo":{}}"#)
            #expect(started.status == 200, "\(started.text)")
            let options = try #require(try started.decode(StartMFASignInResponse.self).passkeyResponseInfo?.credentialRequestOptions)
            #expect(options.allowCredentials?.map(\.id) == [passkey.id] && options.userVerification == "preferred")
            // Bob's passkey cannot answer Ada's challenge.
            let crossed = try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
                mfaPendingCredential: pending, passkeyAssertion: try bobsKey.assert(options, origin: h.baseURL)))
            #expect(crossed.errorCode == "INVALID_AUTHENTICATOR_RESPONSE")
            // The challenge was spent by the refusal: a new one, answered with presence only (the password was the first factor).
            let again = try await h.post(WirePaths.mfaSignInStart, raw: #"{"mfaPendingCredential":"\#(pending)","passkeySignInInfo":{}}"#)
            let retry = try #require(try again.decode(StartMFASignInResponse.self).passkeyResponseInfo?.credentialRequestOptions)
            let finalized = try await h.post(WirePaths.mfaSignInFinalize, FinalizeMFASignInRequest(
                mfaPendingCredential: pending, passkeyAssertion: try passkey.assert(retry, origin: h.baseURL, flags: 0x01)))
            #expect(finalized.status == 200, "\(finalized.text)")
            let firebase = try #require(MultiFactorTests.secondFactorClaims(try finalized.decode(FinalizeMFASignInResponse.self).idToken))
            #expect(firebase["sign_in_second_factor"] as? String == "passkey" && firebase["second_factor_identifier"] as? String == passkey.id)
            #expect(firebase["sign_in_provider"] as? String == "password")
            // The pending sign-in is spent.
            let twice = try await h.post(WirePaths.mfaSignInStart, raw: #"{"mfaPendingCredential":"\#(pending)","passkeySignInInfo":{}}"#)
            #expect(twice.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            // A passkey sign-in of a TOTP user needs no code: a verified passkey is two factors.
            let direct = try await Self.finalizeSignIn(h, try passkey.assert(try await Self.signInOptions(h), origin: h.baseURL))
            #expect(direct.status == 200 && direct.json?["idToken"] != nil, "\(direct.text)")
        }
    }
}
