import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire

/// Sign in with Apple's configure page: the services id, team id, key id, the `.p8` key (write-only: uploaded, never
/// shown again) and the bundle ids, saved as the admin API's `appleSignInConfig` is (typed changes: the same checks and errors).
extension ConsoleController {
    func appleProvider(in target: ConsoleScope) async throws -> AppleProviderPage {
        let config = try await target.scope.store.idpConfig(providerId: "apple.com")
        let publicURL = configuration.publicURL.url
        let components = URLComponents(string: publicURL)
        let keyOnFile = Self.appleKeyOnFile(config)
        let httpsWarning = components?.scheme == "https" ? nil
            : "This server's public URL is \(publicURL): Apple accepts only HTTPS return URLs on a verified domain. Serve Hearth at its public HTTPS address (--public-url) before registering it."
        return AppleProviderPage(
            pageTitle: "Configure Apple", returnURL: configuration.publicURL.authHandlerURL, domain: components?.host ?? publicURL,
            httpsWarning: httpsWarning, servicesId: config?.clientId ?? "", teamId: config?.appleTeamId ?? "", keyId: config?.appleKeyId ?? "",
            keyOnFile: keyOnFile,
            keyState: keyOnFile ? "key on file (key ID \(config?.appleKeyId ?? ""))" : "no key on file: native sign-in only",
            bundleIds: (config?.appleBundleIds ?? []).joined(separator: "\n"), enabled: config?.enabled ?? true,
            tokenVault: config?.keepsProviderTokens ?? true, vaultKeys: configuration.providerTokenKeys != nil, canTest: config != nil)
    }

    /// Whether an `apple.com` configuration holds a code-flow key (the `.p8`, kept as the sealed client secret).
    static func appleKeyOnFile(_ config: IdPConfig?) -> Bool {
        guard let config else { return false }
        return config.appleKeyId != nil && !config.clientSecret.isEmpty
    }

    /// Saves the Apple form. The key is the uploaded file's text (read by the page's script) or the pasted PEM; without
    /// one the stored key stays, unless the team or key id changed (the admin API then asks for the key again) or
    /// **Remove the key** was checked.
    func saveApple(_ form: ConsoleForm, by principal: AdminPrincipal, in target: ConsoleScope) async throws {
        let scope = target.scope
        let stored = try await scope.store.idpConfig(providerId: "apple.com")
        let key = form.text("privateKeyFile") ?? form.text("privateKey")
        let teamId = form.text("teamId"), keyId = form.text("keyId")
        let bundleIds = IdPConfig.listEntries(form["bundleIds"] ?? "")
        let tokenVault = form.flag("tokenVault")
        var codeFlow: DefaultSupportedIdpConfig.CodeFlowConfig?
        var setCodeFlow = false
        if let key {
            setCodeFlow = true
            codeFlow = .init(teamId: teamId, keyId: keyId, privateKey: key)
        } else if form.flag("removeKey") {
            setCodeFlow = true
        } else if teamId != stored?.appleTeamId || keyId != stored?.appleKeyId {
            // The ids go with their key (the admin API would otherwise take empty ids as "no key").
            throw HearthAPIError(.invalidConfig, stored?.appleKeyId == nil
                ? "the private key (.p8) is missing: the web flow needs the key with its team ID and key ID"
                : "the private key (.p8) is missing: a new team ID or key ID needs its key, so upload the .p8 again (the key on file is never shown, so it cannot be kept for other IDs); to remove the key, check Remove the key")
        }
        guard stored != nil else {
            let body = DefaultSupportedIdpConfig(
                enabled: form.flag("enabled"), clientId: form.text("clientId") ?? "", tokenVault: tokenVault,
                appleSignInConfig: .init(bundleIds: bundleIds, codeFlowConfig: codeFlow))
            _ = try await service.createDefaultIdpConfig(idpId: "apple.com", body, by: principal, in: scope)
            return
        }
        var changes: [ProviderSettingChange] = [
            .enabled(form.flag("enabled")), .clientId(form.text("clientId") ?? ""), .appleBundleIds(bundleIds), .tokenVault(tokenVault),
        ]
        if setCodeFlow { changes.append(.appleCodeFlow(codeFlow)) }
        try await service.updateDefaultIdpConfig("apple.com", changes, by: principal, in: scope)
    }

    /// The Apple form again after a refused save: what was typed (never the key) and the admin API's message beside
    /// the field it names, in the form's words.
    func appleFormAgain(_ form: ConsoleForm, error: HearthAPIError, in target: ConsoleScope) async throws -> AppleProviderPage {
        var page = try await appleProvider(in: target)
        page.servicesId = form["clientId"] ?? ""
        page.teamId = form["teamId"] ?? ""
        page.keyId = form["keyId"] ?? ""
        page.bundleIds = form["bundleIds"] ?? ""
        page.enabled = form.flag("enabled")
        page.tokenVault = form.flag("tokenVault")
        var message = error.code == .missingOAuthClientId
            ? "the services ID is missing: the web flow's client ID (an identifier of type Services IDs at Apple)"
            : error.detail ?? error.description
        // The wire names become the form's labels (longest first: one name is the prefix of the others).
        for (wire, label) in [
            ("appleSignInConfig.codeFlowConfig (teamId, keyId, privateKey)", "the key (team ID, key ID and .p8)"),
            ("every codeFlowConfig change", "every change of the team ID or key ID"),
            ("appleSignInConfig.codeFlowConfig.privateKey", "the private key (.p8)"),
            ("appleSignInConfig.codeFlowConfig.teamId", "the team ID"), ("appleSignInConfig.codeFlowConfig.keyId", "the key ID"),
            ("appleSignInConfig.codeFlowConfig", "the key (team ID, key ID and .p8)"), ("appleSignInConfig.bundleIds", "the bundle IDs"),
            ("clientId (the services id)", "the services ID"),
        ] {
            message = message.replacingOccurrences(of: wire, with: label)
        }
        message = message.prefix(1).uppercased() + message.dropFirst()
        let lower = message.lowercased()
        let field: WritableKeyPath<AppleProviderPage, String?>? =
            lower.hasPrefix("the private key") || lower.contains("give the .p8") ? \.privateKeyError
            : lower.hasPrefix("the team id") ? \.teamIdError : lower.hasPrefix("the key id") ? \.keyIdError
            : lower.hasPrefix("the bundle ids") ? \.bundleIdsError
            : lower.contains("services id") || lower.contains("client id") || error.code == .missingOAuthClientId ? \.servicesIdError
            : nil
        Self.showRefusal(message, at: field, formError: \.formError, on: &page)
        return page
    }
}
