import Foundation
import HearthCore
import HearthWire

/// The code flow of Sign in with Apple and Google, beside the generic ``RelyingParty/complete(_:code:redirectUri:codeVerifier:nonce:)``:
/// Apple answers with `response_mode=form_post`, authenticates clients with a minted ES256 secret, sends the
/// name in a `user` field rather than in its ID token, and revokes tokens at its own endpoint; Google adds `hd`.
extension RelyingParty {
    /// Apple's authorization URL: `response_type=code`, `response_mode=form_post` (Apple requires it when `name` or
    /// `email` is asked for), `scope` `name email` unless `scopes` says otherwise, `state` and `nonce`.
    /// `codeChallenge`, when given, is sent as S256 PKCE.
    public func appleAuthorizationURL(_ settings: AppleSignInSettings, redirectUri: String, state: String, nonce: String,
                                      scopes: [String] = ["name", "email"], codeChallenge: String? = nil) throws -> String {
        guard let servicesId = settings.servicesId, !servicesId.isEmpty else {
            throw RelyingPartyError(.configuration, "Sign in with Apple has no services id for the web flow")
        }
        var fields: [(String, String)] = [
            ("client_id", servicesId), ("redirect_uri", redirectUri), ("response_type", "code"), ("response_mode", "form_post"),
            ("scope", scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
        ]
        if let codeChallenge { fields += [("code_challenge", codeChallenge), ("code_challenge_method", "S256")] }
        return settings.authorizationEndpoint + "?" + FormEncoding.encode(fields)
    }

    /// Exchanges Apple's `code` at its token endpoint with the minted client secret, validates the ID token (its
    /// nonce must be `nonce`) and takes the name from Apple's `user` form field when Apple sent one (the first
    /// authorization only). Apple's refresh token is returned for the token vault and for revocation.
    public func completeApple(_ settings: AppleSignInSettings, code: String, redirectUri: String, codeVerifier: String? = nil,
                              nonce: String, clientSecret: AppleClientSecret, userField: String?) async throws -> FederatedSignIn {
        var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectUri)]
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        let body = try await postWithClientSecret(settings.tokenEndpoint, fields, providerId: "apple.com", clientSecret: clientSecret)
        guard let idToken = body.idToken else {
            throw RelyingPartyError(.tokenExchange, "Apple's token response has no ID token")
        }
        var signIn = try await validateAppleIDToken(idToken, settings: settings, nonce: .exact(nonce))
        if let user = AppleUserField.parse(userField) {
            signIn.firstName = user.firstName
            signIn.lastName = user.lastName
            signIn.identity.displayName = user.displayName
        }
        signIn.oauthAccessToken = body.accessToken ?? ""
        signIn.oauthExpiresIn = body.expiresIn
        signIn.oauthRefreshToken = body.refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        return signIn
    }

    /// Revokes an Apple refresh or access token (`tokenTypeHint` `refresh_token` or `access_token`) at Apple's
    /// revoke endpoint, authenticated with the minted client secret — required when an account is deleted. Apple
    /// answers 200 for any token once the client is authenticated.
    public func revokeApple(_ settings: AppleSignInSettings, token: String, tokenTypeHint: String = "refresh_token",
                            clientSecret: AppleClientSecret) async throws {
        _ = try await postWithClientSecret(settings.revocationEndpoint, [("token", token), ("token_type_hint", tokenTypeHint)],
                                           providerId: "apple.com", clientSecret: clientSecret, expectJSON: false)
    }

    /// Exchanges an authorization code the app obtained (natively, for a bundle id, or on the web with
    /// `redirectUri`) for Apple's tokens, so they can be revoked: the ID token's signature, issuer and audience are
    /// checked (its nonce is the app's), and the answer holds the Apple user (`sub`) and the refresh token.
    public func exchangeAppleCodeForRevocation(_ settings: AppleSignInSettings, code: String, redirectUri: String?,
                                               clientSecret: AppleClientSecret) async throws -> (subject: String, refreshToken: String?, accessToken: String?) {
        var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectUri { fields.append(("redirect_uri", redirectUri)) }
        let body = try await postWithClientSecret(settings.tokenEndpoint, fields, providerId: "apple.com", clientSecret: clientSecret)
        guard let idToken = body.idToken else {
            throw RelyingPartyError(.tokenExchange, "Apple's token response has no ID token")
        }
        let signIn = try await validateAppleIDToken(idToken, settings: settings, nonce: .fromTokenEndpoint)
        return (signIn.identity.federatedId, body.refreshToken.flatMap { $0.isEmpty ? nil : $0 }, body.accessToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// POSTs `fields` with Apple's client authentication (`client_id` and the minted `client_secret` in the body).
    private func postWithClientSecret(_ url: String, _ fields: [(String, String)], providerId: String, clientSecret: AppleClientSecret,
                                      expectJSON: Bool = true) async throws -> TokenResponse {
        let secret = try await clientSecret.secret()
        return try await postToEndpoint(url, fields + [("client_id", clientSecret.key.clientId), ("client_secret", secret)],
                                        providerId: providerId, expectJSON: expectJSON)
    }

    /// POSTs a form to a provider's token or revoke endpoint; a non-200 answer becomes a `.tokenExchange` error
    /// carrying the provider's parsed answer (never a code, token or secret).
    private func postToEndpoint(_ url: String, _ fields: [(String, String)], providerId: String, expectJSON: Bool,
                                basicAuthorization: String? = nil) async throws -> TokenResponse {
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.postForm(url, fields, basicAuthorization: basicAuthorization)
        } catch {
            throw RelyingPartyError(.tokenExchange, "the provider's endpoint could not be reached")
        }
        guard reply.status == 200 else {
            let parsed = (try? JSONDecoder().decode(JSONValue.self, from: reply.body))?.objectValue ?? [:]
            let info = ProviderErrorInfo.parse(providerId: providerId, fields: parsed)
            throw RelyingPartyError(.tokenExchange, "the provider refused the request (\(info.error ?? "HTTP \(reply.status)"))", providerError: info)
        }
        guard expectJSON else { return TokenResponse() }
        return reply.decode(TokenResponse.self) ?? TokenResponse()
    }

    /// Google's authorization URL: `openid email profile` plus `scopes`, `state`, `nonce`, PKCE, the app's `prompt`
    /// and `login_hint`, and `hd` narrowed by the allow-list (``GoogleSignInSettings/narrowedHostedDomain(requested:)``:
    /// a domain outside it is refused here).
    public func googleAuthorizationURL(_ settings: GoogleSignInSettings, redirectUri: String, state: String, nonce: String,
                                       codeChallenge: String?, scopes: [String] = [], prompt: String? = nil, loginHint: String? = nil,
                                       hostedDomain: String? = nil, offlineAccess: Bool = false) throws -> String {
        var fields: [(String, String)] = [
            ("client_id", settings.clientId), ("redirect_uri", redirectUri), ("response_type", "code"),
            ("scope", Self.scopes(for: .oidc, requested: scopes).joined(separator: " ")), ("state", state), ("nonce", nonce),
        ]
        if let codeChallenge { fields += [("code_challenge", codeChallenge), ("code_challenge_method", "S256")] }
        if let prompt { fields.append(("prompt", prompt)) }
        if let loginHint { fields.append(("login_hint", loginHint)) }
        if let hd = try settings.narrowedHostedDomain(requested: hostedDomain) { fields.append(("hd", hd)) }
        if offlineAccess { fields.append(("access_type", "offline")) }
        return settings.authorizationEndpoint + "?" + FormEncoding.encode(fields)
    }

    /// Exchanges Google's `code` (client secret in the body — or with HTTP Basic when a discovered document
    /// advertises no `client_secret_post`, as the token endpoint of ``RelyingParty/refresh(_:refreshToken:)`` —
    /// and the PKCE verifier), validates the ID token with the hosted-domain rules (`requestedHostedDomain`: the
    /// `hd` the authorization asked for) and returns the identity.
    public func completeGoogle(_ settings: GoogleSignInSettings, clientSecret: String, code: String, redirectUri: String,
                               codeVerifier: String?, nonce: String, requestedHostedDomain: String? = nil) async throws -> FederatedSignIn {
        var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectUri)]
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        var basic: String?
        let methods = settings.discovered.map { $0.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"] } ?? ["client_secret_post"]
        if methods.contains("client_secret_post") {
            fields += [("client_id", settings.clientId), ("client_secret", clientSecret)]
        } else {
            basic = Data((FormEncoding.escape(settings.clientId) + ":" + FormEncoding.escape(clientSecret)).utf8).base64EncodedString()
        }
        let body = try await postToEndpoint(settings.tokenEndpoint, fields, providerId: "google.com", expectJSON: true, basicAuthorization: basic)
        guard let accessToken = body.accessToken, !accessToken.isEmpty, let idToken = body.idToken else {
            throw RelyingPartyError(.tokenExchange, "Google's token response lacks its access token or ID token")
        }
        var signIn = try await validateGoogleIDToken(idToken, settings: settings, nonce: .exact(nonce), requestedHostedDomain: requestedHostedDomain)
        signIn.oauthAccessToken = accessToken
        signIn.oauthExpiresIn = body.expiresIn
        signIn.oauthRefreshToken = body.refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        signIn.grantedScope = body.scope
        return signIn
    }
}
