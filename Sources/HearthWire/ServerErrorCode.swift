import Foundation

/// The error strings Hearth sends in `error.message`, exactly as Firebase's backend spells them, so that
/// Firebase client SDKs map them to their own error codes.
public enum ServerErrorCode: String, Sendable, CaseIterable, Codable {
    // Accounts
    case emailExists = "EMAIL_EXISTS"
    /// A signed-in account's email may change only through a verified change (`VERIFY_AND_CHANGE_EMAIL`).
    case emailChangeNeedsVerification = "EMAIL_CHANGE_NEEDS_VERIFICATION"
    case emailNotFound = "EMAIL_NOT_FOUND"
    case invalidEmail = "INVALID_EMAIL"
    case invalidIdentifier = "INVALID_IDENTIFIER"
    case missingIdentifier = "MISSING_IDENTIFIER"
    case missingEmail = "MISSING_EMAIL"
    case missingPassword = "MISSING_PASSWORD"
    case weakPassword = "WEAK_PASSWORD"
    case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
    case invalidPassword = "INVALID_PASSWORD"
    case userDisabled = "USER_DISABLED"
    case userNotFound = "USER_NOT_FOUND"
    case operationNotAllowed = "OPERATION_NOT_ALLOWED"
    case tooManyAttempts = "TOO_MANY_ATTEMPTS_TRY_LATER"
    case credentialTooOldLoginAgain = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    case missingContinueUri = "MISSING_CONTINUE_URI"
    case invalidContinueUri = "INVALID_CONTINUE_URI"
    case invalidDisplayName = "INVALID_DISPLAY_NAME"
    case invalidPhotoUrl = "INVALID_PHOTO_URL"
    case missingLocalId = "MISSING_LOCAL_ID"
    case adminOnlyOperation = "ADMIN_ONLY_OPERATION"
    // Admin API: users
    case duplicateLocalId = "DUPLICATE_LOCAL_ID"
    case duplicateEmail = "DUPLICATE_EMAIL"
    case phoneNumberExists = "PHONE_NUMBER_EXISTS"
    case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
    case invalidLocalId = "INVALID_LOCAL_ID"
    case claimsTooLarge = "CLAIMS_TOO_LARGE"
    case forbiddenClaim = "FORBIDDEN_CLAIM"
    case invalidDuration = "INVALID_DURATION"
    case invalidPageSelection = "INVALID_PAGE_SELECTION"
    case localIdListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
    case missingUserAccount = "MISSING_USER_ACCOUNT"
    case invalidHashAlgorithm = "INVALID_HASH_ALGORITHM"
    case missingHashAlgorithm = "MISSING_HASH_ALGORITHM"
    case invalidProjectId = "INVALID_PROJECT_ID"
    case tenantNotFound = "TENANT_NOT_FOUND"
    /// A request in one tenant carried a token, code or credential of another (or of the project).
    case tenantIdMismatch = "TENANT_ID_MISMATCH"
    // Admin API: configuration
    case configurationNotFound = "CONFIGURATION_NOT_FOUND"
    case configurationExists = "CONFIGURATION_EXISTS"
    case invalidConfig = "INVALID_CONFIG"
    case invalidProviderIdAdmin = "INVALID_IDP_ID"
    case missingOAuthClientId = "MISSING_OAUTH_CLIENT_ID"
    case missingOAuthClientSecret = "MISSING_OAUTH_CLIENT_SECRET"
    case missingIssuer = "MISSING_ISSUER"
    case invalidUpdateMask = "INVALID_UPDATE_MASK"
    // Admin API: who may call it
    case unauthenticated = "UNAUTHENTICATED"
    case insufficientPermission = "INSUFFICIENT_PERMISSION"
    // ID tokens
    case missingIdToken = "MISSING_ID_TOKEN"
    case invalidIdToken = "INVALID_ID_TOKEN"
    case tokenExpired = "TOKEN_EXPIRED"
    // Custom tokens
    case missingCustomToken = "MISSING_CUSTOM_TOKEN"
    case invalidCustomToken = "INVALID_CUSTOM_TOKEN"
    case credentialMismatch = "CREDENTIAL_MISMATCH"
    case invalidClaims = "INVALID_CLAIMS"
    // Secure token service
    case missingGrantType = "MISSING_GRANT_TYPE"
    case invalidGrantType = "INVALID_GRANT_TYPE"
    case missingRefreshToken = "MISSING_REFRESH_TOKEN"
    case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    // Federated sign-in
    case invalidIdpResponse = "INVALID_IDP_RESPONSE"
    case invalidPendingToken = "INVALID_PENDING_TOKEN"
    case federatedUserIdAlreadyLinked = "FEDERATED_USER_ID_ALREADY_LINKED"
    case providerAlreadyLinked = "PROVIDER_ALREADY_LINKED"
    case missingRequestUri = "MISSING_REQUEST_URI"
    case invalidRequestUri = "INVALID_REQUEST_URI"
    case invalidProviderId = "INVALID_PROVIDER_ID"
    case invalidCredentialOrProviderId = "INVALID_CREDENTIAL_OR_PROVIDER_ID"
    case missingSessionId = "MISSING_SESSION_ID"
    case invalidSessionId = "INVALID_SESSION_ID"
    case unauthorizedDomain = "UNAUTHORIZED_DOMAIN"
    // Email actions
    /// No `oobCode` in the request.
    case missingOobCode = "MISSING_OOB_CODE"
    /// The action code is unknown, used already, or of another kind.
    case invalidOobCode = "INVALID_OOB_CODE"
    /// The action code's lifetime is over.
    case expiredOobCode = "EXPIRED_OOB_CODE"
    /// No `requestType`.
    case missingRequestType = "MISSING_REQ_TYPE"
    /// A `requestType` this server does not send, or a request form that does not fit it.
    case invalidRequestType = "INVALID_REQ_TYPE"
    /// `VERIFY_AND_CHANGE_EMAIL` without `newEmail`.
    case missingNewEmail = "MISSING_NEW_EMAIL"
    /// `canHandleCodeInApp` with an iOS bundle id missing.
    case missingIosBundleId = "MISSING_IOS_BUNDLE_ID"
    /// `androidInstallApp` without `androidPackageName`.
    case missingAndroidPackageName = "MISSING_ANDROID_PACKAGE_NAME"
    /// Too many emails to one address or from one client in the window.
    case resetPasswordExceedLimit = "RESET_PASSWORD_EXCEED_LIMIT"
    /// The project's email sending quota is used up for now.
    case quotaExceeded = "QUOTA_EXCEEDED"
    /// The server cannot send email: no SMTP relay is configured for the project.
    case emailNotConfigured = "EMAIL_SENDING_NOT_CONFIGURED"
    /// The app that would receive the sign-in result is not registered for the project.
    case appNotAuthorized = "APP_NOT_AUTHORIZED"
    /// Hearth: a nonce was sent with a native ID token that does not carry its SHA-256 (Firebase's string).
    case missingOrInvalidNonce = "MISSING_OR_INVALID_NONCE"
    // Provider token vault (Hearth)
    /// The vault keeps no token for this user and provider (never kept, refused by the provider, or deleted):
    /// a new sign-in with the provider stores one.
    case noProviderToken = "NO_PROVIDER_TOKEN"
    /// The vault is off: no vault keys configured, or turned off for the provider.
    case providerTokenVaultDisabled = "PROVIDER_TOKEN_VAULT_DISABLED"
    /// The provider could not be reached or failed while renewing its access token; try again later.
    case providerUnavailable = "PROVIDER_UNAVAILABLE"
    // Multi-factor authentication (TOTP), as Firebase's backend spells them. Next: catalog — list them on the
    // mfaEnrollment/mfaSignIn RPCs when those join `RPCCatalog`.
    /// `mfaSignIn:*` without `mfaPendingCredential`.
    case missingMfaPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
    /// The pending credential is unknown, expired, used already, or of another project or tenant.
    case invalidMfaPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
    /// `mfaSignIn:finalize` or `mfaEnrollment:withdraw` without `mfaEnrollmentId`.
    case missingMfaEnrollmentId = "MISSING_MFA_ENROLLMENT_ID"
    /// The user has no factor with this `mfaEnrollmentId`.
    case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
    /// A second factor needs a verified email first.
    case unverifiedEmail = "UNVERIFIED_EMAIL"
    /// The factor is enrolled already.
    case secondFactorExists = "SECOND_FACTOR_EXISTS"
    /// The user has as many factors as a user may have.
    case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
    /// The first factor cannot be followed by a second one (e.g. anonymous sign-in).
    case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
    /// The TOTP (or Hearth recovery) code is wrong, outside the window, or used already.
    case invalidCode = "INVALID_CODE"
    /// No verification code in `totpVerificationInfo`.
    case missingCode = "MISSING_CODE"
    /// The enrollment session (`totpVerificationInfo.sessionInfo`) is unknown or another user's.
    case invalidSessionInfo = "INVALID_SESSION_INFO"
    /// No `totpVerificationInfo.sessionInfo`.
    case missingSessionInfo = "MISSING_SESSION_INFO"
    /// The enrollment session's `finalizeEnrollmentTime` has passed.
    case sessionExpired = "SESSION_EXPIRED"
    // Phone sign-in and SMS codes (issue 40), as Firebase's backend spells them
    /// `signInWithPhoneNumber` with `temporaryProof` but no `phoneNumber`.
    case missingPhoneNumber = "MISSING_PHONE_NUMBER"
    /// The temporary proof is unknown, expired, used already, or for another number.
    case invalidTemporaryProof = "INVALID_TEMPORARY_PROOF"
    /// Android's verification proof is not accepted (Hearth issues none).
    case invalidVerificationProof = "INVALID_VERIFICATION_PROOF"
    /// The reCAPTCHA token was refused by the verification endpoint (or scored too low).
    case captchaCheckFailed = "CAPTCHA_CHECK_FAILED"
    /// The project verifies apps with reCAPTCHA and the request carried no token.
    case missingRecaptchaToken = "MISSING_RECAPTCHA_TOKEN"
    /// The reCAPTCHA token is malformed.
    case invalidRecaptchaToken = "INVALID_RECAPTCHA_TOKEN"
    /// An app credential (Apple receipt, Play Integrity token) is invalid.
    case invalidAppCredential = "INVALID_APP_CREDENTIAL"
    /// The request carried no app credential where one is needed.
    case missingAppCredential = "MISSING_APP_CREDENTIAL"
    // Passkeys (Firebase's preview strings; iOS maps the last two to 17212 and 17211)
    /// Passkeys are off for the project.
    case passkeyNotEnabled = "PASSKEY_NOT_ENABLED"
    /// The credential is registered already.
    case passkeyExists = "PASSKEY_EXISTS"
    /// The user has the most passkeys allowed.
    case passkeyLimitExceeded = "PASSKEY_LIMIT_EXCEEDED"
    /// The challenge is unknown, used or expired: start again.
    case passkeyChallengeTimeout = "PASSKEY_CHALLENGE_TIMEOUT"
    /// No such passkey (for this user).
    case passkeyEnrollmentNotFound = "PASSKEY_ENROLLMENT_NOT_FOUND"
    /// The authenticator's response does not verify (origin, rp id, flags, signature, counter, format).
    case invalidAuthenticatorResponse = "INVALID_AUTHENTICATOR_RESPONSE"
    // Blocking functions (issue 39)
    /// A blocking function refused the operation, answered something unusable, or could not be reached in time;
    /// the detail says which (Firebase's string).
    case blockingFunctionError = "BLOCKING_FUNCTION_ERROR_RESPONSE"
    // Request shape and access
    case invalidArgument = "INVALID_ARGUMENT"
    case invalidJSONPayload = "INVALID_JSON_PAYLOAD"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case invalidApiKey = "API_KEY_INVALID"
    case permissionDenied = "PERMISSION_DENIED"
    case notFound = "NOT_FOUND"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case internalError = "INTERNAL_ERROR"
    /// `GET /readyz`: the store is unreachable or no signing key is loaded yet (503).
    case notReady = "NOT_READY"
    /// The database cannot be reached now (503 with `Retry-After`): try again shortly.
    case unavailable = "UNAVAILABLE"

    /// The HTTP status this error is sent with.
    public var httpStatus: Int {
        switch self {
        case .invalidApiKey: 400
        case .unauthenticated: 401
        case .permissionDenied, .insufficientPermission: 403
        case .configurationNotFound: 404
        case .configurationExists: 409
        case .notFound: 404
        case .methodNotAllowed: 405
        case .payloadTooLarge: 413
        case .providerUnavailable: 502
        case .internalError: 500
        case .notReady, .unavailable: 503
        default: 400
        }
    }

    /// `errors[].reason`: iOS maps `keyInvalid` to `invalidAPIKey`.
    public var reason: String {
        switch self {
        case .invalidApiKey: "keyInvalid"
        case .permissionDenied, .insufficientPermission: "forbidden"
        case .unauthenticated: "authError"
        case .notFound: "notFound"
        case .internalError, .notReady, .unavailable: "backendError"
        default: "invalid"
        }
    }

    /// `error.status`: Google sends it only for the non-plain classes.
    public var status: String? {
        switch self {
        case .invalidApiKey, .invalidJSONPayload, .invalidArgument, .payloadTooLarge: "INVALID_ARGUMENT"
        case .permissionDenied, .insufficientPermission: "PERMISSION_DENIED"
        case .unauthenticated: "UNAUTHENTICATED"
        case .configurationNotFound: "NOT_FOUND"
        case .configurationExists: "ALREADY_EXISTS"
        case .notFound: "NOT_FOUND"
        case .methodNotAllowed: "UNIMPLEMENTED"
        case .internalError: "INTERNAL"
        case .providerUnavailable: "UNAVAILABLE"
        case .notReady, .unavailable: "UNAVAILABLE"
        default: nil
        }
    }

    /// A fixed message where Google does not use the `CODE : detail` form.
    public var messageOverride: String? {
        switch self {
        case .invalidApiKey: "API key not valid. Please pass a valid API key."
        default: nil
        }
    }
}
