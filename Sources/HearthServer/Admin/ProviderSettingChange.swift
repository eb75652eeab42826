import Foundation
import HearthCore
import HearthStore
import HearthWire

/// One change of a configured sign-in provider's settings, typed: what the admin API's `PATCH
/// …/defaultSupportedIdpConfigs/{idp}` and `…/oauthIdpConfigs/{oidc.x}` update masks name field by field, what the
/// console's provider forms and switches set. Applied in their order by ``AdminService/updateDefaultIdpConfig(_:_:by:, in: scope)``
/// and ``AdminService/updateOAuthIdpConfig(_:_:by:, in: scope)``, which check each value (the same checks and messages whoever
/// asks) and audit the list as one `….update` whose detail is the changes' paths.
public enum ProviderSettingChange: Sendable, Equatable {
    /// `enabled`: the provider signs users in.
    case enabled(Bool)
    /// `clientId`: required (`MISSING_OAUTH_CLIENT_ID`), except for `apple.com` without a code-flow key (native only).
    case clientId(String?)
    /// `clientSecret` (write-only): required (`MISSING_OAUTH_CLIENT_SECRET`); `apple.com` has none.
    case clientSecret(String?)
    /// `issuer` (OpenID providers): required (`MISSING_ISSUER`), an http(s) URL; moving it needs the secret again.
    case issuer(String?)
    /// `displayName` (OpenID providers).
    case displayName(String?)
    /// `responseType` or one of its fields (OpenID providers): Hearth uses the code flow, so `code: false` is refused.
    case responseType(code: Bool?, field: ResponseTypeField = .whole)
    /// `endpointBase`: the provider's base URL (a dev IdP); moving it needs the secret again.
    case endpointBase(String?)
    /// `graphBase` (`microsoft.com`): Microsoft Graph's base URL; moving it needs the secret again.
    case graphBase(String?)
    /// `allowedTenants` (`microsoft.com`): the Entra tenants whose users may sign in (nil or empty: any).
    case allowedEntraTenants([String]?)
    /// `allowedHostedDomains` (`google.com`): the Google Workspace domains whose users may sign in (nil or empty: any).
    case allowedHostedDomains([String]?)
    /// `tokenVault`: the provider's tokens are kept for the app (off: the kept ones are deleted).
    case tokenVault(Bool)
    /// `nativeClientIds`: the client ids of the app's native builds (at most 20; empty: none).
    case nativeClientIds([String])
    /// `appleSignInConfig` as a whole (`apple.com`): sets the parts it holds (at least one).
    case appleSignInConfig(DefaultSupportedIdpConfig.AppleSignInConfig?)
    /// `appleSignInConfig.bundleIds` (`apple.com`): the native apps' bundle ids (nil: none).
    case appleBundleIds([String]?)
    /// `appleSignInConfig.codeFlowConfig` (`apple.com`): team id, key id and `.p8` for the web flow (nil: removed).
    case appleCodeFlow(DefaultSupportedIdpConfig.CodeFlowConfig?)

    /// The fields of `responseType` an update mask may name.
    public enum ResponseTypeField: String, Sendable, Equatable {
        case whole = "responseType", code = "responseType.code", idToken = "responseType.idToken"
    }

    /// The admin API's update-mask path of the field this change sets (the audit entry's detail lists them).
    public var path: String {
        switch self {
        case .enabled: "enabled"
        case .clientId: "clientId"
        case .clientSecret: "clientSecret"
        case .issuer: "issuer"
        case .displayName: "displayName"
        case .responseType(_, let field): field.rawValue
        case .endpointBase: "endpointBase"
        case .graphBase: "graphBase"
        case .allowedEntraTenants: "allowedTenants"
        case .allowedHostedDomains: "allowedHostedDomains"
        case .tokenVault: "tokenVault"
        case .nativeClientIds: "nativeClientIds"
        case .appleSignInConfig: "appleSignInConfig"
        case .appleBundleIds: "appleSignInConfig.bundleIds"
        case .appleCodeFlow: "appleSignInConfig.codeFlowConfig"
        }
    }

    /// The paths a built-in provider (`defaultSupportedIdpConfigs`) can change.
    static let builtInPaths: Set<String> = [
        "enabled", "clientId", "clientSecret", "endpointBase", "graphBase", "allowedTenants", "tokenVault", "nativeClientIds",
        "appleSignInConfig", "appleSignInConfig.bundleIds", "appleSignInConfig.codeFlowConfig", "allowedHostedDomains",
    ]

    /// The paths an OpenID provider (`oauthIdpConfigs`) can change.
    static let openIDPaths: Set<String> = [
        "enabled", "clientId", "clientSecret", "issuer", "displayName", "responseType", "responseType.code", "responseType.idToken",
        "tokenVault", "nativeClientIds",
    ]

    /// `INVALID_UPDATE_MASK` for a path outside `allowed` (the admin API's message).
    static func check(_ paths: [String], allowed: Set<String>) throws {
        if let unknown = paths.first(where: { !allowed.contains($0) }) {
            throw HearthAPIError(.invalidUpdateMask, "'\(unknown)' cannot be updated; the fields are \(allowed.sorted().joined(separator: ", "))")
        }
    }
}
