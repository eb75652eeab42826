/// Wire types of multi-factor authentication (TOTP) on Identity Toolkit v2: enrollment (`accounts/mfaEnrollment:
/// start|finalize|withdraw`), second-factor sign-in (`accounts/mfaSignIn:start|finalize`), the enrolled factors as
/// user records carry them (`mfaInfo`), what a first-factor sign-in answers for an enrolled user
/// (`mfaPendingCredential` + `mfaInfo` in place of tokens), and the project configuration's `mfa` object.
///
/// Shapes follow Google's Identity Toolkit v2 reference and what Firebase's client SDKs send and read; the one
/// Hearth extension is ``FinalizeMFASignInRequest/recoveryCodeVerificationInfo`` (see docs/design-notes/issue-22.md).
///
/// Next: catalog — these RPCs are not in `RPCCatalog` yet (the catalog requires every entry to be served and
/// documented); the server routes come with the stores in the next session.

extension WirePaths {
    /// `POST …/v2/accounts/mfaEnrollment:start`: a TOTP secret for the signed-in user.
    public static let mfaEnrollmentStart = "\(identityToolkitV2)/accounts/mfaEnrollment:start"
    /// `POST …/v2/accounts/mfaEnrollment:finalize`: the first code from the authenticator app enrolls the factor.
    public static let mfaEnrollmentFinalize = "\(identityToolkitV2)/accounts/mfaEnrollment:finalize"
    /// `POST …/v2/accounts/mfaEnrollment:withdraw`: removes an enrolled factor.
    public static let mfaEnrollmentWithdraw = "\(identityToolkitV2)/accounts/mfaEnrollment:withdraw"
    /// `POST …/v2/accounts/mfaSignIn:start`: phone factors only; TOTP clients go straight to finalize.
    public static let mfaSignInStart = "\(identityToolkitV2)/accounts/mfaSignIn:start"
    /// `POST …/v2/accounts/mfaSignIn:finalize`: the second factor completes a pending sign-in.
    public static let mfaSignInFinalize = "\(identityToolkitV2)/accounts/mfaSignIn:finalize"
    /// Hearth extension: a new set of recovery codes.
    public static let mfaRecoveryCodesGenerate = "\(identityToolkitV2)/accounts/mfaRecoveryCodes:generate"
}

/// The factor kinds as ID tokens name them in `firebase.sign_in_second_factor`.
public enum MultiFactorKind: String, Codable, Sendable, CaseIterable {
    /// A time-based one-time password (RFC 6238).
    case totp
    /// A passkey (Hearth: a WebAuthn assertion in place of a code).
    case passkey
    /// An SMS code sent to an enrolled number (issue 40).
    case phone
}

/// An empty JSON object (`{}`): the proto messages with no fields that mark a union's member (`totpInfo`,
/// `totpEnrollmentInfo`, `totpAuthInfo`) — the same type as the emulator's empty answers.
public typealias EmptyWireObject = EmptyResponse

// MARK: - Enrolled factors

/// One enrolled second factor as user records carry it (`mfaInfo[]` in `accounts:lookup`, the admin user record,
/// the first-factor answer of an enrolled user). Never carries the secret.
public struct MFAEnrollmentInfo: Codable, Sendable, Equatable {
    /// The factor's id (`mfaEnrollmentId`), what `mfaSignIn:finalize` and `mfaEnrollment:withdraw` name.
    public var mfaEnrollmentId: String
    /// The name the user gave the factor at enrollment.
    public var displayName: String?
    /// When the factor was enrolled, RFC 3339 with fractional seconds (`2026-11-24T06:00:00.123Z`).
    public var enrolledAt: String?
    /// `{}` for a TOTP factor (the union member that marks its kind).
    public var totpInfo: EmptyWireObject?
    /// An SMS factor's number: in full in lookups and admin records, masked (`+*******0100`) in first-factor
    /// sign-in answers (Firebase's obfuscation).
    public var phoneInfo: String?

    /// A TOTP factor.
    public init(mfaEnrollmentId: String, displayName: String?, enrolledAt: String?) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.totpInfo = EmptyWireObject()
    }

    /// An SMS factor (`phoneInfo`, full or masked).
    public init(mfaEnrollmentId: String, displayName: String?, enrolledAt: String?, phoneInfo: String) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.phoneInfo = phoneInfo
    }

    /// The factor's kind from its union member, `nil` for one this server does not know.
    public var kind: MultiFactorKind? {
        if totpInfo != nil { return .totp }
        if phoneInfo != nil { return .phone }
        return nil
    }
}

/// The fields a first-factor sign-in (`signInWithPassword`, `signInWithIdp`, `signInWithEmailLink`,
/// `signInWithCustomToken` where Firebase asks) answers for a user with an enrolled factor, in place of
/// `idToken`/`refreshToken`: Firebase's SDKs see `mfaPendingCredential` and raise `secondFactorRequired` with a
/// resolver over `mfaInfo`. These sit beside the answer's usual fields (`localId`, `email`, …) at the top level.
public struct MFAPendingSignIn: Codable, Sendable, Equatable {
    /// An opaque, short-lived, single-use proof that the first factor passed.
    public var mfaPendingCredential: String
    /// The user's enrolled factors.
    public var mfaInfo: [MFAEnrollmentInfo]

    /// A pending sign-in for these factors.
    public init(mfaPendingCredential: String, mfaInfo: [MFAEnrollmentInfo]) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaInfo = mfaInfo
    }
}

// MARK: - Enrollment

/// `accounts/mfaEnrollment:start`: asks for a TOTP secret (`totpEnrollmentInfo: {}`) or sends a code to the number
/// of an SMS factor (`phoneEnrollmentInfo`).
public struct StartMFAEnrollmentRequest: Codable, Sendable, Equatable {
    /// The signed-in user's ID token (a recent sign-in).
    public var idToken: String?
    /// `{}`: a TOTP enrollment.
    public var totpEnrollmentInfo: EmptyWireObject?
    /// An SMS enrollment: the number and the app verification fields.
    public var phoneEnrollmentInfo: PhoneEnrollmentInfo?
    /// The user's tenant.
    public var tenantId: String?

    /// A TOTP enrollment request.
    public init(idToken: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.totpEnrollmentInfo = EmptyWireObject()
        self.tenantId = tenantId
    }

    /// An SMS enrollment request.
    public init(idToken: String?, phoneEnrollmentInfo: PhoneEnrollmentInfo, tenantId: String? = nil) {
        self.idToken = idToken
        self.phoneEnrollmentInfo = phoneEnrollmentInfo
        self.tenantId = tenantId
    }
}

/// The TOTP secret and its parameters (`totpSessionInfo`), what Firebase's `TOTPSecret` is made of.
public struct TOTPSessionInfo: Codable, Sendable, Equatable {
    /// The shared secret, base32 without padding (RFC 4648).
    public var sharedSecretKey: String
    /// Digits per code (6).
    public var verificationCodeLength: Int
    /// `SHA1`, `SHA256` or `SHA512`.
    public var hashingAlgorithm: String
    /// Seconds per time step (30).
    public var periodSec: Int
    /// The enrollment session, sent back in `mfaEnrollment:finalize`'s `totpVerificationInfo.sessionInfo`.
    public var sessionInfo: String
    /// The deadline for `mfaEnrollment:finalize`, RFC 3339.
    public var finalizeEnrollmentTime: String

    /// The session's fields.
    public init(sharedSecretKey: String, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
                sessionInfo: String, finalizeEnrollmentTime: String) {
        self.sharedSecretKey = sharedSecretKey
        self.verificationCodeLength = verificationCodeLength
        self.hashingAlgorithm = hashingAlgorithm
        self.periodSec = periodSec
        self.sessionInfo = sessionInfo
        self.finalizeEnrollmentTime = finalizeEnrollmentTime
    }
}

/// The answer to `accounts/mfaEnrollment:start`: `totpSessionInfo` (TOTP) or `phoneSessionInfo` (SMS).
public struct StartMFAEnrollmentResponse: Codable, Sendable, Equatable {
    /// TOTP: the secret and the session to finalize.
    public var totpSessionInfo: TOTPSessionInfo?
    /// SMS: the session to finalize with the code.
    public var phoneSessionInfo: PhoneSessionInfo?

    /// A TOTP answer carrying this session.
    public init(totpSessionInfo: TOTPSessionInfo) { self.totpSessionInfo = totpSessionInfo }

    /// An SMS answer: the code was sent.
    public init(phoneSessionInfo: PhoneSessionInfo) { self.phoneSessionInfo = phoneSessionInfo }
}

/// `totpVerificationInfo` of `mfaEnrollment:finalize`: the session from `start` and the app's current code.
public struct TOTPEnrollmentVerificationInfo: Codable, Sendable, Equatable {
    /// `totpSessionInfo.sessionInfo` from `mfaEnrollment:start`.
    public var sessionInfo: String?
    /// The authenticator app's code.
    public var verificationCode: String?

    /// The verification fields.
    public init(sessionInfo: String?, verificationCode: String?) {
        self.sessionInfo = sessionInfo
        self.verificationCode = verificationCode
    }
}

/// `accounts/mfaEnrollment:finalize`.
public struct FinalizeMFAEnrollmentRequest: Codable, Sendable, Equatable {
    /// The signed-in user's ID token.
    public var idToken: String?
    /// The name the user gives the factor.
    public var displayName: String?
    /// The TOTP session and code.
    public var totpVerificationInfo: TOTPEnrollmentVerificationInfo?
    /// The SMS session and code.
    public var phoneVerificationInfo: PhoneVerificationInfo?
    /// The user's tenant.
    public var tenantId: String?
    /// Hearth extension: `true` also makes ten one-time recovery codes (replacing any earlier set), answered once
    /// in ``FinalizeMFAEnrollmentResponse/recoveryCodes``.
    public var generateRecoveryCodes: Bool?

    /// A TOTP finalization.
    public init(idToken: String?, displayName: String?, totpVerificationInfo: TOTPEnrollmentVerificationInfo?,
                tenantId: String? = nil, generateRecoveryCodes: Bool? = nil) {
        self.idToken = idToken
        self.displayName = displayName
        self.totpVerificationInfo = totpVerificationInfo
        self.tenantId = tenantId
        self.generateRecoveryCodes = generateRecoveryCodes
    }

    /// An SMS finalization.
    public init(idToken: String?, displayName: String?, phoneVerificationInfo: PhoneVerificationInfo?,
                tenantId: String? = nil, generateRecoveryCodes: Bool? = nil) {
        self.idToken = idToken
        self.displayName = displayName
        self.phoneVerificationInfo = phoneVerificationInfo
        self.tenantId = tenantId
        self.generateRecoveryCodes = generateRecoveryCodes
    }
}

/// The answer to `accounts/mfaEnrollment:finalize`: new tokens (the enrollment is in them), and `totpAuthInfo: {}`
/// (TOTP) or `phoneAuthInfo: {phoneNumber}` (SMS).
public struct FinalizeMFAEnrollmentResponse: Codable, Sendable, Equatable {
    /// The new ID token.
    public var idToken: String?
    /// The new refresh token.
    public var refreshToken: String?
    /// `{}` for a TOTP enrollment.
    public var totpAuthInfo: EmptyWireObject?
    /// An SMS enrollment: the enrolled number.
    public var phoneAuthInfo: PhoneAuthInfo?
    /// Hearth extension: the recovery codes asked for with `generateRecoveryCodes` — shown to the user once, stored
    /// only hashed.
    public var recoveryCodes: [String]?

    /// An answer with these tokens.
    public init(idToken: String?, refreshToken: String?, recoveryCodes: [String]? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.totpAuthInfo = EmptyWireObject()
        self.recoveryCodes = recoveryCodes
    }

    /// An SMS enrollment's answer.
    public init(idToken: String?, refreshToken: String?, phoneAuthInfo: PhoneAuthInfo, recoveryCodes: [String]? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.phoneAuthInfo = phoneAuthInfo
        self.recoveryCodes = recoveryCodes
    }
}

/// Hearth extension, `accounts/mfaRecoveryCodes:generate`: a new set of ten one-time recovery codes for a user with
/// a second factor (recent login required); the earlier set stops working.
public struct GenerateRecoveryCodesRequest: Codable, Sendable, Equatable {
    /// The signed-in user's ID token.
    public var idToken: String?
    /// The user's tenant.
    public var tenantId: String?

    public init(idToken: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.tenantId = tenantId
    }
}

/// The answer to `accounts/mfaRecoveryCodes:generate`: the codes, shown once.
public struct GenerateRecoveryCodesResponse: Codable, Sendable, Equatable {
    public var recoveryCodes: [String]

    public init(recoveryCodes: [String]) { self.recoveryCodes = recoveryCodes }
}

/// `accounts/mfaEnrollment:withdraw`.
public struct WithdrawMFARequest: Codable, Sendable, Equatable {
    /// The signed-in user's ID token (a recent sign-in).
    public var idToken: String?
    /// The factor to remove.
    public var mfaEnrollmentId: String?
    /// The user's tenant.
    public var tenantId: String?

    /// A withdrawal of this factor.
    public init(idToken: String?, mfaEnrollmentId: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.mfaEnrollmentId = mfaEnrollmentId
        self.tenantId = tenantId
    }
}

/// The answer to `accounts/mfaEnrollment:withdraw`: new tokens.
public struct WithdrawMFAResponse: Codable, Sendable, Equatable {
    /// The new ID token.
    public var idToken: String?
    /// The new refresh token.
    public var refreshToken: String?

    /// An answer with these tokens.
    public init(idToken: String?, refreshToken: String?) {
        self.idToken = idToken
        self.refreshToken = refreshToken
    }
}

// MARK: - Second-factor sign-in

/// `accounts/mfaSignIn:start`: SMS factors (`phoneSignInInfo` + `mfaEnrollmentId`: a code is sent) and Hearth's
/// passkeys use it; for a TOTP factor the client sends `mfaSignIn:finalize` directly.
public struct StartMFASignInRequest: Codable, Sendable, Equatable {
    /// The pending credential of the first factor.
    public var mfaPendingCredential: String?
    /// The factor to challenge.
    public var mfaEnrollmentId: String?
    /// An SMS challenge: the app verification fields (the number is the factor's).
    public var phoneSignInInfo: PhoneSignInInfo?
    /// Hearth: `{}` to ask for a passkey challenge (a passkey as the second factor; no `mfaEnrollmentId`).
    public var passkeySignInInfo: EmptyWireObject?
    /// The tenant.
    public var tenantId: String?

    /// A start request.
    public init(mfaPendingCredential: String?, mfaEnrollmentId: String?, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
        self.tenantId = tenantId
    }

    /// An SMS challenge for the factor `mfaEnrollmentId`.
    public init(mfaPendingCredential: String?, mfaEnrollmentId: String?, phoneSignInInfo: PhoneSignInInfo, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
        self.phoneSignInInfo = phoneSignInInfo
        self.tenantId = tenantId
    }
}

/// The answer to `accounts/mfaSignIn:start`: `phoneResponseInfo` (SMS: the code was sent) or Hearth's passkey
/// challenge.
public struct StartMFASignInResponse: Codable, Sendable, Equatable {
    /// The passkey challenge for the pending user's passkeys.
    public var passkeyResponseInfo: PasskeyMFAChallenge?
    /// SMS: the session to finalize with the code.
    public var phoneResponseInfo: PhoneSessionInfo?

    /// An answer with this challenge.
    public init(passkeyResponseInfo: PasskeyMFAChallenge?) { self.passkeyResponseInfo = passkeyResponseInfo }

    /// An SMS answer.
    public init(phoneResponseInfo: PhoneSessionInfo) { self.phoneResponseInfo = phoneResponseInfo }
}

/// Hearth: the passkey challenge a second-factor sign-in answers (`credentialRequestOptions` lists the user's passkeys).
public struct PasskeyMFAChallenge: Codable, Sendable, Equatable {
    /// Options for `navigator.credentials.get` / an assertion request.
    public var credentialRequestOptions: PasskeyRequestOptions

    /// A challenge with these options.
    public init(credentialRequestOptions: PasskeyRequestOptions) { self.credentialRequestOptions = credentialRequestOptions }
}

/// Hearth: `passkeyVerificationInfo` of `mfaSignIn:finalize`, the authenticator's answer to the passkey challenge.
public struct PasskeyMFAVerificationInfo: Codable, Sendable, Equatable {
    /// The assertion.
    public var authenticatorAuthenticationResponse: PasskeyAuthenticationResponse?

    /// This assertion.
    public init(authenticatorAuthenticationResponse: PasskeyAuthenticationResponse?) {
        self.authenticatorAuthenticationResponse = authenticatorAuthenticationResponse
    }
}

/// `totpVerificationInfo` of `mfaSignIn:finalize`: the authenticator app's current code.
public struct TOTPSignInVerificationInfo: Codable, Sendable, Equatable {
    /// The code.
    public var verificationCode: String?

    /// The code to check.
    public init(verificationCode: String?) { self.verificationCode = verificationCode }
}

/// Hearth's extension of `mfaSignIn:finalize`'s verification union: a one-time recovery code in place of a TOTP
/// code (`recoveryCodeVerificationInfo: {recoveryCode}`). Recovery codes belong to the user, not to a factor, so
/// `mfaEnrollmentId` may be left out with it.
public struct RecoveryCodeVerificationInfo: Codable, Sendable, Equatable {
    /// The recovery code as the user typed it (case, dashes and spaces do not matter).
    public var recoveryCode: String?

    /// The code to check.
    public init(recoveryCode: String?) { self.recoveryCode = recoveryCode }
}

/// `accounts/mfaSignIn:finalize`.
public struct FinalizeMFASignInRequest: Codable, Sendable, Equatable {
    /// The pending credential of the first factor.
    public var mfaPendingCredential: String?
    /// The TOTP factor the code is for.
    public var mfaEnrollmentId: String?
    /// The TOTP code.
    public var totpVerificationInfo: TOTPSignInVerificationInfo?
    /// Hearth: a recovery code instead of a TOTP code (never sent by Firebase's SDKs).
    public var recoveryCodeVerificationInfo: RecoveryCodeVerificationInfo?
    /// Hearth: a passkey assertion answering `mfaSignIn:start`'s `passkeyResponseInfo`.
    public var passkeyVerificationInfo: PasskeyMFAVerificationInfo?
    /// An SMS code: `sessionInfo` from `mfaSignIn:start` and the code.
    public var phoneVerificationInfo: PhoneVerificationInfo?
    /// The tenant.
    public var tenantId: String?

    /// An SMS finalization (Firebase's SDKs send no `mfaEnrollmentId` with it).
    public init(mfaPendingCredential: String?, phoneVerificationInfo: PhoneVerificationInfo?, mfaEnrollmentId: String? = nil, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.phoneVerificationInfo = phoneVerificationInfo
        self.mfaEnrollmentId = mfaEnrollmentId
        self.tenantId = tenantId
    }

    /// A passkey finalization (Hearth).
    public init(mfaPendingCredential: String?, passkeyAssertion: PasskeyAuthenticationResponse?, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.passkeyVerificationInfo = PasskeyMFAVerificationInfo(authenticatorAuthenticationResponse: passkeyAssertion)
        self.tenantId = tenantId
    }

    /// A TOTP finalization.
    public init(mfaPendingCredential: String?, mfaEnrollmentId: String?, verificationCode: String?, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
        self.totpVerificationInfo = TOTPSignInVerificationInfo(verificationCode: verificationCode)
        self.tenantId = tenantId
    }

    /// A recovery-code finalization (Hearth).
    public init(mfaPendingCredential: String?, recoveryCode: String?, tenantId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.recoveryCodeVerificationInfo = RecoveryCodeVerificationInfo(recoveryCode: recoveryCode)
        self.tenantId = tenantId
    }
}

/// The answer to `accounts/mfaSignIn:finalize`: the session's tokens (and `phoneAuthInfo` for an SMS factor).
public struct FinalizeMFASignInResponse: Codable, Sendable, Equatable {
    /// The ID token (carries `firebase.sign_in_second_factor` and `firebase.second_factor_identifier`).
    public var idToken: String?
    /// The refresh token.
    public var refreshToken: String?
    /// SMS: the factor's number.
    public var phoneAuthInfo: PhoneAuthInfo?

    /// An answer with these tokens (and, for an SMS factor, its number).
    public init(idToken: String?, refreshToken: String?, phoneAuthInfo: PhoneAuthInfo? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.phoneAuthInfo = phoneAuthInfo
    }
}

// MARK: - Project configuration

/// `mfa` of `projects/{p}/config` (and of a tenant): whether second factors are on, and the TOTP provider's
/// settings — what the Node Admin SDK's `updateProjectConfig({multiFactorConfig})` sends.
public struct MultiFactorAuthConfig: Codable, Sendable, Equatable {
    /// `ENABLED`, `DISABLED` or `MANDATORY` (Google's `State`).
    public var state: MultiFactorState?
    /// SMS second factors' provider: `PHONE_SMS` turns them on (with `state`).
    public var enabledProviders: [String]?
    /// The non-SMS providers: TOTP.
    public var providerConfigs: [ProviderConfig]?

    /// A configuration.
    public init(state: MultiFactorState?, enabledProviders: [String]? = nil, providerConfigs: [ProviderConfig]? = nil) {
        self.state = state
        self.enabledProviders = enabledProviders
        self.providerConfigs = providerConfigs
    }

    /// One provider's state and settings.
    public struct ProviderConfig: Codable, Sendable, Equatable {
        /// Whether this provider is on.
        public var state: MultiFactorState?
        /// TOTP's settings (the union member that marks the provider).
        public var totpProviderConfig: TOTPProviderConfig?

        /// A provider configuration.
        public init(state: MultiFactorState?, totpProviderConfig: TOTPProviderConfig?) {
            self.state = state
            self.totpProviderConfig = totpProviderConfig
        }
    }

    /// `totpProviderConfig`.
    public struct TOTPProviderConfig: Codable, Sendable, Equatable {
        /// Time steps accepted either side of the current one for clock skew, 0…10 (Google's range).
        public var adjacentIntervals: Int?

        /// TOTP's settings.
        public init(adjacentIntervals: Int?) { self.adjacentIntervals = adjacentIntervals }
    }

    /// Firebase's name of the SMS provider in ``enabledProviders``.
    public static let phoneSMSProvider = "PHONE_SMS"

    /// Whether SMS second factors may be enrolled and used: the state `ENABLED` (or `MANDATORY`) and
    /// `enabledProviders` holding `PHONE_SMS`.
    public var isPhoneEnabled: Bool {
        guard state == .enabled || state == .mandatory else { return false }
        return enabledProviders?.contains(Self.phoneSMSProvider) ?? false
    }

    /// The TOTP provider's configuration, if any.
    public var totp: ProviderConfig? { providerConfigs?.first { $0.totpProviderConfig != nil } }

    /// Whether TOTP may be enrolled and used: the project's state `ENABLED` (or `MANDATORY`) and the TOTP
    /// provider's `ENABLED`.
    public var isTOTPEnabled: Bool {
        guard state == .enabled || state == .mandatory, let totp, totp.state == .enabled else { return false }
        return true
    }
}

/// Google's MFA `State`.
public enum MultiFactorState: String, Codable, Sendable, CaseIterable {
    /// Unset.
    case unspecified = "STATE_UNSPECIFIED"
    /// Off.
    case disabled = "DISABLED"
    /// On.
    case enabled = "ENABLED"
    /// On, and required (Google's value; Hearth treats it as on).
    case mandatory = "MANDATORY"
}
