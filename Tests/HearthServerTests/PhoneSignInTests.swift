import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Issue 40, item 1: phone sign-in through the real server on loopback, on both stores — `accounts:sendVerificationCode`
/// and `accounts:signInWithPhoneNumber` (and their v3 aliases): sign-up then sign-in, the token's claims, linking
/// (the `temporaryProof` dance when the number is another account's), reauthentication, `deleteProvider`, the two
/// exits' blocking functions, and each refusal with Firebase's code. The defences are in ``PhoneDefenceTests``.
@Suite struct PhoneSignInTests {
    static let ada = "+15555550100"
    static let bob = "+15555550111"
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    // MARK: Helpers (shared with PhoneDefenceTests)

    /// `accounts:sendVerificationCode` for `number` (raw JSON, so odd numbers go as they are).
    static func send(_ h: HearthHarness, _ number: String?, tenant: String? = nil, fields: AppVerificationFields = AppVerificationFields(),
                     path: String = WirePaths.sendVerificationCode) async throws -> HearthHarness.Reply {
        try await h.post(path, SendVerificationCodeRequest(phoneNumber: number, appVerification: fields, tenantId: tenant))
    }

    /// Sends a code to `number` and returns the `sessionInfo` and the code the dev sink got.
    static func codeFor(_ h: HearthHarness, _ number: String, tenant: String? = nil) async throws -> (sessionInfo: String, code: String) {
        let reply = try await send(h, number, tenant: tenant)
        #expect(reply.status == 200, "\(reply.text)")
        let sessionInfo = try #require(try reply.decode(SendVerificationCodeResponse.self).sessionInfo)
        let sent = try #require(sink(h).messages.last { $0.sessionInfo == sessionInfo }, "no SMS in the dev sink")
        return (sessionInfo, sent.code)
    }

    /// The server's dev SMS sink.
    static func sink(_ h: HearthHarness) throws -> DevSmsSink { try #require(h.server.accounts.sms.devSink, "the server has no dev SMS sink") }

    /// `accounts:signInWithPhoneNumber`.
    static func verify(_ h: HearthHarness, _ request: SignInWithPhoneNumberRequest,
                       path: String = WirePaths.signInWithPhoneNumber) async throws -> HearthHarness.Reply {
        try await h.post(path, request)
    }

    /// A phone sign-in (or sign-up) of `number`, returning the answer; fails the test if refused.
    static func signIn(_ h: HearthHarness, _ number: String, tenant: String? = nil) async throws -> SignInWithPhoneNumberResponse {
        let (sessionInfo, code) = try await codeFor(h, number, tenant: tenant)
        let reply = try await verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code, tenantId: tenant))
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode()
    }

    /// Changes a user directly in the store (test setup).
    static func changeUser(_ h: HearthHarness, _ localId: String, _ change: (inout UserRecord) -> Void) async throws {
        var user = try #require(try await h.store.user(localId: localId))
        change(&user)
        try await h.store.updateUser(user)
    }

    /// Changes the project's stored settings.
    static func configure(_ h: HearthHarness, _ change: (inout ProjectConfig) -> Void) async throws {
        var config = try await h.scope.config()
        change(&config)
        try await h.store.saveProjectConfig(config)
    }

    /// A refusal: `status` with `code` (and `words` in the message), no session in the answer.
    static func refused(_ reply: HearthHarness.Reply, _ code: String, _ words: String? = nil, status: Int = 400,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status && reply.errorCode == code, "\(reply.status) \(reply.text.prefix(400))", sourceLocation: sourceLocation)
        if let words {
            #expect(reply.envelope?.error.message.contains(words) == true, "\(reply.text.prefix(400))", sourceLocation: sourceLocation)
        }
        #expect(reply.json?["idToken"] == nil && reply.json?["sessionInfo"] == nil, sourceLocation: sourceLocation)
    }

    // MARK: Sign-up and sign-in

    /// Issue 40, item 1: a number signs up (isNewUser, `sign_in_provider: phone`, `phone_number` in the token, the
    /// number in lookups), then signs in to the same user; through the v3 aliases too (the Apple SDK's paths);
    /// the SMS says the code and the app's name.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aNumberSignsUpThenSignsIn(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let first = try await Self.signIn(h, "+1 (555) 555-0100")
            #expect(first.isNewUser == true)
            #expect(first.phoneNumber == Self.ada)
            let localId = try #require(first.localId)
            let claims = try #require(first.idToken.flatMap(jwtPayload))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "phone")
            #expect(claims["phone_number"] as? String == Self.ada)
            let looked = try await h.lookup(try #require(first.idToken)).decode(LookupResponse.self)
            #expect(looked.users.first?.phoneNumber == Self.ada)
            let text = try #require(try Self.sink(h).messages.last?.text)
            #expect(text.hasSuffix("is your verification code for \(h.projectId)."))

            // The Apple SDK's v3 paths, with its operation.
            let sent = try await Self.send(h, Self.ada, path: WirePaths.v3("sendVerificationCode"))
            let sessionInfo = try #require(try sent.decode(SendVerificationCodeResponse.self).sessionInfo)
            let code = try #require(try Self.sink(h).messages.last { $0.sessionInfo == sessionInfo }?.code)
            let again = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code, operation: "SIGN_UP_OR_IN"),
                                              path: WirePaths.v3("verifyPhoneNumber"))
            #expect(again.status == 200, "\(again.text)")
            let second = try again.decode(SignInWithPhoneNumberResponse.self)
            #expect(second.isNewUser == false)
            #expect(second.localId == localId)
            #expect(try await h.store.userCount() == 1)
            // The refresh token keeps the provider.
            let refreshed = try await h.refresh(try #require(second.refreshToken))
            #expect(refreshed.status == 200)
        }
    }

    /// Issue 40, item 1: the emulator's `verificationCodes` endpoint lists the code sent (number, sessionInfo, code),
    /// only with the emulator credential; DELETE empties it.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theEmulatorEndpointListsTheCode(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let reply = try await Self.send(h, Self.ada)
            let sessionInfo = try #require(try reply.decode(SendVerificationCodeResponse.self).sessionInfo)
            let path = WirePaths.emulatorVerificationCodes.replacingOccurrences(of: "{project}", with: h.projectId)
            let listed = try await h.send(.get, path, headers: Self.owner).decode(EmulatorVerificationCodesResponse.self)
            let entry = try #require(listed.verificationCodes.last)
            #expect(entry.phoneNumber == Self.ada && entry.sessionInfo == sessionInfo)
            #expect(entry.code.count == 6 && entry.code.allSatisfy(\.isASCII) && entry.code.allSatisfy(\.isNumber))
            let signedIn = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: entry.code))
            #expect(signedIn.status == 200, "\(signedIn.text)")
        }
    }

    /// Issue 40, item 1: phone sign-in off for the project → `OPERATION_NOT_ALLOWED` for both RPCs, and no SMS.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func phoneSignInOffIsRefused(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let (sessionInfo, code) = try await Self.codeFor(h, Self.ada)
            try await Self.configure(h) { $0.phoneSignInEnabled = false }
            let before = try Self.sink(h).messages.count
            Self.refused(try await Self.send(h, Self.bob), "OPERATION_NOT_ALLOWED", "phone sign-in is disabled")
            #expect(try Self.sink(h).messages.count == before)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code)), "OPERATION_NOT_ALLOWED")
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Issue 40, item 1: a disabled user's number is `USER_DISABLED` (no tokens); a number whose user has a second
    /// factor is Firebase's `UNSUPPORTED_FIRST_FACTOR` at the send already (no SMS) and at the sign-in.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func disabledUsersAndSecondFactorUsersAreRefused(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let ada = try await Self.signIn(h, Self.ada)
            let pending = try await Self.codeFor(h, Self.ada)
            try await Self.changeUser(h, try #require(ada.localId)) { $0.disabled = true }
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: pending.sessionInfo, code: pending.code)),
                         "USER_DISABLED")

            let bob = try await Self.signIn(h, Self.bob)
            let bobsCode = try await Self.codeFor(h, Self.bob)
            try await Self.changeUser(h, try #require(bob.localId)) { user in
                user.mfa.factors.append(MultiFactorEnrollment(enrollmentId: "factor1", displayName: nil, enrolledAt: Date(), secret: "JBSWY3DPEHPK3PXP"))
            }
            let before = try Self.sink(h).messages.count
            Self.refused(try await Self.send(h, Self.bob), "UNSUPPORTED_FIRST_FACTOR",
                         "A phone number cannot be set as a first factor on an SMS based MFA user.")
            #expect(try Self.sink(h).messages.count == before)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: bobsCode.sessionInfo, code: bobsCode.code)),
                         "UNSUPPORTED_FIRST_FACTOR")
        }
    }

    // MARK: Linking

    /// Issue 40, item 1: an anonymous user links a number (same user, the number in lookups, audit `phone.link`);
    /// linking a number that is another account's answers 200 with only `phoneNumber` + `temporaryProof` (the
    /// SDKs' credential-already-in-use), the proof linked again is `PHONE_NUMBER_EXISTS`, and the proof then signs in
    /// to the number's account — once.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func linkingAndTheTemporaryProofDance(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let anonymous = try await h.post(WirePaths.accounts("signUp"), SignUpRequest()).decode(SignUpResponse.self)
            let idToken = try #require(anonymous.idToken)
            let code = try await Self.codeFor(h, Self.ada)
            let linked = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: code.sessionInfo, code: code.code, idToken: idToken,
                                                                                operation: "LINK"))
            #expect(linked.status == 200, "\(linked.text)")
            let answer = try linked.decode(SignInWithPhoneNumberResponse.self)
            #expect(answer.localId == anonymous.localId && answer.isNewUser == false && answer.phoneNumber == Self.ada)
            #expect(try await h.store.user(localId: anonymous.localId)?.phoneNumber == Self.ada)
            let audit = try await h.store.auditEntries(before: nil, limit: 50)
            #expect(audit.contains { $0.action == "phone.link" && $0.target == anonymous.localId && $0.detail?.contains(Self.ada) == false })

            // Another user tries to link the same number.
            let other = try await h.signUp(email: "eve@example.com")
            let eveToken = try #require(other.idToken)
            let second = try await Self.codeFor(h, Self.ada)
            let clash = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: second.sessionInfo, code: second.code, idToken: eveToken))
            #expect(clash.status == 200, "\(clash.text)")
            #expect(clash.json?["idToken"] == nil && clash.json?["refreshToken"] == nil)
            let proof = try #require(clash.json?["temporaryProof"] as? String)
            #expect(clash.json?["phoneNumber"] as? String == Self.ada)
            #expect(clash.json?["temporaryProofExpiresIn"] as? String == "3600")
            // The proof linked again: PHONE_NUMBER_EXISTS (and the proof is kept).
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.ada, idToken: eveToken)),
                         "PHONE_NUMBER_EXISTS")
            #expect(try await h.store.user(localId: other.localId)?.phoneNumber == nil)
            // Without the number, or for another number: refused.
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: nil)), "MISSING_PHONE_NUMBER")
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.bob)),
                         "INVALID_TEMPORARY_PROOF")
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof + "x", phoneNumber: Self.ada)),
                         "INVALID_TEMPORARY_PROOF")
            // The proof signs in to the number's account, once.
            let viaProof = try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.ada))
            #expect(viaProof.status == 200, "\(viaProof.text)")
            #expect(try viaProof.decode(SignInWithPhoneNumberResponse.self).localId == anonymous.localId)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.ada)),
                         "INVALID_TEMPORARY_PROOF")
        }
    }

    /// Issue 40, item 1: a temporary proof is another tenant's nowhere else, and it expires (an hour, Firebase's
    /// `temporaryProofExpiresIn`).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTemporaryProofIsBoundToItsTenantAndExpires(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa", settings: TenantSettings(allowPasswordSignup: true))
            _ = try await Self.signIn(h, Self.ada)
            let eve = try await h.signUp(email: "eve@example.com")
            let code = try await Self.codeFor(h, Self.ada)
            let clash = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: code.sessionInfo, code: code.code, idToken: eve.idToken))
            let proof = try #require(clash.json?["temporaryProof"] as? String)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.ada, tenantId: "acme-aaaaa")),
                         "INVALID_TEMPORARY_PROOF")
            h.clock.advance(by: 3601)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: Self.ada)),
                         "INVALID_TEMPORARY_PROOF")
        }
    }

    /// Issue 40, item 1: `UPDATE` (and the JS SDK's link without an operation) replaces the user's number; `LINK`
    /// of a second number is `PROVIDER_ALREADY_LINKED`; a link needs a recent sign-in (anonymous users aside).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func updateReplacesTheNumberAndLinkNeedsARecentSignIn(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let ada = try await Self.signIn(h, Self.ada)
            let idToken = try #require(ada.idToken)
            let linkCode = try await Self.codeFor(h, Self.bob)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: linkCode.sessionInfo, code: linkCode.code,
                                                                                idToken: idToken, operation: "LINK")),
                         "PROVIDER_ALREADY_LINKED")
            let updateCode = try await Self.codeFor(h, Self.bob)
            let updated = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: updateCode.sessionInfo, code: updateCode.code,
                                                                                 idToken: idToken, operation: "UPDATE"))
            #expect(updated.status == 200, "\(updated.text)")
            #expect(try updated.decode(SignInWithPhoneNumberResponse.self).phoneNumber == Self.bob)
            let adaId = try #require(ada.localId)
            let stored = try #require(try await h.store.user(localId: adaId))
            #expect(stored.phoneNumber == Self.bob)
            // The old number is free: it signs up a new user.
            #expect(try await Self.signIn(h, Self.ada).isNewUser == true)

            // An old sign-in cannot link.
            let eve = try await h.signUp(email: "eve@example.com")
            h.clock.advance(by: 600)
            let late = try await Self.codeFor(h, "+15555550122")
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: late.sessionInfo, code: late.code, idToken: eve.idToken)),
                         "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
    }

    /// Issue 40, item 1: `REAUTH` signs in an existing number's user and never signs up (`USER_NOT_FOUND`, nothing
    /// created); with an ID token, the number must be that user's.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func reauthenticationNeverSignsUp(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let unknown = try await Self.codeFor(h, Self.bob)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: unknown.sessionInfo, code: unknown.code, operation: "REAUTH")),
                         "USER_NOT_FOUND")
            #expect(try await h.store.userCount() == 0)
            let ada = try await Self.signIn(h, Self.ada)
            let again = try await Self.codeFor(h, Self.ada)
            let reauth = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: again.sessionInfo, code: again.code, operation: "REAUTH"))
            #expect(reauth.status == 200, "\(reauth.text)")
            #expect(try reauth.decode(SignInWithPhoneNumberResponse.self).localId == ada.localId)
            let eve = try await h.signUp(email: "eve@example.com")
            let mixed = try await Self.codeFor(h, Self.ada)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: mixed.sessionInfo, code: mixed.code, idToken: eve.idToken,
                                                                                operation: "REAUTH")), "INVALID_ARGUMENT")
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: mixed.sessionInfo, code: mixed.code, operation: "DELETE")),
                         "INVALID_ARGUMENT")
        }
    }

    /// Issue 40, item 1: `accounts:update` with `deleteProvider: ["phone"]` removes the number (audit
    /// `phone.unlink`); the number then signs up a new user.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func deleteProviderPhoneUnlinksTheNumber(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let ada = try await h.signUp(email: "ada@example.com")
            let code = try await Self.codeFor(h, Self.ada)
            let linked = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: code.sessionInfo, code: code.code, idToken: ada.idToken))
            let token = try #require(try linked.decode(SignInWithPhoneNumberResponse.self).idToken)
            var update = UpdateRequest(idToken: token)
            update.deleteProvider = ["phone"]
            let reply = try await h.post(WirePaths.accounts("update"), update)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try await h.store.user(localId: ada.localId)?.phoneNumber == nil)
            let audit = try await h.store.auditEntries(before: nil, limit: 50)
            #expect(audit.contains { $0.action == "phone.unlink" && $0.target == ada.localId })
            let fresh = try await Self.signIn(h, Self.ada)
            #expect(fresh.isNewUser == true && fresh.localId != ada.localId)
        }
    }

    // MARK: The exits

    /// Issue 40, item 1: a phone sign-up fires beforeCreate then beforeSignIn (`sign_in_method: phone`, the number in
    /// the user record), a returning sign-in beforeSignIn; a refusal stores no user and spends the code.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func phoneSignUpFiresBeforeCreateAndBeforeSignIn(_ store: HearthHarness.StoreChoice) async throws {
        try await BlockingFunctionFiringTests.run(store: store) { h, hooks in
            try await BlockingFunctionFiringTests.install(h, hooks, .beforeCreate, .beforeSignIn)
            let first = try await Self.signIn(h, Self.ada)
            #expect(first.isNewUser == true)
            #expect(BlockingFunctionFiringTests.take(hooks) == ["beforeCreate:phone", "beforeSignIn:phone"])
            _ = try await Self.signIn(h, Self.ada)
            #expect(BlockingFunctionFiringTests.take(hooks) == ["beforeSignIn:phone"])
            hooks.answerNext(.beforeCreate, with: .refuse("no phones here"))
            let code = try await Self.codeFor(h, Self.bob)
            let refused = try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: code.sessionInfo, code: code.code))
            BlockingFunctionFiringTests.expectRefused(refused, "no phones here")
            #expect(try await h.store.user(providerId: "phone", federatedId: Self.bob) == nil)
            Self.refused(try await Self.verify(h, SignInWithPhoneNumberRequest(sessionInfo: code.sessionInfo, code: code.code)), "INVALID_SESSION_INFO")
        }
    }

    /// Issue 40, item 4: a `beforeSendSms` refusal stops the send: no SMS, no code stored (the sessionInfo the
    /// client never got cannot be guessed, and the dev sink is empty), told `sms_type: SIGN_IN_OR_SIGN_UP`.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func beforeSendSmsRefusalStopsTheSend(_ store: HearthHarness.StoreChoice) async throws {
        try await BlockingFunctionFiringTests.run(store: store) { h, hooks in
            try await BlockingFunctionFiringTests.install(h, hooks, .beforeSendSms)
            hooks.answerNext(.beforeSendSms, with: .refuse("not to this number"))
            let reply = try await Self.send(h, Self.ada)
            BlockingFunctionFiringTests.expectRefused(reply, "not to this number")
            #expect(reply.json?["sessionInfo"] == nil)
            #expect(try Self.sink(h).messages.isEmpty)
            let events = hooks.events
            #expect(events.count == 1 && events.first?.phoneNumber == Self.ada && events.first?.smsType == .signInOrSignUp)
            // Allowed the next time.
            _ = try await Self.codeFor(h, Self.ada)
        }
    }
}
