import Foundation
import HearthWire

// Email actions: password reset, action codes, email-link sign-in (Firebase's names and behaviour).
extension Auth {
    /// Sends `email` a password reset link (the server's action page, or `actionCodeSettings.url` with
    /// `handleCodeInApp`). With email enumeration protection on, an unknown address is not an error.
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        _ = try await core.send(SendOobCodeRequest(requestType: .passwordReset, email: email, settings: actionCodeSettings?.wire), tenantID: core.tenantID)
    }

    /// The email address a password reset code was sent to (the code stays usable).
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        try await checkActionCode(code).email
    }

    /// Sets a new password with a password reset code (the code is used up; the account's sessions end).
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await core.send(ResetPasswordRequest(oobCode: code, newPassword: newPassword), tenantID: core.tenantID)
    }

    /// What an action code is for and whom it concerns, without using it up. `invalidActionCode` for an unknown or
    /// used code, `expiredActionCode` for an expired one.
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let answer = try await core.send(ResetPasswordRequest(oobCode: code), tenantID: core.tenantID)
        return ActionCodeInfo(operation: ActionCodeOperation(requestType: answer.requestType), email: answer.email, newEmail: answer.newEmail)
    }

    /// Applies a verify-email, recover-email or verify-and-change-email code. The signed-in user's profile is not
    /// reloaded (call `User.reload()`), as in Firebase.
    public func applyActionCode(_ code: String) async throws {
        var request = UpdateRequest(idToken: nil)
        request.oobCode = code
        _ = try await core.send(request, tenantID: core.tenantID)
    }

    /// Sends `email` a sign-in link. Set `actionCodeSettings.url` to the link the app handles and
    /// `handleCodeInApp` to true; keep the address to pass to `signIn(withEmail:link:)` later.
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        _ = try await core.send(SendOobCodeRequest(requestType: .emailSignIn, email: email, settings: actionCodeSettings.wire), tenantID: core.tenantID)
    }

    /// Whether `link` is an email sign-in link: its `oobCode` is present and its `mode` is `signIn`, in the link
    /// itself or in one it wraps (`link=`, `deep_link_id=`). Links over 16 KiB are not.
    public func isSignIn(withEmailLink link: String) -> Bool {
        EmailActionLink.signInCode(of: link) != nil
    }

    /// Signs in with `email` and the sign-in link sent to it, creating the account on first use. A link that is no
    /// sign-in link is `invalidActionCode` (Firebase stops the app there); a used one too; an old one
    /// `expiredActionCode`.
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await core.completeEmail(EmailAuthCredential(email: email, secret: .link(link)))
    }

    // MARK: Completion-handler forms

    public func sendPasswordReset(withEmail email: String, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await sendPasswordReset(withEmail: email); completion?(nil) } catch { completion?(error) } }
    }

    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings,
                                  completion: (@Sendable ((any Error)?) -> Void)?) {
        Task {
            do { try await sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings); completion?(nil) } catch { completion?(error) }
        }
    }

    public func verifyPasswordResetCode(_ code: String, completion: @escaping @Sendable (String?, (any Error)?) -> Void) {
        Task { do { completion(try await verifyPasswordResetCode(code), nil) } catch { completion(nil, error) } }
    }

    public func confirmPasswordReset(withCode code: String, newPassword: String, completion: @escaping @Sendable ((any Error)?) -> Void) {
        Task { do { try await confirmPasswordReset(withCode: code, newPassword: newPassword); completion(nil) } catch { completion(error) } }
    }

    public func checkActionCode(_ code: String, completion: @escaping @Sendable (ActionCodeInfo?, (any Error)?) -> Void) {
        Task { do { completion(try await checkActionCode(code), nil) } catch { completion(nil, error) } }
    }

    public func applyActionCode(_ code: String, completion: @escaping @Sendable ((any Error)?) -> Void) {
        Task { do { try await applyActionCode(code); completion(nil) } catch { completion(error) } }
    }

    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task {
            do { try await sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings); completion?(nil) } catch { completion?(error) }
        }
    }

    public func signIn(withEmail email: String, link: String, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await signIn(withEmail: email, link: link), nil) } catch { completion?(nil, error) } }
    }
}

extension AuthCore {
    /// Signs in, links (`linkingUser`) or reauthenticates with an email credential: its password or its sign-in
    /// link (`accounts:signInWithEmailLink`, with the user's ID token when linking).
    func completeEmail(_ credential: EmailAuthCredential, linkingUser: User? = nil, reauthenticating: User? = nil) async throws -> AuthDataResult {
        if let reauthenticating, let email = reauthenticating.email, email.lowercased() != credential.email.lowercased() {
            // Another address cannot be this user (and an email link for it would create an account).
            throw AuthErrorUtils.error(.userMismatch)
        }
        // A link or reauthentication acts in the user's tenant; a sign-in in `Auth.tenantID`'s.
        let tenant = (linkingUser ?? reauthenticating).map { $0.tenantID } ?? tenantID
        let session: (idToken: String?, refreshToken: String?, expiresIn: String?, localId: String, isNewUser: Bool,
                      pending: String?, mfaInfo: [MFAEnrollmentInfo]?)
        do {
            switch credential.secret {
            case .password(let password):
                if let linkingUser {
                    let token = try await linkingUser.getIDToken()
                    try await linkingUser.setAccountInfo(UpdateRequest(idToken: token, password: password, email: credential.email))
                    return AuthDataResult(user: linkingUser, additionalUserInfo: AdditionalUserInfo(providerID: EmailAuthProvider.id, profile: nil,
                                                                                                    username: nil, isNewUser: false),
                                          credential: nil)
                }
                let answer = try await send(SignInWithPasswordRequest(email: credential.email, password: password), tenantID: tenant)
                session = (answer.idToken, answer.refreshToken, answer.expiresIn, answer.localId, false, answer.mfaPendingCredential, answer.mfaInfo)
            case .link(let link):
                guard let code = EmailActionLink.signInCode(of: link) else {
                    throw AuthErrorUtils.error(.invalidActionCode, message: "The link is not an email sign-in link (it needs mode=signIn and an oobCode). Check it with isSignIn(withEmailLink:).")
                }
                let idToken = try await linkingUser?.getIDToken()
                let answer = try await send(SignInWithEmailLinkRequest(email: credential.email, oobCode: code, idToken: idToken), tenantID: tenant)
                session = (answer.idToken, answer.refreshToken, answer.expiresIn, answer.localId, answer.isNewUser,
                           answer.mfaPendingCredential, answer.mfaInfo)
            }
        } catch let error as NSError where reauthenticating != nil && error.domain == AuthErrors.domain && error.code == AuthErrorCode.userNotFound.rawValue {
            throw AuthErrorUtils.error(.userMismatch)
        } catch {
            if let linkingUser { signOutIfTokenIsInvalid(error, user: linkingUser) }
            throw error
        }
        if let reauthenticating, session.localId != reauthenticating.uid {
            throw AuthErrorUtils.error(.userMismatch)
        }
        let additional = AdditionalUserInfo(providerID: EmailAuthProvider.id, profile: nil, username: nil, isNewUser: session.isNewUser)
        try checkSecondFactor(pendingCredential: session.pending, mfaInfo: session.mfaInfo, email: credential.email,
                              firstFactor: .init(additionalUserInfo: additional, credential: nil, replacing: linkingUser ?? reauthenticating))
        guard let idToken = session.idToken, let refreshToken = session.refreshToken else {
            throw AuthErrorUtils.error(.internalError, message: "The server returned no tokens.")
        }
        let user = try await signedIn(idToken: idToken, refreshToken: refreshToken, expiresIn: session.expiresIn,
                                      replacing: linkingUser ?? reauthenticating)
        return AuthDataResult(user: user, additionalUserInfo: additional, credential: nil)
    }
}
