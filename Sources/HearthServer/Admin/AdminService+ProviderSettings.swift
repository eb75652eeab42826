import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire

/// What both kinds of provider settings share (built-in providers, ``AdminService/updateDefaultIdpConfig(_:_:by:, in: scope)``;
/// OpenID providers, ``AdminService/updateOAuthIdpConfig(_:_:by:, in: scope)``; `hearth providers`): the checks a provider's
/// settings pass whoever writes them, the fields both kinds have, the token-vault rule, removal and paging.
extension AdminService {
    public func deleteIdpConfig(_ providerId: String, action: String, by principal: AdminPrincipal, in scope: Scope) async throws -> EmptyResponse {
        guard try await scope.store.deleteIdPConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        // The provider's kept tokens go with its settings.
        try await scope.store.deleteProviderTokens(providerId: providerId)
        try await audit(principal, action, target: providerId, in: scope)
        return EmptyResponse()
    }

    /// Saves a provider's settings; with the token vault turned off, the tokens it kept for the provider go too.
    func saveProviderConfig(_ config: IdPConfig, in scope: Scope) async throws {
        try await scope.store.saveIdPConfig(config)
        if !config.keepsProviderTokens { try await scope.store.deleteProviderTokens(providerId: config.providerId) }
    }

    /// A change of a field both kinds have (`enabled`, `clientId`, `clientSecret`, `tokenVault`, `nativeClientIds`)
    /// applied to `config`, checked; any other change is the caller's (and is left alone here).
    static func applySharedField(_ change: ProviderSettingChange, to config: inout IdPConfig) throws {
        switch change {
        case .enabled(let enabled): config.enabled = enabled
        case .clientId(let raw): config.clientId = try clientId(raw)
        case .clientSecret(let secret):
            guard let secret, !secret.isEmpty else { throw HearthAPIError(.missingOAuthClientSecret) }
            config.clientSecret = secret
        case .tokenVault(let keep): config.tokenVault = keep
        case .nativeClientIds(let ids): try applyVaultFields(tokenVault: nil, nativeClientIds: ids, to: &config)
        default: break
        }
    }

    /// A checked Google hosted-domain allow-list (at most 20 domains; `google.com` only).
    static func checkHostedDomains(_ entries: [String]?, kind: IdPKind) throws -> [String]? {
        guard let entries, !entries.isEmpty else { return nil }
        guard kind == .google else { throw HearthAPIError(.invalidConfig, "allowedHostedDomains applies to google.com only") }
        guard entries.count <= 20 else { throw HearthAPIError(.invalidConfig, "allowedHostedDomains holds at most 20 domains") }
        do {
            let domains = try GoogleSignInSettings.normalizeHostedDomains(entries)
            return domains.isEmpty ? nil : domains
        } catch let error as RelyingPartyError {
            throw HearthAPIError(.invalidConfig, "allowedHostedDomains: \(error.message)")
        }
    }

    /// A checked tenant allow-list (Microsoft only).
    static func checkAllowedEntraTenants(_ entries: [String]?, kind: IdPKind) throws -> [String]? {
        guard let entries, !entries.isEmpty else { return nil }
        guard kind == .microsoft else { throw HearthAPIError(.invalidConfig, "allowedTenants applies to microsoft.com only") }
        do {
            return try RelyingParty.normalizedEntraTenantAllowList(entries)
        } catch let error as RelyingPartyError {
            throw HearthAPIError(.invalidConfig, error.message)
        }
    }

    /// The checks a provider's settings pass whoever writes them (the admin API's creates, `hearth providers
    /// enable`), in this order: client id (none for a native-only `apple.com`), issuer (OpenID providers), client

    /// secret, endpoint URLs, tenant allow-list. Returns the settings with the client id and the allow-list normalized.
    static func checkedProvider(_ config: IdPConfig) throws -> IdPConfig {
        var checked = config
        // Native Sign in with Apple only (bundle ids, no code-flow key) has no services id to give.
        let appleNativeOnly = config.kind == .apple && config.clientId.isEmpty && config.clientSecret.isEmpty
            && (config.appleTeamId ?? "").isEmpty && (config.appleKeyId ?? "").isEmpty
        checked.clientId = appleNativeOnly ? "" : try clientId(config.clientId)
        if config.kind != .apple, config.appleBundleIds != nil || config.appleTeamId != nil || config.appleKeyId != nil {
            throw HearthAPIError(.invalidConfig, "appleSignInConfig applies to apple.com only")
        }
        checked.allowedHostedDomains = try checkHostedDomains(config.allowedHostedDomains, kind: config.kind)
        if config.kind == .apple {
            // Apple's client secret is minted from the .p8 key (kept as the sealed clientSecret).
            try checkApple(&checked)
            try checkURL(config.endpointBase, "endpointBase")
            return checked
        }
        if config.kind == .oidc {
            guard let issuer = config.issuer, !issuer.isEmpty else { throw HearthAPIError(.missingIssuer) }
            try checkURL(issuer, "issuer")
        }
        guard !config.clientSecret.isEmpty else {
            throw config.kind == .oidc
                ? HearthAPIError(.missingOAuthClientSecret, "Hearth signs in with the authorization code flow, which needs the client secret")
                : HearthAPIError(.missingOAuthClientSecret)
        }
        try checkURL(config.endpointBase, "endpointBase")
        try checkURL(config.graphBase, "graphBase")
        checked.allowedEntraTenants = try checkAllowedEntraTenants(config.allowedEntraTenants, kind: config.kind)
        return checked
    }

    static func checkURL(_ url: String?, _ field: String) throws {
        guard let url else { return }
        guard let components = URLComponents(string: url), ["https", "http"].contains(components.scheme ?? ""), components.host != nil else {
            throw HearthAPIError(.invalidConfig, "\(field) must be an http(s) URL")
        }
    }

    /// The token vault setting and the allowed native client IDs (at most 20, each 1 to 256 characters without spaces).
    static func applyVaultFields(tokenVault: Bool?, nativeClientIds: [String]?, to config: inout IdPConfig) throws {
        if let tokenVault { config.tokenVault = tokenVault }
        guard let nativeClientIds else { return }
        guard nativeClientIds.count <= 20 else { throw HearthAPIError(.invalidConfig, "nativeClientIds holds at most 20 client IDs") }
        for id in nativeClientIds where id.isEmpty || id.count > 256 || id.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw HearthAPIError(.invalidConfig, "nativeClientIds: each client ID is 1 to 256 characters without spaces")
        }
        var unique: [String] = []
        for id in nativeClientIds where !unique.contains(id) { unique.append(id) }
        config.nativeClientIds = unique.isEmpty ? nil : unique
    }

    /// A client id from a request: `MISSING_OAUTH_CLIENT_ID` when absent, `INVALID_CONFIG` unless it passes
    /// ``IdPConfig/checkedClientId(_:)`` (the console's and the CLI's rule too).
    static func clientId(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw HearthAPIError(.missingOAuthClientId) }
        guard let clientId = IdPConfig.checkedClientId(raw) else { throw HearthAPIError(.invalidConfig, IdPConfig.clientIdProblem) }
        return clientId
    }

    /// The stored secret goes to the token endpoint: moving that endpoint (issuer, endpointBase, graphBase) without
    /// giving the secret again would let a caller send the write-only secret to a server of their choice.
    static func requireSecretWhenEndpointMoves(_ fields: [String], secretName: String = "clientSecret") throws {
        let moves = fields.filter { ["issuer", "endpointBase", "graphBase"].contains($0) }
        if !moves.isEmpty, !fields.contains("clientSecret") {
            throw HearthAPIError(.invalidConfig, "changing \(moves.joined(separator: ", ")) changes where Hearth sends the client secret: give \(secretName) in the same update")
        }
    }

    /// One page of provider configurations ordered by id: `pageSize` 1–100 (default 100), `pageToken` the last
    /// id of the previous page.
    static func page(_ configs: [IdPConfig], pageSize: String?, pageToken: String?) throws -> ([IdPConfig], String?) {
        var size = 100
        if let pageSize, !pageSize.isEmpty {
            guard let value = Int(pageSize), (1...100).contains(value) else {
                throw HearthAPIError(.invalidPageSelection, "pageSize must be between 1 and 100")
            }
            size = value
        }
        var sorted = configs.sorted { $0.providerId < $1.providerId }
        if let pageToken, !pageToken.isEmpty {
            guard let data = Data(base64URLEncoded: pageToken), let after = String(data: data, encoding: .utf8) else {
                throw HearthAPIError(.invalidPageSelection, "unknown pageToken")
            }
            sorted = sorted.filter { $0.providerId > after }
        }
        let page = Array(sorted.prefix(size))
        let next = sorted.count > size ? page.last.map { Data($0.providerId.utf8).base64URLEncodedString() } : nil
        return (page, next)
    }
}
