import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import HTTPTypes
import Hummingbird
import Logging

/// The provider token vault: Hearth keeps the provider's refresh token (sealed with AES-GCM under the vault keys)
/// and hands the signed-in user a fresh provider access token on request, renewing it upstream when it expired.
extension FederationService {
    /// Whether the vault keeps tokens of `config`: vault keys configured and the provider's setting on.
    func vaultKeeps(_ config: IdPConfig) -> Bool {
        configuration.providerTokenKeys != nil && config.keepsProviderTokens
    }

    /// Whether to ask the provider for a refresh token (`offline_access`): Microsoft always when the vault keeps
    /// its tokens, an OpenID provider when it advertises the scope. Yahoo gives one without asking.
    func wantsOfflineAccess(_ provider: ResolvedProvider) -> Bool {
        guard vaultKeeps(provider.config) else { return false }
        switch provider.config.kind {
        case .microsoft: return true
        // Apple always returns a refresh token with the code; Google's `offline_access` becomes `access_type=offline`.
        case .yahoo, .apple: return false
        case .google: return true
        case .oidc: return provider.discovery.scopesSupported?.contains("offline_access") ?? false
        }
    }

    /// After a sign-in, link or reauthentication that issued a session: keeps the provider's refresh token and
    /// access token, sealed. A sign-in without a refresh token leaves what is kept alone. Failures are logged
    /// (never with a token) and do not fail the sign-in.
    func keepProviderTokens(_ signIn: FederatedSignIn, answer: SignInWithIdpResponse, config: IdPConfig, entraTenantOrHostedDomain: String?) async {
        guard vaultKeeps(config), let keys = configuration.providerTokenKeys, let localId = answer.localId,
              answer.idToken != nil || answer.mfaPendingCredential != nil,
              let refreshToken = signIn.oauthRefreshToken, !refreshToken.isEmpty
        else { return }
        let moment = now
        let expiresAt = signIn.oauthAccessToken.isEmpty ? nil : moment.addingTimeInterval(TimeInterval(signIn.oauthExpiresIn ?? 3600))
        let tokens = ProviderTokens(refreshToken: refreshToken, accessToken: signIn.oauthAccessToken.isEmpty ? nil : signIn.oauthAccessToken,
                                    accessTokenExpiresAt: expiresAt, clientId: config.clientId, scope: signIn.grantedScope, entraTenantOrHostedDomain: entraTenantOrHostedDomain)
        do {
            let (keyId, sealed) = try keys.seal(tokens, localId: localId, providerId: config.providerId)
            let stored = try await store.saveProviderTokens(ProviderTokenRecord(
                localId: localId, providerId: config.providerId, federatedId: signIn.identity.federatedId, keyId: keyId, sealed: sealed,
                accessTokenExpiresAt: expiresAt, updatedAt: moment))
            if stored { logger.info("provider tokens kept", metadata: ["uid": "\(localId)", "provider": "\(config.providerId)"]) }
        } catch {
            logger.error("could not keep the provider's tokens", metadata: [
                "uid": "\(localId)", "provider": "\(config.providerId)", "error.type": "\(type(of: error))",
            ])
        }
    }

    /// `POST /hearth/v1/providerAccessToken`: a provider access token for the user of `idToken`, from the vault,
    /// renewed at the provider when it expires within a minute (or when `forceRefresh`, at most every 30 seconds).
    public func providerAccessToken(idToken: String?, request: ProviderAccessTokenRequest, in scope: Scope) async throws -> ProviderAccessTokenResponse {
        let (_, user) = try await accounts.authenticate(idToken: idToken, in: scope)
        guard let providerId = request.providerId?.lowercased(), !providerId.isEmpty else {
            throw HearthAPIError(.invalidProviderId, "give providerId (microsoft.com, yahoo.com or oidc.<name>)")
        }
        guard IdPConfig.kind(forProviderId: providerId) != nil else {
            throw HearthAPIError(.invalidProviderId, "\(String(providerId.prefix(64))) is not a provider whose tokens Hearth keeps")
        }
        guard user.identities.contains(where: { $0.providerId == providerId }) else {
            throw HearthAPIError(.noProviderToken, "the user has no linked \(providerId) account")
        }
        let config = try await enabledProvider(providerId, in: scope)
        guard let keys = configuration.providerTokenKeys else {
            throw HearthAPIError(.providerTokenVaultDisabled, "this server keeps no provider tokens: configure vault keys (vault.keys.file)")
        }
        guard config.keepsProviderTokens else {
            throw HearthAPIError(.providerTokenVaultDisabled, "the token vault is turned off for \(providerId)")
        }
        let localId = user.localId
        let force = request.forceRefresh ?? false
        let result = try await refreshes.run(key: "\(localId)\u{0}\(providerId)\u{0}\(force)") {
            try await self.freshAccessToken(localId: localId, config: config, keys: keys, force: force)
        }
        let seconds = max(0, Int(result.expiresAt.timeIntervalSince(now).rounded(.down)))
        return ProviderAccessTokenResponse(providerId: providerId, accessToken: result.accessToken, expiresIn: String(seconds), scope: result.scope)
    }

    func freshAccessToken(localId: String, config: IdPConfig, keys: ProviderTokenKeys, force: Bool) async throws -> ProviderAccessTokenResult {
        let providerId = config.providerId
        let signInAgain = "sign in with \(providerId) again to keep a new one"
        guard let record = try await store.providerTokens(localId: localId, providerId: providerId) else {
            throw HearthAPIError(.noProviderToken, "no \(providerId) token is kept for this user: \(signInAgain)")
        }
        var tokens: ProviderTokens
        do {
            tokens = try keys.open(sealed: record.sealed, keyId: record.keyId, localId: localId, providerId: providerId)
        } catch let error as ProviderTokenVaultError {
            // A missing or wrong key is the server's configuration: the record is kept for when the key is back.
            logger.error("a provider token vault record does not open", metadata: [
                "uid": "\(localId)", "provider": "\(providerId)", "key_id": "\(record.keyId)", "reason": "\(error)",
            ])
            throw HearthAPIError(.internalError, "the kept \(providerId) token cannot be opened with this server's vault keys (key \(record.keyId)); the administrator must configure that key")
        }
        guard tokens.clientId == config.clientId else {
            try await store.deleteProviderTokens(localId: localId, providerId: providerId)
            throw HearthAPIError(.noProviderToken, "the kept \(providerId) token was issued to the provider's previous client ID: \(signInAgain)")
        }
        let moment = now
        // `forceRefresh` renews at most every 30 seconds per user and provider: a client cannot make Hearth hammer
        // the provider's token endpoint (and get the app throttled there).
        let forced = force && moment.timeIntervalSince(record.updatedAt) >= 30
        if !forced, let accessToken = tokens.accessToken, let expiresAt = tokens.accessTokenExpiresAt, expiresAt > moment.addingTimeInterval(60) {
            if record.keyId != keys.activeKeyId {
                // Re-encrypt on use: the record moves to the active key.
                _ = try? await reseal(record, tokens: tokens, keys: keys, at: moment)
            }
            return ProviderAccessTokenResult(accessToken: accessToken, expiresAt: expiresAt, scope: tokens.scope)
        }
        guard let refreshToken = tokens.refreshToken else {
            throw HearthAPIError(.noProviderToken, "no \(providerId) refresh token is kept for this user: \(signInAgain)")
        }
        let refreshed: RefreshedProviderTokens
        do {
            let provider = try await relyingParty.resolve(config, entraTenantOrHostedDomain: tokens.entraTenantOrHostedDomain)
            refreshed = try await relyingParty.refresh(provider, refreshToken: refreshToken)
        } catch let error as RelyingPartyError {
            let correlationId = UUID().uuidString.lowercased()
            logger.notice("provider access token renewal failed", metadata: [
                "uid": "\(localId)", "provider": "\(providerId)", "reason": "\(error.message)", "correlation_id": "\(correlationId)",
            ])
            if error.kind == .refreshRefused {
                // Dead for good (revoked consent, expired): drop it so the app knows to sign in again.
                try await store.deleteProviderTokens(localId: localId, providerId: providerId)
                throw HearthAPIError(.noProviderToken, "\(error.message): \(signInAgain) (correlation id \(correlationId))")
            }
            throw HearthAPIError(.providerUnavailable, "\(error.message); try again later (correlation id \(correlationId))")
        }
        tokens.accessToken = refreshed.accessToken
        tokens.accessTokenExpiresAt = moment.addingTimeInterval(TimeInterval(refreshed.expiresIn ?? 3600))
        if let rotated = refreshed.refreshToken { tokens.refreshToken = rotated }
        if let scope = refreshed.scope { tokens.scope = scope }
        let replaced = try await reseal(record, tokens: tokens, keys: keys, at: moment)
        if !replaced, refreshed.refreshToken != nil {
            // Unlinked, deleted or renewed meanwhile by another replica: what is stored now stands.
            logger.info("provider tokens changed during a renewal; the stored ones were kept", metadata: ["uid": "\(localId)", "provider": "\(providerId)"])
        }
        logger.info("provider access token renewed", metadata: [
            "uid": "\(localId)", "provider": "\(providerId)", "refresh_token_rotated": "\(refreshed.refreshToken.map { $0 != refreshToken } ?? false)",
        ])
        return ProviderAccessTokenResult(accessToken: refreshed.accessToken, expiresAt: tokens.accessTokenExpiresAt ?? moment, scope: tokens.scope)
    }

    /// Seals `tokens` with the active key and replaces `record` if it did not change meanwhile.
    func reseal(_ record: ProviderTokenRecord, tokens: ProviderTokens, keys: ProviderTokenKeys, at moment: Date) async throws -> Bool {
        let (keyId, sealed) = try keys.seal(tokens, localId: record.localId, providerId: record.providerId)
        var next = record
        next.keyId = keyId
        next.sealed = sealed
        next.accessTokenExpiresAt = tokens.accessTokenExpiresAt
        next.updatedAt = moment
        return try await store.replaceProviderTokens(next, expectedSealed: record.sealed)
    }
}

extension ProviderAccessTokenRequest: ServedRPC {
    /// The user's Hearth ID token as `Authorization: Bearer …` (or `idToken` in the body).
    static func serve(_ request: Self, _ call: RPCCall) async throws -> ProviderAccessTokenResponse {
        var idToken = request.idToken
        if let authorization = call.request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw HearthAPIError(.invalidIdToken, "Authorization must be Bearer <the user's ID token>")
            }
            idToken = String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
        return try await call.federation.providerAccessToken(idToken: idToken, request: request, in: call.scope)
    }
}
