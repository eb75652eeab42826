import Foundation
import HearthCore
import HearthOIDC
import HearthWire
import HTTPTypes
import Hummingbird
import Logging

extension FederationService {
    /// The longest token or authorization code `accounts:revokeToken` reads.
    static let revokeTokenMaxLength = 4096

    /// `accounts:revokeToken` (Firebase's `Auth.revokeToken(withAuthorizationCode:)`): revokes the signed-in user's
    /// Sign in with Apple grant. With `tokenType` `CODE` (or `3`) Hearth exchanges the authorization code at Apple
    /// with its minted client secret — as the app's bundle id (`X-Ios-Bundle-Identifier`, or the only registered
    /// one) for a native code, as the services id with `redirectUri` for a web one — checks that the grant is the
    /// user's own Apple account, and revokes the refresh token Apple returned. `REFRESH_TOKEN` and `ACCESS_TOKEN`
    /// are revoked as they are. The user must have apple.com linked.
    public func revokeToken(_ request: RevokeTokenRequest, bundleId: String?, in scope: Scope) async throws -> RevokeTokenResponse {
        let (_, user) = try await accounts.authenticate(idToken: request.idToken, in: scope)
        guard let providerId = request.providerId?.lowercased(), !providerId.isEmpty else {
            throw HearthAPIError(.invalidProviderId, "give providerId: apple.com")
        }
        guard providerId == AppleGrantRevocation.providerId else {
            throw HearthAPIError(.invalidProviderId, "only Sign in with Apple tokens can be revoked (providerId apple.com), not \(String(providerId.prefix(64)))'s")
        }
        guard let token = request.token, !token.isEmpty else {
            throw HearthAPIError(.invalidArgument, "give token: the authorization code (or token) to revoke")
        }
        guard token.utf8.count <= Self.revokeTokenMaxLength, !token.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value > 0x7E }) else {
            throw HearthAPIError(.invalidArgument, "token is not an Apple authorization code or token (at most \(Self.revokeTokenMaxLength) visible ASCII characters)")
        }
        let subjects = Set(user.identities.filter { $0.providerId == providerId }.map(\.federatedId))
        guard !subjects.isEmpty else {
            throw HearthAPIError(.invalidProviderId, "the user has no linked apple.com account to revoke")
        }
        let config = try await enabledProvider(providerId, in: scope)
        guard config.hasAppleCodeFlow else {
            throw HearthAPIError(.operationNotAllowed, "revoking needs Sign in with Apple's key: configure appleSignInConfig.codeFlowConfig (teamId, keyId, privateKey)")
        }
        do {
            switch request.tokenType {
            case .code?:
                let (clientId, redirectUri) = try Self.revocationClient(config, bundleId: bundleId, redirectUri: request.redirectUri)
                try await relyingParty.revokeAppleGrant(config, code: token, clientId: clientId, redirectUri: redirectUri, expectedSubjects: subjects)
            case .refreshToken?:
                try await relyingParty.revokeApple(config, token: token, tokenTypeHint: "refresh_token", clientId: bundleClientId(config, bundleId))
            case .accessToken?:
                try await relyingParty.revokeApple(config, token: token, tokenTypeHint: "access_token", clientId: bundleClientId(config, bundleId))
            case nil, .unspecified?, .unknown?:
                let given = request.tokenType.map { " (not \(String($0.name.prefix(32))))" } ?? ""
                throw HearthAPIError(.invalidArgument, "give tokenType: CODE (3), REFRESH_TOKEN (1) or ACCESS_TOKEN (2)\(given)")
            }
        } catch let error as RelyingPartyError {
            throw diagnostics.refusal(error, providerId: providerId, message: "Apple token revocation refused")
        }
        logger.info("Apple grant revoked on the user's request", metadata: ["uid": "\(user.localId)", "token_type": "\(request.tokenType?.name ?? "-")"])
        return RevokeTokenResponse()
    }

    /// The client an authorization code was issued to: the services id for a web code (`redirectUri` given, an
    /// absolute https URL), else the app's bundle id — the `X-Ios-Bundle-Identifier` header's, which must be
    /// registered, or the only registered one.
    static func revocationClient(_ config: IdPConfig, bundleId: String?, redirectUri: String?) throws -> (clientId: String, redirectUri: String?) {
        if let redirectUri, !redirectUri.isEmpty {
            guard redirectUri.utf8.count <= 2048, let url = URLComponents(string: redirectUri), url.scheme == "https", url.host?.isEmpty == false else {
                throw HearthAPIError(.invalidArgument, "redirectUri must be the https redirect URI the authorization code was issued for")
            }
            guard !config.clientId.isEmpty else {
                throw HearthAPIError(.operationNotAllowed, "apple.com has no services id for web authorization codes")
            }
            return (config.clientId, redirectUri)
        }
        let bundleIds = config.appleBundleIds ?? []
        if let bundleId, !bundleId.isEmpty {
            guard bundleIds.contains(bundleId) else {
                throw HearthAPIError(.invalidArgument, "the app's bundle id (X-Ios-Bundle-Identifier) \(String(bundleId.prefix(128))) is not one of apple.com's bundle ids")
            }
            return (bundleId, nil)
        }
        guard bundleIds.count == 1 else {
            throw HearthAPIError(.invalidArgument, bundleIds.isEmpty
                ? "apple.com has no bundle ids for native authorization codes; register the app's (appleSignInConfig.bundleIds) or send redirectUri for a web code"
                : "several bundle ids are registered for apple.com: send the app's as X-Ios-Bundle-Identifier")
        }
        return (bundleIds[0], nil)
    }

    /// The client a token given as such was issued to: the app's registered bundle id when it names one, else the
    /// services id.
    func bundleClientId(_ config: IdPConfig, _ bundleId: String?) -> String? {
        guard let bundleId, (config.appleBundleIds ?? []).contains(bundleId) else { return nil }
        return bundleId
    }
}

extension RevokeTokenRequest: ServedRPC {
    /// The Apple SDK names the app in `X-Ios-Bundle-Identifier`: the client a native code was issued to.
    static func serve(_ request: Self, _ call: RPCCall) async throws -> RevokeTokenResponse {
        let bundleId = call.request.headers[HTTPField.Name("X-Ios-Bundle-Identifier")!]
        return try await call.federation.revokeToken(request, bundleId: bundleId, in: call.scope)
    }
}
