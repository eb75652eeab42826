import Foundation
import HearthCore
import HearthWire

extension IdPConfig {
    /// Sign in with Apple's settings from an `apple.com` configuration: the services id (`clientId`), the bundle
    /// ids and `endpointBase`.
    public var appleSettings: AppleSignInSettings {
        AppleSignInSettings(servicesId: clientId.isEmpty ? nil : clientId, bundleIds: appleBundleIds ?? [], endpointBase: endpointBase)
    }

    /// Google's settings from a `google.com` configuration: the web client id, the native client ids, the
    /// hosted-domain allow-list and `endpointBase`.
    public var googleSettings: GoogleSignInSettings {
        GoogleSignInSettings(clientId: clientId, nativeClientIds: nativeClientIds ?? [], allowedHostedDomains: allowedHostedDomains ?? [],
                             endpointBase: endpointBase)
    }

    /// Whether an `apple.com` configuration has the code flow's key (team id, key id and `.p8`).
    public var hasAppleCodeFlow: Bool {
        !clientSecret.isEmpty && !(appleTeamId ?? "").isEmpty && !(appleKeyId ?? "").isEmpty
    }
}

extension ResolvedProvider {
    /// Google's settings for this sign-in: with `endpointBase`, the endpoints and issuer of the discovery document
    /// ``RelyingParty/resolve(_:entraTenantOrHostedDomain:)`` read.
    public var googleSettings: GoogleSignInSettings {
        var settings = config.googleSettings
        if settings.endpointBase != nil { settings.discovered = discovery }
        return settings
    }
}

/// One ``AppleClientSecret`` minter per key, team, services id and audience, so a minted secret is reused until
/// it nears its expiry; a changed configuration gets a new minter (the key is part of the cache key's hash).
actor AppleClientSecretCache {
    private var minters: [String: AppleClientSecret] = [:]
    private let clock: WallClock

    init(clock: WallClock) { self.clock = clock }

    /// The minter for an `apple.com` configuration's code-flow key; `.configuration` errors say what is missing
    /// or wrong (never any part of the key).
    /// `clientId` is the client the secret speaks for: the services id (web flow) unless a bundle id is given
    /// (codes the app obtained natively are issued to its bundle id).
    func minter(for config: IdPConfig, clientId: String? = nil) async throws -> AppleClientSecret {
        guard config.hasAppleCodeFlow, let teamId = config.appleTeamId, let keyId = config.appleKeyId else {
            throw RelyingPartyError(.configuration, "Sign in with Apple has no code-flow key (appleSignInConfig.codeFlowConfig: teamId, keyId, privateKey)")
        }
        let audience = config.appleSettings.clientSecretAudience
        let client = clientId ?? config.clientId
        let cacheKey = WireDigest.sha256Hex([config.clientSecret, keyId, teamId, client, audience].joined(separator: "\u{0}"))
        if let minter = minters[cacheKey] { return minter }
        let minter: AppleClientSecret
        do {
            let key = try AppleSigningKey(p8: config.clientSecret, keyId: keyId, teamId: teamId, clientId: client)
            minter = try await AppleClientSecret(key: key, audience: audience, clock: clock)
        } catch {
            throw RelyingPartyError(.configuration, "Sign in with Apple's key cannot be used: \(error)")
        }
        if minters.count >= 16 { minters.removeAll() }
        minters[cacheKey] = minter
        return minter
    }
}

extension RelyingParty {
    /// Apple's and Google's endpoints as a discovery document, and the issuer rule. Apple publishes no discovery
    /// document Hearth needs: its fixed paths (under `endpointBase` when set). Google without `endpointBase`: its
    /// fixed real endpoints (no network here); with `endpointBase`, the discovery document at
    /// `<endpointBase>/.well-known/openid-configuration` (cached as for `oidc.*`), whose issuer must be the base —
    /// so any OpenID provider can stand in for Google. For Google, `hostedDomain` is the `hd` the app asked for:
    /// the allow-list may be narrowed by it, never widened (``RelyingPartyError/Kind/hostedDomainNotAllowed``);
    /// the narrowed value is the resolved provider's `entraTenantOrHostedDomain`, checked again on the ID token.
    func resolveAppleOrGoogle(_ config: IdPConfig, hostedDomain: String?) async throws -> ResolvedProvider {
        if config.kind == .apple {
            let settings = config.appleSettings
            let document = DiscoveryDocument(issuer: settings.issuer, authorizationEndpoint: settings.authorizationEndpoint,
                                             tokenEndpoint: settings.tokenEndpoint, jwksURI: settings.jwksURI, userinfoEndpoint: nil,
                                             scopesSupported: ["name", "email"], tokenEndpointAuthMethodsSupported: ["client_secret_post"],
                                             revocationEndpoint: settings.revocationEndpoint)
            return ResolvedProvider(config: config, entraTenantOrHostedDomain: nil, discovery: document, issuerRule: .exact(settings.issuer), profileURL: nil)
        }
        let settings = config.googleSettings
        let narrowed = try settings.narrowedHostedDomain(requested: hostedDomain)
        if let base = settings.base {
            let document = try await discovery.document(at: settings.discoveryURL)
            guard Self.trimmed(document.issuer) == base else {
                throw RelyingPartyError(.discovery, "the discovery document's issuer differs from the configured endpointBase")
            }
            return ResolvedProvider(config: config, entraTenantOrHostedDomain: narrowed, discovery: document, issuerRule: .exact(document.issuer), profileURL: nil)
        }
        let document = DiscoveryDocument(issuer: settings.issuers[0], authorizationEndpoint: settings.authorizationEndpoint,
                                         tokenEndpoint: settings.tokenEndpoint, jwksURI: settings.jwksURI, userinfoEndpoint: settings.userinfoEndpoint,
                                         scopesSupported: ["openid", "email", "profile"],
                                         tokenEndpointAuthMethodsSupported: ["client_secret_post", "client_secret_basic"],
                                         revocationEndpoint: settings.revocationEndpoint)
        return ResolvedProvider(config: config, entraTenantOrHostedDomain: narrowed, discovery: document, issuerRule: .oneOf(settings.issuers), profileURL: nil)
    }

    /// The authorization URL of an Apple or Google sign-in (`form_post` and `name email` for Apple; `hd`,
    /// `access_type=offline` for Google), with the app's other custom parameters.
    func appleOrGoogleAuthorizationURL(_ provider: ResolvedProvider, redirectUri: String, state: String, nonce: String,
                                       codeChallenge: String?, scopes: [String], parameters: [(String, String)]) throws -> String {
        let config = provider.config
        var url: String
        if config.kind == .apple {
            url = try appleAuthorizationURL(config.appleSettings, redirectUri: redirectUri, state: state, nonce: nonce,
                                            scopes: scopes, codeChallenge: codeChallenge)
        } else {
            let offline = scopes.contains("offline_access")
            let prompt = parameters.first { $0.0 == "prompt" }?.1 ?? (offline ? "consent" : nil)
            let loginHint = parameters.first { $0.0 == "login_hint" }?.1
            url = try googleAuthorizationURL(provider.googleSettings, redirectUri: redirectUri, state: state, nonce: nonce,
                                             codeChallenge: codeChallenge, scopes: scopes.filter { $0 != "offline_access" },
                                             prompt: prompt, loginHint: loginHint, hostedDomain: provider.entraTenantOrHostedDomain, offlineAccess: offline)
        }
        let rest = parameters.filter { !["prompt", "login_hint", "hd"].contains($0.0) || config.kind == .apple }
        if !rest.isEmpty { url += "&" + FormEncoding.encode(rest) }
        return url
    }

    /// The code exchange of an Apple or Google sign-in (`userField`: Apple's `user` form field, first sign-in only).
    func completeAppleOrGoogle(_ provider: ResolvedProvider, code: String, redirectUri: String, codeVerifier: String?,
                               nonce: String, userField: String?) async throws -> FederatedSignIn {
        let config = provider.config
        if config.kind == .apple {
            let minter = try await appleSecrets.minter(for: config)
            return try await completeApple(config.appleSettings, code: code, redirectUri: redirectUri, codeVerifier: codeVerifier,
                                           nonce: nonce, clientSecret: minter, userField: userField)
        }
        return try await completeGoogle(provider.googleSettings, clientSecret: config.clientSecret, code: code, redirectUri: redirectUri,
                                        codeVerifier: codeVerifier, nonce: nonce, requestedHostedDomain: provider.entraTenantOrHostedDomain)
    }

    /// A natively obtained Apple or Google ID token: Apple requires the raw nonce (the token carries its SHA-256);
    /// Google checks it when the app sent one.
    func appleOrGoogleNativeSignIn(_ idToken: String, provider: ResolvedProvider, rawNonce: String?) async throws -> FederatedSignIn {
        let nonce: IDTokenNonce = rawNonce.map { .sha256OfRaw($0) } ?? .none
        if provider.config.kind == .apple {
            return try await validateAppleIDToken(idToken, settings: provider.config.appleSettings, nonce: nonce)
        }
        return try await validateGoogleIDToken(idToken, settings: provider.googleSettings, nonce: nonce,
                                               requestedHostedDomain: provider.entraTenantOrHostedDomain)
    }

    /// Revokes an Apple token with the configuration's minted client secret (account deletion). `clientId` is the
    /// client the token was issued to: the services id by default, or a bundle id.
    public func revokeApple(_ config: IdPConfig, token: String, tokenTypeHint: String = "refresh_token", clientId: String? = nil) async throws {
        let minter = try await appleSecrets.minter(for: config, clientId: clientId)
        try await revokeApple(config.appleSettings, token: token, tokenTypeHint: tokenTypeHint, clientSecret: minter)
    }

    /// `accounts:revokeToken` with an authorization code: exchanges the code as `clientId` (a bundle id for a
    /// native code, the services id with `redirectUri` for a web one), checks that the grant is
    /// `expectedSubject`'s (the signed-in user's Apple id — never someone else's), and revokes the refresh token
    /// Apple returned (or the access token when Apple returned none).
    public func revokeAppleGrant(_ config: IdPConfig, code: String, clientId: String, redirectUri: String?,
                                 expectedSubjects: Set<String>) async throws {
        let minter = try await appleSecrets.minter(for: config, clientId: clientId)
        let settings = config.appleSettings
        let grant = try await exchangeAppleCodeForRevocation(settings, code: code, redirectUri: redirectUri, clientSecret: minter)
        guard expectedSubjects.contains(grant.subject) else {
            throw RelyingPartyError(.idToken, "the authorization code belongs to another Apple account than the signed-in user's")
        }
        if let refreshToken = grant.refreshToken {
            try await revokeApple(settings, token: refreshToken, tokenTypeHint: "refresh_token", clientSecret: minter)
        } else if let accessToken = grant.accessToken {
            try await revokeApple(settings, token: accessToken, tokenTypeHint: "access_token", clientSecret: minter)
        } else {
            throw RelyingPartyError(.tokenExchange, "Apple returned no token to revoke for the authorization code")
        }
    }
}
