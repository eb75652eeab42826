import Foundation
import HearthCore
import HearthWire
import Logging

/// A provider ready for one sign-in: its configuration, endpoints (from discovery) and issuer rule.
public struct ResolvedProvider: Sendable {
    public var config: IdPConfig
    /// The Microsoft Entra tenant of the sign-in (the authority path segment), or Google's narrowed hosted domain `hd`.
    public var entraTenantOrHostedDomain: String?
    public var discovery: DiscoveryDocument
    public var issuerRule: IssuerRule
    /// Microsoft Graph `/v1.0/me` or the UserInfo endpoint.
    public var profileURL: String?
}

/// The outcome of a successful code exchange: a verified identity, its profile and the provider's tokens.
public struct FederatedSignIn: Sendable {
    public var identity: ProviderIdentity
    /// Only true when the provider owns the email's domain (or, for `oidc.*`, is trusted and says so).
    public var emailVerified: Bool
    /// The email is an Apple private-relay address (`…@privaterelay.appleid.com`, or `is_private_email`): it is
    /// verified (it delivers), but the account rules must never link to another account by it.
    public var emailIsPrivateRelay: Bool = false
    public var firstName: String?
    public var lastName: String?
    /// The provider's profile (Graph `/me`, UserInfo, or the ID token's claims).
    public var rawUserInfo: [String: JSONValue]
    public var oauthAccessToken: String
    public var oauthIdToken: String?
    public var oauthExpiresIn: Int?
    public var oauthRefreshToken: String?
    /// The scopes the provider granted (`scope` of its token response), when it said.
    public var grantedScope: String?
    /// For an `oidc.*` provider, the claims of its verified ID token: what blocking functions get as
    /// `sign_in_attributes` (Identity Platform sends them for OIDC providers only). nil for the others.
    public var signInAttributes: [String: JSONValue]?
    /// A natively obtained ID token's identity for replay detection (nil for the code flow, whose code and state
    /// are single-use already).
    public var tokenUse: TokenUse?

    /// One use of a native ID token: a hash of its issuer, subject and nonce (or token id), and when it can be forgotten.
    public struct TokenUse: Sendable, Equatable {
        public var keyHash: String
        public var expiresAt: Date
    }

    public init(identity: ProviderIdentity, emailVerified: Bool, firstName: String? = nil, lastName: String? = nil,
                rawUserInfo: [String: JSONValue] = [:], oauthAccessToken: String = "", oauthIdToken: String? = nil,
                oauthExpiresIn: Int? = nil, oauthRefreshToken: String? = nil) {
        self.identity = identity
        self.emailVerified = emailVerified
        self.firstName = firstName
        self.lastName = lastName
        self.rawUserInfo = rawUserInfo
        self.oauthAccessToken = oauthAccessToken
        self.oauthIdToken = oauthIdToken
        self.oauthExpiresIn = oauthExpiresIn
        self.oauthRefreshToken = oauthRefreshToken
    }
}

/// The OAuth 2.0 / OpenID Connect relying party: builds authorization requests (state, nonce, PKCE), exchanges
/// codes with the client secret, validates ID tokens and fetches profiles. One code path for every provider;
/// endpoints come from configuration and discovery, so dev and test providers plug in through the same fields.
public struct RelyingParty: Sendable {
    /// Tunables.
    public struct Configuration: Sendable {
        /// The least time between two JWKS fetches triggered by unknown `kid`s.
        public var minimumJWKSRefetchInterval: TimeInterval

        public init(minimumJWKSRefetchInterval: TimeInterval = 5) {
            self.minimumJWKSRefetchInterval = minimumJWKSRefetchInterval
        }
    }

    /// Parameters an app may not set: the relying party owns them.
    public static let reservedParameters: Set<String> = ["client_id", "response_type", "redirect_uri", "state", "scope", "response_mode"]

    let http: UpstreamHTTP
    let clock: WallClock
    let discovery: DiscoveryCache
    let validator: IDTokenValidator
    let logger: Logger
    /// Apple client-secret minters, one per code-flow key.
    let appleSecrets: AppleClientSecretCache

    public init(http: UpstreamHTTP = UpstreamHTTP(), clock: WallClock = .system, configuration: Configuration = Configuration(),
                logger: Logger = Logger(label: "hearth.oidc")) {
        self.http = http
        self.clock = clock
        self.discovery = DiscoveryCache(http: http, clock: clock)
        self.validator = IDTokenValidator(
            jwks: JWKSCache(http: http, clock: clock, minimumRefetchInterval: configuration.minimumJWKSRefetchInterval), clock: clock)
        self.logger = logger
        self.appleSecrets = AppleClientSecretCache(clock: clock)
    }

    /// A PKCE verifier and its S256 challenge (RFC 7636).
    public static func pkcePair() -> (verifier: String, challenge: String) {
        let verifier = RandomID.token(byteCount: 32)
        let challenge = WireDigest.pkceChallenge(verifier: verifier)
        return (verifier, challenge)
    }

    /// Endpoints and issuer rule for `config`. `entraTenantOrHostedDomain` is what the app asked for: for Microsoft
    /// the Entra tenant, for Google the hosted domain `hd`.
    public func resolve(_ config: IdPConfig, entraTenantOrHostedDomain: String?) async throws -> ResolvedProvider {
        switch config.kind {
        case .apple, .google:
            return try await resolveAppleOrGoogle(config, hostedDomain: entraTenantOrHostedDomain)
        case .microsoft:
            let base = Self.trimmed(config.endpointBase ?? ProviderRules.microsoftAuthority)
            var entraTenant = try ProviderRules.entraTenant(entraTenantOrHostedDomain)
            // The administrator's allow-list: the app's Entra tenant may narrow it, never widen it.
            let allowList = await entraTenantAllowList(config, base: base)
            if let allowList { entraTenant = try await narrowedAuthority(entraTenant, list: allowList, base: base) }
            let document = try await discovery.document(at: "\(base)/\(entraTenant)/v2.0/.well-known/openid-configuration")
            guard document.issuer.hasPrefix(base + "/") else {
                throw RelyingPartyError(.discovery, "the Microsoft discovery document names a foreign issuer")
            }
            var rule: IssuerRule = document.issuer.contains("{tenantid}")
                ? .microsoftTemplate(document.issuer, excludedEntraTenant: entraTenant == "organizations" ? ProviderRules.entraConsumerTenant : nil)
                : .exact(document.issuer)
            if let allowList { rule = .entraTenantAllowList(rule, allowList) }
            let graph = Self.trimmed(config.graphBase ?? ProviderRules.microsoftGraph)
            return ResolvedProvider(config: config, entraTenantOrHostedDomain: entraTenant, discovery: document, issuerRule: rule, profileURL: "\(graph)/v1.0/me")
        case .yahoo, .oidc:
            let issuer = Self.trimmed(config.kind == .yahoo ? (config.endpointBase ?? ProviderRules.yahooBase) : (config.issuer ?? ""))
            guard issuer.hasPrefix("https://") || issuer.hasPrefix("http://") else {
                throw RelyingPartyError(.configuration, "the provider has no issuer URL")
            }
            let document = try await discovery.document(at: "\(issuer)/.well-known/openid-configuration")
            guard Self.trimmed(document.issuer) == issuer else {
                throw RelyingPartyError(.discovery, "the discovery document's issuer differs from the configured issuer")
            }
            return ResolvedProvider(config: config, entraTenantOrHostedDomain: nil, discovery: document, issuerRule: .exact(document.issuer),
                                    profileURL: document.userinfoEndpoint)
        }
    }

    /// The scopes requested: `openid email profile` plus the app's (and `User.Read` for Microsoft Graph), and
    /// `offline_access` when `offlineAccess` (the token vault keeps the refresh token it brings).
    public static func scopes(for kind: IdPKind, requested: [String], offlineAccess: Bool = false) -> [String] {
        // Apple knows only `name` and `email` (its ID token comes without `openid`).
        var scopes = kind == .apple ? ["name", "email"] : ["openid", "email", "profile"]
        if kind == .apple { return scopes }
        if kind == .microsoft { scopes.append("User.Read") }
        if offlineAccess { scopes.append("offline_access") }
        for scope in requested.flatMap({ $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) })
        where !scope.isEmpty && !scopes.contains(scope) {
            scopes.append(scope)
        }
        return scopes
    }

    /// The provider's authorization URL for one sign-in.
    public func authorizationURL(_ provider: ResolvedProvider, redirectUri: String, state: String, nonce: String,
                                 codeChallenge: String?, scopes: [String], parameters: [(String, String)]) -> String {
        if provider.config.kind == .apple || provider.config.kind == .google,
           let url = try? appleOrGoogleAuthorizationURL(provider, redirectUri: redirectUri, state: state, nonce: nonce,
                                                        codeChallenge: codeChallenge, scopes: scopes, parameters: parameters) {
            return url
        }
        var fields: [(String, String)] = [
            ("client_id", provider.config.clientId), ("response_type", "code"), ("redirect_uri", redirectUri),
            ("response_mode", "query"), ("scope", scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
        ]
        if let codeChallenge {
            fields.append(("code_challenge", codeChallenge))
            fields.append(("code_challenge_method", "S256"))
        }
        fields.append(contentsOf: parameters)
        let endpoint = provider.discovery.authorizationEndpoint
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// Exchanges `code` at the token endpoint (client secret, PKCE verifier), validates the ID token and fetches
    /// the profile. `userField` is Apple's `user` form field (the name, on the first authorization only).
    public func complete(_ provider: ResolvedProvider, code: String, redirectUri: String, codeVerifier: String?, nonce: String,
                         userField: String? = nil) async throws -> FederatedSignIn {
        if provider.config.kind == .apple || provider.config.kind == .google {
            return try await completeAppleOrGoogle(provider, code: code, redirectUri: redirectUri, codeVerifier: codeVerifier,
                                                   nonce: nonce, userField: userField)
        }
        var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectUri)]
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await postToTokenEndpoint(provider, fields)
        } catch {
            throw RelyingPartyError(.tokenExchange, "the provider's token endpoint could not be reached")
        }
        let body = reply.decode(TokenResponse.self) ?? TokenResponse()
        guard reply.status == 200 else {
            let fields = (try? JSONDecoder().decode(JSONValue.self, from: reply.body))?.objectValue ?? [:]
            let info = ProviderErrorInfo.parse(providerId: provider.config.providerId, fields: fields)
            let named = ([info.error ?? "HTTP \(reply.status)"] + info.errorCodes).joined(separator: ", ")
            throw RelyingPartyError(.tokenExchange, "the provider refused the authorization code (\(named))", providerError: info)
        }
        guard let accessToken = body.accessToken, !accessToken.isEmpty else {
            throw RelyingPartyError(.tokenExchange, "the provider's token response has no access token")
        }
        guard let idToken = body.idToken else {
            throw RelyingPartyError(.tokenExchange, "the provider's token response has no ID token")
        }
        let claims = try await validateIDToken(idToken, provider: provider, audiences: [provider.config.clientId], nonce: .exact(nonce))
        let profile = try await fetchProfile(provider, accessToken: accessToken, claims: claims)
        var signIn = try Self.identity(provider.config, claims: claims, profile: profile)
        signIn.oauthAccessToken = accessToken
        signIn.oauthIdToken = idToken
        signIn.oauthExpiresIn = body.expiresIn
        signIn.oauthRefreshToken = body.refreshToken
        signIn.grantedScope = body.scope
        return signIn
    }

    private func fetchProfile(_ provider: ResolvedProvider, accessToken: String, claims: [String: JSONValue]) async throws -> [String: JSONValue]? {
        guard let url = provider.profileURL else { return nil }
        var reply: UpstreamHTTP.Reply?
        for attempt in 0..<2 {
            reply = try? await http.get(url, bearer: accessToken)
            if let status = reply?.status, status != 429, status < 500 { break }
            if attempt == 0 { try? await Task.sleep(for: .milliseconds(300)) }
        }
        guard let reply, reply.status == 200,
              case .object(let profile)? = try? JSONDecoder().decode(JSONValue.self, from: reply.body)
        else {
            logger.warning("profile endpoint unavailable; using the ID token's claims", metadata: ["provider": "\(provider.config.providerId)"])
            return nil
        }
        switch provider.config.kind {
        case .microsoft:
            if let id = profile["id"]?.stringValue, let oid = claims["oid"]?.stringValue,
               ProviderRules.microsoftFederatedId(oid: id) != ProviderRules.microsoftFederatedId(oid: oid) {
                throw RelyingPartyError(.profile, "the Graph profile belongs to another account than the ID token")
            }
        case .yahoo, .oidc, .apple, .google:
            guard profile["sub"]?.stringValue == claims["sub"]?.stringValue else {
                throw RelyingPartyError(.profile, "the UserInfo subject differs from the ID token's subject")
            }
        }
        return profile
    }

    static func identity(_ config: IdPConfig, claims: [String: JSONValue], profile: [String: JSONValue]?) throws -> FederatedSignIn {
        let merged = profile ?? claims
        func text(_ keys: String...) -> String? {
            for key in keys {
                if let value = merged[key]?.stringValue, !value.isEmpty { return value }
                if let value = claims[key]?.stringValue, !value.isEmpty { return value }
            }
            return nil
        }
        switch config.kind {
        case .microsoft:
            guard let oid = claims["oid"]?.stringValue, !oid.isEmpty else { throw RelyingPartyError.idToken("the Microsoft ID token has no oid") }
            let tokenEmail = claims["email"]?.stringValue.flatMap(EmailAddress.normalize)
            let email = tokenEmail ?? profile?["mail"]?.stringValue.flatMap(EmailAddress.normalize)
            let identity = ProviderIdentity(providerId: config.providerId, federatedId: ProviderRules.microsoftFederatedId(oid: oid),
                                            email: email, displayName: text("displayName", "name"), photoUrl: nil)
            let verified = email.map {
                ProviderRules.microsoftEmailVerified(email: $0, claims: claims, emailFromToken: tokenEmail == $0)
            } ?? false
            return FederatedSignIn(identity: identity, emailVerified: verified,
                                   firstName: text("givenName", "given_name"), lastName: text("surname", "family_name"),
                                   rawUserInfo: merged, oauthAccessToken: "")
        case .yahoo, .oidc, .apple, .google:
            guard let sub = claims["sub"]?.stringValue else { throw RelyingPartyError.idToken("the ID token has no subject") }
            let email = text("email").flatMap(EmailAddress.normalize)
            let claimedVerified = merged["email_verified"] == .bool(true) || claims["email_verified"] == .bool(true)
            let verified = email.map { address in
                config.kind == .yahoo ? claimedVerified && ProviderRules.yahooOwnsEmail(address)
                    : claimedVerified && config.trustEmailVerified
            } ?? false
            let identity = ProviderIdentity(providerId: config.providerId, federatedId: sub, email: email,
                                            displayName: text("name"), photoUrl: text("picture"))
            var signIn = FederatedSignIn(identity: identity, emailVerified: verified, firstName: text("given_name"),
                                         lastName: text("family_name"), rawUserInfo: merged, oauthAccessToken: "")
            if config.kind == .oidc { signIn.signInAttributes = claims }
            return signIn
        }
    }

    static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

/// An OAuth 2.0 token response (RFC 6749 §5.1) or error (§5.2), with Microsoft's `error_codes`. Fields of an
/// unexpected type read as absent; `expires_in` may be a number or a numeric string.
struct TokenResponse: Decodable {
    var accessToken: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: Int?
    var scope: String?
    var error: String?
    var errorCodes: [Int]?

    init() {}

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", idToken = "id_token", refreshToken = "refresh_token", expiresIn = "expires_in"
        case scope, error, errorCodes = "error_codes"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try? container.decodeIfPresent(String.self, forKey: .accessToken)
        idToken = try? container.decodeIfPresent(String.self, forKey: .idToken)
        refreshToken = try? container.decodeIfPresent(String.self, forKey: .refreshToken)
        expiresIn = (try? container.decodeIfPresent(Int.self, forKey: .expiresIn))
            ?? (try? container.decodeIfPresent(String.self, forKey: .expiresIn)).flatMap { $0.flatMap(Int.init) }
        scope = try? container.decodeIfPresent(String.self, forKey: .scope)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        errorCodes = try? container.decodeIfPresent([Int].self, forKey: .errorCodes)
    }
}
