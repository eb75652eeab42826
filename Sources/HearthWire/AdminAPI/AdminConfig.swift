/// Wire types of the v2 configuration resources: `projects/{p}/config`, `defaultSupportedIdpConfigs`,
/// `oauthIdpConfigs`, `defaultSupportedIdps`, and the emulator's `/emulator/v1/projects/{p}/config`.

/// `projects/{p}/config` (the fields Hearth serves).
public struct AdminProjectConfig: Codable, Sendable, Equatable {
    public var name: String?
    public var signIn: SignInConfig?
    public var authorizedDomains: [String]?
    public var emailPrivacyConfig: EmailPrivacyConfig?
    public var client: ClientConfig?
    /// `notification`: the email templates (`sendEmail`).
    public var notification: NotificationConfig?
    /// `mfa`: second factors (TOTP).
    public var mfa: MultiFactorAuthConfig?
    /// Hearth: `passkeys`, the WebAuthn relying party (Google's field for its preview is not public).
    public var passkeys: PasskeyConfig?
    /// `blockingFunctions`: the project's blocking functions (Identity Platform's shape; issue 39).
    public var blockingFunctions: BlockingFunctionsConfig?
    /// `smsRegionConfig`: the regions SMS may be sent to (Firebase's shape; issue 40).
    public var smsRegionConfig: SmsRegionConfig?
    /// Hearth: `sms`, the SMS defences' settings (budget, limits, app verification).
    public var sms: SmsSettings?

    public init(name: String? = nil, signIn: SignInConfig? = nil, authorizedDomains: [String]? = nil,
                emailPrivacyConfig: EmailPrivacyConfig? = nil, client: ClientConfig? = nil, notification: NotificationConfig? = nil,
                mfa: MultiFactorAuthConfig? = nil, passkeys: PasskeyConfig? = nil, blockingFunctions: BlockingFunctionsConfig? = nil,
                smsRegionConfig: SmsRegionConfig? = nil, sms: SmsSettings? = nil) {
        self.name = name
        self.smsRegionConfig = smsRegionConfig
        self.sms = sms
        self.blockingFunctions = blockingFunctions
        self.mfa = mfa
        self.passkeys = passkeys
        self.signIn = signIn
        self.authorizedDomains = authorizedDomains
        self.emailPrivacyConfig = emailPrivacyConfig
        self.client = client
        self.notification = notification
    }

    /// `notification`: how the project's email is sent.
    public struct NotificationConfig: Codable, Sendable, Equatable {
        public var sendEmail: SendEmailConfig?
        public var defaultLocale: String?

        public init(sendEmail: SendEmailConfig? = nil, defaultLocale: String? = nil) {
            self.sendEmail = sendEmail
            self.defaultLocale = defaultLocale
        }
    }

    /// `notification.sendEmail`: one template per action. `verifyAndChangeEmailTemplate`, `emailSignInTemplate` and
    /// `appName` are Hearth's additions (Firebase does not let those be edited); `method` is `CUSTOM_SMTP` when
    /// the server has an SMTP relay (output only: the relay is a server setting, `smtp.url`).
    public struct SendEmailConfig: Codable, Sendable, Equatable {
        public var method: String?
        public var resetPasswordTemplate: EmailTemplate?
        public var verifyEmailTemplate: EmailTemplate?
        public var changeEmailTemplate: EmailTemplate?
        public var verifyAndChangeEmailTemplate: EmailTemplate?
        public var emailSignInTemplate: EmailTemplate?
        /// A custom action handler URL (Firebase's "customize action URL"); empty: Hearth's `/__/auth/action`.
        public var callbackUri: String?
        /// `%APP_NAME%` in the templates; empty: the project id.
        public var appName: String?

        public init(method: String? = nil, resetPasswordTemplate: EmailTemplate? = nil, verifyEmailTemplate: EmailTemplate? = nil,
                    changeEmailTemplate: EmailTemplate? = nil, verifyAndChangeEmailTemplate: EmailTemplate? = nil,
                    emailSignInTemplate: EmailTemplate? = nil, callbackUri: String? = nil, appName: String? = nil) {
            self.method = method
            self.resetPasswordTemplate = resetPasswordTemplate
            self.verifyEmailTemplate = verifyEmailTemplate
            self.changeEmailTemplate = changeEmailTemplate
            self.verifyAndChangeEmailTemplate = verifyAndChangeEmailTemplate
            self.emailSignInTemplate = emailSignInTemplate
            self.callbackUri = callbackUri
            self.appName = appName
        }
    }

    /// One email template. The subject and body may hold `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%DISPLAY_NAME%` and
    /// `%APP_NAME%`.
    public struct EmailTemplate: Codable, Sendable, Equatable {
        /// The local part of the sender address (before `@`); empty: the server's `mail.from`.
        public var senderLocalPart: String?
        public var senderDisplayName: String?
        public var subject: String?
        public var body: String?
        /// `PLAIN_TEXT` or `HTML`.
        public var bodyFormat: String?
        public var replyTo: String?
        /// Output only: the template differs from the default.
        public var customized: Bool?

        public init(senderLocalPart: String? = nil, senderDisplayName: String? = nil, subject: String? = nil, body: String? = nil,
                    bodyFormat: String? = nil, replyTo: String? = nil, customized: Bool? = nil) {
            self.senderLocalPart = senderLocalPart
            self.senderDisplayName = senderDisplayName
            self.subject = subject
            self.body = body
            self.bodyFormat = bodyFormat
            self.replyTo = replyTo
            self.customized = customized
        }
    }

    /// `signIn`: sign-in methods and account linking.
    public struct SignInConfig: Codable, Sendable, Equatable {
        public var email: Email?
        public var anonymous: Enabled?
        /// `signIn.phoneNumber`: phone sign-in and the test numbers.
        public var phoneNumber: PhoneNumberConfig?
        /// false: one account per email (linking); true: multiple accounts.
        public var allowDuplicateEmails: Bool?
        /// Output only: how passwords are hashed (Hearth: standard scrypt).
        public var hashConfig: HashConfig?

        public init(email: Email? = nil, anonymous: Enabled? = nil, phoneNumber: PhoneNumberConfig? = nil, allowDuplicateEmails: Bool? = nil,
                    hashConfig: HashConfig? = nil) {
            self.email = email
            self.anonymous = anonymous
            self.phoneNumber = phoneNumber
            self.allowDuplicateEmails = allowDuplicateEmails
            self.hashConfig = hashConfig
        }
    }

    /// `signIn.email`.
    public struct Email: Codable, Sendable, Equatable {
        public var enabled: Bool?
        /// false would allow email-link sign-in (not offered by Hearth).
        public var passwordRequired: Bool?
        public init(enabled: Bool?, passwordRequired: Bool?) {
            self.enabled = enabled
            self.passwordRequired = passwordRequired
        }
    }

    /// `signIn.phoneNumber`: `{enabled, testPhoneNumbers}` (Firebase's shape).
    public struct PhoneNumberConfig: Codable, Sendable, Equatable {
        public var enabled: Bool?
        /// Fictional numbers (E.164) → their fixed 6-digit codes: no SMS is sent to them, no limit or budget counts
        /// them. At most ``maximumTestPhoneNumbers``.
        public var testPhoneNumbers: [String: String]?

        public init(enabled: Bool?, testPhoneNumbers: [String: String]? = nil) {
            self.enabled = enabled
            self.testPhoneNumbers = testPhoneNumbers
        }

        /// Firebase's limit on test numbers.
        public static let maximumTestPhoneNumbers = 10
    }

    /// `{enabled}`.
    public struct Enabled: Codable, Sendable, Equatable {
        public var enabled: Bool?
        public init(enabled: Bool?) { self.enabled = enabled }
    }

    /// `signIn.hashConfig` (output only).
    public struct HashConfig: Codable, Sendable, Equatable {
        public var algorithm: String?
        public var rounds: Int?
        public var memoryCost: Int?
        public init(algorithm: String?, rounds: Int?, memoryCost: Int?) {
            self.algorithm = algorithm
            self.rounds = rounds
            self.memoryCost = memoryCost
        }
    }

    /// `emailPrivacyConfig`: email enumeration protection.
    public struct EmailPrivacyConfig: Codable, Sendable, Equatable {
        public var enableImprovedEmailPrivacy: Bool?
        public init(enableImprovedEmailPrivacy: Bool?) { self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy }
    }

    /// `client`: the console's "User actions".
    public struct ClientConfig: Codable, Sendable, Equatable {
        public var permissions: Permissions?
        public init(permissions: Permissions?) { self.permissions = permissions }
    }

    /// `client.permissions`.
    public struct Permissions: Codable, Sendable, Equatable {
        public var disabledUserSignup: Bool?
        public var disabledUserDeletion: Bool?
        public init(disabledUserSignup: Bool?, disabledUserDeletion: Bool?) {
            self.disabledUserSignup = disabledUserSignup
            self.disabledUserDeletion = disabledUserDeletion
        }
    }
}

/// The emulator's `GET/PATCH /emulator/v1/projects/{p}/config`.
public struct EmulatorConfig: Codable, Sendable, Equatable {
    public var signIn: SignIn?
    public var emailPrivacyConfig: AdminProjectConfig.EmailPrivacyConfig?

    /// `{allowDuplicateEmails}`.
    public struct SignIn: Codable, Sendable, Equatable {
        public var allowDuplicateEmails: Bool?
        public init(allowDuplicateEmails: Bool?) { self.allowDuplicateEmails = allowDuplicateEmails }
    }

    public init(signIn: SignIn?, emailPrivacyConfig: AdminProjectConfig.EmailPrivacyConfig?) {
        self.signIn = signIn
        self.emailPrivacyConfig = emailPrivacyConfig
    }
}

/// `defaultSupportedIdpConfigs/{idpId}` (microsoft.com, yahoo.com). `clientSecret` is write-only: accepted on
/// create and patch, never sent back.
public struct DefaultSupportedIdpConfig: Codable, Sendable, Equatable {
    /// `projects/{p}/defaultSupportedIdpConfigs/{idpId}`.
    public var name: String?
    public var enabled: Bool?
    public var clientId: String?
    public var clientSecret: String?
    /// Hearth extension: the provider's base URL (Microsoft authority host, Yahoo host), e.g. a dev IdP.
    public var endpointBase: String?
    /// Hearth extension: Microsoft Graph's base URL.
    public var graphBase: String?
    /// Hearth extension, `microsoft.com` only: the tenants whose accounts may sign in (tenant GUIDs, verified
    /// domains, `consumers`, `organizations`); absent or empty: every tenant.
    public var allowedTenants: [String]?
    /// Hearth extension: keep the provider's refresh token in the token vault (default true; false deletes the
    /// tokens kept).
    public var tokenVault: Bool?
    /// Hearth extension: client IDs of native apps whose ID tokens `signInWithIdp` accepts besides `clientId`'s.
    public var nativeClientIds: [String]?
    /// `apple.com` only (Firebase's shape): the bundle ids and the code flow's key. `privateKey` is write-only.
    public var appleSignInConfig: AppleSignInConfig?
    /// Hearth extension, `google.com` only: the Google Workspace domains whose accounts may sign in (the `hd`
    /// claim); absent or empty: every account.
    public var allowedHostedDomains: [String]?

    /// Firebase's `appleSignInConfig`.
    public struct AppleSignInConfig: Codable, Sendable, Equatable {
        /// The bundle ids of the apps whose native Sign in with Apple ID tokens are accepted.
        public var bundleIds: [String]?
        /// The web (code) flow's key.
        public var codeFlowConfig: CodeFlowConfig?

        public init(bundleIds: [String]? = nil, codeFlowConfig: CodeFlowConfig? = nil) {
            self.bundleIds = bundleIds
            self.codeFlowConfig = codeFlowConfig
        }
    }

    /// Firebase's `appleSignInConfig.codeFlowConfig`: the Apple developer team id, the key id and the `.p8`
    /// private key (PEM; write-only, never returned).
    public struct CodeFlowConfig: Codable, Sendable, Equatable {
        public var teamId: String?
        public var keyId: String?
        public var privateKey: String?

        public init(teamId: String? = nil, keyId: String? = nil, privateKey: String? = nil) {
            self.teamId = teamId
            self.keyId = keyId
            self.privateKey = privateKey
        }
    }

    public init(name: String? = nil, enabled: Bool? = nil, clientId: String? = nil, clientSecret: String? = nil,
                endpointBase: String? = nil, graphBase: String? = nil, allowedTenants: [String]? = nil,
                tokenVault: Bool? = nil, nativeClientIds: [String]? = nil, appleSignInConfig: AppleSignInConfig? = nil,
                allowedHostedDomains: [String]? = nil) {
        self.appleSignInConfig = appleSignInConfig
        self.allowedHostedDomains = allowedHostedDomains
        self.name = name
        self.enabled = enabled
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.endpointBase = endpointBase
        self.graphBase = graphBase
        self.allowedTenants = allowedTenants
        self.tokenVault = tokenVault
        self.nativeClientIds = nativeClientIds
    }
}

/// A page of `defaultSupportedIdpConfigs`.
public struct DefaultSupportedIdpConfigList: Codable, Sendable, Equatable {
    public var defaultSupportedIdpConfigs: [DefaultSupportedIdpConfig]?
    public var nextPageToken: String?
    public init(configs: [DefaultSupportedIdpConfig], nextPageToken: String?) {
        self.defaultSupportedIdpConfigs = configs.isEmpty ? nil : configs
        self.nextPageToken = nextPageToken
    }
}

/// `oauthIdpConfigs/{oidc.*}`. `clientSecret` is write-only.
public struct OAuthIdpConfig: Codable, Sendable, Equatable {
    /// `projects/{p}/oauthIdpConfigs/{id}`.
    public var name: String?
    public var clientId: String?
    public var clientSecret: String?
    public var issuer: String?
    public var displayName: String?
    public var enabled: Bool?
    public var responseType: ResponseType?
    /// Hearth extension: keep the provider's refresh token in the token vault (default true).
    public var tokenVault: Bool?
    /// Hearth extension: client IDs of native apps whose ID tokens `signInWithIdp` accepts besides `clientId`'s.
    public var nativeClientIds: [String]?

    /// `responseType`: Hearth signs in with the authorization code flow.
    public struct ResponseType: Codable, Sendable, Equatable {
        public var code: Bool?
        public var idToken: Bool?
        public var token: Bool?
        public init(code: Bool?, idToken: Bool?, token: Bool? = nil) {
            self.code = code
            self.idToken = idToken
            self.token = token
        }
    }

    public init(name: String? = nil, clientId: String? = nil, clientSecret: String? = nil, issuer: String? = nil,
                displayName: String? = nil, enabled: Bool? = nil, responseType: ResponseType? = nil, tokenVault: Bool? = nil,
                nativeClientIds: [String]? = nil) {
        self.name = name
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.displayName = displayName
        self.enabled = enabled
        self.responseType = responseType
        self.tokenVault = tokenVault
        self.nativeClientIds = nativeClientIds
    }
}

/// A page of `oauthIdpConfigs`.
public struct OAuthIdpConfigList: Codable, Sendable, Equatable {
    public var oauthIdpConfigs: [OAuthIdpConfig]?
    public var nextPageToken: String?
    public init(configs: [OAuthIdpConfig], nextPageToken: String?) {
        self.oauthIdpConfigs = configs.isEmpty ? nil : configs
        self.nextPageToken = nextPageToken
    }
}

/// `GET /v2/defaultSupportedIdps`: the built-in providers Hearth can federate.
public struct DefaultSupportedIdpList: Codable, Sendable, Equatable {
    public var defaultSupportedIdps: [Entry]

    /// One provider: `{idpId, description}`.
    public struct Entry: Codable, Sendable, Equatable {
        public var idpId: String
        public var description: String
        public init(idpId: String, description: String) {
            self.idpId = idpId
            self.description = description
        }
    }

    public init(defaultSupportedIdps: [Entry]) { self.defaultSupportedIdps = defaultSupportedIdps }
}

/// Hearth's `passkeys` project setting: whether users may enroll and sign in with passkeys, and the relying party.
public struct PasskeyConfig: Codable, Sendable, Equatable {
    /// Passkeys may be enrolled and used (off: `PASSKEY_NOT_ENABLED`). Off by default.
    public var enabled: Bool?
    /// The relying party id (a domain): nil means the host of the server's public URL. Credentials are bound to it:
    /// changing it strands every registered passkey.
    public var rpId: String?
    /// Extra origins allowed in `clientDataJSON` beside the server's own (`https://app.example.com`, Android's
    /// `android:apk-key-hash:…`). Each must be the rp id or a subdomain of it, or an app origin.
    public var allowedOrigins: [String]?
    /// `REQUIRED` (default: the authenticator must verify the user, e.g. Face ID or a PIN) or `PREFERRED`.
    public var userVerification: String?

    /// A passkey setting.
    public init(enabled: Bool? = nil, rpId: String? = nil, allowedOrigins: [String]? = nil, userVerification: String? = nil) {
        self.enabled = enabled
        self.rpId = rpId
        self.allowedOrigins = allowedOrigins
        self.userVerification = userVerification
    }
}

/// Firebase's `smsRegionConfig`: the regions (ISO 3166-1 alpha-2, matched by a number's calling code) SMS may be
/// sent to. One of the two members is set; neither: every region.
public struct SmsRegionConfig: Codable, Sendable, Equatable {
    /// Every region except `disallowedRegions`.
    public var allowByDefault: AllowByDefault?
    /// Only `allowedRegions`.
    public var allowlistOnly: AllowlistOnly?

    public init(allowByDefault: AllowByDefault? = nil, allowlistOnly: AllowlistOnly? = nil) {
        self.allowByDefault = allowByDefault
        self.allowlistOnly = allowlistOnly
    }

    /// `allowByDefault`.
    public struct AllowByDefault: Codable, Sendable, Equatable {
        public var disallowedRegions: [String]?
        public init(disallowedRegions: [String]?) { self.disallowedRegions = disallowedRegions }
    }

    /// `allowlistOnly`.
    public struct AllowlistOnly: Codable, Sendable, Equatable {
        public var allowedRegions: [String]?
        public init(allowedRegions: [String]?) { self.allowedRegions = allowedRegions }
    }

    /// Whether a number of these regions (`PhoneNumber.regions(of:)`) may get an SMS: with `allowlistOnly`, when
    /// one of them is allowed (a number of no known region never is); with `allowByDefault`, unless one of them is
    /// disallowed; with neither, always.
    public func allows(regions: [String]) -> Bool {
        if let allowlistOnly {
            let allowed = Set(allowlistOnly.allowedRegions ?? [])
            return regions.contains { allowed.contains($0) }
        }
        if let allowByDefault {
            let disallowed = Set(allowByDefault.disallowedRegions ?? [])
            return !regions.contains { disallowed.contains($0) }
        }
        return true
    }
}

/// Hearth's `sms` project setting: the brakes on SMS (toll fraud, code guessing) and app verification. Every
/// field is optional: nil takes the default (`SmsSettings.default…`).
public struct SmsSettings: Codable, Sendable, Equatable {
    /// SMS a project may send per UTC day (test numbers never count); 0 stops sending. Default 1000.
    public var dailyBudget: Int?
    /// Codes sent to one number per hour. Default 5.
    public var perNumberPerHour: Int?
    /// Codes sent for one client address per hour. Default 10.
    public var perAddressPerHour: Int?
    /// A production project without a reCAPTCHA secret sends SMS only when this is true (a person's explicit
    /// choice to rely on the other defences); shown in the console's banner and `hearth project sms show`.
    public var appVerificationDisabled: Bool?
    /// reCAPTCHA verification of sends.
    public var recaptcha: Recaptcha?

    public init(dailyBudget: Int? = nil, perNumberPerHour: Int? = nil, perAddressPerHour: Int? = nil,
                appVerificationDisabled: Bool? = nil, recaptcha: Recaptcha? = nil) {
        self.dailyBudget = dailyBudget
        self.perNumberPerHour = perNumberPerHour
        self.perAddressPerHour = perAddressPerHour
        self.appVerificationDisabled = appVerificationDisabled
        self.recaptcha = recaptcha
    }

    /// `sms.recaptcha`: every send needs `recaptchaToken` (or `captchaResponse`) when `secretKey` is set.
    public struct Recaptcha: Codable, Sendable, Equatable {
        /// The reCAPTCHA secret. Write-only on the wire (answered as `secretKeySet: true`); stored sealed like
        /// identity providers' client secrets.
        public var secretKey: String?
        /// Output only: a secret is set.
        public var secretKeySet: Bool?
        /// The siteverify endpoint (form POST `secret`, `response`, `remoteip`). Default Google's.
        public var verifyUrl: String?
        /// The lowest `score` accepted when the answer has one (reCAPTCHA v3 / Enterprise), 0…1. Default 0.5.
        public var minScore: Double?

        public init(secretKey: String? = nil, secretKeySet: Bool? = nil, verifyUrl: String? = nil, minScore: Double? = nil) {
            self.secretKey = secretKey
            self.secretKeySet = secretKeySet
            self.verifyUrl = verifyUrl
            self.minScore = minScore
        }
    }

    public static let defaultDailyBudget = 1000
    public static let defaultPerNumberPerHour = 5
    public static let defaultPerAddressPerHour = 10
    public static let defaultVerifyUrl = "https://www.google.com/recaptcha/api/siteverify"
    public static let defaultMinScore = 0.5

    /// ``dailyBudget`` or its default.
    public var effectiveDailyBudget: Int { dailyBudget ?? Self.defaultDailyBudget }
    /// ``perNumberPerHour`` or its default.
    public var effectivePerNumberPerHour: Int { perNumberPerHour ?? Self.defaultPerNumberPerHour }
    /// ``perAddressPerHour`` or its default.
    public var effectivePerAddressPerHour: Int { perAddressPerHour ?? Self.defaultPerAddressPerHour }
    /// ``Recaptcha/verifyUrl`` or Google's.
    public var effectiveVerifyUrl: String { recaptcha?.verifyUrl ?? Self.defaultVerifyUrl }
    /// ``Recaptcha/minScore`` or 0.5.
    public var effectiveMinScore: Double { recaptcha?.minScore ?? Self.defaultMinScore }
    /// A reCAPTCHA secret is set (sealed or not).
    public var hasRecaptchaSecret: Bool { !(recaptcha?.secretKey ?? "").isEmpty }
}
