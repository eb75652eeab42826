import Foundation
import HearthWire
import JWTKit

/// Per-project settings kept in the store.
public struct ProjectConfig: Sendable, Equatable, Codable {
    public var projectId: String
    /// Domains allowed as auth domains / redirect hosts (`getProjectConfig.authorizedDomains`).
    public var authorizedDomains: [String]
    /// When on, `createAuthUri` reveals nothing about whether an email is registered (password sign-in answers
    /// one error for an unknown email and a wrong password either way). On by default for a new project, as at
    /// Firebase, except `demo-*` projects (which behave like the emulator).
    public var emailEnumerationProtection: Bool
    /// Email/password sign-up and sign-in allowed.
    public var passwordSignInEnabled: Bool
    /// Anonymous sign-up allowed.
    public var anonymousSignInEnabled: Bool
    /// Several accounts may share an email (Firebase's "multiple accounts per email"). Off by default.
    public var allowDuplicateEmails: Bool
    /// Any app and any loopback redirect is accepted. `hearth serve --dev` accepts any app for `demo-*` projects
    /// in memory, until a person makes a choice here (``chooseAcceptAnyApp(_:)``).
    public var acceptAnyApp: Bool
    /// A person set ``acceptAnyApp`` (the CLI, the console, a test): the `--dev` default no longer applies.
    public var acceptAnyAppChosen: Bool = false

    /// Sets ``acceptAnyApp`` as a person's choice.
    public mutating func chooseAcceptAnyApp(_ accept: Bool) {
        acceptAnyApp = accept
        acceptAnyAppChosen = true
    }
    /// Users may not sign themselves up (the console's "User actions: enable create"); admins still create users.
    public var userSignupDisabled: Bool = false
    /// Users may not delete their own account (the console's "User actions: enable deletion").
    public var userDeletionDisabled: Bool = false
    /// The public URL the server last started with (`--public-url`, or the address it bound): commands run on the
    /// same data (`hearth service-accounts create`, `providers test`, `console login-link`) use it.
    public var servedPublicURL: String?
    /// How the server that last started on this data sends email: commands run on the same data (`hearth users mfa
    /// remove`) queue their notices in the outbox for it, and say whether anything will be sent.
    public var servedMail: ServedMail?
    /// Every stored email has been rewritten in canonical form once (``EmailAddress/canonical(_:)``); every write
    /// since is canonical, so the pass need not run again.
    public var emailsCanonical: Bool = false
    /// Email-link (passwordless) sign-in allowed (Firebase's `signIn.email.passwordRequired: false`). Off by
    /// default, except for `demo-*` projects (as in the emulator).
    public var emailLinkSignInEnabled: Bool = false
    /// The email templates and the app name in them (`notification.sendEmail`); nil: the defaults.
    public var sendEmail: AdminProjectConfig.SendEmailConfig?
    /// Second factors (Firebase's `mfa`): nil until set, which is off.
    public var mfa: MultiFactorAuthConfig?
    /// Passkeys (Hearth's `passkeys` config object): nil until set, which is off.
    public var passkeys: PasskeyConfig?
    /// Blocking functions (Identity Platform's `blockingFunctions`): project-wide, a tenant's users go through the
    /// project's functions (``apply(_:)`` for a tenant leaves it alone). nil: none.
    public var blockingFunctions: BlockingFunctionsConfig?
    /// Phone sign-in allowed (Firebase's `signIn.phoneNumber.enabled`). Off by default, except for `demo-*`
    /// projects (as in the emulator).
    public var phoneSignInEnabled: Bool = false
    /// Test numbers (`signIn.phoneNumber.testPhoneNumbers`): E.164 → a fixed 6-digit code; never sent, never
    /// counted against a limit or the budget. At most 10 (Firebase's rule).
    public var testPhoneNumbers: [String: String] = [:]
    /// The regions SMS may go to (Firebase's `smsRegionConfig`); nil: every region.
    public var smsRegionConfig: SmsRegionConfig?
    /// Hearth's `sms` settings (budget, limits, app verification); nil: the defaults. `recaptcha.secretKey` is
    /// stored sealed (``ClientSecretSealing`` in HearthStore, as identity providers' secrets).
    public var sms: SmsSettings?

    public init(projectId: String, authorizedDomains: [String] = ["localhost", "127.0.0.1"],
                emailEnumerationProtection: Bool? = nil, passwordSignInEnabled: Bool = true,
                anonymousSignInEnabled: Bool = true, allowDuplicateEmails: Bool = false, acceptAnyApp: Bool = false) {
        self.projectId = projectId
        self.authorizedDomains = authorizedDomains
        self.emailEnumerationProtection = emailEnumerationProtection ?? Self.defaultEmailEnumerationProtection(projectId: projectId)
        self.passwordSignInEnabled = passwordSignInEnabled
        self.anonymousSignInEnabled = anonymousSignInEnabled
        self.allowDuplicateEmails = allowDuplicateEmails
        self.acceptAnyApp = acceptAnyApp
        self.emailLinkSignInEnabled = projectId.hasPrefix("demo-")
        self.phoneSignInEnabled = projectId.hasPrefix("demo-")
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        projectId = try c.decode(String.self, forKey: .projectId)
        authorizedDomains = try c.decodeIfPresent([String].self, forKey: .authorizedDomains) ?? ["localhost", "127.0.0.1"]
        emailEnumerationProtection = try c.decodeIfPresent(Bool.self, forKey: .emailEnumerationProtection) ?? false
        passwordSignInEnabled = try c.decodeIfPresent(Bool.self, forKey: .passwordSignInEnabled) ?? true
        anonymousSignInEnabled = try c.decodeIfPresent(Bool.self, forKey: .anonymousSignInEnabled) ?? true
        allowDuplicateEmails = try c.decodeIfPresent(Bool.self, forKey: .allowDuplicateEmails) ?? false
        acceptAnyApp = try c.decodeIfPresent(Bool.self, forKey: .acceptAnyApp) ?? false
        acceptAnyAppChosen = try c.decodeIfPresent(Bool.self, forKey: .acceptAnyAppChosen) ?? false
        userSignupDisabled = try c.decodeIfPresent(Bool.self, forKey: .userSignupDisabled) ?? false
        userDeletionDisabled = try c.decodeIfPresent(Bool.self, forKey: .userDeletionDisabled) ?? false
        servedPublicURL = try c.decodeIfPresent(String.self, forKey: .servedPublicURL)
        servedMail = try c.decodeIfPresent(ServedMail.self, forKey: .servedMail)
        emailsCanonical = try c.decodeIfPresent(Bool.self, forKey: .emailsCanonical) ?? false
        emailLinkSignInEnabled = try c.decodeIfPresent(Bool.self, forKey: .emailLinkSignInEnabled) ?? projectId.hasPrefix("demo-")
        sendEmail = try c.decodeIfPresent(AdminProjectConfig.SendEmailConfig.self, forKey: .sendEmail)
        mfa = try c.decodeIfPresent(MultiFactorAuthConfig.self, forKey: .mfa)
        passkeys = try c.decodeIfPresent(PasskeyConfig.self, forKey: .passkeys)
        blockingFunctions = try c.decodeIfPresent(BlockingFunctionsConfig.self, forKey: .blockingFunctions)
        phoneSignInEnabled = try c.decodeIfPresent(Bool.self, forKey: .phoneSignInEnabled) ?? projectId.hasPrefix("demo-")
        testPhoneNumbers = try c.decodeIfPresent([String: String].self, forKey: .testPhoneNumbers) ?? [:]
        smsRegionConfig = try c.decodeIfPresent(SmsRegionConfig.self, forKey: .smsRegionConfig)
        sms = try c.decodeIfPresent(SmsSettings.self, forKey: .sms)
    }

    /// Passkeys may be enrolled and used.
    public var passkeysEnabled: Bool { passkeys?.enabled ?? false }

    /// TOTP second factors may be enrolled (and are asked for at sign-in whatever this says: an enrolled factor
    /// is always required).
    public var totpEnabled: Bool { mfa?.isTOTPEnabled ?? false }

    /// SMS second factors may be enrolled and used: `mfa.state` `ENABLED` (or `MANDATORY`) and
    /// `mfa.enabledProviders` holds `PHONE_SMS` (Firebase's rule).
    public var isPhoneMFAEnabled: Bool { mfa?.isPhoneEnabled ?? false }

    /// The settings of ``sms`` with their defaults.
    public var smsSettings: SmsSettings { sms ?? SmsSettings() }

    /// The fixed code of a test number (E.164), nil for a real one.
    public func testPhoneCode(for e164: String) -> String? { testPhoneNumbers[e164] }

    /// The adjacent intervals a TOTP code is accepted in (Google's default 5 when not set).
    public var totpAdjacentIntervals: Int {
        min(max(mfa?.totp?.totpProviderConfig?.adjacentIntervals ?? 5, TOTP.adjacentIntervalRange.lowerBound), TOTP.adjacentIntervalRange.upperBound)
    }
}

/// A service account whose public key may sign custom tokens for the project.
public struct ServiceAccountKey: Sendable, Equatable {
    /// The `iss`/`sub` of custom tokens, e.g. `hearth-admin@demo-hearth.iam.gserviceaccount.com`.
    public var clientEmail: String
    /// The `kid` the signer puts in the header (`private_key_id`).
    public var keyId: String
    /// PEM of the RSA public key or of a certificate holding it.
    public var publicKeyPEM: String
    public var createdAt: Date

    public init(clientEmail: String, keyId: String, publicKeyPEM: String, createdAt: Date) {
        self.clientEmail = clientEmail
        self.keyId = keyId
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
    }
}

extension ServiceAccountKey {
    /// The RSA public key from `publicKeyPEM` (a public-key PEM or a certificate PEM), or nil when unreadable.
    public var rsaPublicKey: JWTKit.Insecure.RSA.PublicKey? {
        Self.rsaPublicKey(pem: publicKeyPEM)
    }

    /// Reads an RSA public key from a public-key PEM or a certificate PEM.
    public static func rsaPublicKey(pem: String) -> JWTKit.Insecure.RSA.PublicKey? {
        if pem.contains("BEGIN CERTIFICATE") { return try? JWTKit.Insecure.RSA.PublicKey(certificatePEM: pem) }
        return try? JWTKit.Insecure.RSA.PublicKey(pem: pem)
    }
}

extension ProjectConfig {
    /// Email enumeration protection's default for a new project: on, except for `demo-*` projects.
    public static func defaultEmailEnumerationProtection(projectId: String) -> Bool { !projectId.hasPrefix("demo-") }

    /// Default on: when another account has the provider's email, sign-in answers `needConfirmation`.
    public var oneAccountPerEmail: Bool { !allowDuplicateEmails }
}
