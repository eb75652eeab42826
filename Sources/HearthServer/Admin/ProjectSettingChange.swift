import Foundation
import HearthCore
import HearthStore
import HearthWire

/// One change of the project's settings (`projects/{p}/config`), typed: what the admin API's `PATCH …/config`
/// update mask names leaf by leaf, what the console's Settings forms and `hearth project …` set. A list of changes
/// is applied in its order by ``AdminService/updateProjectSettings(_:by:in:)``, which checks each value (the same
/// checks and messages whoever asks) and audits the list as one `config.update` whose detail is the changes' paths.
///
/// A value of nil (or an empty string or list where the case says so) returns the setting to its default.
public enum ProjectSettingChange: Sendable, Equatable {
    /// `signIn.email.enabled`: email/password sign-up and sign-in.
    case passwordSignIn(Bool)
    /// `signIn.email.passwordRequired`, negated: email-link sign-in (`true` here is `passwordRequired: false`).
    case emailLinkSignIn(Bool)
    /// `signIn.anonymous.enabled`: anonymous sign-up.
    case anonymousSignIn(Bool)
    /// `signIn.allowDuplicateEmails`: several accounts may share an email (off: one account per email).
    case allowDuplicateEmails(Bool)
    /// `authorizedDomains`: host names (web sign-in, continue URLs); checked to be host names.
    case authorizedDomains([String])
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`: email enumeration protection.
    case emailEnumerationProtection(Bool)
    /// `client.permissions.disabledUserSignup`: users cannot sign themselves up.
    case userSignupDisabled(Bool)
    /// `client.permissions.disabledUserDeletion`: users cannot delete their own account.
    case userDeletionDisabled(Bool)
    /// `notification.sendEmail.appName`: `%APP_NAME%` in emails (nil or empty: the project id); one line of at most 100 characters.
    case emailAppName(String?)
    /// `notification.sendEmail.callbackUri`: the app's own action handler (nil or empty: Hearth's); an http(s) URL.
    case emailCallbackURI(String?)
    /// `notification.sendEmail.<kind>Template`: one email template (nil: the default); checked by ``EmailTemplates/problem(with:)``.
    case emailTemplate(EmailTemplates.Kind, AdminProjectConfig.EmailTemplate?)
    /// `mfa.state`: ENABLED or DISABLED (nil or `STATE_UNSPECIFIED`: unset); MANDATORY is refused.
    case multiFactorState(MultiFactorState?)
    /// `mfa.enabledProviders`: Firebase's SMS provider, `PHONE_SMS` (issue 40), or none (the empty list clears it).
    case multiFactorEnabledProviders([String])
    /// `mfa.providerConfigs`: at most one entry, TOTP's (its state, `adjacentIntervals` 0…10); empty: none.
    case multiFactorProviderConfigs([MultiFactorAuthConfig.ProviderConfig])
    /// `passkeys.enabled` (nil: the default, off).
    case passkeysEnabled(Bool?)
    /// `passkeys.rpId` (nil or empty: the host of the server's public URL); that host or a parent domain of it.
    case passkeyRpId(String?)
    /// `passkeys.allowedOrigins` (nil or empty: none added); at most 50, each on the rp id (as set by then) or an app origin.
    case passkeyAllowedOrigins([String]?)
    /// `passkeys.userVerification`: REQUIRED or PREFERRED, any case (nil: the default, REQUIRED).
    case passkeyUserVerification(String?)
    /// `blockingFunctions.triggers.<event>`: the event's function URL (nil or empty: no function); checked by
    /// ``BlockingFunctionURLPolicy`` (https, no private address unless allowed); its `updateTime` is stamped.
    case blockingFunctionTrigger(BlockingEventType, String?)
    /// `blockingFunctions.forwardInboundCredentials.idToken`: the provider's ID token goes to the functions (nil: off).
    case blockingFunctionsForwardIdToken(Bool?)
    /// `blockingFunctions.forwardInboundCredentials.accessToken`: the provider's access token (and its lifetime).
    case blockingFunctionsForwardAccessToken(Bool?)
    /// `blockingFunctions.forwardInboundCredentials.refreshToken`: the provider's refresh token.
    case blockingFunctionsForwardRefreshToken(Bool?)
    /// `signIn.phoneNumber.enabled`: phone sign-up and sign-in (issue 40).
    case phoneSignIn(Bool)
    /// `signIn.phoneNumber.testPhoneNumbers`: fictional numbers and their fixed codes (never sent); each number is
    /// parsed to E.164, each code 6 digits, at most 10 (Firebase's rules); empty: none.
    case testPhoneNumbers([String: String])
    /// `smsRegionConfig`: Firebase's region policy (`allowByDefault.disallowedRegions` or
    /// `allowlistOnly.allowedRegions`, two-letter codes); nil: every region.
    case smsRegionConfig(SmsRegionConfig?)
    /// `sms.dailyBudget`: SMS per UTC day (0 stops sending; nil: the default, 1000).
    case smsDailyBudget(Int?)
    /// `sms.perNumberPerHour`: codes per number per hour, 1…1000 (nil: 5).
    case smsPerNumberPerHour(Int?)
    /// `sms.perAddressPerHour`: codes per client address per hour, 1…100000 (nil: 10).
    case smsPerAddressPerHour(Int?)
    /// `sms.appVerificationDisabled`: a production project without a reCAPTCHA secret sends anyway (nil: off).
    case smsAppVerificationDisabled(Bool?)
    /// `sms.recaptcha.secretKey`: the reCAPTCHA secret (nil or empty: none); stored sealed, never answered.
    case smsRecaptchaSecretKey(String?)
    /// `sms.recaptcha.verifyUrl`: the siteverify endpoint (nil or empty: Google's); https (http to a loopback host
    /// under `--dev`).
    case smsRecaptchaVerifyUrl(String?)
    /// `sms.recaptcha.minScore`: the lowest score accepted, 0…1 (nil: 0.5).
    case smsRecaptchaMinScore(Double?)

    /// The admin API's update-mask path of the leaf this change sets (the audit entry's detail lists them).
    public var path: String {
        switch self {
        case .passwordSignIn: "signIn.email.enabled"
        case .emailLinkSignIn: "signIn.email.passwordRequired"
        case .anonymousSignIn: "signIn.anonymous.enabled"
        case .allowDuplicateEmails: "signIn.allowDuplicateEmails"
        case .authorizedDomains: "authorizedDomains"
        case .emailEnumerationProtection: "emailPrivacyConfig.enableImprovedEmailPrivacy"
        case .userSignupDisabled: "client.permissions.disabledUserSignup"
        case .userDeletionDisabled: "client.permissions.disabledUserDeletion"
        case .emailAppName: "notification.sendEmail.appName"
        case .emailCallbackURI: "notification.sendEmail.callbackUri"
        case .emailTemplate(let kind, _): "notification.sendEmail.\(kind.configField)"
        case .multiFactorState: "mfa.state"
        case .multiFactorEnabledProviders: "mfa.enabledProviders"
        case .multiFactorProviderConfigs: "mfa.providerConfigs"
        case .passkeysEnabled: "passkeys.enabled"
        case .passkeyRpId: "passkeys.rpId"
        case .passkeyAllowedOrigins: "passkeys.allowedOrigins"
        case .passkeyUserVerification: "passkeys.userVerification"
        case .blockingFunctionTrigger(let event, _): "blockingFunctions.triggers.\(event.rawValue)"
        case .blockingFunctionsForwardIdToken: "blockingFunctions.forwardInboundCredentials.idToken"
        case .blockingFunctionsForwardAccessToken: "blockingFunctions.forwardInboundCredentials.accessToken"
        case .blockingFunctionsForwardRefreshToken: "blockingFunctions.forwardInboundCredentials.refreshToken"
        case .phoneSignIn: "signIn.phoneNumber.enabled"
        case .testPhoneNumbers: "signIn.phoneNumber.testPhoneNumbers"
        case .smsRegionConfig: "smsRegionConfig"
        case .smsDailyBudget: "sms.dailyBudget"
        case .smsPerNumberPerHour: "sms.perNumberPerHour"
        case .smsPerAddressPerHour: "sms.perAddressPerHour"
        case .smsAppVerificationDisabled: "sms.appVerificationDisabled"
        case .smsRecaptchaSecretKey: "sms.recaptcha.secretKey"
        case .smsRecaptchaVerifyUrl: "sms.recaptcha.verifyUrl"
        case .smsRecaptchaMinScore: "sms.recaptcha.minScore"
        }
    }

    /// The whole second-factor setting (the admin API's `updateMask=mfa`): the project's state and TOTP's, with
    /// `adjacentIntervals` 30-second steps accepted either side of the current one (0…10). `phone`: whether SMS
    /// stays a second factor (`PHONE_SMS`; pass the project's ``ProjectConfig/isPhoneMFAEnabled`` to keep it as it
    /// is) — the project's state is ENABLED while either is on.
    public static func totp(enabled: Bool, adjacentIntervals: Int, phone: Bool = false) -> [ProjectSettingChange] {
        let state: MultiFactorState = enabled ? .enabled : .disabled
        return [
            .multiFactorState(enabled || phone ? .enabled : .disabled),
            .multiFactorEnabledProviders(phone ? [MultiFactorAuthConfig.phoneSMSProvider] : []),
            .multiFactorProviderConfigs([.init(state: state, totpProviderConfig: .init(adjacentIntervals: adjacentIntervals))]),
        ]
    }

    /// SMS as a second factor on or off (`mfa.enabledProviders` `PHONE_SMS`), TOTP left as `current` has it: the
    /// project's state is ENABLED while either is on.
    public static func phoneSecondFactor(_ on: Bool, current: ProjectConfig) -> [ProjectSettingChange] {
        [
            .multiFactorState(on || current.totpEnabled ? .enabled : .disabled),
            .multiFactorEnabledProviders(on ? [MultiFactorAuthConfig.phoneSMSProvider] : []),
        ]
    }

    /// The given parts of the passkey setting, in the order they are checked (the rp id before the origins, which
    /// must be on it); nil leaves a part as it is. `rpId` "" returns to the default; `allowedOrigins` [] removes them all.
    public static func passkeys(enabled: Bool? = nil, rpId: String? = nil, allowedOrigins: [String]? = nil,
                                userVerification: String? = nil) -> [ProjectSettingChange] {
        var changes: [ProjectSettingChange] = []
        if let enabled { changes.append(.passkeysEnabled(enabled)) }
        if let rpId { changes.append(.passkeyRpId(rpId)) }
        if let allowedOrigins { changes.append(.passkeyAllowedOrigins(allowedOrigins)) }
        if let userVerification { changes.append(.passkeyUserVerification(userVerification)) }
        return changes
    }
}
