import Foundation
import HearthWire

/// Phone number sign-in (Firebase's `PhoneAuthProvider`): sends a code by SMS, then makes the credential that signs
/// in, links or reauthenticates with it.
///
/// ```swift
/// let provider = PhoneAuthProvider.provider(auth: auth)
/// let verificationID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
/// // … the user types the code from the SMS …
/// let credential = provider.credential(withVerificationID: verificationID, verificationCode: code)
/// let result = try await auth.signIn(with: credential)
/// ```
///
/// The same provider sends the codes of SMS second factors: pass the `MultiFactorSession` of an enrollment
/// (`user.multiFactor.session()`) or of a pending sign-in (`MultiFactorResolver.session`, with the factor from
/// `resolver.hints`), then make a `PhoneMultiFactorGenerator.assertion(with:)` from the credential.
///
/// App verification: Firebase's Apple SDK proves the app with a silent push or a reCAPTCHA page it shows through
/// `uiDelegate`. HearthAuth has neither (it runs on Linux too): when the project requires app verification (a
/// reCAPTCHA secret set on the server), get a reCAPTCHA token in the app and pass it with
/// `verifyPhoneNumber(_:recaptchaToken:multiFactorSession:)`. Dev and demo projects need none.
public final class PhoneAuthProvider: Sendable {
    /// `phone`: the provider id of phone numbers.
    public static let id = "phone"

    /// The `Auth` the codes are sent for.
    public let auth: Auth

    init(auth: Auth) {
        self.auth = auth
    }

    /// The provider of the default `Auth` instance.
    public static func provider() -> PhoneAuthProvider { PhoneAuthProvider(auth: .auth()) }

    /// The provider of `auth`.
    public static func provider(auth: Auth) -> PhoneAuthProvider { PhoneAuthProvider(auth: auth) }

    // MARK: Sending codes

    /// Sends a code by SMS to `phoneNumber` (E.164, such as `+15555550100`; spaces, dashes, dots and brackets are
    /// dropped by the server) and returns the verification ID to make the credential with. With a
    /// `multiFactorSession`, the code is for an SMS second factor: its enrollment (`user.multiFactor.session()`) or,
    /// for a pending sign-in, the factor whose number this is (prefer `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`).
    ///
    /// `uiDelegate` is accepted for Firebase's signature and not used (see the type's notes on app verification).
    /// Errors: `missingPhoneNumber`, `invalidPhoneNumber`, `operationNotAllowed` (phone sign-in or SMS second
    /// factors are off for the project, or its region policy refuses the number), `quotaExceeded` (the project's
    /// daily SMS budget is used up), `tooManyRequests`, `captchaCheckFailed`/`missingRecaptchaToken` (app verification).
    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession? = nil) async throws -> String {
        try await send(to: phoneNumber, enrollmentID: nil, recaptchaToken: nil, session: multiFactorSession)
    }

    /// Hearth extension: `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)` with a reCAPTCHA token the app got
    /// itself, for projects that require app verification (the server checks the token with reCAPTCHA).
    public func verifyPhoneNumber(_ phoneNumber: String, recaptchaToken: String?,
                                  multiFactorSession: MultiFactorSession? = nil) async throws -> String {
        try await send(to: phoneNumber, enrollmentID: nil, recaptchaToken: recaptchaToken, session: multiFactorSession)
    }

    /// Sends a code to an enrolled SMS second factor (one of `MultiFactorResolver.hints`) to complete a pending
    /// sign-in (`multiFactorSession`: `resolver.session`). The server sends it to the number it keeps for the factor
    /// (the factor's `phoneNumber` here is masked).
    public func verifyPhoneNumber(with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession?) async throws -> String {
        try await send(to: multiFactorInfo.phoneNumber, enrollmentID: multiFactorInfo.uid, recaptchaToken: nil, session: multiFactorSession)
    }

    /// Hearth extension: `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)` with a reCAPTCHA token.
    public func verifyPhoneNumber(with multiFactorInfo: PhoneMultiFactorInfo, recaptchaToken: String?,
                                  multiFactorSession: MultiFactorSession?) async throws -> String {
        try await send(to: multiFactorInfo.phoneNumber, enrollmentID: multiFactorInfo.uid, recaptchaToken: recaptchaToken, session: multiFactorSession)
    }

    /// Completion-handler form of `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`.
    public func verifyPhoneNumber(_ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil, multiFactorSession: MultiFactorSession? = nil,
                                  completion: (@Sendable (String?, (any Error)?) -> Void)?) {
        Task {
            do { completion?(try await verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession), nil) } catch {
                completion?(nil, error)
            }
        }
    }

    /// Completion-handler form of `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`.
    public func verifyPhoneNumber(with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
                                  multiFactorSession: MultiFactorSession?, completion: (@Sendable (String?, (any Error)?) -> Void)?) {
        Task {
            do { completion?(try await verifyPhoneNumber(with: multiFactorInfo, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession), nil) } catch {
                completion?(nil, error)
            }
        }
    }

    /// The credential of a code sent by `verifyPhoneNumber`: `verificationID` is what it returned, `verificationCode`
    /// the six digits of the SMS.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(kind: .verification(id: verificationID, code: verificationCode))
    }

    /// Hearth: the same credential without a provider instance.
    public static func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(kind: .verification(id: verificationID, code: verificationCode))
    }

    /// The request of each kind of send: phone sign-in (`accounts:sendVerificationCode`), SMS factor enrollment
    /// (`mfaEnrollment:start`) or SMS second-factor sign-in (`mfaSignIn:start`).
    private func send(to phoneNumber: String, enrollmentID: String?, recaptchaToken: String?, session: MultiFactorSession?) async throws -> String {
        let number = phoneNumber.trimmingCharacters(in: .whitespacesAndNewlines)
        var verification = AppVerificationFields()
        verification.recaptchaToken = recaptchaToken.flatMap { $0.isEmpty ? nil : $0 }
        guard let session else {
            guard !number.isEmpty else { throw AuthErrorUtils.error(.missingPhoneNumber) }
            let request = SendVerificationCodeRequest(phoneNumber: number, appVerification: verification)
            let answer = try await auth.core.send(request, tenantID: auth.core.tenantID)
            return try Self.verificationID(answer.sessionInfo)
        }
        switch session.kind {
        case .enrollment(let user, let idToken):
            guard !number.isEmpty else { throw AuthErrorUtils.error(.missingPhoneNumber) }
            let request = StartMFAEnrollmentRequest(idToken: idToken, phoneEnrollmentInfo: PhoneEnrollmentInfo(phoneNumber: number, appVerification: verification))
            let answer = try await user.callMultiFactor(request)
            return try Self.verificationID(answer.phoneSessionInfo?.sessionInfo)
        case .signIn(let pendingCredential, let tenantID, let hints):
            let phoneFactors = hints.compactMap { $0 as? PhoneMultiFactorInfo }
            // Without the factor (Firebase's verifyPhoneNumber(_:multiFactorSession:)): the factor with this number,
            // or the only SMS factor.
            guard let factorID = enrollmentID ?? phoneFactors.first(where: { $0.phoneNumber == number })?.uid
                ?? (phoneFactors.count == 1 ? phoneFactors[0].uid : nil)
            else {
                throw AuthErrorUtils.error(.missingMultiFactorInfo,
                                           message: "Name the SMS factor to send the code to: verifyPhoneNumber(with: resolver.hints[i] as PhoneMultiFactorInfo, uiDelegate: nil, multiFactorSession: resolver.session).")
            }
            let request = StartMFASignInRequest(mfaPendingCredential: pendingCredential, mfaEnrollmentId: factorID,
                                                phoneSignInInfo: PhoneSignInInfo(phoneNumber: number.isEmpty ? nil : number, appVerification: verification))
            let answer = try await auth.core.send(request, tenantID: tenantID)
            return try Self.verificationID(answer.phoneResponseInfo?.sessionInfo)
        }
    }

    private static func verificationID(_ sessionInfo: String?) throws -> String {
        guard let sessionInfo, !sessionInfo.isEmpty else {
            throw AuthErrorUtils.error(.internalError, message: "The server answered no sessionInfo for the code it sent.")
        }
        return sessionInfo
    }
}

/// A phone number credential (Firebase's `PhoneAuthCredential`): a verification ID and the code from the SMS
/// (`PhoneAuthProvider.credential(withVerificationID:verificationCode:)`), or — in the
/// `userInfo[AuthErrorUserInfoUpdatedCredentialKey]` of a `credentialAlreadyInUse` error, when the number belongs
/// to another account — a short-lived proof that the number was verified, which signs in to that account once
/// (`Auth.signIn(with:)`) without a new SMS.
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    enum Kind: Sendable, Equatable {
        /// `sessionInfo` and `code`.
        case verification(id: String, code: String)
        /// `temporaryProof` and `phoneNumber` (from a refused link).
        case temporaryProof(phoneNumber: String, proof: String)
    }

    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
        super.init(provider: PhoneAuthProvider.id)
    }

    /// Hearth: the verified number of a `credentialAlreadyInUse` credential (nil for a code credential).
    public var phoneNumber: String? {
        if case .temporaryProof(let number, _) = kind { return number }
        return nil
    }
}

extension AuthCore {
    /// `accounts:signInWithPhoneNumber` (the v3 `verifyPhoneNumber`): signs in or up, links (`linkingUser`: its ID
    /// token) or reauthenticates (`operation: REAUTH`, no account made) with a phone credential. A number on another
    /// account answers `temporaryProof` + `phoneNumber` instead of tokens: `credentialAlreadyInUse` with that proof
    /// as a `PhoneAuthCredential` (as Firebase's Apple SDK raises it).
    func completePhone(_ credential: PhoneAuthCredential, linkingUser: User? = nil, reauthenticating: User? = nil) async throws -> AuthDataResult {
        var request: SignInWithPhoneNumberRequest
        switch credential.kind {
        case .verification(let id, let code):
            guard !id.isEmpty else { throw AuthErrorUtils.error(.missingVerificationID) }
            guard !code.isEmpty else { throw AuthErrorUtils.error(.missingVerificationCode) }
            request = SignInWithPhoneNumberRequest(sessionInfo: id, code: code)
        case .temporaryProof(let number, let proof):
            request = SignInWithPhoneNumberRequest(temporaryProof: proof, phoneNumber: number)
        }
        request.operation = reauthenticating != nil ? "REAUTH" : linkingUser != nil ? "LINK" : "SIGN_UP_OR_IN"
        // A link or reauthentication acts in the user's tenant; a sign-in in `Auth.tenantID`'s.
        let tenant = (linkingUser ?? reauthenticating).map { $0.tenantID } ?? tenantID
        let answer: SignInWithPhoneNumberResponse
        do {
            if let linkingUser { request.idToken = try await linkingUser.getIDToken() }
            answer = try await send(request, tenantID: tenant)
        } catch let error as NSError where reauthenticating != nil && error.domain == AuthErrors.domain && error.code == AuthErrorCode.userNotFound.rawValue {
            throw AuthErrorUtils.error(.userMismatch)
        } catch {
            if let linkingUser { signOutIfTokenIsInvalid(error, user: linkingUser) }
            throw error
        }
        if let proof = answer.temporaryProof, !proof.isEmpty, let number = answer.phoneNumber, !number.isEmpty {
            let proofCredential = PhoneAuthCredential(kind: .temporaryProof(phoneNumber: number, proof: proof))
            throw AuthErrorUtils.error(.credentialAlreadyInUse, userInfo: [AuthErrors.userInfoUpdatedCredentialKey: proofCredential,
                                                                           AuthErrors.userInfoNameKey: "PHONE_NUMBER_EXISTS"])
        }
        if let reauthenticating, let localId = answer.localId, localId != reauthenticating.uid {
            throw AuthErrorUtils.error(.userMismatch)
        }
        let additional = AdditionalUserInfo(providerID: PhoneAuthProvider.id, profile: nil, username: nil, isNewUser: answer.isNewUser ?? false)
        guard let idToken = answer.idToken, let refreshToken = answer.refreshToken else {
            throw AuthErrorUtils.error(.internalError, message: "The server returned no tokens.")
        }
        let user = try await signedIn(idToken: idToken, refreshToken: refreshToken, expiresIn: answer.expiresIn,
                                      replacing: linkingUser ?? reauthenticating)
        return AuthDataResult(user: user, additionalUserInfo: additional, credential: nil)
    }
}
