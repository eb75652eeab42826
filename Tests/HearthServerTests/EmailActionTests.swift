import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Synchronization
import Testing

/// Email actions over HTTP against a real server (dev mailbox), on both stores where the store decides.
@Suite struct EmailActionTests {
    static let sendPath = WirePaths.accounts("sendOobCode")
    static let resetPath = WirePaths.accounts("resetPassword")
    static let updatePath = WirePaths.accounts("update")
    static let linkPath = WirePaths.accounts("signInWithEmailLink")

    /// The newest code in the dev mailbox (of `type`, when given).
    static func lastCode(_ h: HearthHarness, _ type: OobRequestType? = nil) throws -> EmulatorOobCode {
        let codes = (h.server.emailActions.mailer.devMailbox?.messages ?? []).compactMap(\.code)
        return try #require(codes.first { type == nil || $0.requestType == type!.rawValue })
    }

    static func send(_ h: HearthHarness, _ request: SendOobCodeRequest) async throws -> HearthHarness.Reply {
        try await h.post(sendPath, request)
    }

    @Test(arguments: HearthHarness.StoreChoice.available)
    func passwordResetEndToEnd(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let created = try await h.signUp(email: "ada@example.com")
            let sent = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ADA@example.com"))
            #expect(sent.status == 200)
            #expect(sent.json?["kind"] as? String == "identitytoolkit#GetOobConfirmationCodeResponse")
            #expect(sent.json?["oobCode"] == nil)
            let code = try Self.lastCode(h, .passwordReset)
            #expect(code.email == "ada@example.com")
            #expect(code.oobLink.hasPrefix(h.baseURL + "/__/auth/action?mode=resetPassword&oobCode=\(code.oobCode)"))
            // The code is stored hashed only.
            #expect(try await h.store.oobCode(hash: code.oobCode) == nil)
            #expect(try await h.store.oobCode(hash: OobCodeRecord.hash(code.oobCode))?.requestType == .passwordReset)
            // The mail itself: subject, text and HTML with the link, the link escaped in HTML.
            let mail = try #require(h.server.emailActions.mailer.devMailbox?.messages.first?.mail)
            #expect(mail.to == "ada@example.com")
            #expect(mail.subject.contains(h.projectId))
            #expect(mail.text.contains(code.oobLink))
            #expect(mail.html.contains(code.oobLink.replacingOccurrences(of: "&", with: "&amp;")))

            let check = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode))
            #expect(check.status == 200)
            #expect(try check.decode(ResetPasswordResponse.self) == ResetPasswordResponse(email: "ada@example.com", newEmail: nil, requestType: .passwordReset))
            let weak = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode, newPassword: "123"))
            #expect(weak.errorCode == "WEAK_PASSWORD")

            h.clock.advance(by: 2)
            let reset = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode, newPassword: "a new secret"))
            #expect(reset.status == 200)
            // The old session is over; the old password refused; the new one works; the email now verified.
            #expect(try await h.refresh(created.refreshToken ?? "").errorCode == "TOKEN_EXPIRED")
            #expect(try await h.signIn(email: "ada@example.com").errorCode == "INVALID_LOGIN_CREDENTIALS")
            let signedIn = try await h.signIn(email: "ada@example.com", password: "a new secret")
            #expect(signedIn.status == 200)
            #expect(try await h.store.user(localId: created.localId)?.emailVerified == true)
            // Used once only.
            let replay = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode, newPassword: "another secret"))
            #expect(replay.errorCode == "INVALID_OOB_CODE")
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode)).errorCode == "INVALID_OOB_CODE")
            // The v3 alias answers the same way.
            let v3 = try await h.post(WirePaths.v3("getOobConfirmationCode"), SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            #expect(v3.status == 200)
        }
    }

    @Test func aResetEndsTheOtherResetLinksAndExpiredCodesSaySo() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "ada@example.com")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let first = try Self.lastCode(h).oobCode
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let second = try Self.lastCode(h).oobCode
            #expect(first != second)
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: second, newPassword: "a new secret")).status == 200)
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: first, newPassword: "x new secret")).errorCode == "INVALID_OOB_CODE")

            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let late = try Self.lastCode(h).oobCode
            h.clock.advance(by: OobCodeLifetimes.defaultReset + 1)
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: late)).errorCode == "EXPIRED_OOB_CODE")
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: late, newPassword: "a newer secret")).errorCode == "EXPIRED_OOB_CODE")
        }
    }

    @Test func enumerationProtectionAnswersUnknownAddressesAlikeAndSendsNothing() async throws {
        try await HearthHarness.run(configure: { $0.initialProjectConfig = ProjectConfig(projectId: "demo-hearth", emailEnumerationProtection: true) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            let known = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let unknown = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "nobody@example.com"))
            #expect(known.status == 200)
            #expect(unknown.status == 200)
            #expect(h.server.emailActions.mailer.devMailbox?.messages.count == 1)
            // A disabled account answers alike too (USER_DISABLED would tell that it exists).
            let bob = try await h.signUp(email: "bob@example.com")
            var disabled = try #require(try await h.store.user(localId: bob.localId))
            disabled.disabled = true
            try await h.store.updateUser(disabled)
            let refused = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "bob@example.com"))
            #expect(refused.status == 200)
            #expect(h.server.emailActions.mailer.devMailbox?.messages.count == 1)
        }
        try await HearthHarness.run { h in
            let unknown = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "nobody@example.com"))
            #expect(unknown.errorCode == "EMAIL_NOT_FOUND")
        }
    }

    @Test func verifyEmailWithUpdateAndOobCode() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            #expect(try await Self.send(h, SendOobCodeRequest(requestType: .verifyEmail, email: "ignored@example.com", idToken: created.idToken)).status == 200)
            let code = try Self.lastCode(h, .verifyEmail)
            #expect(code.email == "ada@example.com")
            let check = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode))
            #expect(check.json?["requestType"] as? String == "VERIFY_EMAIL")
            var apply = UpdateRequest(idToken: nil, returnSecureToken: nil)
            apply.oobCode = code.oobCode
            let applied = try await h.post(Self.updatePath, apply)
            #expect(applied.status == 200)
            #expect(applied.json?["emailVerified"] as? Bool == true)
            // Verifying keeps the sessions.
            #expect(try await h.refresh(created.refreshToken ?? "").status == 200)
            #expect(try await h.post(Self.updatePath, apply).errorCode == "INVALID_OOB_CODE")
            // A reset code cannot be applied as a verification, nor a verification used to reset.
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            apply.oobCode = try Self.lastCode(h, .passwordReset).oobCode
            #expect(try await h.post(Self.updatePath, apply).errorCode == "INVALID_OOB_CODE")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .verifyEmail, idToken: created.idToken))
            let verify = try Self.lastCode(h, .verifyEmail).oobCode
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: verify, newPassword: "a new secret")).errorCode == "INVALID_OOB_CODE")
        }
    }

    @Test func aCodeForAnAddressTheAccountNoLongerHasDoesNothing() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let code = try Self.lastCode(h, .passwordReset).oobCode
            let changed = try await h.post(Self.updatePath, UpdateRequest(idToken: created.idToken, email: "ada2@example.com"))
            #expect(changed.status == 200)
            // The old address was told, with a link to undo.
            #expect(try Self.lastCode(h, .recoverEmail).email == "ada@example.com")
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code, newPassword: "a new secret")).errorCode == "INVALID_OOB_CODE")
        }
    }

    @Test(arguments: HearthHarness.StoreChoice.available)
    func verifyAndChangeThenRecover(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let created = try await h.signUp(email: "ada@example.com")
            _ = try await h.signUp(email: "taken@example.com")
            let taken = try await Self.send(h, SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: "taken@example.com", idToken: created.idToken))
            #expect(taken.errorCode == "EMAIL_EXISTS")
            let missing = try await Self.send(h, SendOobCodeRequest(requestType: .verifyAndChangeEmail, idToken: created.idToken))
            #expect(missing.errorCode == "MISSING_NEW_EMAIL")
            #expect(try await Self.send(h, SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: "new@example.com", idToken: created.idToken)).status == 200)
            let code = try Self.lastCode(h, .verifyAndChangeEmail)
            #expect(code.email == "new@example.com")
            let check = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code.oobCode))
            #expect(check.json?["email"] as? String == "ada@example.com")
            #expect(check.json?["newEmail"] as? String == "new@example.com")
            h.clock.advance(by: 2)
            var apply = UpdateRequest(idToken: nil, returnSecureToken: nil)
            apply.oobCode = code.oobCode
            let applied = try await h.post(Self.updatePath, apply)
            #expect(applied.json?["email"] as? String == "new@example.com")
            #expect(try await h.refresh(created.refreshToken ?? "").errorCode == "TOKEN_EXPIRED")
            // The old address may undo it.
            let recover = try Self.lastCode(h, .recoverEmail)
            #expect(recover.email == "ada@example.com")
            let recoverCheck = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: recover.oobCode))
            #expect(recoverCheck.json?["requestType"] as? String == "RECOVER_EMAIL")
            #expect(recoverCheck.json?["email"] as? String == "ada@example.com")
            apply.oobCode = recover.oobCode
            let recovered = try await h.post(Self.updatePath, apply)
            #expect(recovered.json?["email"] as? String == "ada@example.com")
            #expect(try await h.store.user(localId: created.localId)?.email == "ada@example.com")
            #expect(try await h.post(Self.updatePath, apply).errorCode == "INVALID_OOB_CODE")
        }
    }

    @Test func emailLinkSignInCreatesThenSignsInTheSameUser() async throws {
        try await HearthHarness.run { h in
            func link(_ email: String) async throws -> String {
                let sent = try await Self.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: email,
                                                                      settings: .init(continueUrl: "http://localhost/finish", canHandleCodeInApp: true)))
                #expect(sent.status == 200)
                return try Self.lastCode(h, .emailSignIn).oobCode
            }
            let first = try await link("ada@example.com")
            // Checking an email-link code does not reveal the address.
            let check = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: first))
            #expect(check.json?["email"] == nil)
            #expect(check.json?["requestType"] as? String == "EMAIL_SIGNIN")
            let wrongEmail = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "eve@example.com", oobCode: first))
            #expect(wrongEmail.errorCode == "INVALID_EMAIL")
            let created = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "Ada@example.com", oobCode: first))
            let body = try created.decode(SignInWithEmailLinkResponse.self)
            #expect(body.isNewUser)
            #expect(body.idToken != nil)
            #expect(jwtPayload(body.idToken ?? "")?["email_verified"] as? Bool == true)
            #expect(try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: first)).errorCode == "INVALID_OOB_CODE")
            let again = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: try await link("ada@example.com")))
            #expect(try again.decode(SignInWithEmailLinkResponse.self).localId == body.localId)
            #expect(try again.decode(SignInWithEmailLinkResponse.self).isNewUser == false)
            let methods = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "ada@example.com", continueUri: "http://localhost"))
            #expect(methods.json?["signinMethods"] as? [String] == ["emailLink"])
            let lookup = try await h.lookup(body.idToken ?? "")
            #expect(((lookup.json?["users"] as? [[String: Any]])?.first?["providerUserInfo"] as? [[String: Any]])?.first?["providerId"] as? String == "password")
        }
    }

    @Test func anEmailLinkToAnUnverifiedPasswordAccountEndsThePassword() async throws {
        try await HearthHarness.run { h in
            // Someone registered ada's address first, with their own password.
            let squatter = try await h.signUp(email: "ada@example.com", password: "squatter pass")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@example.com"))
            h.clock.advance(by: 2)
            let signedIn = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: try Self.lastCode(h).oobCode))
            #expect(signedIn.status == 200)
            #expect(try await h.signIn(email: "ada@example.com", password: "squatter pass").errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await h.refresh(squatter.refreshToken ?? "").errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func emailLinkCanLinkToTheSignedInUserButNotTakeAnotherAccount() async throws {
        try await HearthHarness.run { h in
            let anonymous = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: nil, password: nil)).decode(SignUpResponse.self)
            _ = try await h.signUp(email: "bob@example.com")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "bob@example.com"))
            let other = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "bob@example.com", oobCode: try Self.lastCode(h).oobCode,
                                                                                 idToken: anonymous.idToken))
            #expect(other.errorCode == "EMAIL_EXISTS")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "anon@example.com"))
            let linked = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "anon@example.com", oobCode: try Self.lastCode(h).oobCode,
                                                                                  idToken: anonymous.idToken))
            #expect(try linked.decode(SignInWithEmailLinkResponse.self).localId == anonymous.localId)
            #expect(try await h.store.user(localId: anonymous.localId)?.email == "anon@example.com")
        }
    }

    @Test(arguments: HearthHarness.StoreChoice.available)
    func aBurstOfUsesOfOneCodeHasOneWinner(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            _ = try await h.signUp(email: "ada@example.com")
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let code = try Self.lastCode(h).oobCode
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    group.addTask { try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code, newPassword: "new secret \(index)")).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 15)
        }
    }

    @Test(arguments: [
        (#"{"email":"ada@example.com"}"#, "MISSING_REQ_TYPE"),
        (#"{"requestType":"OOB_REQ_TYPE_UNSPECIFIED","email":"ada@example.com"}"#, "MISSING_REQ_TYPE"),
        (#"{"requestType":"NEW_EMAIL_ACCEPT","email":"ada@example.com"}"#, "INVALID_REQ_TYPE"),
        (#"{"requestType":"RECOVER_EMAIL","email":"ada@example.com"}"#, "INVALID_REQ_TYPE"),
        (#"{"requestType":"PASSWORD_RESET"}"#, "MISSING_EMAIL"),
        (#"{"requestType":"PASSWORD_RESET","email":"not an email"}"#, "INVALID_EMAIL"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","continueUrl":"https://evil.example.net/x"}"#, "UNAUTHORIZED_DOMAIN"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","continueUrl":"javascript:alert(1)"}"#, "INVALID_CONTINUE_URI"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","continueUrl":"http://user:pw@localhost/"}"#, "INVALID_CONTINUE_URI"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","continueUrl":"http://localhost.evil.net/"}"#, "UNAUTHORIZED_DOMAIN"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","continueUrl":"not a url"}"#, "INVALID_CONTINUE_URI"),
        (#"{"requestType":"EMAIL_SIGNIN","email":"ada@example.com","canHandleCodeInApp":true}"#, "MISSING_CONTINUE_URI"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","androidInstallApp":true}"#, "MISSING_ANDROID_PACKAGE_NAME"),
        (#"{"requestType":"PASSWORD_RESET","email":"ada@example.com","returnOobLink":true}"#, "INSUFFICIENT_PERMISSION"),
        (#"{"requestType":"VERIFY_EMAIL","idToken":"garbage"}"#, "INVALID_ID_TOKEN"),
        (#"{"requestType":"VERIFY_EMAIL"}"#, "MISSING_ID_TOKEN"),
    ])
    func sendOobCodeRefusesBadInput(_ body: String, _ code: String) async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "ada@example.com")
            let reply = try await h.post(Self.sendPath, raw: body)
            #expect((400..<500).contains(reply.status))
            #expect(reply.errorCode == code)
            #expect(h.server.emailActions.mailer.devMailbox?.messages.isEmpty == true)
        }
    }

    @Test func codesThatAreNotOursAreRefusedWithoutALookupOrA500() async throws {
        try await HearthHarness.run { h in
            for code in ["", "a\u{0}b", String(repeating: "A", count: 200_000), "ünïcødé", "../../etc/passwd", "' OR 1=1 --"] {
                let reply = try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code))
                #expect((400..<500).contains(reply.status), "\(code.prefix(20))")
                #expect(reply.errorCode == (code.isEmpty ? "MISSING_OOB_CODE" : code.utf8.count > 100_000 || code.contains("\u{0}") ? reply.errorCode : "INVALID_OOB_CODE"))
            }
            let link = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: nil))
            #expect(link.errorCode == "MISSING_OOB_CODE")
        }
    }

    @Test func aProductionProjectWithoutARelaySaysWhichSettingIsMissing() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "acme-prod"; $0.apiKeys = ["test-key"]; $0.mail.devMailbox = false
            $0.initialProjectConfig = ProjectConfig(projectId: "acme-prod", emailEnumerationProtection: false) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            let reply = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            #expect(reply.status == 400)
            #expect(reply.errorCode == "EMAIL_SENDING_NOT_CONFIGURED")
            #expect(reply.text.contains("smtp.url"))
            // Email-link sign-in is off by default outside demo projects.
            let signIn = try await Self.send(h, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@example.com"))
            #expect(signIn.errorCode == "EMAIL_SENDING_NOT_CONFIGURED" || signIn.errorCode == "OPERATION_NOT_ALLOWED")
        }
    }

    @Test func onePersonsMailboxCannotBeFlooded() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(emailsPerAddressPerHour: 1000, emailsPerRecipientPerHour: 3) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            for _ in 0..<3 {
                #expect(try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com")).status == 200)
            }
            let refused = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            #expect(refused.errorCode == "RESET_PASSWORD_EXCEED_LIMIT")
            #expect(h.server.emailActions.mailer.devMailbox?.messages.count == 3)
            // Another recipient is not affected.
            _ = try await h.signUp(email: "bob@example.com")
            #expect(try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "bob@example.com")).status == 200)
        }
        // With enumeration protection, an unknown address reaches the limit exactly as a known one does.
        try await HearthHarness.run(configure: {
            $0.rateLimits = RateLimitConfiguration(emailsPerAddressPerHour: 1000, emailsPerRecipientPerHour: 2)
            $0.initialProjectConfig = ProjectConfig(projectId: "demo-hearth", emailEnumerationProtection: true)
        }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            var answers: [String: [String]] = [:]
            for email in ["ada@example.com", "nobody@example.com"] {
                for _ in 0..<3 {
                    let reply = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: email))
                    answers[email, default: []].append(reply.errorCode ?? "\(reply.status)")
                }
            }
            #expect(answers["ada@example.com"] == ["200", "200", "RESET_PASSWORD_EXCEED_LIMIT"])
            #expect(answers["nobody@example.com"] == answers["ada@example.com"])
        }
    }

    @Test func theAdminAPIReturnsLinksAndTheEmulatorListsAndClearsTheMailbox() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "ada@example.com")
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let body = #"{"requestType":"PASSWORD_RESET","email":"ada@example.com","returnOobLink":true,"continueUrl":"http://localhost/done"}"#
            let reply = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "sendOobCode"), body: body, headers: owner)
            #expect(reply.status == 200)
            let link = try #require(reply.json?["oobLink"] as? String)
            let code = try #require(reply.json?["oobCode"] as? String)
            #expect(link.contains("oobCode=\(code)"))
            #expect(link.contains("continueUrl=http%3A%2F%2Flocalhost%2Fdone"))
            #expect(h.server.emailActions.mailer.devMailbox?.messages.isEmpty == true)
            #expect(try await h.post(Self.resetPath, ResetPasswordRequest(oobCode: code)).status == 200)
            let unauthenticated = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "sendOobCode"), body: body)
            #expect(unauthenticated.status == 401)
            let verify = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "sendOobCode"),
                                          body: #"{"requestType":"VERIFY_EMAIL","email":"nobody@example.com","returnOobLink":true}"#, headers: owner)
            #expect(verify.errorCode == "USER_NOT_FOUND")

            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let path = WirePaths.emulatorOobCodes.replacingOccurrences(of: "{project}", with: h.projectId)
            let listed = try await h.send(.get, path, headers: owner).decode(EmulatorOobCodesResponse.self)
            #expect(listed.oobCodes.count == 1)
            #expect(listed.oobCodes.first?.requestType == "PASSWORD_RESET")
            #expect(try await h.send(.delete, path, headers: owner).status == 200)
            #expect(try await h.send(.get, path, headers: owner).decode(EmulatorOobCodesResponse.self).oobCodes.isEmpty)
        }
    }

    @Test func templatesRenderValuesEscapedAndTheConfigAPIEditsThem() async throws {
        try await HearthHarness.run { h in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let config = WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config"
            let patch = #"{"notification":{"sendEmail":{"appName":"Acme","resetPasswordTemplate":{"subject":"Reset for %APP_NAME%","body":"<p>Hi %DISPLAY_NAME%, <a href=\"%LINK%\">reset</a></p>","bodyFormat":"HTML"}}}}"#
            let saved = try await h.send(.patch, config + "?updateMask=notification.sendEmail.appName,notification.sendEmail.resetPasswordTemplate",
                                         body: patch, headers: owner)
            #expect(saved.status == 200, "\(saved.text)")
            // A verified account: only mail to an account's proven address carries its display name (issue 35, item 9).
            let created = try await MultiFactorTests.verifiedUser(h, "ada@example.com")
            _ = try await h.post(Self.updatePath, UpdateRequest(idToken: created.idToken, displayName: "<script>alert(1)</script>"))
            _ = try await Self.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let mail = try #require(h.server.emailActions.mailer.devMailbox?.messages.first?.mail)
            #expect(mail.subject == "Reset for Acme")
            #expect(mail.html.contains("&lt;script&gt;"))
            #expect(!mail.html.contains("<script>"))
            #expect(mail.text.contains("oobCode="))
            let resource = try await h.send(.get, config, headers: owner)
            let sendEmail = (resource.json?["notification"] as? [String: Any])?["sendEmail"] as? [String: Any]
            #expect((sendEmail?["resetPasswordTemplate"] as? [String: Any])?["customized"] as? Bool == true)
            #expect((sendEmail?["verifyEmailTemplate"] as? [String: Any])?["customized"] as? Bool == false)
            let noLink = try await h.send(.patch, config + "?updateMask=notification.sendEmail.verifyEmailTemplate",
                                          body: #"{"notification":{"sendEmail":{"verifyEmailTemplate":{"body":"no link here"}}}}"#, headers: owner)
            #expect(noLink.errorCode == "INVALID_CONFIG")
            #expect(noLink.text.contains("%LINK%"))
        }
    }
}

/// The outbox: delivery off the request path, retries, giving up, expiry, a restart in between.
@Suite struct MailOutboxTests {
    /// A relay that fails as told, and records what it took.
    final class ScriptedTransport: MailTransport, Sendable {
        let failures: Mutex<[MailTransportError]>
        let delivered = Mutex<[OutgoingMail]>([])
        init(failures: [MailTransportError]) { self.failures = Mutex(failures) }
        func deliver(_ mail: OutgoingMail) async throws {
            if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
            delivered.withLock { $0.append(mail) }
        }
        var summary: String { "scripted" }
    }

    @Test(arguments: HearthHarness.StoreChoice.available)
    func temporaryFailuresAreRetriedAndTheCodeStillWorks(_ store: HearthHarness.StoreChoice) async throws {
        let transport = ScriptedTransport(failures: [MailTransportError(transient: true, "connection refused"),
                                                     MailTransportError(transient: true, "451 try later")])
        try await HearthHarness.run(store: store, configure: { $0.mail.transport = transport; $0.mail.devMailbox = false }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            #expect(try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com")).status == 200)
            #expect(try await h.store.outboxCount() == 1)
            let outbox = try #require(h.server.outboxService)
            #expect(await outbox.deliverDue() == 0)
            #expect(try await h.store.outboxCount() == 1)
            // Not due again before the backoff.
            #expect(await outbox.deliverDue() == 0)
            h.clock.advance(by: 31)
            #expect(await outbox.deliverDue() == 0)
            h.clock.advance(by: 61)
            #expect(await outbox.deliverDue() == 1)
            #expect(try await h.store.outboxCount() == 0)
            let mail = try #require(transport.delivered.withLock { $0.first })
            let link = try #require(mail.text.split(separator: "\n").first { $0.contains("oobCode=") })
            let code = try #require(URLComponents(string: String(link))?.queryItems?.first { $0.name == "oobCode" }?.value)
            #expect(try await h.post(EmailActionTests.resetPath, ResetPasswordRequest(oobCode: code, newPassword: "a late secret")).status == 200)
            #expect(h.server.configuration.metrics.counterValue(.mail, ["outbox", "retry"]) == 2)
            #expect(h.server.configuration.metrics.counterValue(.mail, ["outbox", "sent"]) == 1)
        }
    }

    @Test func permanentRefusalsAndExpiredLinksLeaveTheOutbox() async throws {
        let transport = ScriptedTransport(failures: [MailTransportError(transient: false, "550 no such user")])
        try await HearthHarness.run(configure: { $0.mail.transport = transport; $0.mail.devMailbox = false }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            _ = try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let outbox = try #require(h.server.outboxService)
            #expect(await outbox.deliverDue() == 0)
            #expect(try await h.store.outboxCount() == 0)
            #expect(h.server.configuration.metrics.counterValue(.mail, ["outbox", "failed"]) == 1)
            _ = try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            h.clock.advance(by: OobCodeLifetimes.defaultReset + 1)
            #expect(await outbox.deliverDue() == 0)
            #expect(try await h.store.outboxCount() == 0)
            #expect(transport.delivered.withLock { $0.isEmpty })
            #expect(h.server.configuration.metrics.counterValue(.mail, ["outbox", "expired"]) == 1)
        }
    }

    @Test func theOutboxSurvivesARestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let down = ScriptedTransport(failures: (0..<3).map { _ in MailTransportError(transient: true, "connection refused") })
        try await HearthHarness.run(configure: { $0.mail.transport = down; $0.mail.devMailbox = false }, databasePath: path) { h in
            _ = try await h.signUp(email: "ada@example.com")
            _ = try await EmailActionTests.send(h, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
        }
        let up = ScriptedTransport(failures: [])
        try await HearthHarness.run(configure: { $0.mail.transport = up; $0.mail.devMailbox = false }, databasePath: path) { h in
            let waiting = try await h.store.outboxCount()
            #expect(waiting == 1)
            #expect(await h.server.outboxService?.deliverDue() == 1)
            #expect(up.delivered.withLock { $0.first?.to } == "ada@example.com")
        }
    }
}
