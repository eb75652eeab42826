import Foundation
import HearthCore
import HearthWire

/// A provider access token renewed with a stored refresh token.
public struct RefreshedProviderTokens: Sendable {
    public var accessToken: String
    public var expiresIn: Int?
    /// A new refresh token when the provider rotates it (nil: keep the one used).
    public var refreshToken: String?
    public var scope: String?
}

extension RelyingParty {
    /// The one place an upstream ID token is validated, for the code exchange and for natively obtained tokens
    /// alike: signature from the provider's JWKS, issuer rule, one of `audiences`, times, subject and nonce.
    /// Checks on the validated claims that every sign-in path must pass belong here.
    func validateIDToken(_ idToken: String, provider: ResolvedProvider, audiences: [String], nonce: NonceRule) async throws -> [String: JSONValue] {
        try await validator.validate(idToken, jwksURI: provider.discovery.jwksURI, issuer: provider.issuerRule, audiences: audiences, nonce: nonce)
    }

    /// A sign-in with an ID token the app obtained natively (MSAL, Yahoo's SDK, an OIDC library): validated as the
    /// code exchange's, for the provider's client ID or one of its allowed native client IDs; when the app sent a
    /// raw nonce the token must carry its SHA-256. The profile comes from the token's claims (no access token).
    public func signIn(nativeIDToken idToken: String, provider: ResolvedProvider, rawNonce: String?) async throws -> FederatedSignIn {
        if provider.config.kind == .apple || provider.config.kind == .google {
            return try await appleOrGoogleNativeSignIn(idToken, provider: provider, rawNonce: rawNonce)
        }
        let audiences = [provider.config.clientId] + (provider.config.nativeClientIds ?? []).filter { $0 != provider.config.clientId }
        let claims = try await validateIDToken(idToken, provider: provider, audiences: audiences, nonce: .rawNonce(rawNonce))
        var signIn = try Self.identity(provider.config, claims: claims, profile: nil)
        signIn.oauthIdToken = idToken
        signIn.tokenUse = Self.tokenUse(idToken, claims: claims)
        return signIn
    }

    /// What identifies one use of a native ID token: its issuer and subject with its nonce (or its token id — `jti`,
    /// Microsoft's `uti` — or, lacking both, the token itself), kept until the token expires. Seen twice, it is a replay.
    static func tokenUse(_ idToken: String, claims: [String: JSONValue]) -> FederatedSignIn.TokenUse {
        let unique = claims["nonce"]?.stringValue.map { "nonce:" + $0 } ?? claims["jti"]?.stringValue.map { "jti:" + $0 }
            ?? claims["uti"]?.stringValue.map { "uti:" + $0 } ?? ("token:" + WireDigest.sha256Hex(idToken))
        let key = WireDigest.sha256Hex([claims["iss"]?.stringValue ?? "", claims["sub"]?.stringValue ?? "", unique].joined(separator: "\n"))
        let exp: Double = if case .number(let value)? = claims["exp"] { value } else { 0 }
        // The validator accepts a token up to its skew past `exp`: remember it that long too.
        return FederatedSignIn.TokenUse(keyHash: key, expiresAt: Date(timeIntervalSince1970: exp + IDTokenValidator.skewAllowance))
    }

    /// POSTs `fields` to the provider's token endpoint with the client's credentials: in the form body
    /// (`client_secret_post`) when the provider advertises it (Microsoft, Yahoo and most do), else HTTP Basic
    /// (RFC 6749 §2.3.1; OpenID Connect Discovery's default when a provider advertises nothing, as
    /// oidc-provider-mock, whose refresh grant accepts nothing else).
    func postToTokenEndpoint(_ provider: ResolvedProvider, _ fields: [(String, String)]) async throws -> UpstreamHTTP.Reply {
        let methods = provider.discovery.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        var config = provider.config
        if config.kind == .apple {
            // Apple's `clientSecret` holds the .p8 key: never sent, a client secret is minted from it.
            config.clientSecret = try await appleSecrets.minter(for: config).secret()
        }
        if !methods.contains("client_secret_post") {
            let credentials = FormEncoding.escape(config.clientId) + ":" + FormEncoding.escape(config.clientSecret)
            return try await http.postForm(provider.discovery.tokenEndpoint, fields, basicAuthorization: Data(credentials.utf8).base64EncodedString())
        }
        return try await http.postForm(provider.discovery.tokenEndpoint, fields + [("client_id", config.clientId), ("client_secret", config.clientSecret)])
    }

    /// Renews the provider's access token with `refreshToken` (RFC 6749 §6) at the provider's token endpoint.
    /// Throws ``RelyingPartyError`` `.refreshRefused` when the provider refuses the token (`invalid_grant`: revoked
    /// or expired, a new sign-in is needed), `.tokenExchange` when it cannot be reached or answers otherwise.
    /// The message never holds a token.
    public func refresh(_ provider: ResolvedProvider, refreshToken: String) async throws -> RefreshedProviderTokens {
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await postToTokenEndpoint(provider, [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        } catch {
            throw RelyingPartyError(.tokenExchange, "the provider's token endpoint could not be reached")
        }
        let body = reply.decode(TokenResponse.self) ?? TokenResponse()
        guard reply.status == 200 else {
            let error = body.error ?? "HTTP \(reply.status)"
            let codes = (body.errorCodes ?? []).map { "AADSTS\($0)" }
            let detail = ([String(error.prefix(64))] + codes).joined(separator: ", ")
            if body.error == "invalid_grant" {
                throw RelyingPartyError(.refreshRefused, "the provider no longer accepts the stored refresh token (\(detail))")
            }
            throw RelyingPartyError(.tokenExchange, "the provider refused to renew the access token (\(detail))")
        }
        guard let accessToken = body.accessToken, !accessToken.isEmpty else {
            throw RelyingPartyError(.tokenExchange, "the provider's token response has no access token")
        }
        return RefreshedProviderTokens(accessToken: accessToken, expiresIn: body.expiresIn,
                                       refreshToken: body.refreshToken.flatMap { $0.isEmpty ? nil : $0 }, scope: body.scope)
    }
}
