/// Wire types of phone sign-in (issue 40): `accounts:sendVerificationCode` (v3 `relyingparty/sendVerificationCode`)
/// sends a 6-digit code by SMS and answers `sessionInfo`; `accounts:signInWithPhoneNumber` (v3
/// `relyingparty/verifyPhoneNumber`) signs in, signs up, links (`idToken`) or reauthenticates (`operation:
/// "REAUTH"`) with `sessionInfo` + `code`, or with the `temporaryProof` + `phoneNumber` a refused link answered.
///
/// Shapes follow Identity Toolkit v1 (`GoogleCloudIdentitytoolkitV1SendVerificationCodeRequest`,
/// `…SignInWithPhoneNumberRequest/Response`) and what Firebase's JS and Apple SDKs send and read. The app
/// verification fields (``AppVerificationFields``) sit flat in the request object, as every SDK sends them; MFA's
/// `phoneEnrollmentInfo`/`phoneSignInInfo` carry the same fields beside `phoneNumber`.

/// The app-verification fields a client sends with a code request (flat, beside `phoneNumber`): a reCAPTCHA v2
/// token (`recaptchaToken`), a reCAPTCHA Enterprise token (`captchaResponse` + `clientType` + `recaptchaVersion`),
/// Apple's silent-push receipt (`iosReceipt` + `iosSecret`), Android's SafetyNet / Play Integrity tokens, and
/// Android's SMS Retriever hash (`autoRetrievalInfo.appSignatureHash`). Hearth verifies reCAPTCHA tokens (either
/// field) when the project has a secret; it reads the others only to accept them.
public struct AppVerificationFields: Codable, Sendable, Equatable {
    /// reCAPTCHA v2 token (JS `RecaptchaVerifier`, the Apple SDK's web fallback).
    public var recaptchaToken: String?
    /// reCAPTCHA Enterprise token.
    public var captchaResponse: String?
    /// `CLIENT_TYPE_WEB`, `CLIENT_TYPE_ANDROID`, `CLIENT_TYPE_IOS` (with `captchaResponse`).
    public var clientType: String?
    /// `RECAPTCHA_ENTERPRISE` (with `captchaResponse`).
    public var recaptchaVersion: String?
    /// Apple's APNs-based app verification receipt.
    public var iosReceipt: String?
    /// The secret that came with that receipt's silent push.
    public var iosSecret: String?
    /// Android SafetyNet attestation (deprecated by Google).
    public var safetyNetToken: String?
    /// Android Play Integrity token.
    public var playIntegrityToken: String?
    /// Android SMS Retriever: the app's signature hash to put in the message.
    public var autoRetrievalInfo: AutoRetrievalInfo?

    /// `autoRetrievalInfo`.
    public struct AutoRetrievalInfo: Codable, Sendable, Equatable {
        public var appSignatureHash: String?
        public init(appSignatureHash: String?) { self.appSignatureHash = appSignatureHash }
    }

    /// No verification fields; set the ones the client has.
    public init(recaptchaToken: String? = nil, captchaResponse: String? = nil, clientType: String? = nil,
                recaptchaVersion: String? = nil, iosReceipt: String? = nil, iosSecret: String? = nil,
                safetyNetToken: String? = nil, playIntegrityToken: String? = nil, autoRetrievalInfo: AutoRetrievalInfo? = nil) {
        self.recaptchaToken = recaptchaToken
        self.captchaResponse = captchaResponse
        self.clientType = clientType
        self.recaptchaVersion = recaptchaVersion
        self.iosReceipt = iosReceipt
        self.iosSecret = iosSecret
        self.safetyNetToken = safetyNetToken
        self.playIntegrityToken = playIntegrityToken
        self.autoRetrievalInfo = autoRetrievalInfo
    }

    /// The reCAPTCHA token to verify: `recaptchaToken`, else `captchaResponse` (empty strings count as absent).
    public var recaptchaResponse: String? {
        [recaptchaToken, captchaResponse].lazy.compactMap { $0 }.first { !$0.isEmpty }
    }
}

/// `accounts:sendVerificationCode` (v3 `relyingparty/sendVerificationCode`).
public struct SendVerificationCodeRequest: Codable, Sendable, Equatable {
    /// The number to send the code to (E.164; Hearth also accepts spaces, `-`, `.`, `(`, `)`).
    public var phoneNumber: String?
    /// The tenant.
    public var tenantId: String?
    /// The app verification fields, flat in the request object.
    public var appVerification: AppVerificationFields

    /// A request for a code to `phoneNumber`.
    public init(phoneNumber: String?, appVerification: AppVerificationFields = AppVerificationFields(), tenantId: String? = nil) {
        self.phoneNumber = phoneNumber
        self.appVerification = appVerification
        self.tenantId = tenantId
    }

    private enum CodingKeys: String, CodingKey { case phoneNumber, tenantId }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        tenantId = try c.decodeIfPresent(String.self, forKey: .tenantId)
        appVerification = try AppVerificationFields(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try appVerification.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try c.encodeIfPresent(tenantId, forKey: .tenantId)
    }
}

/// The answer to `accounts:sendVerificationCode`.
public struct SendVerificationCodeResponse: Codable, Sendable, Equatable {
    /// The verification id: sent back with the code to `signInWithPhoneNumber`.
    public var sessionInfo: String?

    public init(sessionInfo: String?) { self.sessionInfo = sessionInfo }
}

/// `accounts:signInWithPhoneNumber` (v3 `relyingparty/verifyPhoneNumber`): `sessionInfo` + `code`, or
/// `temporaryProof` + `phoneNumber`; with `idToken`, links the number to that user.
public struct SignInWithPhoneNumberRequest: Codable, Sendable, Equatable {
    /// From `sendVerificationCode`.
    public var sessionInfo: String?
    /// The code from the SMS.
    public var code: String?
    /// With `temporaryProof`: the number the proof is for.
    public var phoneNumber: String?
    /// A proof from an earlier answer (the number was verified but is on another account).
    public var temporaryProof: String?
    /// Android's verification proof (Firebase's; Hearth issues none).
    public var verificationProof: String?
    /// Link the number to this signed-in user.
    public var idToken: String?
    /// `SIGN_UP_OR_IN`, `REAUTH`, `UPDATE`, `LINK`, or `VERIFY_OP_UNSPECIFIED` (the Apple SDK always sends one;
    /// the JS SDK only `REAUTH`). ``Operation`` names them.
    public var operation: String?
    /// The tenant.
    public var tenantId: String?

    /// Firebase's `operation` values.
    public enum Operation: String, Sendable, CaseIterable {
        case unspecified = "VERIFY_OP_UNSPECIFIED"
        case signUpOrIn = "SIGN_UP_OR_IN"
        case reauth = "REAUTH"
        case update = "UPDATE"
        case link = "LINK"
    }

    /// A code sign-in (or, with `idToken`, a link).
    public init(sessionInfo: String?, code: String?, idToken: String? = nil, operation: String? = nil, tenantId: String? = nil) {
        self.sessionInfo = sessionInfo
        self.code = code
        self.idToken = idToken
        self.operation = operation
        self.tenantId = tenantId
    }

    /// A sign-in with a temporary proof.
    public init(temporaryProof: String?, phoneNumber: String?, idToken: String? = nil, operation: String? = nil, tenantId: String? = nil) {
        self.temporaryProof = temporaryProof
        self.phoneNumber = phoneNumber
        self.idToken = idToken
        self.operation = operation
        self.tenantId = tenantId
    }
}

/// The answer to `accounts:signInWithPhoneNumber`: tokens, or — when a link's number is on another account —
/// only `phoneNumber` + `temporaryProof` (+ `temporaryProofExpiresIn`), with HTTP 200 (the SDKs raise
/// `credential-already-in-use` / `need-confirmation` carrying the proof).
public struct SignInWithPhoneNumberResponse: Codable, Sendable, Equatable {
    public var idToken: String?
    public var refreshToken: String?
    /// Seconds, as a string (`"3600"`).
    public var expiresIn: String?
    public var localId: String?
    public var isNewUser: Bool?
    /// The verified number, E.164.
    public var phoneNumber: String?
    /// A single-use proof the number was verified (the link refused: the number is on another account).
    public var temporaryProof: String?
    /// Seconds, as a string.
    public var temporaryProofExpiresIn: String?
    /// Android's (Firebase's; Hearth issues none).
    public var verificationProof: String?
    public var verificationProofExpiresIn: String?

    /// A signed-in answer.
    public init(tokens: SessionTokens?, localId: String?, isNewUser: Bool?, phoneNumber: String?) {
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
        self.localId = localId
        self.isNewUser = isNewUser
        self.phoneNumber = phoneNumber
    }

    /// The answer of a link whose number is on another account.
    public init(phoneNumber: String, temporaryProof: String, temporaryProofExpiresIn: String) {
        self.phoneNumber = phoneNumber
        self.temporaryProof = temporaryProof
        self.temporaryProofExpiresIn = temporaryProofExpiresIn
    }
}

// MARK: - SMS second factors

/// `phoneEnrollmentInfo` of `mfaEnrollment:start`: the number to enroll and the app verification fields (flat).
public struct PhoneEnrollmentInfo: Codable, Sendable, Equatable {
    /// The number (E.164).
    public var phoneNumber: String?
    /// The app verification fields.
    public var appVerification: AppVerificationFields

    public init(phoneNumber: String?, appVerification: AppVerificationFields = AppVerificationFields()) {
        self.phoneNumber = phoneNumber
        self.appVerification = appVerification
    }

    private enum CodingKeys: String, CodingKey { case phoneNumber }

    public init(from decoder: any Decoder) throws {
        phoneNumber = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .phoneNumber)
        appVerification = try AppVerificationFields(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try appVerification.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
    }
}

/// `phoneSignInInfo` of `mfaSignIn:start`: the same shape (`StartMfaPhoneRequestInfo`); the number is the
/// factor's, named by `mfaEnrollmentId` — a `phoneNumber` sent here is not used.
public typealias PhoneSignInInfo = PhoneEnrollmentInfo

/// `phoneSessionInfo` of `mfaEnrollment:start`'s answer / `phoneResponseInfo` of `mfaSignIn:start`'s.
public struct PhoneSessionInfo: Codable, Sendable, Equatable {
    /// The verification id, sent back in `phoneVerificationInfo.sessionInfo`.
    public var sessionInfo: String?

    public init(sessionInfo: String?) { self.sessionInfo = sessionInfo }
}

/// `phoneVerificationInfo` of `mfaEnrollment:finalize` and `mfaSignIn:finalize`.
public struct PhoneVerificationInfo: Codable, Sendable, Equatable {
    /// From the start step.
    public var sessionInfo: String?
    /// The code from the SMS.
    public var code: String?
    /// The factor's number; the Apple SDK sends the masked form at sign-in (Hearth does not need it).
    public var phoneNumber: String?
    /// Firebase's Android auto-verification (not issued by Hearth).
    public var androidVerificationProof: String?
    /// Firebase's (not issued by Hearth).
    public var temporaryProof: String?

    public init(sessionInfo: String?, code: String?, phoneNumber: String? = nil) {
        self.sessionInfo = sessionInfo
        self.code = code
        self.phoneNumber = phoneNumber
    }
}

/// `phoneAuthInfo` of the finalize answers: the verified number.
public struct PhoneAuthInfo: Codable, Sendable, Equatable {
    /// The number, E.164.
    public var phoneNumber: String?

    public init(phoneNumber: String?) { self.phoneNumber = phoneNumber }
}

// The RPC descriptions sit here rather than in RPC.swift (several people edited that file at once); they join
// `RPCCatalog.client` when the server serves them.

/// `accounts:sendVerificationCode` (v3 `sendVerificationCode`).
extension SendVerificationCodeRequest: WireRPC {
    public typealias Response = SendVerificationCodeResponse
    public static let method = RPCMethod.accounts("sendVerificationCode", v3: "sendVerificationCode")
}

/// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`, the Apple SDK's path).
extension SignInWithPhoneNumberRequest: WireRPC {
    public typealias Response = SignInWithPhoneNumberResponse
    public static let method = RPCMethod.accounts("signInWithPhoneNumber", v3: "verifyPhoneNumber")
}

extension WirePaths {
    /// `POST …/v1/accounts:sendVerificationCode`.
    public static let sendVerificationCode = accounts("sendVerificationCode")
    /// `POST …/v1/accounts:signInWithPhoneNumber`.
    public static let signInWithPhoneNumber = accounts("signInWithPhoneNumber")
}
