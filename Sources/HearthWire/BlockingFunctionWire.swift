import Foundation

// Blocking functions on Identity Platform's wire (issue 39): the configuration (`blockingFunctions` of
// `/v2/projects/{p}/config`), the JWT Hearth posts to a function (`{"data":{"jwt":…}}`), and the function's answer.
// The shapes follow what `firebase-functions` (JS `src/common/providers/identity.ts`, Python
// `firebase_functions/private/_identity_fn.py`) reads and writes, so a function written with it runs unchanged.

/// The four blocking events. The raw value is the short name Firebase puts in the JWT's `event_type`.
public enum BlockingEventType: String, Sendable, Codable, CaseIterable, Hashable {
    case beforeCreate
    case beforeSignIn
    case beforeSendEmail
    case beforeSendSms

    /// The long form the client libraries build from the short name (`providers/cloud.auth/eventTypes/user.<x>`).
    public var longName: String { "providers/cloud.auth/eventTypes/user.\(rawValue)" }

    /// The event for a short or long name, or nil.
    public init?(name: String) {
        let short = name.hasPrefix("providers/cloud.auth/eventTypes/user.")
            ? String(name.dropFirst("providers/cloud.auth/eventTypes/user.".count)) : name
        self.init(rawValue: short)
    }
}

/// The kind of email a `beforeSendEmail` event is about (`email_type`).
public enum BlockingEmailType: String, Sendable, Codable, CaseIterable, Hashable {
    case emailSignIn = "EMAIL_SIGN_IN"
    case passwordReset = "PASSWORD_RESET"
    case verifyEmail = "VERIFY_EMAIL"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"
    case revertSecondFactorAddition = "REVERT_SECOND_FACTOR_ADDITION"
}

/// The kind of SMS a `beforeSendSms` event is about (`sms_type`).
public enum BlockingSmsType: String, Sendable, Codable, CaseIterable, Hashable {
    case signInOrSignUp = "SIGN_IN_OR_SIGN_UP"
    case multiFactorSignIn = "MULTI_FACTOR_SIGN_IN"
    case multiFactorEnrollment = "MULTI_FACTOR_ENROLLMENT"
}

/// Identity Platform's `blockingFunctions` configuration object.
public struct BlockingFunctionsConfig: Codable, Sendable, Equatable {
    /// One configured function.
    public struct Trigger: Codable, Sendable, Equatable {
        /// The URL Hearth posts the event to.
        public var functionUri: String
        /// When the trigger was last set (RFC 3339, stamped by the server).
        public var updateTime: String?

        public init(functionUri: String, updateTime: String? = nil) {
            self.functionUri = functionUri
            self.updateTime = updateTime
        }
    }

    /// Which of the federated provider's credentials the JWT carries (`oauth_id_token`, `oauth_access_token` +
    /// `oauth_expires_in`, `oauth_refresh_token`). Absent means false.
    public struct ForwardInboundCredentials: Codable, Sendable, Equatable {
        public var idToken: Bool?
        public var accessToken: Bool?
        public var refreshToken: Bool?

        public init(idToken: Bool? = nil, accessToken: Bool? = nil, refreshToken: Bool? = nil) {
            self.idToken = idToken
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }

        /// True when nothing is forwarded.
        public var isEmpty: Bool { idToken != true && accessToken != true && refreshToken != true }
    }

    /// Keyed by the event's short name (`beforeCreate`, `beforeSignIn`, `beforeSendEmail`, `beforeSendSms`).
    public var triggers: [String: Trigger]
    public var forwardInboundCredentials: ForwardInboundCredentials?

    public init(triggers: [String: Trigger] = [:], forwardInboundCredentials: ForwardInboundCredentials? = nil) {
        self.triggers = triggers
        self.forwardInboundCredentials = forwardInboundCredentials
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        triggers = try container.decodeIfPresent([String: Trigger].self, forKey: .triggers) ?? [:]
        forwardInboundCredentials = try container.decodeIfPresent(ForwardInboundCredentials.self, forKey: .forwardInboundCredentials)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !triggers.isEmpty { try container.encode(triggers, forKey: .triggers) }
        try container.encodeIfPresent(forwardInboundCredentials, forKey: .forwardInboundCredentials)
    }

    enum CodingKeys: String, CodingKey { case triggers, forwardInboundCredentials }

    /// The trigger configured for an event (one with an empty `functionUri` counts as none).
    public func trigger(for event: BlockingEventType) -> Trigger? {
        guard let trigger = triggers[event.rawValue], !trigger.functionUri.isEmpty else { return nil }
        return trigger
    }

    /// True when no function is configured and nothing is forwarded.
    public var isEmpty: Bool {
        BlockingEventType.allCases.allSatisfy { trigger(for: $0) == nil } && (forwardInboundCredentials?.isEmpty ?? true)
    }
}

/// The user as a blocking function's JWT carries it (`user_record`, snake case). `firebase-functions` requires
/// `uid`, `metadata.creation_time` (milliseconds since 1970) and `provider_data`.
public struct BlockingUserRecord: Codable, Sendable, Equatable {
    /// `metadata`: times in milliseconds since 1970 (the libraries read them as `new Date(ms)` / `int(x) / 1000`).
    public struct Metadata: Codable, Sendable, Equatable {
        public var creationTime: Int64
        public var lastSignInTime: Int64?

        public init(creationTime: Int64, lastSignInTime: Int64? = nil) {
            self.creationTime = creationTime
            self.lastSignInTime = lastSignInTime
        }

        enum CodingKeys: String, CodingKey {
            case creationTime = "creation_time"
            case lastSignInTime = "last_sign_in_time"
        }
    }

    /// One entry of `provider_data`.
    public struct ProviderInfo: Codable, Sendable, Equatable {
        public var uid: String
        public var providerId: String
        public var email: String?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?

        public init(uid: String, providerId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil, phoneNumber: String? = nil) {
            self.uid = uid
            self.providerId = providerId
            self.email = email
            self.displayName = displayName
            self.photoUrl = photoUrl
            self.phoneNumber = phoneNumber
        }

        enum CodingKeys: String, CodingKey {
            case uid, email
            case providerId = "provider_id"
            case displayName = "display_name"
            case photoUrl = "photo_url"
            case phoneNumber = "phone_number"
        }
    }

    /// One enrolled second factor (`multi_factor.enrolled_factors[]`); `enrollment_time` is ISO 8601.
    public struct EnrolledFactor: Codable, Sendable, Equatable {
        public var uid: String
        public var factorId: String
        public var displayName: String?
        public var enrollmentTime: String?
        public var phoneNumber: String?

        public init(uid: String, factorId: String, displayName: String? = nil, enrollmentTime: String? = nil, phoneNumber: String? = nil) {
            self.uid = uid
            self.factorId = factorId
            self.displayName = displayName
            self.enrollmentTime = enrollmentTime
            self.phoneNumber = phoneNumber
        }

        enum CodingKeys: String, CodingKey {
            case uid
            case factorId = "factor_id"
            case displayName = "display_name"
            case enrollmentTime = "enrollment_time"
            case phoneNumber = "phone_number"
        }
    }

    /// `multi_factor`.
    public struct MultiFactor: Codable, Sendable, Equatable {
        public var enrolledFactors: [EnrolledFactor]

        public init(enrolledFactors: [EnrolledFactor]) { self.enrolledFactors = enrolledFactors }

        enum CodingKeys: String, CodingKey { case enrolledFactors = "enrolled_factors" }
    }

    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var disabled: Bool
    public var metadata: Metadata
    public var providerData: [ProviderInfo]
    public var customClaims: [String: JSONValue]?
    public var tenantId: String?
    /// Seconds since 1970 (the libraries multiply by 1000 / use `utcfromtimestamp`).
    public var tokensValidAfterTime: Int64?
    public var multiFactor: MultiFactor?

    public init(
        uid: String, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
        photoUrl: String? = nil, phoneNumber: String? = nil, disabled: Bool = false, metadata: Metadata,
        providerData: [ProviderInfo] = [], customClaims: [String: JSONValue]? = nil, tenantId: String? = nil,
        tokensValidAfterTime: Int64? = nil, multiFactor: MultiFactor? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.metadata = metadata
        self.providerData = providerData
        self.customClaims = customClaims
        self.tenantId = tenantId
        self.tokensValidAfterTime = tokensValidAfterTime
        self.multiFactor = multiFactor
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uid = try c.decode(String.self, forKey: .uid)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        photoUrl = try c.decodeIfPresent(String.self, forKey: .photoUrl)
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        disabled = try c.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        metadata = try c.decodeIfPresent(Metadata.self, forKey: .metadata) ?? Metadata(creationTime: 0)
        providerData = try c.decodeIfPresent([ProviderInfo].self, forKey: .providerData) ?? []
        customClaims = try c.decodeIfPresent([String: JSONValue].self, forKey: .customClaims)
        tenantId = try c.decodeIfPresent(String.self, forKey: .tenantId)
        tokensValidAfterTime = try c.decodeIfPresent(Int64.self, forKey: .tokensValidAfterTime)
        multiFactor = try c.decodeIfPresent(MultiFactor.self, forKey: .multiFactor)
    }

    enum CodingKeys: String, CodingKey {
        case uid, email, disabled, metadata
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case photoUrl = "photo_url"
        case phoneNumber = "phone_number"
        case providerData = "provider_data"
        case customClaims = "custom_claims"
        case tenantId = "tenant_id"
        case tokensValidAfterTime = "tokens_valid_after_time"
        case multiFactor = "multi_factor"
    }
}

/// The payload of the JWT Hearth posts to a blocking function, exactly as Firebase sends it (snake-case keys).
/// Signed RS256 with the ID-token keys (verifiable against the server's published keys); `aud` is the function's
/// URL, `iss` is `https://securetoken.google.com/<project>`. `firebase-functions` (Python) requires `event_id`,
/// `ip_address`, `user_agent`, `iat`; `user_record` for `beforeCreate` / `beforeSignIn`.
public struct AuthBlockingEventClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var aud: String
    public var iat: Int64
    public var exp: Int64
    /// The uid (absent for an email/SMS event without a user).
    public var sub: String?
    public var eventId: String
    /// The short name (`beforeCreate` …), see `BlockingEventType`.
    public var eventType: String
    public var ipAddress: String
    public var userAgent: String
    public var locale: String?
    /// `password`, `emailLink`, `google.com`, `passkey` …
    public var signInMethod: String?
    /// `phone`/`totp` when the sign-in finished with a second factor.
    public var signInSecondFactor: String?
    public var tenantId: String?
    public var userRecord: BlockingUserRecord?
    /// The provider's profile as a JSON *string*.
    public var rawUserInfo: String?
    /// The federated sign-in's attributes (a JSON object; SAML attributes / OIDC claims).
    public var signInAttributes: JSONValue?
    public var oauthIdToken: String?
    public var oauthAccessToken: String?
    public var oauthRefreshToken: String?
    public var oauthTokenSecret: String?
    /// Seconds until `oauth_access_token` expires.
    public var oauthExpiresIn: Int64?
    /// `beforeSendEmail`: the address the message goes to.
    public var email: String?
    /// `beforeSendEmail`: see `BlockingEmailType`.
    public var emailType: String?
    /// `beforeSendSms`: the number the message goes to.
    public var phoneNumber: String?
    /// `beforeSendSms`: see `BlockingSmsType`.
    public var smsType: String?

    public init(
        iss: String, aud: String, iat: Int64, exp: Int64, sub: String?, eventId: String, eventType: String,
        ipAddress: String, userAgent: String, locale: String? = nil, signInMethod: String? = nil,
        signInSecondFactor: String? = nil, tenantId: String? = nil, userRecord: BlockingUserRecord? = nil,
        rawUserInfo: String? = nil, signInAttributes: JSONValue? = nil, oauthIdToken: String? = nil,
        oauthAccessToken: String? = nil, oauthRefreshToken: String? = nil, oauthTokenSecret: String? = nil,
        oauthExpiresIn: Int64? = nil, email: String? = nil, emailType: String? = nil, phoneNumber: String? = nil,
        smsType: String? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.sub = sub
        self.eventId = eventId
        self.eventType = eventType
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.locale = locale
        self.signInMethod = signInMethod
        self.signInSecondFactor = signInSecondFactor
        self.tenantId = tenantId
        self.userRecord = userRecord
        self.rawUserInfo = rawUserInfo
        self.signInAttributes = signInAttributes
        self.oauthIdToken = oauthIdToken
        self.oauthAccessToken = oauthAccessToken
        self.oauthRefreshToken = oauthRefreshToken
        self.oauthTokenSecret = oauthTokenSecret
        self.oauthExpiresIn = oauthExpiresIn
        self.email = email
        self.emailType = emailType
        self.phoneNumber = phoneNumber
        self.smsType = smsType
    }

    /// The event, when `event_type` names one.
    public var event: BlockingEventType? { BlockingEventType(name: eventType) }

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, sub, locale, email
        case eventId = "event_id"
        case eventType = "event_type"
        case ipAddress = "ip_address"
        case userAgent = "user_agent"
        case signInMethod = "sign_in_method"
        case signInSecondFactor = "sign_in_second_factor"
        case tenantId = "tenant_id"
        case userRecord = "user_record"
        case rawUserInfo = "raw_user_info"
        case signInAttributes = "sign_in_attributes"
        case oauthIdToken = "oauth_id_token"
        case oauthAccessToken = "oauth_access_token"
        case oauthRefreshToken = "oauth_refresh_token"
        case oauthTokenSecret = "oauth_token_secret"
        case oauthExpiresIn = "oauth_expires_in"
        case emailType = "email_type"
        case phoneNumber = "phone_number"
        case smsType = "sms_type"
    }
}

/// The request body Hearth posts: `{"data":{"jwt":"…"}}` (the shape of a callable function's request).
public struct BlockingFunctionRequest: Codable, Sendable, Equatable {
    public struct Payload: Codable, Sendable, Equatable {
        public var jwt: String
        public init(jwt: String) { self.jwt = jwt }
    }

    public var data: Payload

    public init(jwt: String) { data = Payload(jwt: jwt) }
}

/// A blocking function's successful answer: `{userRecord: {…, updateMask}, recaptchaActionOverride}`; `{}` means
/// "allow, change nothing".
public struct BlockingFunctionAnswer: Codable, Sendable, Equatable {
    /// The changes a function asks for. Only the fields named in `updateMask` (comma-separated) apply.
    public struct UserRecord: Codable, Sendable, Equatable {
        public var updateMask: String?
        public var displayName: String?
        public var photoURL: String?
        public var disabled: Bool?
        public var emailVerified: Bool?
        public var customClaims: [String: JSONValue]?
        public var sessionClaims: [String: JSONValue]?

        public init(
            updateMask: String? = nil, displayName: String? = nil, photoURL: String? = nil, disabled: Bool? = nil,
            emailVerified: Bool? = nil, customClaims: [String: JSONValue]? = nil, sessionClaims: [String: JSONValue]? = nil
        ) {
            self.updateMask = updateMask
            self.displayName = displayName
            self.photoURL = photoURL
            self.disabled = disabled
            self.emailVerified = emailVerified
            self.customClaims = customClaims
            self.sessionClaims = sessionClaims
        }

        /// Builds the record with `updateMask` naming exactly the fields given (as firebase-functions does).
        public static func masked(
            displayName: String? = nil, photoURL: String? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
            customClaims: [String: JSONValue]? = nil, sessionClaims: [String: JSONValue]? = nil
        ) -> UserRecord {
            var names: [String] = []
            if displayName != nil { names.append("displayName") }
            if photoURL != nil { names.append("photoURL") }
            if disabled != nil { names.append("disabled") }
            if emailVerified != nil { names.append("emailVerified") }
            if customClaims != nil { names.append("customClaims") }
            if sessionClaims != nil { names.append("sessionClaims") }
            return UserRecord(
                updateMask: names.joined(separator: ","), displayName: displayName, photoURL: photoURL,
                disabled: disabled, emailVerified: emailVerified, customClaims: customClaims, sessionClaims: sessionClaims)
        }

        /// The field names `updateMask` lists (`photoUrl`, the emulator's spelling, reads as `photoURL`).
        public var maskedFields: Set<String> {
            Set((updateMask ?? "").split(separator: ",").map {
                let name = $0.trimmingCharacters(in: .whitespaces)
                return name == "photoUrl" ? "photoURL" : name
            })
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            updateMask = try c.decodeIfPresent(String.self, forKey: .updateMask)
            displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
            photoURL = try c.decodeIfPresent(String.self, forKey: .photoURL)
                ?? c.decodeIfPresent(String.self, forKey: .photoUrl)
            disabled = try c.decodeIfPresent(Bool.self, forKey: .disabled)
            emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified)
            customClaims = try c.decodeIfPresent([String: JSONValue].self, forKey: .customClaims)
            sessionClaims = try c.decodeIfPresent([String: JSONValue].self, forKey: .sessionClaims)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(updateMask, forKey: .updateMask)
            try c.encodeIfPresent(displayName, forKey: .displayName)
            try c.encodeIfPresent(photoURL, forKey: .photoURL)
            try c.encodeIfPresent(disabled, forKey: .disabled)
            try c.encodeIfPresent(emailVerified, forKey: .emailVerified)
            try c.encodeIfPresent(customClaims, forKey: .customClaims)
            try c.encodeIfPresent(sessionClaims, forKey: .sessionClaims)
        }

        enum CodingKeys: String, CodingKey {
            case updateMask, displayName, photoURL, photoUrl, disabled, emailVerified, customClaims, sessionClaims
        }
    }

    public var userRecord: UserRecord?
    /// `ALLOW` or `BLOCK` (reCAPTCHA); accepted and ignored while Hearth has no reCAPTCHA.
    public var recaptchaActionOverride: String?

    public init(userRecord: UserRecord? = nil, recaptchaActionOverride: String? = nil) {
        self.userRecord = userRecord
        self.recaptchaActionOverride = recaptchaActionOverride
    }
}

/// A blocking function's refusal: `{"error":{"status":"PERMISSION_DENIED","message":"…","details":…}}`, sent with
/// the HTTP status of the callable-function error code (e.g. 403 for `PERMISSION_DENIED`).
public struct BlockingFunctionErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// The canonical status name (`INVALID_ARGUMENT`, `PERMISSION_DENIED`, `INTERNAL` …).
        public var status: String
        public var message: String
        public var details: JSONValue?

        public init(status: String, message: String, details: JSONValue? = nil) {
            self.status = status
            self.message = message
            self.details = details
        }
    }

    public var error: Detail

    public init(status: String, message: String, details: JSONValue? = nil) {
        error = Detail(status: status, message: message, details: details)
    }
}

/// Limits and reserved names Firebase applies to a blocking function's answer.
public enum BlockingFunctionLimits {
    /// The most characters the JSON of `customClaims`, of `sessionClaims`, and of both merged may have.
    public static let maximumClaimsCharacters = 1000
    /// Claim names an answer may not set (firebase-functions' list, plus `sub` and `user_id` which Hearth's
    /// Admin API refuses as well).
    public static let reservedClaimNames: Set<String> = CustomTokenClaims.reservedClaimNames

    /// What breaks Firebase's rules for an answer's claims.
    public enum ClaimsProblem: Sendable, Equatable {
        /// `sessionClaims` (these names) in an answer to an event other than beforeSignIn.
        case sessionClaimsOutsideBeforeSignIn([String])
        /// `field` (`customClaims` or `sessionClaims`) sets these reserved names.
        case reserved(field: String, names: [String])
        /// `field`'s JSON is over ``maximumClaimsCharacters``.
        case tooLong(field: String)
        /// Both merged (session claims over custom claims) are over ``maximumClaimsCharacters``.
        case combinedTooLong
    }

    /// The first rule an answer's claims to `event` break, as firebase-functions checks them (session claims only in
    /// beforeSignIn; no reserved name; each, and both merged, at most ``maximumClaimsCharacters`` by `length` — the
    /// server measures compact JSON, the Swift helper Python's `json.dumps` like firebase-functions); nil: none.
    public static func problem(customClaims: [String: JSONValue]?, sessionClaims: [String: JSONValue]?, event: BlockingEventType,
                               length: ([String: JSONValue]) -> Int) -> ClaimsProblem? {
        if let sessionClaims, !sessionClaims.isEmpty, event != .beforeSignIn {
            return .sessionClaimsOutsideBeforeSignIn(sessionClaims.keys.sorted())
        }
        for (field, claims) in [("customClaims", customClaims), ("sessionClaims", sessionClaims)] {
            guard let claims, !claims.isEmpty else { continue }
            let reserved = claims.keys.filter(reservedClaimNames.contains).sorted()
            if !reserved.isEmpty { return .reserved(field: field, names: reserved) }
            if length(claims) > maximumClaimsCharacters { return .tooLong(field: field) }
        }
        if let sessionClaims, !sessionClaims.isEmpty,
           length((customClaims ?? [:]).merging(sessionClaims) { _, session in session }) > maximumClaimsCharacters {
            return .combinedTooLong
        }
        return nil
    }
}
