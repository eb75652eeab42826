import Foundation
import HearthCore
import HearthStore
import HearthWire

/// OpenID providers' settings (`oauthIdpConfigs`, `oidc.<name>`): created from the admin API's resource, changed
/// through typed ``ProviderSettingChange``s (the admin API's update mask is read at the HTTP edge,
/// ``ProviderConfigWire``; the console builds the changes itself), shown without their secrets.
extension AdminService {
    /// The resource an OpenID provider's settings are answered as; in a tenant its name is Identity Platform's
    /// `projects/{p}/tenants/{t}/oauthIdpConfigs/{oidc.x}`.
    func oauthResource(_ config: IdPConfig, in scope: Scope) -> OAuthIdpConfig {
        OAuthIdpConfig(name: "\(resourceParent(in: scope))/oauthIdpConfigs/\(config.providerId)", clientId: config.clientId,
                       clientSecret: nil, issuer: config.issuer, displayName: config.displayName, enabled: config.enabled,
                       responseType: .init(code: true, idToken: false), tokenVault: config.keepsProviderTokens,
                       nativeClientIds: config.nativeClientIds ?? [])
    }

    /// `projects/{p}`, or `projects/{p}/tenants/{t}` in a tenant: the parent of a provider configuration's name.
    func resourceParent(in scope: Scope) -> String {
        "projects/\(configuration.projectId)" + (scope.tenantId.map { "/tenants/\($0)" } ?? "")
    }

    static func checkOIDCId(_ id: String?) throws -> String {
        guard let id, !id.isEmpty else { throw HearthAPIError(.invalidProviderIdAdmin, "give oauthIdpConfigId (oidc.<name>)") }
        guard IdPConfig.kind(forProviderId: id) == .oidc else {
            throw HearthAPIError(.invalidProviderIdAdmin, "an OpenID provider id is oidc.<letters, digits, - or _>")
        }
        return id
    }

    public func createOAuthIdpConfig(id: String?, _ body: OAuthIdpConfig, by principal: AdminPrincipal, in scope: Scope) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        if try await scope.store.idpConfig(providerId: providerId) != nil {
            throw HearthAPIError(.configurationExists, "\(providerId) is configured already: PATCH it")
        }
        var config = try Self.checkedProvider(IdPConfig(
            providerId: providerId, kind: .oidc, enabled: body.enabled ?? true, clientId: body.clientId ?? "", clientSecret: body.clientSecret ?? "",
            issuer: body.issuer, displayName: body.displayName))
        try Self.applyVaultFields(tokenVault: body.tokenVault, nativeClientIds: body.nativeClientIds, to: &config)
        try await scope.store.saveIdPConfig(config)
        try await audit(principal, "oauthIdpConfigs.create", target: providerId, detail: Self.fieldNames(of: body), in: scope)
        return oauthResource(config, in: scope)
    }

    public func oauthIdpConfig(_ id: String, in scope: Scope) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        guard let config = try await scope.store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        return oauthResource(config, in: scope)
    }

    public func listOAuthIdpConfigs(pageSize: String?, pageToken: String?, in scope: Scope) async throws -> OAuthIdpConfigList {
        let configs = try await scope.store.idpConfigs().filter { $0.kind == .oidc }
        let (page, next) = try Self.page(configs, pageSize: pageSize, pageToken: pageToken)
        return OAuthIdpConfigList(configs: page.map { oauthResource($0, in: scope) }, nextPageToken: next)
    }

    /// `PATCH …/oauthIdpConfigs/{oidc.x}`: `changes` applied in their order, each checked; audited as
    /// `oauthIdpConfigs.update` with the changes' paths. `CONFIGURATION_NOT_FOUND` when the provider is not
    /// configured; `INVALID_UPDATE_MASK` for a change an OpenID provider does not have (`graphBase`, …).
    @discardableResult
    public func updateOAuthIdpConfig(_ id: String, _ changes: [ProviderSettingChange], by principal: AdminPrincipal, in scope: Scope) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        guard var config = try await scope.store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        let fields = changes.map(\.path)
        try ProviderSettingChange.check(fields, allowed: ProviderSettingChange.openIDPaths)
        try Self.requireSecretWhenEndpointMoves(fields)
        for change in changes {
            switch change {
            case .issuer(let issuer):
                guard let issuer, !issuer.isEmpty else { throw HearthAPIError(.missingIssuer) }
                try Self.checkURL(issuer, "issuer")
                config.issuer = issuer
            case .displayName(let name): config.displayName = name
            case .responseType(let code, _):
                // Hearth always uses the code flow.
                if code == false {
                    throw HearthAPIError(.invalidConfig, "Hearth signs in with the authorization code flow: responseType.code stays true")
                }
            default:
                try Self.applySharedField(change, to: &config)
            }
        }
        try await saveProviderConfig(config, in: scope)
        try await audit(principal, "oauthIdpConfigs.update", target: providerId, detail: fields.joined(separator: ","), in: scope)
        return oauthResource(config, in: scope)
    }
}
