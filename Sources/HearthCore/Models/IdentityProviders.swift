import Foundation

/// Which relying-party rules an upstream provider follows.
public enum IdPKind: String, Codable, Sendable, CaseIterable {
    /// Microsoft identity platform v2.0 (`microsoft.com`).
    case microsoft
    /// Yahoo OpenID Connect (`yahoo.com`).
    case yahoo
    /// Any OpenID Connect issuer (`oidc.<name>`).
    case oidc
    /// Sign in with Apple (`apple.com`).
    case apple
    /// Google (`google.com`).
    case google
}

/// An upstream identity provider enabled for the project: Firebase's `defaultSupportedIdpConfigs`
/// (`microsoft.com`, `yahoo.com`, `apple.com`, `google.com`) and `oauthIdpConfigs` (`oidc.*`) shapes, plus the endpoint overrides that
/// let the dev IdPs and test providers plug in.
public struct IdPConfig: Codable, Sendable, Equatable, CustomStringConvertible {
    public var providerId: String
    public var kind: IdPKind
    public var enabled: Bool
    /// The OAuth client id; for `apple.com` the services id (web flow).
    public var clientId: String
    /// Never returned by a non-admin response, never logged (`description` masks it). For `apple.com` this holds
    /// the `.p8` private key (PEM) of `appleSignInConfig.codeFlowConfig`, so it is sealed at rest, masked and
    /// write-only exactly as a client secret; Hearth mints Apple's client secret from it.
    public var clientSecret: String
    /// The issuer of an `oidc.*` provider (discovery at `<issuer>/.well-known/openid-configuration`).
    public var issuer: String?
    /// Overrides the provider's base URL: Microsoft's authority host (default `https://login.microsoftonline.com`),
    /// Yahoo's host (default `https://api.login.yahoo.com`).
    public var endpointBase: String?
    /// Overrides Microsoft Graph's base URL (default `https://graph.microsoft.com`).
    public var graphBase: String?
    /// Send PKCE (S256) in authorization requests.
    public var pkce: Bool
    /// For `oidc.*`: trust the provider's `email_verified` claim.
    public var trustEmailVerified: Bool
    public var displayName: String?
    /// Microsoft only: the Entra tenants whose accounts may sign in (tenant GUIDs, verified domains, `consumers`,
    /// `organizations`), checked on the validated token's `tid` on every path. Nil or empty: any tenant. Stored
    /// (and named on the admin API) as `allowedTenants`.
    public var allowedEntraTenants: [String]?
    /// Hearth extension: keep this provider's refresh token in the provider token vault (nil: on; the vault also
    /// needs vault keys in the server's configuration). Turning it off deletes the tokens kept.
    public var tokenVault: Bool? = nil
    /// Hearth extension: client IDs of the apps' own registrations at the provider (MSAL, Yahoo's SDK) whose ID
    /// tokens `signInWithIdp` accepts besides `clientId`'s. Empty or nil: only `clientId`.
    public var nativeClientIds: [String]? = nil
    /// `apple.com` only: the bundle ids of the apps whose native ID tokens are accepted (`appleSignInConfig.bundleIds`).
    public var appleBundleIds: [String]? = nil
    /// `apple.com` only: the Apple developer team id (`appleSignInConfig.codeFlowConfig.teamId`).
    public var appleTeamId: String? = nil
    /// `apple.com` only: the id of the `.p8` key (`appleSignInConfig.codeFlowConfig.keyId`).
    public var appleKeyId: String? = nil
    /// `google.com` only (Hearth extension): the Google Workspace domains whose accounts may sign in, checked on
    /// the `hd` claim on every path (a list of domains; `*` is refused — nil or empty allows any account).
    public var allowedHostedDomains: [String]? = nil

    /// Whether the token vault keeps this provider's tokens (when the server has vault keys).
    public var keepsProviderTokens: Bool { tokenVault ?? true }

    /// The keys of the stored JSON (`idp_configs.config_json`). Every stored property must be listed here: one left out
    /// is silently not saved. `allowedEntraTenants` keeps its stored name, `allowedTenants`.
    enum CodingKeys: String, CodingKey {
        case providerId, kind, enabled, clientId, clientSecret, issuer, endpointBase, graphBase, pkce, trustEmailVerified,
             displayName, allowedEntraTenants = "allowedTenants", tokenVault, nativeClientIds, appleBundleIds, appleTeamId,
             appleKeyId, allowedHostedDomains
    }

    public init(providerId: String, kind: IdPKind, enabled: Bool = true, clientId: String, clientSecret: String,
                issuer: String? = nil, endpointBase: String? = nil, graphBase: String? = nil, pkce: Bool? = nil,
                trustEmailVerified: Bool = false, displayName: String? = nil, allowedEntraTenants: [String]? = nil) {
        self.providerId = providerId
        self.kind = kind
        self.enabled = enabled
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.endpointBase = endpointBase
        self.graphBase = graphBase
        // Yahoo does not advertise PKCE and Apple does not document it; Microsoft, Google and most OIDC providers support it.
        self.pkce = pkce ?? (kind != .yahoo && kind != .apple)
        self.trustEmailVerified = trustEmailVerified
        self.displayName = displayName
        self.allowedEntraTenants = allowedEntraTenants
    }

    /// The provider kind a provider id implies, or nil for ids Hearth does not federate.
    public static func kind(forProviderId providerId: String) -> IdPKind? {
        switch providerId {
        case "microsoft.com": .microsoft
        case "yahoo.com": .yahoo
        case "apple.com": .apple
        case "google.com": .google
        default:
            providerId.hasPrefix("oidc.") && providerId.count > 5
                && providerId.dropFirst(5).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) ? .oidc : nil
        }
    }

    /// A client id as every entry point accepts it (the admin API, the console, the CLI): trimmed, 1 to 256
    /// characters, no space or control character inside. Nil when it is not one; ``clientIdProblem`` says why.
    public static func checkedClientId(_ raw: String) -> String? {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 256,
              !trimmed.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) || CharacterSet.controlCharacters.contains($0) })
        else { return nil }
        return trimmed
    }

    /// Why a client id is refused.
    public static let clientIdProblem = "a client ID is 1 to 256 characters with no spaces (copy the Application (client) ID exactly)"

    /// A list typed by a person (tenants, native client ids): entries separated by commas or new lines, each trimmed
    /// — never split on spaces inside an entry, so a mistyped entry is reported whole.
    public static func listEntries(_ text: String) -> [String] {
        // `isNewline`: a textarea posts CRLF, and "\r\n" is one Character, equal to neither "\r" nor "\n".
        text.split(whereSeparator: { $0 == "," || $0.isNewline })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A copy safe to show: the secret replaced by a mask.
    public var redacted: IdPConfig {
        var copy = self
        copy.clientSecret = clientSecret.isEmpty ? "" : "********"
        return copy
    }

    public var description: String {
        "IdPConfig(\(providerId), \(kind.rawValue), enabled: \(enabled), clientId: \(clientId), clientSecret: ********)"
    }
}

/// An app allowed to receive sign-in results: an Apple app (bundle id + Firebase app id or OAuth client id,
/// which give its custom URL scheme) or a desktop/CLI app (loopback redirect, RFC 8252).
public struct AppRegistration: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case apple, desktop }

    public var id: String
    public var kind: Kind
    public var bundleId: String?
    /// Firebase app id (`1:1234:ios:abcd`), giving the scheme `app-1-1234-ios-abcd`.
    public var appId: String?
    /// OAuth client id (`1234-abc.apps.googleusercontent.com`), giving the reversed scheme.
    public var clientId: String?
    public var name: String?
    /// Apple apps: the developer team id (10 characters), which with the bundle id names the app in
    /// `/.well-known/apple-app-site-association` (`webcredentials`, for passkeys).
    public var teamId: String?

    public init(id: String, kind: Kind, bundleId: String? = nil, appId: String? = nil, clientId: String? = nil, name: String? = nil,
                teamId: String? = nil) {
        self.id = id
        self.teamId = teamId
        self.kind = kind
        self.bundleId = bundleId
        self.appId = appId
        self.clientId = clientId
        self.name = name
    }
}

/// Where the sign-in result goes after the provider's callback.
public enum RedirectTarget: Sendable, Equatable {
    /// `<scheme>://firebaseauth/link?deep_link_id=…` (Firebase Apple SDK).
    case appleScheme(String)
    /// `http://127.0.0.1:<port>/…` or `http://[::1]:<port>/…` (desktop and CLI apps).
    case loopback(String)
    /// A web page on an authorized domain, signed in by the Firebase JS SDK (popup or redirect).
    case web(WebAppTarget)

    public var kind: String {
        switch self {
        case .appleScheme: "apple"
        case .loopback: "loopback"
        case .web: "web"
        }
    }

    public var value: String {
        switch self {
        case .appleScheme(let scheme): scheme
        case .loopback(let url): url
        case .web(let target): target.encoded
        }
    }

    public init?(kind: String, value: String) {
        switch kind {
        case "apple": self = .appleScheme(value)
        case "loopback": self = .loopback(value)
        case "web":
            guard let target = WebAppTarget(encoded: value) else { return nil }
            self = .web(target)
        default: return nil
        }
    }

    /// Whether `url` is an RFC 8252 loopback redirect: `http`, host `127.0.0.1` or `[::1]`, an explicit port,
    /// no user info and no fragment.
    public static func isLoopback(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), components.scheme == "http",
              let host = components.host, host == "127.0.0.1" || host == "::1" || host == "[::1]",
              let port = components.port, (1...65535).contains(port),
              components.user == nil, components.password == nil, components.fragment == nil
        else { return false }
        return true
    }
}

/// Where a web sign-in's result goes: the app's page (`redirectUrl`, on an authorized domain) and the JS SDK's app
/// (`apiKey`, `appName`), whose helper iframe takes the event.
public struct WebAppTarget: Sendable, Equatable, Codable {
    /// The app's page, exactly as the SDK sent it (a redirect returns there).
    public var redirectUrl: String
    public var apiKey: String
    public var appName: String

    public init(redirectUrl: String, apiKey: String, appName: String) {
        self.redirectUrl = redirectUrl
        self.apiKey = apiKey
        self.appName = appName
    }

    /// The app page's origin (`scheme://host[:port]`), to which alone the event may be delivered.
    public var origin: String? { Self.origin(of: redirectUrl) }

    /// `scheme://host[:port]` of an http(s) URL (default ports left out, host lower-cased), or nil.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            return "\(scheme)://\(shownHost):\(port)"
        }
        return "\(scheme)://\(shownHost)"
    }

    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    init?(encoded: String) {
        guard let value = try? JSONDecoder().decode(WebAppTarget.self, from: Data(encoded.utf8)) else { return nil }
        self = value
    }
}

/// One sign-in in progress: created by the auth handler, looked up by `state` at the callback, consumed once by
/// `signInWithIdp`. Valid for at most ten minutes.
public struct AuthorizationSession: Sendable, Equatable {
    /// Random, sent to the provider as `state`: the key of the session.
    public var state: String
    public var providerId: String
    public var nonce: String
    /// The PKCE verifier (nil when the provider does not use PKCE).
    public var codeVerifier: String?
    /// Lower-case hex SHA-256 of the client's raw session id.
    public var sessionIdHash: String
    public var eventId: String
    public var authType: String
    /// The Microsoft Entra tenant (`common`, `organizations`, `consumers`, a GUID or a domain), or Google's narrowed
    /// hosted domain (the `tenant` column).
    public var entraTenantOrHostedDomain: String?
    public var redirect: RedirectTarget
    /// The `redirect_uri` sent to the provider (this server's handler URL).
    public var redirectUri: String
    public var scopes: [String]
    public var createdAt: Date
    public var expiresAt: Date
    public var callbackAt: Date?
    public var consumedAt: Date?
    /// The Identity Platform tenant the sign-in is for (nil: the project's own users); written by the store, from
    /// its binding, and checked again when the session is consumed.
    public var tenantId: String?

    public init(state: String, providerId: String, nonce: String, codeVerifier: String?, sessionIdHash: String, eventId: String,
                authType: String, entraTenantOrHostedDomain: String?, redirect: RedirectTarget, redirectUri: String, scopes: [String],
                createdAt: Date, expiresAt: Date, callbackAt: Date? = nil, consumedAt: Date? = nil) {
        self.state = state
        self.providerId = providerId
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.sessionIdHash = sessionIdHash
        self.eventId = eventId
        self.authType = authType
        self.entraTenantOrHostedDomain = entraTenantOrHostedDomain
        self.redirect = redirect
        self.redirectUri = redirectUri
        self.scopes = scopes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.callbackAt = callbackAt
        self.consumedAt = consumedAt
    }
}

/// What consuming an authorization session did.
public enum SessionConsumeOutcome: Sendable, Equatable {
    case consumed(AuthorizationSession)
    case unknown
    case expired
    case alreadyUsed
    /// The session id did not match; the session is burned.
    case sessionMismatch
}

/// A verified provider identity that could not be signed in yet (another account has its email): the
/// `pendingToken` of `needConfirmation`, accepted once within its lifetime to link it to a signed-in user.
public struct PendingCredential: Sendable, Equatable {
    public var tokenHash: String
    public var identity: ProviderIdentity
    public var emailVerified: Bool
    public var rawUserInfo: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The tenant whose provider verified the identity (nil: the project's); written by the store, from its binding.
    public var tenantId: String?

    public init(tokenHash: String, identity: ProviderIdentity, emailVerified: Bool, rawUserInfo: String?, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.identity = identity
        self.emailVerified = emailVerified
        self.rawUserInfo = rawUserInfo
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
