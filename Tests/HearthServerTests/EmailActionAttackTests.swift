import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Email actions from an attacker's side: pre-registered accounts, mail floods, codes that outlive their account.
@Suite struct EmailActionAttackTests {
    static let sendPath = WirePaths.accounts("sendOobCode")
    static let updatePath = WirePaths.accounts("update")
    static let linkPath = WirePaths.accounts("signInWithEmailLink")

    static func lastCode(_ h: HearthHarness, _ type: OobRequestType) throws -> EmulatorOobCode {
        try #require((h.server.emailActions.mailer.devMailbox?.messages ?? []).compactMap(\.code).first { $0.requestType == type.rawValue })
    }

    /// ada@example.com registered by someone else (unverified, with a password) who linked an OIDC identity and a
    /// phone number of their own; the squatter's sign-up.
    static func squat(_ h: HearthHarness) async throws -> SignUpResponse {
        let squatter = try await h.signUp(email: "ada@example.com", password: "squatter pass")
        var user = try #require(try await h.store.user(localId: squatter.localId))
        user.identities.append(ProviderIdentity(providerId: "oidc.squatter", federatedId: "squatter-1", email: "ada@example.com"))
        user.phoneNumber = "+15555550100"
        _ = try await h.store.updateUser(user)
        return squatter
    }

    /// A squatter registers the victim's address (unverified) and links their own identity and phone number; when
    /// the address's owner signs in with an email link, none of the squatter's ways in may stay on the account.
    @Test func anEmailLinkEndsEverySignInMethodASquatterAddedToAnUnverifiedAccount() async throws {
        try await HearthHarness.run { h in
            let squatter = try await Self.squat(h)

            _ = try await h.post(Self.sendPath, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@example.com"))
            h.clock.advance(by: 2)
            let signedIn = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: try Self.lastCode(h, .emailSignIn).oobCode))
            #expect(signedIn.status == 200)
            let after = try #require(try await h.store.user(localId: squatter.localId))
            #expect(after.passwordHash == nil)
            #expect(after.identities.isEmpty, "the squatter's identities stay linked: \(after.identities.map(\.providerId))")
            #expect(after.emailVerified)
        }
    }

    /// The same squatter, when the address's owner takes the account with "forgot password" (sign-up said
    /// EMAIL_EXISTS): the reset must not leave the squatter's identity or phone on it.
    @Test func aPasswordResetOfAnUnverifiedAccountEndsTheSquattersIdentities() async throws {
        try await HearthHarness.run { h in
            let squatter = try await Self.squat(h)
            _ = try await h.post(Self.sendPath, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            h.clock.advance(by: 2)
            let reset = try await h.post(WirePaths.accounts("resetPassword"),
                                         ResetPasswordRequest(oobCode: try Self.lastCode(h, .passwordReset).oobCode, newPassword: "owner's new pass"))
            #expect(reset.status == 200)
            let after = try #require(try await h.store.user(localId: squatter.localId))
            #expect(after.identities.isEmpty, "the squatter's identities stay linked: \(after.identities.map(\.providerId))")
            #expect(after.emailVerified)
        }
        // A verified account's reset changes the password only.
        try await HearthHarness.run { h in
            let owner = try await h.signUp(email: "ada@example.com")
            var user = try #require(try await h.store.user(localId: owner.localId))
            user.emailVerified = true
            user.phoneNumber = "+15555550100"
            _ = try await h.store.updateUser(user)
            _ = try await h.post(Self.sendPath, SendOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let reset = try await h.post(WirePaths.accounts("resetPassword"),
                                         ResetPasswordRequest(oobCode: try Self.lastCode(h, .passwordReset).oobCode, newPassword: "owner's new pass"))
            #expect(reset.status == 200)
            #expect(try await h.store.user(localId: owner.localId)?.phoneNumber == "+15555550100")
        }
    }

    /// A verified account keeps its other sign-in methods when its owner uses an email link.
    @Test func aVerifiedAccountKeepsItsMethods() async throws {
        try await HearthHarness.run { h in
            let owner = try await h.signUp(email: "ada@example.com", password: "owner pass")
            var user = try #require(try await h.store.user(localId: owner.localId))
            user.emailVerified = true
            user.phoneNumber = "+15555550100"
            _ = try await h.store.updateUser(user)
            _ = try await h.post(Self.sendPath, SendOobCodeRequest(requestType: .emailSignIn, email: "ada@example.com"))
            let signedIn = try await h.post(Self.linkPath, SignInWithEmailLinkRequest(email: "ada@example.com", oobCode: try Self.lastCode(h, .emailSignIn).oobCode))
            #expect(signedIn.status == 200)
            let after = try #require(try await h.store.user(localId: owner.localId))
            #expect(after.passwordHash != nil)
            #expect(after.phoneNumber == "+15555550100")
        }
    }

    /// Changing an account's email back and forth sends the old address a notice each time: those notices count
    /// against the per-recipient limit like any other mail, or anyone can flood an address with them. Over the
    /// limit the change is refused (never made without its notice).
    @Test func emailChangeNoticesCannotFloodTheOldAddress() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(emailsPerAddressPerHour: 1000, emailsPerRecipientPerHour: 3) }) { h in
            let created = try await h.signUp(email: "victim@example.com")
            var idToken = created.idToken
            var answers: [String] = []
            for round in 0..<5 {
                for email in ["spammer\(round)@example.com", "victim@example.com"] {
                    let changed = try await h.post(Self.updatePath, UpdateRequest(idToken: idToken, email: email, returnSecureToken: true))
                    answers.append(changed.errorCode ?? "\(changed.status)")
                    idToken = (changed.json?["idToken"] as? String) ?? idToken
                }
            }
            let toVictim = (h.server.emailActions.mailer.devMailbox?.messages ?? []).filter { $0.mail.to == "victim@example.com" }
            #expect(toVictim.count == 3, "\(toVictim.count) notices reached the victim")
            #expect(answers.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count == 2, "\(answers)")
            #expect(try await h.store.user(localId: created.localId)?.email == "victim@example.com")
        }
    }

    /// Someone with a fresh session changes the email twice (ada → eve1 → eve2): the first notice's undo link, in
    /// ada's mailbox, must still give ada the account back, and the later undo links (in eve's mailboxes) must not
    /// take it again afterwards — whichever order they are used in.
    @Test(arguments: HearthHarness.StoreChoice.available, [false, true])
    func aSecondEmailChangeDoesNotDisarmTheFirstUndoLink(_ store: HearthHarness.StoreChoice, _ attackerFirst: Bool) async throws {
        try await HearthHarness.run(store: store) { h in
            let created = try await h.signUp(email: "ada@example.com")
            var idToken = created.idToken
            var undo: [String] = []
            for email in ["eve1@example.com", "eve2@example.com"] {
                let changed = try await h.post(Self.updatePath, UpdateRequest(idToken: idToken, email: email, returnSecureToken: true))
                #expect(changed.status == 200)
                idToken = (changed.json?["idToken"] as? String) ?? idToken
                undo.append(try Self.lastCode(h, .recoverEmail).oobCode)
                h.clock.advance(by: 2)
            }
            func apply(_ code: String) async throws -> HearthHarness.Reply {
                var request = UpdateRequest(idToken: nil)
                request.oobCode = code
                return try await h.post(Self.updatePath, request)
            }
            if attackerFirst {
                // eve undoes her own second change first (back to eve1): ada's link still works after.
                #expect(try await apply(undo[1]).status == 200)
                h.clock.advance(by: 2)
            }
            let recovered = try await apply(undo[0])
            #expect(recovered.status == 200, "\(recovered.errorCode ?? "")")
            #expect(try await h.store.user(localId: created.localId)?.email == "ada@example.com")
            h.clock.advance(by: 2)
            // The later undo link cannot take it back.
            #expect(try await apply(undo[1]).errorCode == "INVALID_OOB_CODE")
            #expect(try await h.store.user(localId: created.localId)?.email == "ada@example.com")
        }
    }

    /// The new address was taken by someone else between the mail and the click: a 400, not a 500.
    @Test func applyingAChangeToAnAddressTakenSinceIsRefusedPlainly() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            #expect(try await h.post(Self.sendPath, SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: "new@example.com",
                                                                     idToken: created.idToken)).status == 200)
            let code = try Self.lastCode(h, .verifyAndChangeEmail).oobCode
            _ = try await h.signUp(email: "new@example.com")
            var apply = UpdateRequest(idToken: nil)
            apply.oobCode = code
            let applied = try await h.post(Self.updatePath, apply)
            #expect(applied.status == 400)
            #expect(applied.errorCode == "EMAIL_EXISTS")
            #expect(try await h.store.user(localId: created.localId)?.email == "ada@example.com")
        }
    }
}
