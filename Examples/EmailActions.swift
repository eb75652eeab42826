// Email actions in an app, as Firebase's "Send a password reset email", "Authenticate with Firebase using Email
// Link" and "Manage users" guides do them, written against HearthAuth. The test suite compiles this target and
// runs these functions against a real server.
import Foundation
import HearthAuth

/// Where the app keeps the address it sent a sign-in link to until the link comes back (the guide uses
/// `UserDefaults`).
public protocol PendingEmailStore: AnyObject, Sendable {
    var email: String? { get set }
}

/// The guides' snippets, as functions.
public enum EmailActionExamples {
    /// A link that is not what the screen expected.
    public struct UnexpectedLink: Error {}

    /// "Forgot password?": the server mails a reset link (to its own action page, where the person sets the new
    /// password).
    public static func forgotPassword(auth: Auth = .auth(), email: String) async throws {
        try await auth.sendPasswordReset(withEmail: email)
    }

    /// An app that handles the reset link itself: read the code, check it, set the new password. Returns the
    /// account's email.
    @discardableResult
    public static func completeReset(auth: Auth = .auth(), link: String, newPassword: String) async throws -> String {
        guard let url = ActionCodeURL(link: link), url.operation == .passwordReset, let code = url.code else { throw UnexpectedLink() }
        let email = try await auth.verifyPasswordResetCode(code)
        try await auth.confirmPasswordReset(withCode: code, newPassword: newPassword)
        return email
    }

    /// After sign-up: ask the person to confirm the address.
    public static func signUpAndVerify(auth: Auth = .auth(), email: String, password: String) async throws -> User {
        let result = try await auth.createUser(withEmail: email, password: password)
        try await result.user.sendEmailVerification()
        return result.user
    }

    /// Passwordless sign-in, step 1: mail a link that opens the app, and remember the address.
    public static func sendSignInLink(auth: Auth = .auth(), email: String, continueURL: URL, pendingEmail: any PendingEmailStore) async throws {
        let settings = ActionCodeSettings()
        settings.url = continueURL
        // The sign-in must be completed in the app.
        settings.handleCodeInApp = true
        try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
        pendingEmail.email = email
    }

    /// Step 2, when the app opens a URL: a sign-in link signs in with the remembered address. Nil for other URLs
    /// (or when the address is unknown: then ask the person for it).
    public static func completeSignIn(auth: Auth = .auth(), openedURL: URL, pendingEmail: any PendingEmailStore) async throws -> AuthDataResult? {
        let link = openedURL.absoluteString
        guard auth.isSignIn(withEmailLink: link), let email = pendingEmail.email else { return nil }
        let result = try await auth.signIn(withEmail: email, link: link)
        pendingEmail.email = nil
        return result
    }

    /// Change the email only once the new address is confirmed (the old one can undo it).
    public static func changeEmail(auth: Auth = .auth(), to newEmail: String) async throws {
        guard let user = auth.currentUser else { return }
        try await user.sendEmailVerification(beforeUpdatingEmail: newEmail)
    }
}
