import Foundation
import HearthWire

/// Completes the sign-in of a user with a second factor (Firebase's `MultiFactorResolver`). A sign-in, or a
/// reauthentication, of such a user fails with `secondFactorRequired`; the error's
/// `userInfo[AuthErrorUserInfoMultiFactorResolverKey]` holds the resolver:
///
/// ```swift
/// do {
///     try await auth.signIn(withEmail: email, password: password)
/// } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
///     let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
///     let factor = resolver.hints[0]
///     let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.uid, oneTimePassword: code)
///     let result = try await resolver.resolveSignIn(with: assertion)
/// }
/// ```
public final class MultiFactorResolver: Sendable {
    /// The pending sign-in (short-lived: a few minutes, then sign in again).
    public let session: MultiFactorSession
    /// The user's enrolled factors, to choose from.
    public let hints: [MultiFactorInfo]
    /// The `Auth` the sign-in completes in.
    public let auth: Auth
    let pendingCredential: String
    let firstFactor: FirstFactor
    /// The tenant the first factor signed in to: the second factor completes there.
    let tenantID: String?

    /// What the first factor's answer said, for the result of the completed sign-in.
    struct FirstFactor: Sendable {
        /// The `AuthDataResult.additionalUserInfo` of the first factor (provider, profile, new user).
        var additionalUserInfo: AdditionalUserInfo?
        /// The provider's tokens of a federated first factor.
        var credential: OAuthCredential?
        /// The user a reauthentication (or link) keeps: its tokens are replaced instead of a new user being made.
        var replacing: User?
    }

    init(pendingCredential: String, hints: [MultiFactorInfo], auth: Auth, firstFactor: FirstFactor) {
        self.pendingCredential = pendingCredential
        self.hints = hints
        self.auth = auth
        self.firstFactor = firstFactor
        let tenantID = firstFactor.replacing.map { $0.tenantID } ?? auth.core.tenantID
        self.tenantID = tenantID
        self.session = MultiFactorSession(kind: .signIn(pendingCredential: pendingCredential, tenantID: tenantID, hints: hints))
    }

    /// Completes the sign-in with a second factor (`accounts/mfaSignIn:finalize`): a TOTP code
    /// (`TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID:oneTimePassword:)`), an SMS code
    /// (`PhoneMultiFactorGenerator.assertion(with:)` over the code `PhoneAuthProvider.verifyPhoneNumber(with:
    /// uiDelegate:multiFactorSession:)` sent to one of the `hints`) or, Hearth extensions, a
    /// recovery code (`RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode:)`) or a passkey
    /// (`PasskeyMultiFactorGenerator.assertionForSignIn(with:)` over `passkeyChallenge()`). Signs the user in
    /// as the first factor would have (current user, listeners, persistence); for a reauthentication, the same user
    /// continues with the new tokens. A wrong code is `invalidVerificationCode` (try again with this resolver while
    /// it lasts); `invalidMultiFactorSession` once it is used or expired; `tooManyRequests` after too many wrong codes.
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        let request: FinalizeMFASignInRequest
        switch assertion {
        case let totp as TOTPMultiFactorAssertion:
            guard case .enrollmentID(let enrollmentID) = totp.target else {
                throw AuthErrorUtils.error(.missingMultiFactorInfo,
                                           message: "This assertion enrolls a factor; sign in with TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID:oneTimePassword:).")
            }
            request = FinalizeMFASignInRequest(mfaPendingCredential: pendingCredential, mfaEnrollmentId: enrollmentID,
                                               verificationCode: totp.oneTimePassword)
        case let recovery as RecoveryCodeMultiFactorAssertion:
            request = FinalizeMFASignInRequest(mfaPendingCredential: pendingCredential, recoveryCode: recovery.recoveryCode)
        case let phone as PhoneMultiFactorAssertion:
            guard let verification = phone.verification else {
                throw AuthErrorUtils.error(.missingVerificationCode,
                                           message: "This phone credential carries no code; sign in with PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID:verificationCode:)).")
            }
            request = FinalizeMFASignInRequest(mfaPendingCredential: pendingCredential,
                                               phoneVerificationInfo: PhoneVerificationInfo(sessionInfo: verification.sessionInfo, code: verification.code))
        case let passkey as PasskeyMultiFactorAssertion:
            request = FinalizeMFASignInRequest(mfaPendingCredential: pendingCredential, passkeyAssertion: passkey.assertion.wire)
        default:
            throw AuthErrorUtils.error(.invalidCredential, message: "Unsupported second factor: \(assertion.factorID).")
        }
        let core = auth.core
        let answer = try await core.send(request, tenantID: tenantID)
        guard let idToken = answer.idToken, let refreshToken = answer.refreshToken else {
            throw AuthErrorUtils.error(.internalError, message: "The server returned no tokens.")
        }
        let user = try await core.signedIn(idToken: idToken, refreshToken: refreshToken, expiresIn: nil, replacing: firstFactor.replacing)
        return AuthDataResult(user: user, additionalUserInfo: firstFactor.additionalUserInfo, credential: firstFactor.credential)
    }

    /// Completion-handler form of `resolveSignIn(with:)`.
    public func resolveSignIn(with assertion: MultiFactorAssertion, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await resolveSignIn(with: assertion), nil) } catch { completion?(nil, error) } }
    }
}

extension AuthCore {
    /// Throws `secondFactorRequired` with a resolver when a first-factor answer carries `mfaPendingCredential`
    /// instead of tokens; returns otherwise.
    func checkSecondFactor(pendingCredential: String?, mfaInfo: [MFAEnrollmentInfo]?, email: String?,
                           firstFactor: MultiFactorResolver.FirstFactor) throws {
        guard let pendingCredential, !pendingCredential.isEmpty else { return }
        let resolver = MultiFactorResolver(pendingCredential: pendingCredential, hints: MultiFactorInfo.factors(from: mfaInfo),
                                           auth: Auth(core: self), firstFactor: firstFactor)
        var info: [String: any Sendable] = [AuthErrors.userInfoMultiFactorResolverKey: resolver]
        if let email { info[AuthErrors.userInfoEmailKey] = email }
        throw AuthErrorUtils.error(.secondFactorRequired, userInfo: info)
    }
}
