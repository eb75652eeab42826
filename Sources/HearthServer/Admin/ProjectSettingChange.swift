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
    /// `mfa.enabledProviders`: Firebase's SMS providers. Hearth has none: only the empty list (which clears it) is accepted.
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
        }
    }

    /// The whole second-factor setting (the admin API's `updateMask=mfa`): the project's state and TOTP's, with
    /// `adjacentIntervals` 30-second steps accepted either side of the current one (0…10).
    public static func totp(enabled: Bool, adjacentIntervals: Int) -> [ProjectSettingChange] {
        let state: MultiFactorState = enabled ? .enabled : .disabled
        return [
            .multiFactorState(state),
            .multiFactorEnabledProviders([]),
            .multiFactorProviderConfigs([.init(state: state, totpProviderConfig: .init(adjacentIntervals: adjacentIntervals))]),
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
