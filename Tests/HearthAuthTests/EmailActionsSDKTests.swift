import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthTesting
import HearthWire
import Testing

/// Email actions through the SDK against a real server; the codes come from its dev mailbox (the Auth emulator's
/// `GET /emulator/v1/projects/{p}/oobCodes`), as a person would take them from the email.
@Suite struct EmailActionsSDKTests {
    static func makeAuth(_ h: HearthHarness) -> Auth { AuthSDKTests.makeAuth(h) }

    /// The newest code of `type` for `email` in the dev mailbox (delivery is off the request path: waits for it).
    static func mail(_ h: HearthHarness, to email: String, _ type: OobRequestType, after previous: String? = nil) async throws -> EmulatorOobCode {
        let path = WirePaths.emulatorOobCodes.replacingOccurrences(of: "{project}", with: h.projectId)
        for _ in 0..<100 {
            let reply = try await h.send(.get, path)
            guard reply.status == 200 else { throw HarnessError("oobCodes answered \(reply.status): \(reply.text)") }
            let codes = try reply.decode(EmulatorOobCodesResponse.self).oobCodes
            if let found = codes.last(where: { $0.email == email && $0.requestType == type.rawValue }), found.oobCode != previous {
                return found
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("no \(type.rawValue) mail to \(email) in the dev mailbox")
    }

    static func code(_ error: any Error) -> AuthErrorCode? {
        let error = error as NSError
        return error.domain == AuthErrorDomain ? AuthErrorCode(rawValue: error.code) : nil
    }

    @Test func passwordResetEndToEnd() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            let created = try await auth.createUser(withEmail: "reset@example.com", password: "old horse 1")
            try await auth.sendPasswordReset(withEmail: "reset@example.com")
            let mail = try await Self.mail(h, to: "reset@example.com", .passwordReset)
            #expect(mail.oobLink.contains("/__/auth/action?"), "\(mail.oobLink)")
            let link = try #require(ActionCodeURL(link: mail.oobLink))
            #expect(link.operation == .passwordReset && link.code == mail.oobCode)
            #expect(try await auth.verifyPasswordResetCode(mail.oobCode) == "reset@example.com")
            let info = try await auth.checkActionCode(mail.oobCode)
            #expect(info.operation == .passwordReset && info.email == "reset@example.com" && info.previousEmail == nil)
            try await auth.confirmPasswordReset(withCode: mail.oobCode, newPassword: "new horse 2")
            // Single use.
            await #expect { try await auth.confirmPasswordReset(withCode: mail.oobCode, newPassword: "third horse 3") } throws: { error in
                Self.code(error) == .invalidActionCode
            }
            // The old password is refused, the new one works.
            let other = Self.makeAuth(h)
            await #expect { try await other.signIn(withEmail: "reset@example.com", password: "old horse 1") } throws: { error in
                Self.code(error) == .invalidCredential
            }
            let again = try await other.signIn(withEmail: "reset@example.com", password: "new horse 2")
            #expect(again.user.uid == created.user.uid)
            // The session from before the reset cannot be renewed, and the SDK signs it out.
            await #expect { try await created.user.getIDToken(forcingRefresh: true) } throws: { error in
                [.userTokenExpired, .invalidUserToken].contains(Self.code(error))
            }
            #expect(auth.currentUser == nil)
            // A weak new password is the server's WEAK_PASSWORD.
            try await other.sendPasswordReset(withEmail: "reset@example.com")
            let second = try await Self.mail(h, to: "reset@example.com", .passwordReset, after: mail.oobCode)
            await #expect { try await other.confirmPasswordReset(withCode: second.oobCode, newPassword: "1") } throws: { error in
                Self.code(error) == .weakPassword
            }
        }
    }

    @Test func verifyEmailThroughTheCompletionForms() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            let user = try await auth.createUser(withEmail: "verify@example.com", password: "correct horse").user
            #expect(!user.emailVerified)
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                user.sendEmailVerification { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
            let mail = try await Self.mail(h, to: "verify@example.com", .verifyEmail)
            let info: ActionCodeInfo = try await withCheckedThrowingContinuation { continuation in
                auth.checkActionCode(mail.oobCode) { info, error in
                    if let info { continuation.resume(returning: info) } else { continuation.resume(throwing: error!) }
                }
            }
            #expect(info.operation == .verifyEmail && info.email == "verify@example.com")
            try await auth.applyActionCode(mail.oobCode)
            #expect(!user.emailVerified, "applyActionCode does not reload, as in Firebase")
            try await user.reload()
            #expect(user.isEmailVerified)
            await #expect { try await auth.applyActionCode(mail.oobCode) } throws: { error in Self.code(error) == .invalidActionCode }
        }
    }

    @Test func verifyBeforeUpdateEmailAndRecover() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            let user = try await auth.createUser(withEmail: "old@example.com", password: "correct horse").user
            try await user.sendEmailVerification(beforeUpdatingEmail: "new@example.com")
            let change = try await Self.mail(h, to: "new@example.com", .verifyAndChangeEmail)
            let info = try await auth.checkActionCode(change.oobCode)
            #expect(info.operation == .verifyAndChangeEmail)
            #expect(info.email == "new@example.com", "\(info)")
            #expect(info.previousEmail == "old@example.com", "\(info)")
            try await auth.applyActionCode(change.oobCode)
            // The change ended the sessions from before it; the SDK signs the user out.
            await #expect { try await user.getIDToken(forcingRefresh: true) } throws: { error in Self.code(error) == .userTokenExpired }
            #expect(auth.currentUser == nil)
            let other = Self.makeAuth(h)
            let signedIn = try await other.signIn(withEmail: "new@example.com", password: "correct horse")
            #expect(signedIn.user.uid == user.uid)
            #expect(signedIn.user.email == "new@example.com" && signedIn.user.emailVerified)
            await #expect { try await Self.makeAuth(h).signIn(withEmail: "old@example.com", password: "correct horse") } throws: { error in
                Self.code(error) == .invalidCredential
            }
            // The old address was told, with a link to undo the change.
            let recover = try await Self.mail(h, to: "old@example.com", .recoverEmail)
            #expect(ActionCodeURL(link: recover.oobLink)?.operation == .recoverEmail)
            let recoverInfo = try await auth.checkActionCode(recover.oobCode)
            #expect(recoverInfo.operation == .recoverEmail)
            // Firebase's ActionCodeInfo: email is the account's current (new) address, previousEmail the one restored.
            #expect(recoverInfo.email == "new@example.com" && recoverInfo.previousEmail == "old@example.com", "\(recoverInfo)")
            try await auth.applyActionCode(recover.oobCode)
            let back = try await Self.makeAuth(h).signIn(withEmail: "old@example.com", password: "correct horse")
            #expect(back.user.uid == user.uid && back.user.email == "old@example.com")
        }
    }

    @Test func emailLinkSignInCreatesThenSignsInTheSameUser() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            let settings = ActionCodeSettings()
            settings.url = URL(string: h.baseURL + "/finish?cart=7")
            settings.handleCodeInApp = true
            try await auth.sendSignInLink(toEmail: "link@example.com", actionCodeSettings: settings)
            let first = try await Self.mail(h, to: "link@example.com", .emailSignIn)
            #expect(auth.isSignIn(withEmailLink: first.oobLink), "\(first.oobLink)")
            #expect(ActionCodeURL(link: first.oobLink)?.continueURL?.absoluteString == h.baseURL + "/finish?cart=7", "\(first.oobLink)")
            let created = try await auth.signIn(withEmail: "link@example.com", link: first.oobLink)
            #expect(created.additionalUserInfo?.isNewUser == true)
            #expect(created.additionalUserInfo?.providerID == "password")
            #expect(created.user.email == "link@example.com" && created.user.emailVerified)
            #expect(auth.currentUser?.uid == created.user.uid)
            #expect(try await Self.makeAuth(h).fetchSignInMethods(forEmail: "link@example.com").contains(EmailLinkAuthSignInMethod))
            // A used link.
            await #expect { try await Self.makeAuth(h).signIn(withEmail: "link@example.com", link: first.oobLink) } throws: { error in
                Self.code(error) == .invalidActionCode
            }
            // A second link signs the same user in (through the credential form this time).
            try await auth.sendSignInLink(toEmail: "link@example.com", actionCodeSettings: settings)
            let second = try await Self.mail(h, to: "link@example.com", .emailSignIn, after: first.oobCode)
            let other = Self.makeAuth(h)
            let again = try await other.signIn(with: EmailAuthProvider.credential(withEmail: "link@example.com", link: second.oobLink))
            #expect(again.user.uid == created.user.uid)
            #expect(again.additionalUserInfo?.isNewUser == false)
            // A link for one address does not sign in another.
            try await auth.sendSignInLink(toEmail: "link@example.com", actionCodeSettings: settings)
            let third = try await Self.mail(h, to: "link@example.com", .emailSignIn, after: second.oobCode)
            await #expect { try await Self.makeAuth(h).signIn(withEmail: "eve@example.com", link: third.oobLink) } throws: { error in
                Self.code(error) == .invalidEmail
            }
            // ... and that mistake does not use the link up.
            #expect(try await Self.makeAuth(h).signIn(withEmail: "link@example.com", link: third.oobLink).user.uid == created.user.uid)
        }
    }

    @Test func linkAndReauthenticateWithEmailCredentials() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            let settings = ActionCodeSettings()
            settings.url = URL(string: h.baseURL + "/")
            settings.handleCodeInApp = true
            let anonymous = try await auth.signInAnonymously().user
            try await auth.sendSignInLink(toEmail: "anon@example.com", actionCodeSettings: settings)
            let mail = try await Self.mail(h, to: "anon@example.com", .emailSignIn)
            let linked = try await anonymous.link(with: EmailAuthProvider.credential(withEmail: "anon@example.com", link: mail.oobLink))
            #expect(linked.user.uid == anonymous.uid)
            #expect(linked.user.email == "anon@example.com" && !linked.user.isAnonymous)
            #expect(linked.user.providerData.map(\.providerID) == ["password"])
            #expect(auth.currentUser?.uid == anonymous.uid)
            // Linking an email again: providerAlreadyLinked on the client.
            await #expect { try await linked.user.link(with: EmailAuthProvider.credential(withEmail: "x@example.com", password: "correct horse")) } throws: { error in
                Self.code(error) == .providerAlreadyLinked
            }
            // Reauthenticate with a fresh link: same user.
            try await auth.sendSignInLink(toEmail: "anon@example.com", actionCodeSettings: settings)
            let fresh = try await Self.mail(h, to: "anon@example.com", .emailSignIn, after: mail.oobCode)
            let reauthenticated = try await linked.user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "anon@example.com", link: fresh.oobLink))
            #expect(reauthenticated.user.uid == anonymous.uid)
            // Another address: userMismatch, and no account is made for it.
            await #expect { try await linked.user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "eve@example.com", link: fresh.oobLink)) } throws: { error in
                Self.code(error) == .userMismatch
            }
            #expect(try await Self.makeAuth(h).fetchSignInMethods(forEmail: "eve@example.com").isEmpty)
            // A password credential links to another anonymous user, and reauthenticates it.
            let second = Self.makeAuth(h)
            let guest = try await second.signInAnonymously().user
            let withPassword = try await guest.link(with: EmailAuthProvider.credential(withEmail: "guest@example.com", password: "correct horse"))
            #expect(withPassword.user.uid == guest.uid && withPassword.user.email == "guest@example.com")
            let again = try await guest.reauthenticate(with: EmailAuthProvider.credential(withEmail: "guest@example.com", password: "correct horse"))
            #expect(again.user.uid == guest.uid)
            await #expect { try await guest.reauthenticate(with: EmailAuthProvider.credential(withEmail: "guest@example.com", password: "wrong horse")) } throws: { error in
                Self.code(error) == .invalidCredential
            }
            #expect(second.currentUser?.uid == guest.uid, "a refused reauthentication keeps the user signed in")
        }
    }

    @Test func garbageExpiredAndRefusedRequestsMapToFirebasesCodes() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            _ = try await auth.createUser(withEmail: "errors@example.com", password: "correct horse")
            for garbage in ["garbage", String(repeating: "A", count: 60)] {
                await #expect { try await auth.checkActionCode(garbage) } throws: { Self.code($0) == .invalidActionCode }
                await #expect { try await auth.applyActionCode(garbage) } throws: { Self.code($0) == .invalidActionCode }
                await #expect { try await auth.confirmPasswordReset(withCode: garbage, newPassword: "new horse") } throws: { Self.code($0) == .invalidActionCode }
                await #expect { try await auth.verifyPasswordResetCode(garbage) } throws: { Self.code($0) == .invalidActionCode }
            }
            await #expect { try await auth.sendPasswordReset(withEmail: "not an email") } throws: { Self.code($0) == .invalidEmail }
            let elsewhere = ActionCodeSettings()
            elsewhere.url = URL(string: "https://evil.example.net/")
            await #expect { try await auth.sendPasswordReset(withEmail: "errors@example.com", actionCodeSettings: elsewhere) } throws: { error in
                Self.code(error) == .unauthorizedDomain
            }
            // Changing to a taken address, or to none; verifying a user without an address.
            let signedIn = try await auth.signIn(withEmail: "errors@example.com", password: "correct horse").user
            _ = try await Self.makeAuth(h).createUser(withEmail: "taken@example.com", password: "correct horse")
            await #expect { try await signedIn.sendEmailVerification(beforeUpdatingEmail: "taken@example.com") } throws: { Self.code($0) == .emailAlreadyInUse }
            await #expect { try await signedIn.sendEmailVerification(beforeUpdatingEmail: "") } throws: { Self.code($0) == .missingEmail }
            let anonymous = try await Self.makeAuth(h).signInAnonymously().user
            await #expect { try await anonymous.sendEmailVerification() } throws: { Self.code($0) == .missingEmail }
            // Bad action code settings.
            let appStoreOnly = ActionCodeSettings()
            appStoreOnly.iOSBundleID = nil
            appStoreOnly.setAndroidPackageName("", installIfNotAvailable: true, minimumVersion: nil)
            appStoreOnly.androidPackageName = nil
            await #expect { try await auth.sendPasswordReset(withEmail: "errors@example.com", actionCodeSettings: appStoreOnly) } throws: { error in
                Self.code(error) == .missingAndroidPackageName
            }
            let noURL = ActionCodeSettings()
            noURL.handleCodeInApp = true
            await #expect { try await auth.sendSignInLink(toEmail: "errors@example.com", actionCodeSettings: noURL) } throws: { error in
                Self.code(error) == .missingContinueURI
            }
            // Expired: a reset code lives an hour.
            try await auth.sendPasswordReset(withEmail: "errors@example.com")
            let mail = try await Self.mail(h, to: "errors@example.com", .passwordReset)
            h.clock.advance(by: 2 * 3600)
            await #expect { try await auth.verifyPasswordResetCode(mail.oobCode) } throws: { Self.code($0) == .expiredActionCode }
            await #expect { try await auth.confirmPasswordReset(withCode: mail.oobCode, newPassword: "new horse") } throws: { Self.code($0) == .expiredActionCode }
        }
    }

    @Test func theEmailActionsExampleRuns() async throws {
        try await HearthHarness.run { h in
            let auth = Self.makeAuth(h)
            _ = try await auth.createUser(withEmail: "forgot@example.com", password: "correct horse")
            try auth.signOut()
            try await EmailActionExamples.forgotPassword(auth: auth, email: "forgot@example.com")
            let reset = try await Self.mail(h, to: "forgot@example.com", .passwordReset)
            try await EmailActionExamples.completeReset(auth: auth, link: reset.oobLink, newPassword: "brand new horse")
            _ = try await Self.makeAuth(h).signIn(withEmail: "forgot@example.com", password: "brand new horse")

            let store = InMemoryPendingEmail()
            try await EmailActionExamples.sendSignInLink(auth: auth, email: "passwordless@example.com",
                                                         continueURL: URL(string: h.baseURL + "/finishSignIn")!, pendingEmail: store)
            let mail = try await Self.mail(h, to: "passwordless@example.com", .emailSignIn)
            let result = try await EmailActionExamples.completeSignIn(auth: auth, openedURL: URL(string: mail.oobLink)!, pendingEmail: store)
            #expect(result?.user.email == "passwordless@example.com")
            #expect(store.email == nil)
            #expect(try await EmailActionExamples.completeSignIn(auth: auth, openedURL: URL(string: h.baseURL + "/other")!, pendingEmail: store) == nil)
        }
    }
}

/// The example's pending-email store, in memory.
final class InMemoryPendingEmail: PendingEmailStore {
    private let value = Locked<String?>(nil)
    var email: String? {
        get { value.value }
        set { value.mutate { $0 = newValue } }
    }
}
