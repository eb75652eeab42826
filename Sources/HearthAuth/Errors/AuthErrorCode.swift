import Foundation
import HearthWire

/// Error codes of Hearth's client SDK: Firebase Auth's numbers, so code written against Firebase compares them
/// unchanged (`(error as NSError).code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue`).
public enum AuthErrorCode: Int, Sendable, CaseIterable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    /// A code was asked for without a phone number (`MISSING_PHONE_NUMBER`).
    case missingPhoneNumber = 17041
    /// The phone number is not an E.164 number such as `+15555550100` (`INVALID_PHONE_NUMBER`).
    case invalidPhoneNumber = 17042
    /// A sign-in, second-factor sign-in or enrollment was sent without its one-time code (TOTP or SMS).
    case missingVerificationCode = 17043
    /// The one-time code (TOTP, SMS, or Hearth's recovery code) is wrong, outside the accepted window, or used already.
    case invalidVerificationCode = 17044
    /// A code was sent without its verification ID (the SMS's `sessionInfo`, or a TOTP enrollment session).
    case missingVerificationID = 17045
    /// The verification ID (an SMS code's, or a TOTP enrollment session) is unknown, used, or belongs to another
    /// user or flow.
    case invalidVerificationID = 17046
    /// The app-verification fields of an SMS send were missing (`MISSING_APP_CREDENTIAL`).
    case missingAppCredential = 17047
    /// The app-verification fields of an SMS send were refused (`INVALID_APP_CREDENTIAL`).
    case invalidAppCredential = 17048
    /// The SMS code (five minutes) or the TOTP enrollment session (`TOTPSecret.enrollmentCompletionDeadline`) has
    /// expired: send a new code, or generate a new secret.
    case sessionExpired = 17051
    /// A quota is used up: for SMS, the project's daily SMS budget (until 00:00 UTC).
    case quotaExceeded = 17052
    /// The reCAPTCHA token of an SMS send was refused (`CAPTCHA_CHECK_FAILED`).
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case nullUser = 17067
    case invalidProviderID = 17071
    /// The user (or the tokens a sign-in answered) belongs to another tenant than `Auth.tenantID`, or a request
    /// named another tenant than its ID token's (`TENANT_ID_MISMATCH`).
    case tenantIDMismatch = 17072
    /// The operation cannot be done inside a tenant (`UNSUPPORTED_TENANT_OPERATION`).
    case unsupportedTenantOperation = 17073
    /// The user has a second factor: complete the sign-in with the `MultiFactorResolver` in the error's
    /// `userInfo[AuthErrorUserInfoMultiFactorResolverKey]`.
    case secondFactorRequired = 17078
    /// A second-factor sign-in was sent without its pending credential.
    case missingMultiFactorSession = 17081
    /// A second-factor sign-in or withdrawal named no enrolled factor.
    case missingMultiFactorInfo = 17082
    /// The pending second-factor sign-in is unknown, used already or expired: sign in again.
    case invalidMultiFactorSession = 17083
    /// The user has no enrolled factor with this id.
    case multiFactorInfoNotFound = 17084
    /// A second factor can only be enrolled once the user's email address is verified.
    case unverifiedEmail = 17086
    /// This second factor is enrolled already.
    case secondFactorAlreadyEnrolled = 17087
    /// The user has as many second factors as a user may have.
    case maximumSecondFactorCountExceeded = 17088
    /// This kind of first sign-in cannot be followed by a second factor (e.g. an anonymous user).
    case unsupportedFirstFactor = 17089
    /// The account's email changes only by a verified change (`verifyBeforeUpdateEmail`).
    case emailChangeNeedsVerification = 17090
    case missingOrInvalidNonce = 17094
    /// The project's blocking function refused the sign-up, sign-in or email, or could not be called
    /// (`BLOCKING_FUNCTION_ERROR_RESPONSE`); the error's description is the function's own message.
    case blockingCloudFunctionError = 17105
    /// The project requires app verification and the SMS send carried no reCAPTCHA token
    /// (`MISSING_RECAPTCHA_TOKEN`): pass one with `verifyPhoneNumber(_:recaptchaToken:multiFactorSession:)`.
    case missingRecaptchaToken = 17201
    case invalidReqType = 17207
    /// The authenticator's passkey response does not verify (origin, relying party, flags, signature, counter) or
    /// cannot be read (`INVALID_AUTHENTICATOR_RESPONSE`; Firebase's preview number).
    case invalidAuthenticatorResponse = 17211
    /// The user has no passkey with this credential id (`PASSKEY_ENROLLMENT_NOT_FOUND`; Firebase's preview number).
    case missingPasskeyEnrollment = 17212
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000
    /// Hearth: the provider token vault keeps no token for this user and provider; sign in with the provider again.
    case providerTokenUnavailable = 19001
    /// Hearth: the server keeps no provider tokens (no vault keys) or not for this provider.
    case providerTokenVaultDisabled = 19002
    /// Hearth: the provider could not renew its access token right now.
    case providerUnavailable = 19003
    /// Hearth: the server cannot send email for this project (no mail relay is configured).
    case emailSendingNotConfigured = 19004
    /// Hearth: this passkey is registered already (`PASSKEY_EXISTS`).
    case passkeyAlreadyEnrolled = 19005
    /// Hearth: the user has as many passkeys as a user may have (`PASSKEY_LIMIT_EXCEEDED`).
    case passkeyLimitExceeded = 19006
    /// Hearth: the passkey challenge expired or was used already (`PASSKEY_CHALLENGE_TIMEOUT`): start again.
    case passkeyChallengeExpired = 19007
    /// Hearth: the server has no tenant with the id in `Auth.tenantID` (`TENANT_NOT_FOUND`, `INVALID_TENANT_ID`;
    /// Firebase's Apple SDK has no code for it and reports `internalError`).
    case tenantNotFound = 19008

    /// A short description, as Firebase words it.
    public var message: String {
        switch self {
        case .invalidCustomToken: "The custom token format is incorrect. Please check the documentation."
        case .customTokenMismatch: "The custom token corresponds to a different audience."
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed: "The given sign-in provider is disabled for this project."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .accountExistsWithDifferentCredential: "An account already exists with the same email address but different sign-in credentials. Sign in using a provider associated with this email address."
        case .requiresRecentLogin: "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .providerAlreadyLinked: "User can only be linked to one identity for the given provider."
        case .noSuchProvider: "User was not linked to an account with the given provider."
        case .invalidUserToken: "This user's credential isn't valid for this project. This can happen if the user's token has been tampered with, or if the user isn't for the project associated with this API key."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .appNotAuthorized: "This app is not authorized to use Firebase Authentication with the provided API key."
        case .expiredActionCode: "The action code has expired."
        case .invalidActionCode: "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .missingEmail: "An email address must be provided."
        case .missingIosBundleID: "An iOS Bundle ID must be provided if an App Store ID is provided."
        case .missingAndroidPackageName: "An Android Package Name must be provided if the Android App is required to be installed."
        case .quotaExceeded: "The quota for this operation has been exceeded. Try again later."
        case .invalidReqType: "The request type sent to the server is invalid."
        case .emailSendingNotConfigured: "The server cannot send email: no mail server is configured for this project."
        case .unauthorizedDomain: "The domain of the continue URL is not allowlisted."
        case .invalidContinueURI: "The continue URL provided in the request is invalid."
        case .missingContinueURI: "A continue URL must be provided in the request."
        case .missingVerificationCode: "No one-time code was given: enter the code from the SMS or your authenticator app."
        case .invalidVerificationCode: "The one-time code is wrong, too old, or was used already: enter the current code."
        case .missingVerificationID: "The verification ID is missing: send a new code (or generate a new TOTP secret)."
        case .invalidVerificationID: "The verification ID is not valid: send a new code (or generate a new TOTP secret)."
        case .sessionExpired: "The code has expired: send a new one (or generate a new TOTP secret) and try again."
        case .missingPhoneNumber: "To send a code, provide a phone number."
        case .invalidPhoneNumber: "The phone number is not valid: use the E.164 format, such as +15555550100."
        case .missingAppCredential: "The app could not be verified: app verification fields are missing from the request."
        case .invalidAppCredential: "The app could not be verified: its app verification fields were refused."
        case .captchaCheckFailed: "The reCAPTCHA token is invalid, has expired, or was used already."
        case .missingRecaptchaToken: "This project requires app verification: pass a reCAPTCHA token with the request."
        case .secondFactorRequired: "This account has a second factor: complete the sign-in with the MultiFactorResolver in the error's userInfo."
        case .missingMultiFactorSession: "The second-factor sign-in has no pending credential."
        case .missingMultiFactorInfo: "No second factor was named."
        case .invalidMultiFactorSession: "The pending second-factor sign-in is no longer valid: sign in again."
        case .multiFactorInfoNotFound: "The user has no second factor with this id."
        case .unverifiedEmail: "Verify the email address before enrolling a second factor."
        case .secondFactorAlreadyEnrolled: "This second factor is already enrolled."
        case .maximumSecondFactorCountExceeded: "The user has the largest number of second factors allowed."
        case .unsupportedFirstFactor: "This kind of sign-in cannot be combined with a second factor."
        case .emailChangeNeedsVerification: "The account's email can only be changed by verifying the new address first."
        case .webContextAlreadyPresented: "User interaction is still ongoing, another view cannot be presented."
        case .webContextCancelled: "The interaction was cancelled by the user."
        case .invalidClientID: "The OAuth client ID provided is either invalid or does not match the specified API key."
        case .webNetworkRequestFailed: "Failed to connect to the server during the web sign-in flow."
        case .webInternalError: "An internal error occurred during the web sign-in flow."
        case .webSignInUserInteractionFailure: "The web sign-in flow failed."
        case .nullUser: "A null user object was provided as the argument for an operation which requires a non-null user object."
        case .invalidProviderID: "The provider ID provided for the attempted web operation is invalid."
        case .tenantIDMismatch: "The provided user's tenant ID does not match the Auth instance's tenant ID."
        case .unsupportedTenantOperation: "This operation is not supported in a multi-tenant context."
        case .tenantNotFound: "There is no tenant with this ID: check Auth.tenantID."
        case .keychainError: "An error occurred when accessing the keychain."
        case .internalError: "An internal error has occurred, print and inspect the error details for more information."
        case .blockingCloudFunctionError: "Blocking cloud function returned an error."
        case .malformedJWT: "Failed to parse JWT. Check the userInfo dictionary for the full token."
        case .missingOrInvalidNonce: "The request does not contain a valid nonce. This can occur if the SHA-256 hash of the provided raw nonce does not match the hashed nonce in the ID token payload."
        case .providerTokenUnavailable: "No provider access token is available for this user. Sign in with the provider again."
        case .providerTokenVaultDisabled: "The server does not keep provider tokens for this provider."
        case .providerUnavailable: "The provider could not renew its access token. Try again later."
        case .invalidAuthenticatorResponse: "During passkey enrollment and sign in, the authenticator response is not parseable, missing required fields, or certain fields are invalid values that compromise the security of the sign-in or enrollment."
        case .missingPasskeyEnrollment: "Cannot find the passkey linked to the current account."
        case .passkeyAlreadyEnrolled: "This passkey is already registered."
        case .passkeyLimitExceeded: "The user has the largest number of passkeys allowed: remove one first."
        case .passkeyChallengeExpired: "The passkey challenge has expired or was used already: start again."
        }
    }
}

/// The error domain and `userInfo` keys of Hearth's errors (Firebase's names and values).
public enum AuthErrors {
    /// `FIRAuthErrorDomain`.
    public static let domain = "FIRAuthErrorDomain"
    /// The server's error string (`EMAIL_EXISTS`, ...), when the error came from the server.
    public static let userInfoNameKey = "FIRAuthErrorUserInfoNameKey"
    /// The email of the existing account (`accountExistsWithDifferentCredential`, `credentialAlreadyInUse`).
    public static let userInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
    /// The credential to use for recovery (an `OAuthCredential` with the pending token or provider tokens).
    public static let userInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"
    /// Hearth: the sign-in methods of the existing account (`accountExistsWithDifferentCredential`), e.g.
    /// `["password", "microsoft.com"]`.
    public static let userInfoSignInMethodsKey = "HearthAuthErrorUserInfoSignInMethodsKey"
    /// The `MultiFactorResolver` of a `secondFactorRequired` error.
    public static let userInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"
    /// Hearth: the provider's OAuth error of a refused web sign-in (`access_denied`).
    public static let userInfoProviderErrorKey = "HearthAuthErrorUserInfoProviderErrorKey"
    /// Hearth: the provider's own error code of a refused web sign-in (`AADSTS50020`).
    public static let userInfoProviderErrorCodeKey = "HearthAuthErrorUserInfoProviderErrorCodeKey"
    /// Hearth: the provider's error description of a refused web sign-in.
    public static let userInfoProviderErrorDescriptionKey = "HearthAuthErrorUserInfoProviderErrorDescriptionKey"
    /// Hearth: the id under which the server logged a refused web sign-in.
    public static let userInfoCorrelationIdKey = "HearthAuthErrorUserInfoCorrelationIdKey"
    /// Hearth: the web flow's `auth/…` code.
    public static let userInfoWebErrorCodeKey = "HearthAuthErrorUserInfoWebErrorCodeKey"
    /// Hearth: the provider's trace id (Microsoft's "Trace ID"), for the provider's support.
    public static let userInfoProviderTraceIdKey = "HearthAuthErrorUserInfoProviderTraceIdKey"
    /// Hearth: the provider's own correlation id (Microsoft's `correlation_id`), when it sent one.
    public static let userInfoProviderCorrelationIdKey = "HearthAuthErrorUserInfoProviderCorrelationIdKey"
    /// Hearth: why a federated sign-in was refused, in a few words that never change (`invalid_client`,
    /// `invalid_grant`, `tenant_not_allowed`, `id_token`, `discovery`, …).
    public static let userInfoProviderReasonKey = "HearthAuthErrorUserInfoProviderReasonKey"
}

/// Firebase's global names of the keys.
public let AuthErrorDomain = AuthErrors.domain
public let AuthErrorUserInfoNameKey = AuthErrors.userInfoNameKey
public let AuthErrorUserInfoEmailKey = AuthErrors.userInfoEmailKey
public let AuthErrorUserInfoUpdatedCredentialKey = AuthErrors.userInfoUpdatedCredentialKey
public let AuthErrorUserInfoMultiFactorResolverKey = AuthErrors.userInfoMultiFactorResolverKey

enum AuthErrorUtils {
    /// The description of a `BLOCKING_FUNCTION_ERROR_RESPONSE` from the server's detail: the function's own
    /// `error.message` when the detail carries its answer (`HTTP Cloud Function returned an error: {"error":{…}}`),
    /// else the detail itself (a deadline, an unreachable function).
    static func blockingFunctionMessage(_ detail: String) -> String {
        struct Answer: Decodable { struct Body: Decodable { let message: String? }; let error: Body? }
        if let start = detail.firstIndex(of: "{"),
           let answer = try? JSONDecoder().decode(Answer.self, from: Data(detail[start...].utf8)),
           let message = answer.error?.message, !message.isEmpty {
            return message
        }
        return detail
    }

    /// An `NSError` in `FIRAuthErrorDomain`.
    static func error(_ code: AuthErrorCode, message: String? = nil, userInfo: [String: any Sendable] = [:]) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message ?? code.message]
        for (key, value) in userInfo { info[key] = value }
        return NSError(domain: AuthErrors.domain, code: code.rawValue, userInfo: info)
    }

    /// The client code for a server error (the part of `error.message` before the first colon) and the
    /// envelope's `errors[].reason`, as Firebase's SDKs map them.
    static func code(forServerError name: String, reason: String? = nil) -> AuthErrorCode {
        if let reason, reason.hasPrefix("keyInvalid") { return .invalidAPIKey }
        if reason == "ipRefererBlocked" { return .appNotAuthorized }
        // The tenant errors by name, as Firebase's Apple SDK maps them (and Hearth's TENANT_NOT_FOUND).
        switch name {
        case "TENANT_ID_MISMATCH": return .tenantIDMismatch
        case "UNSUPPORTED_TENANT_OPERATION": return .unsupportedTenantOperation
        case "TENANT_NOT_FOUND", "INVALID_TENANT_ID": return .tenantNotFound
        default: break
        }
        guard let server = ServerErrorCode(rawValue: name) else { return .internalError }
        return code(for: server)
    }

    static func code(for server: ServerErrorCode) -> AuthErrorCode {
        switch server {
        case .invalidCustomToken: .invalidCustomToken
        case .credentialMismatch: .customTokenMismatch
        case .invalidIdpResponse, .invalidPendingToken, .invalidLoginCredentials: .invalidCredential
        case .userDisabled: .userDisabled
        case .operationNotAllowed: .operationNotAllowed
        case .emailExists: .emailAlreadyInUse
        case .invalidEmail, .invalidIdentifier: .invalidEmail
        case .invalidPassword: .wrongPassword
        case .tooManyAttempts: .tooManyRequests
        case .emailNotFound, .userNotFound: .userNotFound
        case .credentialTooOldLoginAgain: .requiresRecentLogin
        case .providerAlreadyLinked: .providerAlreadyLinked
        case .invalidIdToken: .invalidUserToken
        case .tokenExpired: .userTokenExpired
        case .federatedUserIdAlreadyLinked: .credentialAlreadyInUse
        case .weakPassword: .weakPassword
        case .missingEmail, .missingNewEmail: .missingEmail
        case .expiredOobCode: .expiredActionCode
        case .invalidOobCode, .missingOobCode: .invalidActionCode
        case .missingRequestType, .invalidRequestType: .invalidReqType
        case .missingIosBundleId: .missingIosBundleID
        case .missingAndroidPackageName: .missingAndroidPackageName
        case .resetPasswordExceedLimit: .tooManyRequests
        case .quotaExceeded: .quotaExceeded
        case .emailNotConfigured: .emailSendingNotConfigured
        case .unauthorizedDomain: .unauthorizedDomain
        case .invalidContinueUri: .invalidContinueURI
        case .missingContinueUri: .missingContinueURI
        case .invalidProviderId: .invalidProviderID
        case .invalidApiKey: .invalidAPIKey
        case .missingOrInvalidNonce: .missingOrInvalidNonce
        case .noProviderToken: .providerTokenUnavailable
        case .providerTokenVaultDisabled: .providerTokenVaultDisabled
        case .providerUnavailable: .providerUnavailable
        case .appNotAuthorized: .appNotAuthorized
        case .unavailable: .networkError
        case .missingMfaPendingCredential: .missingMultiFactorSession
        case .invalidMfaPendingCredential: .invalidMultiFactorSession
        case .missingMfaEnrollmentId: .missingMultiFactorInfo
        case .mfaEnrollmentNotFound: .multiFactorInfoNotFound
        case .unverifiedEmail: .unverifiedEmail
        case .secondFactorExists: .secondFactorAlreadyEnrolled
        case .secondFactorLimitExceeded: .maximumSecondFactorCountExceeded
        case .unsupportedFirstFactor: .unsupportedFirstFactor
        case .emailChangeNeedsVerification: .emailChangeNeedsVerification
        case .invalidCode: .invalidVerificationCode
        case .missingCode: .missingVerificationCode
        case .invalidSessionInfo: .invalidVerificationID
        case .missingSessionInfo: .missingVerificationID
        case .sessionExpired: .sessionExpired
        case .passkeyNotEnabled: .operationNotAllowed
        case .passkeyExists: .passkeyAlreadyEnrolled
        case .passkeyLimitExceeded: .passkeyLimitExceeded
        case .passkeyChallengeTimeout: .passkeyChallengeExpired
        case .passkeyEnrollmentNotFound: .missingPasskeyEnrollment
        case .invalidAuthenticatorResponse: .invalidAuthenticatorResponse
        case .tenantNotFound: .tenantNotFound
        case .blockingFunctionError: .blockingCloudFunctionError
        case .invalidPhoneNumber: .invalidPhoneNumber
        case .missingPhoneNumber: .missingPhoneNumber
        case .phoneNumberExists: .credentialAlreadyInUse
        case .invalidTemporaryProof, .invalidVerificationProof: .invalidCredential
        case .captchaCheckFailed, .invalidRecaptchaToken: .captchaCheckFailed
        case .missingRecaptchaToken: .missingRecaptchaToken
        case .invalidAppCredential: .invalidAppCredential
        case .missingAppCredential: .missingAppCredential
        default: .internalError
        }
    }

    /// A `firebaseError` of the web flow: Firebase's `auth/…` mapping, with the provider's own error (code,
    /// description) and the server's correlation id in `userInfo`.
    static func webError(_ error: FirebaseWebError) -> NSError {
        let mapped: AuthErrorCode = switch error.webCode {
        case .invalidOAuthClientId: .invalidClientID
        case .networkRequestFailed: .webNetworkRequestFailed
        case .internalError: .webInternalError
        case .webContextCancelled, .userCancelled: .webContextCancelled
        case .operationNotAllowed: .operationNotAllowed
        case .invalidCredential: .invalidCredential
        case .appNotAuthorized: .appNotAuthorized
        case .unsupportedTenantOperation: .unsupportedTenantOperation
        case .argumentError, nil: .webSignInUserInteractionFailure
        }
        var info: [String: any Sendable] = [AuthErrors.userInfoWebErrorCodeKey: error.code]
        if let value = error.providerError { info[AuthErrors.userInfoProviderErrorKey] = value }
        if let value = error.providerErrorCode { info[AuthErrors.userInfoProviderErrorCodeKey] = value }
        if let value = error.providerErrorDescription { info[AuthErrors.userInfoProviderErrorDescriptionKey] = value }
        if let value = error.correlationId { info[AuthErrors.userInfoCorrelationIdKey] = value }
        if let value = error.providerTraceId { info[AuthErrors.userInfoProviderTraceIdKey] = value }
        return self.error(mapped, message: error.message.isEmpty ? mapped.message : error.message, userInfo: info)
    }

    /// The userInfo of a refused `signInWithIdp`: the provider's answer in its parts, from the error envelope's
    /// `details` (`google.rpc.ErrorInfo` of domain `providers.hearth`).
    static func providerUserInfo(_ metadata: [String: String]) -> [String: any Sendable] {
        let keys: [(String, String)] = [
            (ProviderErrorInfo.Key.providerError, AuthErrors.userInfoProviderErrorKey),
            (ProviderErrorInfo.Key.providerErrorCode, AuthErrors.userInfoProviderErrorCodeKey),
            (ProviderErrorInfo.Key.providerErrorDescription, AuthErrors.userInfoProviderErrorDescriptionKey),
            (ProviderErrorInfo.Key.correlationId, AuthErrors.userInfoCorrelationIdKey),
            (ProviderErrorInfo.Key.traceId, AuthErrors.userInfoProviderTraceIdKey),
            (ProviderErrorInfo.Key.providerCorrelationId, AuthErrors.userInfoProviderCorrelationIdKey),
            ("reason", AuthErrors.userInfoProviderReasonKey),
        ]
        var info: [String: any Sendable] = [:]
        for (field, key) in keys { if let value = metadata[field] { info[key] = value } }
        return info
    }
}
