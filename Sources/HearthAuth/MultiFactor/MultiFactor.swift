import Foundation
import HearthWire

/// A user's second factors and their enrollment (Firebase's `MultiFactor`): `user.multiFactor`.
///
/// Enrollment needs a recent sign-in and a verified email; afterwards every sign-in of the user asks for the second
/// factor (`secondFactorRequired` with a `MultiFactorResolver`). Hearth extensions: recovery codes
/// (`enroll(with:displayName:generatingRecoveryCodes:)`, `generateRecoveryCodes()`).
public final class MultiFactor: Sendable {
    let user: User

    init(user: User) {
        self.user = user
    }

    /// The enrolled factors, as of the last sign-in, enrollment or `User.reload()`.
    public var enrolledFactors: [MultiFactorInfo] { MultiFactorInfo.factors(from: user.profile.mfaInfo) }

    // MARK: Sessions

    /// A session to enroll a factor with (`TOTPMultiFactorGenerator.generateSecret(with:)`, or
    /// `PhoneAuthProvider.verifyPhoneNumber(_:uiDelegate:multiFactorSession:)` for an SMS factor): the user's current
    /// ID token (refreshed if it is about to expire).
    public func session() async throws -> MultiFactorSession {
        MultiFactorSession(kind: .enrollment(user: user, idToken: try await user.getIDToken()))
    }

    /// Same as `session()`.
    public func getSession() async throws -> MultiFactorSession {
        try await session()
    }

    /// Completion-handler form of `session()`.
    public func getSessionWithCompletion(_ completion: (@Sendable (MultiFactorSession?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await session(), nil) } catch { completion?(nil, error) } }
    }

    // MARK: Enrollment

    /// Enrolls the factor of `assertion` (from `TOTPMultiFactorGenerator.assertionForEnrollment(with:oneTimePassword:)`,
    /// or `PhoneMultiFactorGenerator.assertion(with:)` over the code sent to the number) under `displayName` (`accounts/mfaEnrollment:finalize`). The user's tokens are replaced by the answer's (they
    /// carry the second factor) and the profile is reloaded, so `enrolledFactors` lists the new factor.
    /// `invalidVerificationCode` for a wrong code, `sessionExpired` when the secret's deadline (or the SMS code's
    /// five minutes) passed, `requiresRecentLogin` when the sign-in is too old, `secondFactorAlreadyEnrolled` for a
    /// number enrolled already.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        _ = try await finalize(assertion, displayName: displayName, recoveryCodes: false)
    }

    /// Hearth extension: enrolls like `enroll(with:displayName:)` and, with `generatingRecoveryCodes`, also makes
    /// ten one-time recovery codes (replacing any earlier set) and returns them — show them to the user once; the
    /// server keeps only their hashes. Each signs in once in place of a TOTP code
    /// (`RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode:)`).
    @discardableResult
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?, generatingRecoveryCodes: Bool) async throws -> [String] {
        try await finalize(assertion, displayName: displayName, recoveryCodes: generatingRecoveryCodes)
    }

    /// Completion-handler form of `enroll(with:displayName:)`.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await enroll(with: assertion, displayName: displayName); completion?(nil) } catch { completion?(error) } }
    }

    private func finalize(_ assertion: MultiFactorAssertion, displayName: String?, recoveryCodes: Bool) async throws -> [String] {
        let request: FinalizeMFAEnrollmentRequest
        if let phone = assertion as? PhoneMultiFactorAssertion {
            guard let verification = phone.verification else {
                throw AuthErrorUtils.error(.missingVerificationCode,
                                           message: "This phone credential carries no code; enroll with PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID:verificationCode:)).")
            }
            request = FinalizeMFAEnrollmentRequest(
                idToken: try await user.getIDToken(), displayName: displayName,
                phoneVerificationInfo: PhoneVerificationInfo(sessionInfo: verification.sessionInfo, code: verification.code),
                generateRecoveryCodes: recoveryCodes ? true : nil)
        } else {
            guard let totp = assertion as? TOTPMultiFactorAssertion, case .secret(let secret) = totp.target else {
                throw AuthErrorUtils.error(.missingMultiFactorSession,
                                           message: "This assertion signs in; enroll with TOTPMultiFactorGenerator.assertionForEnrollment(with:oneTimePassword:) or PhoneMultiFactorGenerator.assertion(with:).")
            }
            request = FinalizeMFAEnrollmentRequest(
                idToken: try await user.getIDToken(), displayName: displayName,
                totpVerificationInfo: TOTPEnrollmentVerificationInfo(sessionInfo: secret.sessionInfo, verificationCode: totp.oneTimePassword),
                generateRecoveryCodes: recoveryCodes ? true : nil)
        }
        let answer = try await user.callMultiFactor(request)
        try await user.adoptTokens(idToken: answer.idToken, refreshToken: answer.refreshToken)
        return answer.recoveryCodes ?? []
    }

    /// Removes an enrolled factor (`accounts/mfaEnrollment:withdraw`; needs a recent sign-in). The server ends the
    /// user's other sessions; this one continues with the answer's tokens, and the profile is reloaded.
    /// Removing the last factor also drops the user's recovery codes.
    public func unenroll(with factorInfo: MultiFactorInfo) async throws {
        try await unenroll(withFactorUID: factorInfo.uid)
    }

    /// Removes the factor with this enrollment id (`MultiFactorInfo.uid`). `multiFactorInfoNotFound` for an
    /// unknown id.
    public func unenroll(withFactorUID factorUID: String) async throws {
        let request = WithdrawMFARequest(idToken: try await user.getIDToken(), mfaEnrollmentId: factorUID)
        let answer = try await user.callMultiFactor(request)
        try await user.adoptTokens(idToken: answer.idToken, refreshToken: answer.refreshToken)
    }

    /// Completion-handler form of `unenroll(with:)`.
    public func unenroll(with factorInfo: MultiFactorInfo, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await unenroll(with: factorInfo); completion?(nil) } catch { completion?(error) } }
    }

    /// Completion-handler form of `unenroll(withFactorUID:)`.
    public func unenroll(withFactorUID factorUID: String, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await unenroll(withFactorUID: factorUID); completion?(nil) } catch { completion?(error) } }
    }

    // MARK: Recovery codes (Hearth)

    /// Hearth extension: ten new one-time recovery codes for a user with a second factor
    /// (`accounts/mfaRecoveryCodes:generate`; needs a recent sign-in). The earlier set stops working. Show them
    /// once; the server keeps only their hashes.
    public func generateRecoveryCodes() async throws -> [String] {
        let request = GenerateRecoveryCodesRequest(idToken: try await user.getIDToken())
        return try await user.callMultiFactor(request).recoveryCodes
    }
}

/// What a second-factor step is bound to (Firebase's `MultiFactorSession`): the signed-in user's ID token for an
/// enrollment (`MultiFactor.session()`), or the pending sign-in of a `MultiFactorResolver`.
public final class MultiFactorSession: Sendable {
    enum Kind: Sendable {
        case enrollment(user: User, idToken: String)
        /// A pending sign-in: its credential, the tenant of its first factor, the user's factors (for the SMS
        /// factor a code is sent to).
        case signIn(pendingCredential: String, tenantID: String?, hints: [MultiFactorInfo])
    }

    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
    }
}

extension User {
    /// The user's second factors and their enrollment.
    public var multiFactor: MultiFactor { MultiFactor(user: self) }

    /// Sends a second-factor (or passkey) RPC of this user, in the user's tenant; signs out when the server says
    /// the user's tokens are no longer good.
    func callMultiFactor<R: TenantCarryingRequest>(_ request: R) async throws -> R.Response {
        do {
            return try await auth.send(request, tenantID: tenantID)
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
    }

    /// Takes the tokens an enrollment or withdrawal answered, then reloads the profile (factors included).
    func adoptTokens(idToken: String?, refreshToken: String?) async throws {
        guard let idToken, let refreshToken else { throw AuthErrorUtils.error(.internalError, message: "The server returned no tokens.") }
        // These answers carry no `expiresIn`: the token's own lifetime (exp − iat) says it, whatever the clocks.
        let lifetime = (try? AuthTokenResult.parse(idToken)).map { $0.expirationDate.timeIntervalSince($0.issuedAtDate) } ?? 3600
        await tokens.replace(.init(idToken: idToken, refreshToken: refreshToken, expirationDate: auth.configuration.clock().addingTimeInterval(lifetime)))
        try await refreshProfile(idToken: idToken)
    }
}
