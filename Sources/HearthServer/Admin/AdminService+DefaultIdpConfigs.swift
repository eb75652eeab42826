import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire

/// The built-in providers' settings (`defaultSupportedIdpConfigs`: Microsoft, Yahoo, Apple, Google): created from
/// the admin API's resource, changed through typed ``ProviderSettingChange``s (the admin API's update mask is read at
/// the HTTP edge, ``ProviderConfigWire``; the console builds the changes itself), shown without their secrets.
extension AdminService {
    static let defaultSupportedIdps: [String: (kind: IdPKind, description: String)] = [
        "microsoft.com": (.microsoft, "Microsoft"),
        "yahoo.com": (.yahoo, "Yahoo"),
        "apple.com": (.apple, "Apple"),
        "google.com": (.google, "Google"),
    ]

    /// `GET /v2/defaultSupportedIdps`.
    public func defaultSupportedIdpList() -> DefaultSupportedIdpList {
        DefaultSupportedIdpList(defaultSupportedIdps: Self.defaultSupportedIdps.keys.sorted().map {
            .init(idpId: $0, description: Self.defaultSupportedIdps[$0]!.description)
        })
    }

    /// The resource a provider's settings are answered as; in a tenant its name is Identity Platform's
    /// `projects/{p}/tenants/{t}/defaultSupportedIdpConfigs/{idp}`.
    func defaultIdpResource(_ config: IdPConfig, in scope: Scope) -> DefaultSupportedIdpConfig {
        DefaultSupportedIdpConfig(name: "\(resourceParent(in: scope))/defaultSupportedIdpConfigs/\(config.providerId)",
                                  enabled: config.enabled, clientId: config.clientId, clientSecret: nil,
                                  endpointBase: config.endpointBase, graphBase: config.graphBase,
                                  allowedTenants: config.kind == .microsoft ? config.allowedEntraTenants.flatMap { $0.isEmpty ? nil : $0 } : nil,
                                  tokenVault: config.keepsProviderTokens, nativeClientIds: config.nativeClientIds ?? [],
                                  appleSignInConfig: config.kind == .apple ? Self.appleResource(config) : nil,
                                  allowedHostedDomains: config.kind == .google ? config.allowedHostedDomains.flatMap { $0.isEmpty ? nil : $0 } : nil)
    }

    /// `appleSignInConfig` as returned: the bundle ids, the team and key ids; never the private key.
    static func appleResource(_ config: IdPConfig) -> DefaultSupportedIdpConfig.AppleSignInConfig {
        let codeFlow = config.appleTeamId.map {
            DefaultSupportedIdpConfig.CodeFlowConfig(teamId: $0, keyId: config.appleKeyId, privateKey: nil)
        }
        return .init(bundleIds: config.appleBundleIds ?? [], codeFlowConfig: codeFlow)
    }

    /// Applies Firebase's `appleSignInConfig` to an `apple.com` configuration: `bundleIds` when `setBundleIds`,
    /// `codeFlowConfig` (team id, key id, `.p8` kept as the sealed `clientSecret`) when `setCodeFlow`; an absent
    /// part set clears it. Checked afterwards by ``checkedProvider(_:)``.
    static func applyAppleSignInConfig(_ apple: DefaultSupportedIdpConfig.AppleSignInConfig?, setBundleIds: Bool, setCodeFlow: Bool,
                                       to config: inout IdPConfig) throws {
        guard config.kind == .apple else { throw HearthAPIError(.invalidConfig, "appleSignInConfig applies to apple.com only") }
        if setBundleIds { config.appleBundleIds = apple?.bundleIds }
        if setCodeFlow {
            let codeFlow = apple?.codeFlowConfig
            config.appleTeamId = codeFlow?.teamId.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            config.appleKeyId = codeFlow?.keyId.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            config.clientSecret = codeFlow?.privateKey ?? ""
        }
    }

    /// The Apple-specific checks: bundle ids (at most 20, reverse-DNS characters), and either a complete code-flow
    /// key (team id, key id, a P-256 `.p8` that makes a client secret) or bundle ids alone (native sign-in only).
    static func checkApple(_ config: inout IdPConfig) throws {
        let bundleIds = config.appleBundleIds ?? []
        guard bundleIds.count <= 20 else { throw HearthAPIError(.invalidConfig, "appleSignInConfig.bundleIds holds at most 20 bundle ids") }
        var unique: [String] = []
        for raw in bundleIds {
            let id = raw.trimmingCharacters(in: .whitespaces)
            guard (1...155).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
                throw HearthAPIError(.invalidConfig, "appleSignInConfig.bundleIds: '\(String(raw.prefix(64)))' is not a bundle id (letters, digits, '.' and '-', as com.example.app)")
            }
            if !unique.contains(id) { unique.append(id) }
        }
        config.appleBundleIds = unique.isEmpty ? nil : unique
        let teamId = config.appleTeamId ?? "", keyId = config.appleKeyId ?? ""
        if teamId.isEmpty, keyId.isEmpty, config.clientSecret.isEmpty {
            guard !unique.isEmpty else {
                throw HearthAPIError(.invalidConfig, "give appleSignInConfig.codeFlowConfig (teamId, keyId, privateKey) for the web flow, or appleSignInConfig.bundleIds for native sign-in only")
            }
            config.appleTeamId = nil
            config.appleKeyId = nil
            return
        }
        guard !teamId.isEmpty else { throw HearthAPIError(.invalidConfig, "appleSignInConfig.codeFlowConfig.teamId is missing (Membership details → Team ID)") }
        guard !keyId.isEmpty else { throw HearthAPIError(.invalidConfig, "appleSignInConfig.codeFlowConfig.keyId is missing (the Key ID of the Sign in with Apple key)") }
        guard !config.clientSecret.isEmpty else {
            throw HearthAPIError(.invalidConfig, "appleSignInConfig.codeFlowConfig.privateKey is missing: give the .p8 file's contents (it is write-only, so give it again with every codeFlowConfig change)")
        }
        // A key sealed with a vault key this process does not hold cannot be read here; it was checked when written.
        if ProviderTokenKeys.isSealedSecret(config.clientSecret) { return }
        do {
            _ = try AppleSigningKey(p8: config.clientSecret, keyId: keyId, teamId: teamId, clientId: config.clientId)
        } catch {
            let field = switch error {
            case .invalidIdentifier("services id"): "clientId (the services id)"
            case .invalidIdentifier("team id"): "appleSignInConfig.codeFlowConfig.teamId"
            case .invalidIdentifier: "appleSignInConfig.codeFlowConfig.keyId"
            default: "appleSignInConfig.codeFlowConfig.privateKey"
            }
            throw HearthAPIError(.invalidConfig, "\(field): \(error)")
        }
    }

    static func checkDefaultIdpId(_ idpId: String?) throws -> (String, IdPKind) {
        guard let idpId, !idpId.isEmpty else { throw HearthAPIError(.invalidProviderIdAdmin, "give idpId (microsoft.com, yahoo.com, apple.com or google.com)") }
        guard let entry = defaultSupportedIdps[idpId] else {
            throw HearthAPIError(.invalidProviderIdAdmin, "Hearth federates microsoft.com, yahoo.com, apple.com and google.com as built-in providers, not \(idpId); use oauthIdpConfigs for other OpenID providers")
        }
        return (idpId, entry.kind)
    }

    public func createDefaultIdpConfig(idpId: String?, _ body: DefaultSupportedIdpConfig, by principal: AdminPrincipal, in scope: Scope) async throws -> DefaultSupportedIdpConfig {
        let (providerId, kind) = try Self.checkDefaultIdpId(idpId)
        if try await scope.store.idpConfig(providerId: providerId) != nil {
            throw HearthAPIError(.configurationExists, "\(providerId) is configured already: PATCH it")
        }
        var draft = IdPConfig(
            providerId: providerId, kind: kind, enabled: body.enabled ?? true, clientId: body.clientId ?? "", clientSecret: body.clientSecret ?? "",
            endpointBase: body.endpointBase, graphBase: body.graphBase, allowedEntraTenants: body.allowedTenants)
        try Self.applyAppleFields(ofCreate: body, to: &draft)
        draft.allowedHostedDomains = body.allowedHostedDomains
        var config = try Self.checkedProvider(draft)
        try Self.applyVaultFields(tokenVault: body.tokenVault, nativeClientIds: body.nativeClientIds, to: &config)
        try await scope.store.saveIdPConfig(config)
        try await audit(principal, "defaultSupportedIdpConfigs.create", target: providerId, detail: Self.fieldNames(of: body), in: scope)
        return defaultIdpResource(config, in: scope)
    }

    public func defaultIdpConfig(_ idpId: String, in scope: Scope) async throws -> DefaultSupportedIdpConfig {
        let (providerId, _) = try Self.checkDefaultIdpId(idpId)
        guard let config = try await scope.store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        return defaultIdpResource(config, in: scope)
    }

    public func listDefaultIdpConfigs(pageSize: String?, pageToken: String?, in scope: Scope) async throws -> DefaultSupportedIdpConfigList {
        let configs = try await scope.store.idpConfigs().filter { Self.defaultSupportedIdps[$0.providerId] != nil }
        let (page, next) = try Self.page(configs, pageSize: pageSize, pageToken: pageToken)
        return DefaultSupportedIdpConfigList(configs: page.map { defaultIdpResource($0, in: scope) }, nextPageToken: next)
    }

    /// `PATCH …/defaultSupportedIdpConfigs/{idp}`: `changes` applied in their order, each checked, then the whole
    /// settings checked for Apple and Google; audited as `defaultSupportedIdpConfigs.update` with the changes' paths.
    /// `CONFIGURATION_NOT_FOUND` when the provider is not configured; `INVALID_UPDATE_MASK` for a change a built-in
    /// provider does not have (`issuer`, …).
    @discardableResult
    public func updateDefaultIdpConfig(_ idpId: String, _ changes: [ProviderSettingChange], by principal: AdminPrincipal, in scope: Scope) async throws -> DefaultSupportedIdpConfig {
        let (providerId, _) = try Self.checkDefaultIdpId(idpId)
        guard var config = try await scope.store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        let fields = changes.map(\.path)
        try ProviderSettingChange.check(fields, allowed: ProviderSettingChange.builtInPaths)
        if config.kind == .apple {
            // Apple's secret is the code flow's key: moving the endpoints needs it again. Only an update that sets
            // the code flow counts (the key given, or the code flow cleared); a whole `appleSignInConfig` holding
            // bundle ids alone keeps the stored key, so it does not (issue 35, item 10).
            let keyGiven = Self.setsAppleCodeFlow(changes)
            try Self.requireSecretWhenEndpointMoves(fields.filter { !$0.hasPrefix("appleSignInConfig") && $0 != "clientSecret" } + (keyGiven ? ["clientSecret"] : []),
                                                    secretName: "appleSignInConfig.codeFlowConfig")
        } else {
            try Self.requireSecretWhenEndpointMoves(fields)
        }
        try Self.applyAppleChanges(changes, to: &config)
        for change in changes {
            switch change {
            case .clientSecret where config.kind == .apple:
                throw HearthAPIError(.invalidConfig, "apple.com has no client secret: Hearth mints it from appleSignInConfig.codeFlowConfig.privateKey")
            case .clientId(let id) where config.kind == .apple && (id ?? "").isEmpty:
                config.clientId = "" // native sign-in only; checkedProvider below refuses it with a code-flow key
            case .allowedHostedDomains(let domains):
                config.allowedHostedDomains = try Self.checkHostedDomains(domains, kind: config.kind)
            case .endpointBase(let url):
                try Self.checkURL(url, "endpointBase")
                config.endpointBase = url
            case .graphBase(let url):
                try Self.checkURL(url, "graphBase")
                config.graphBase = url
            case .allowedEntraTenants(let tenants):
                config.allowedEntraTenants = try Self.checkAllowedEntraTenants(tenants, kind: config.kind)
            default:
                try Self.applySharedField(change, to: &config)
            }
        }
        if config.kind == .apple || config.kind == .google { config = try Self.checkedProvider(config) }
        try await saveProviderConfig(config, in: scope)
        try await audit(principal, "defaultSupportedIdpConfigs.update", target: providerId, detail: fields.joined(separator: ","), in: scope)
        return defaultIdpResource(config, in: scope)
    }

    /// The `appleSignInConfig` of a create: whatever the body has (`apple.com` always; its parts absent clear them).
    /// A client secret given for `apple.com` is refused (Hearth mints it).
    static func applyAppleFields(ofCreate body: DefaultSupportedIdpConfig, to config: inout IdPConfig) throws {
        if config.kind == .apple, !(body.clientSecret ?? "").isEmpty {
            throw HearthAPIError(.invalidConfig, "apple.com has no client secret: Hearth mints it from appleSignInConfig.codeFlowConfig.privateKey")
        }
        if body.appleSignInConfig != nil || config.kind == .apple {
            try applyAppleSignInConfig(body.appleSignInConfig, setBundleIds: true, setCodeFlow: true, to: &config)
        }
    }

    /// The `appleSignInConfig` changes of an update: the whole object sets the parts it holds (and must hold one);
    /// `appleSignInConfig.bundleIds` / `.codeFlowConfig` set (or with nil clear) that part.
    static func applyAppleChanges(_ changes: [ProviderSettingChange], to config: inout IdPConfig) throws {
        var wholeNamed = false, whole: DefaultSupportedIdpConfig.AppleSignInConfig?
        var setBundleIds = false, bundleIds: [String]?
        var setCodeFlow = false, codeFlow: DefaultSupportedIdpConfig.CodeFlowConfig?
        for change in changes {
            switch change {
            case .appleSignInConfig(let apple): (wholeNamed, whole) = (true, apple)
            case .appleBundleIds(let ids): (setBundleIds, bundleIds) = (true, ids)
            case .appleCodeFlow(let flow): (setCodeFlow, codeFlow) = (true, flow)
            default: break
            }
        }
        if wholeNamed, whole == nil, config.kind == .apple {
            throw HearthAPIError(.invalidConfig, "appleSignInConfig needs bundleIds or codeFlowConfig")
        }
        if !setBundleIds, let ids = whole?.bundleIds { (setBundleIds, bundleIds) = (true, ids) }
        if !setCodeFlow, let flow = whole?.codeFlowConfig { (setCodeFlow, codeFlow) = (true, flow) }
        if setBundleIds || setCodeFlow || wholeNamed {
            try applyAppleSignInConfig(.init(bundleIds: bundleIds, codeFlowConfig: codeFlow), setBundleIds: setBundleIds, setCodeFlow: setCodeFlow,
                                       to: &config)
        }
    }

    /// Whether `changes` set `appleSignInConfig.codeFlowConfig` (the team id, key id and `.p8`, or clear them):
    /// named, or held by a whole `appleSignInConfig`.
    static func setsAppleCodeFlow(_ changes: [ProviderSettingChange]) -> Bool {
        changes.contains { change in
            switch change {
            case .appleCodeFlow: true
            case .appleSignInConfig(let apple): apple?.codeFlowConfig != nil
            default: false
            }
        }
    }
}
