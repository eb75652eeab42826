import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire

extension AdminService {
    // MARK: Project configuration

    /// The leaf fields of `projects/{p}/config` Hearth can change, by update-mask path.
    static let configLeaves = [
        "signIn.email.enabled", "signIn.email.passwordRequired", "signIn.anonymous.enabled", "signIn.allowDuplicateEmails",
        "authorizedDomains", "emailPrivacyConfig.enableImprovedEmailPrivacy",
        "client.permissions.disabledUserSignup", "client.permissions.disabledUserDeletion",
        "notification.sendEmail.appName", "notification.sendEmail.callbackUri",
        "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs",
        "passkeys.enabled", "passkeys.rpId", "passkeys.allowedOrigins", "passkeys.userVerification",
    ] + EmailTemplates.Kind.allCases.map { "notification.sendEmail.\($0.configField)" }

    /// `GET /v2/projects/{p}/config`.
    public func projectConfigResource() async throws -> AdminProjectConfig {
        let config = try await scope.config()
        let hash = configuration.passwordParameters
        return AdminProjectConfig(
            name: "projects/\(config.projectId)/config",
            signIn: .init(email: .init(enabled: config.passwordSignInEnabled, passwordRequired: !config.emailLinkSignInEnabled),
                          anonymous: .init(enabled: config.anonymousSignInEnabled),
                          phoneNumber: .init(enabled: false),
                          allowDuplicateEmails: config.allowDuplicateEmails,
                          hashConfig: .init(algorithm: "STANDARD_SCRYPT", rounds: hash.blockSize, memoryCost: hash.cost.trailingZeroBitCount)),
            authorizedDomains: config.authorizedDomains,
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: config.emailEnumerationProtection),
            client: .init(permissions: .init(disabledUserSignup: config.userSignupDisabled,
                                             disabledUserDeletion: config.userDeletionDisabled)),
            notification: .init(sendEmail: sendEmailResource(config), defaultLocale: "en"),
            mfa: config.mfa ?? MultiFactorAuthConfig(state: .disabled),
            passkeys: PasskeyConfig(enabled: config.passkeysEnabled,
                                    rpId: AccountService.passkeyRPId(config, publicURL: configuration.publicURL.url),
                                    allowedOrigins: config.passkeys?.allowedOrigins ?? [],
                                    userVerification: config.passkeys?.userVerification ?? "REQUIRED"))
    }

    /// `notification.sendEmail` with every template filled in (defaults included, `customized` set).
    func sendEmailResource(_ config: ProjectConfig) -> AdminProjectConfig.SendEmailConfig {
        var resource = AdminProjectConfig.SendEmailConfig(method: configuration.mail.transport == nil ? "DEFAULT" : "CUSTOM_SMTP",
                                                          callbackUri: config.sendEmail?.callbackUri, appName: config.sendEmail?.appName)
        for kind in EmailTemplates.Kind.allCases { EmailTemplates.set(EmailTemplates.template(kind, in: config.sendEmail), kind, in: &resource) }
        return resource
    }

    /// `PATCH /v2/projects/{p}/config?updateMask=a.b,c`: each path (or a parent of leaves) is set from the body,
    /// absent values reset to their defaults. Without a mask, the fields present in the body are updated.
    public func updateProjectConfig(body: JSONValue, updateMask: String?, by principal: AdminPrincipal) async throws -> AdminProjectConfig {
        guard case .object = body else { throw HearthAPIError(.invalidJSONPayload, "the body must be a config object") }
        var paths: [String]
        if let updateMask, !updateMask.isEmpty {
            paths = updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            paths = Self.leafPaths(in: body)
        }
        var leaves: [String] = []
        for path in paths where path != "name" {
            let matching = Self.configLeaves.filter { $0 == path || $0.hasPrefix(path + ".") }
            guard !matching.isEmpty else {
                throw HearthAPIError(.invalidUpdateMask, "Hearth cannot change '\(path)'; it supports \(Self.configLeaves.joined(separator: ", "))")
            }
            leaves.append(contentsOf: matching)
        }
        var config = try await scope.config()
        for leaf in leaves {
            let value = Self.value(at: leaf, in: body)
            func bool(_ defaultValue: Bool) throws -> Bool {
                switch value {
                case nil, .null?: return defaultValue
                case .bool(let flag)?: return flag
                default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a boolean")
                }
            }
            switch leaf {
            case "signIn.email.enabled": config.passwordSignInEnabled = try bool(false)
            case "signIn.email.passwordRequired": config.emailLinkSignInEnabled = !(try bool(true))
            case "notification.sendEmail.appName", "notification.sendEmail.callbackUri":
                let text: String?
                switch value {
                case nil, .null?: text = nil
                case .string(let string)?: text = string.isEmpty ? nil : string
                default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a string")
                }
                var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
                if leaf.hasSuffix("appName") {
                    if let text, text.count > 100 || text.contains(where: \.isNewline) { throw HearthAPIError(.invalidConfig, "appName must be one line of at most 100 characters") }
                    sendEmail.appName = text
                } else {
                    if let text, ActionLinks.checkContinueURL(text, authorizedDomains: [URLComponents(string: text)?.host ?? ""], appSchemes: []) != nil
                        || !(text.hasPrefix("https://") || text.hasPrefix("http://")) {
                        throw HearthAPIError(.invalidConfig, "callbackUri must be an http(s) URL of your own action handler")
                    }
                    sendEmail.callbackUri = text
                }
                config.sendEmail = sendEmail
            case "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs":
                config.mfa = try Self.updatedMFA(config.mfa, leaf: leaf, value: value)
            case "passkeys.enabled", "passkeys.rpId", "passkeys.allowedOrigins", "passkeys.userVerification":
                config.passkeys = try updatedPasskeys(config.passkeys, leaf: leaf, value: value)
            case "signIn.anonymous.enabled": config.anonymousSignInEnabled = try bool(false)
            case "signIn.allowDuplicateEmails": config.allowDuplicateEmails = try bool(false)
            case "emailPrivacyConfig.enableImprovedEmailPrivacy": config.emailEnumerationProtection = try bool(false)
            case "client.permissions.disabledUserSignup": config.userSignupDisabled = try bool(false)
            case "client.permissions.disabledUserDeletion": config.userDeletionDisabled = try bool(false)
            case "authorizedDomains":
                switch value {
                case nil, .null?: config.authorizedDomains = []
                case .array(let items)?:
                    let domains = items.compactMap(\.stringValue)
                    guard domains.count == items.count, domains.allSatisfy(Self.isDomain) else {
                        throw HearthAPIError(.invalidConfig, "authorizedDomains must be host names")
                    }
                    config.authorizedDomains = domains
                default: throw HearthAPIError(.invalidConfig, "authorizedDomains must be an array of host names")
                }
            default:
                if let kind = EmailTemplates.Kind.allCases.first(where: { leaf == "notification.sendEmail.\($0.configField)" }) {
                    var template: AdminProjectConfig.EmailTemplate?
                    if let value, value != .null {
                        do {
                            template = try JSONDecoder().decode(AdminProjectConfig.EmailTemplate.self, from: WireJSON.encoder.encode(value))
                        } catch {
                            throw HearthAPIError(.invalidConfig, "'\(leaf)' must be an email template object (subject, body, bodyFormat, senderDisplayName, senderLocalPart, replyTo)")
                        }
                    }
                    if let template, let problem = EmailTemplates.problem(with: template) { throw HearthAPIError(.invalidConfig, "\(leaf): \(problem)") }
                    template?.customized = nil
                    var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
                    EmailTemplates.set(template, kind, in: &sendEmail)
                    config.sendEmail = sendEmail
                }
            }
        }
        try await store.saveProjectConfig(config)
        try await audit(principal, "config.update", target: "projects/\(config.projectId)/config", detail: leaves.joined(separator: ","))
        return try await projectConfigResource()
    }

    /// `mfa` with one leaf set from the body (absent: its default), checked: TOTP only, `adjacentIntervals` 0…10.
    static func updatedMFA(_ current: MultiFactorAuthConfig?, leaf: String, value: JSONValue?) throws -> MultiFactorAuthConfig {
        var mfa = current ?? MultiFactorAuthConfig(state: .disabled)
        func decode<T: Decodable>(_ type: T.Type, _ expected: String) throws -> T? {
            guard let value, value != .null else { return nil }
            do {
                return try JSONDecoder().decode(T.self, from: WireJSON.encoder.encode(value))
            } catch {
                throw HearthAPIError(.invalidConfig, "'\(leaf)' must be \(expected)")
            }
        }
        switch leaf {
        case "mfa.state":
            let state = try decode(MultiFactorState.self, "ENABLED or DISABLED")
            if state == .mandatory {
                throw HearthAPIError(.invalidConfig, "mfa.state MANDATORY is not supported: Hearth asks for a second factor of every user who enrolled one; use ENABLED")
            }
            mfa.state = state == .unspecified ? nil : state
        case "mfa.enabledProviders":
            let providers = try decode([String].self, "an array of provider names") ?? []
            if !providers.isEmpty {
                throw HearthAPIError(.invalidConfig, "mfa.enabledProviders (\(providers.joined(separator: ", ").prefix(80))) is for SMS, which Hearth does not support; enable TOTP in mfa.providerConfigs")
            }
            mfa.enabledProviders = nil
        default:
            let configs = try decode([MultiFactorAuthConfig.ProviderConfig].self,
                                     "an array of provider configs ({state, totpProviderConfig: {adjacentIntervals}})") ?? []
            guard configs.count <= 1 else { throw HearthAPIError(.invalidConfig, "mfa.providerConfigs holds one entry: TOTP's") }
            for provider in configs {
                guard let totp = provider.totpProviderConfig else {
                    throw HearthAPIError(.invalidConfig, "each mfa.providerConfigs entry needs totpProviderConfig (TOTP is the only provider)")
                }
                if let intervals = totp.adjacentIntervals, !TOTP.adjacentIntervalRange.contains(intervals) {
                    throw HearthAPIError(.invalidConfig, "totpProviderConfig.adjacentIntervals must be between 0 and 10 (each is 30 seconds of clock skew allowed either way)")
                }
                if provider.state == .mandatory { throw HearthAPIError(.invalidConfig, "a provider's state is ENABLED or DISABLED") }
            }
            mfa.providerConfigs = configs.isEmpty ? nil : configs
        }
        return mfa
    }

    /// `passkeys` with one leaf set from the body (absent: its default), checked: the rp id is the server's host
    /// or a parent domain of it (the passkey page runs on the server's origin), origins are the rp id's.
    func updatedPasskeys(_ current: PasskeyConfig?, leaf: String, value: JSONValue?) throws -> PasskeyConfig {
        var passkeys = current ?? PasskeyConfig()
        let publicHost = AccountService.publicHost(configuration.publicURL.url)
        switch leaf {
        case "passkeys.enabled":
            switch value {
            case nil, .null?: passkeys.enabled = nil
            case .bool(let flag)?: passkeys.enabled = flag
            default: throw HearthAPIError(.invalidConfig, "'passkeys.enabled' must be a boolean")
            }
        case "passkeys.rpId":
            switch value {
            case nil, .null?: passkeys.rpId = nil
            case .string(let text)?:
                let rpId = text.lowercased()
                if rpId.isEmpty { passkeys.rpId = nil; break }
                guard Self.isDomain(rpId), !AuthorizedDomains.isAddressLiteral(rpId), !rpId.hasPrefix("."), !rpId.hasSuffix(".") else {
                    throw HearthAPIError(.invalidConfig, "passkeys.rpId must be a domain name (an IP address cannot be an rp id)")
                }
                guard publicHost == rpId || publicHost.hasSuffix("." + rpId) else {
                    throw HearthAPIError(.invalidConfig, "passkeys.rpId \(rpId) must be this server's host (\(publicHost)) or a parent domain of it: the passkey page runs on the server's origin")
                }
                passkeys.rpId = rpId
            default: throw HearthAPIError(.invalidConfig, "'passkeys.rpId' must be a string")
            }
        case "passkeys.allowedOrigins":
            switch value {
            case nil, .null?: passkeys.allowedOrigins = nil
            case .array(let items)?:
                let origins = items.compactMap(\.stringValue)
                guard origins.count == items.count, origins.count <= 50 else {
                    throw HearthAPIError(.invalidConfig, "passkeys.allowedOrigins must be an array of at most 50 origins")
                }
                let rpId = passkeys.rpId ?? publicHost
                for origin in origins {
                    if origin.hasPrefix("android:apk-key-hash:"), origin.count < 200, !origin.contains(where: \.isWhitespace) { continue }
                    guard let components = URLComponents(string: origin), let scheme = components.scheme, let host = components.host?.lowercased(),
                          AccountService.origin(of: origin) == origin, components.path.isEmpty, components.query == nil,
                          scheme == "https" || (scheme == "http" && host == "localhost")
                    else {
                        throw HearthAPIError(.invalidConfig, "passkeys.allowedOrigins: \(origin.prefix(100)) is not an origin (https://host[:port], lowercase, no path; http only for localhost)")
                    }
                    guard host == rpId || host.hasSuffix("." + rpId) else {
                        throw HearthAPIError(.invalidConfig, "passkeys.allowedOrigins: \(origin.prefix(100)) is not on the rp id \(rpId) or a subdomain of it: browsers refuse such ceremonies")
                    }
                }
                passkeys.allowedOrigins = origins.isEmpty ? nil : origins
            default: throw HearthAPIError(.invalidConfig, "'passkeys.allowedOrigins' must be an array of origins")
            }
        default:
            switch value {
            case nil, .null?: passkeys.userVerification = nil
            case .string(let text)? where ["REQUIRED", "PREFERRED"].contains(text.uppercased()): passkeys.userVerification = text.uppercased()
            default: throw HearthAPIError(.invalidConfig, "passkeys.userVerification is REQUIRED (biometrics or a PIN each time) or PREFERRED")
            }
        }
        return passkeys
    }

    static func isDomain(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") }
    }

    static func value(at path: String, in body: JSONValue) -> JSONValue? {
        var current: JSONValue? = body
        for part in path.split(separator: ".") {
            guard case .object(let object)? = current else { return nil }
            current = object[String(part)]
        }
        return current
    }

    static func leafPaths(in value: JSONValue, prefix: String = "") -> [String] {
        guard case .object(let object) = value else { return prefix.isEmpty ? [] : [prefix] }
        return object.keys.sorted().flatMap { key -> [String] in
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            if case .object = object[key]!, path != "authorizedDomains", !configLeaves.contains(path) { return leafPaths(in: object[key]!, prefix: path) }
            return [path]
        }
    }

    /// `GET /emulator/v1/projects/{p}/config`.
    public func emulatorConfig() async throws -> EmulatorConfig {
        let config = try await scope.config()
        return EmulatorConfig(signIn: .init(allowDuplicateEmails: config.allowDuplicateEmails),
                              emailPrivacyConfig: .init(enableImprovedEmailPrivacy: config.emailEnumerationProtection))
    }

    /// `PATCH /emulator/v1/projects/{p}/config`: only the fields present change.
    public func updateEmulatorConfig(_ body: EmulatorConfig, by principal: AdminPrincipal) async throws -> EmulatorConfig {
        var config = try await scope.config()
        var changed: [String] = []
        if let allow = body.signIn?.allowDuplicateEmails {
            config.allowDuplicateEmails = allow
            changed.append("signIn.allowDuplicateEmails")
        }
        if let privacy = body.emailPrivacyConfig?.enableImprovedEmailPrivacy {
            config.emailEnumerationProtection = privacy
            changed.append("emailPrivacyConfig.enableImprovedEmailPrivacy")
        }
        try await store.saveProjectConfig(config)
        try await audit(principal, "config.update", target: "projects/\(config.projectId)/config", detail: changed.joined(separator: ","))
        return try await emulatorConfig()
    }

    // MARK: Built-in providers (defaultSupportedIdpConfigs)

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

    func defaultIdpResource(_ config: IdPConfig) -> DefaultSupportedIdpConfig {
        DefaultSupportedIdpConfig(name: "projects/\(configuration.projectId)/defaultSupportedIdpConfigs/\(config.providerId)",
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

    static func checkDefaultIdpId(_ idpId: String?) throws -> (String, IdPKind) {
        guard let idpId, !idpId.isEmpty else { throw HearthAPIError(.invalidProviderIdAdmin, "give idpId (microsoft.com, yahoo.com, apple.com or google.com)") }
        guard let entry = defaultSupportedIdps[idpId] else {
            throw HearthAPIError(.invalidProviderIdAdmin, "Hearth federates microsoft.com, yahoo.com, apple.com and google.com as built-in providers, not \(idpId); use oauthIdpConfigs for other OpenID providers")
        }
        return (idpId, entry.kind)
    }

    static func checkURL(_ url: String?, _ field: String) throws {
        guard let url else { return }
        guard let components = URLComponents(string: url), ["https", "http"].contains(components.scheme ?? ""), components.host != nil else {
            throw HearthAPIError(.invalidConfig, "\(field) must be an http(s) URL")
        }
    }

    public func createDefaultIdpConfig(idpId: String?, _ body: DefaultSupportedIdpConfig, by principal: AdminPrincipal) async throws -> DefaultSupportedIdpConfig {
        let (providerId, kind) = try Self.checkDefaultIdpId(idpId)
        if try await store.idpConfig(providerId: providerId) != nil {
            throw HearthAPIError(.configurationExists, "\(providerId) is configured already: PATCH it")
        }
        var draft = IdPConfig(
            providerId: providerId, kind: kind, enabled: body.enabled ?? true, clientId: body.clientId ?? "", clientSecret: body.clientSecret ?? "",
            endpointBase: body.endpointBase, graphBase: body.graphBase, allowedEntraTenants: body.allowedTenants)
        try Self.applyAppleFields(body, fields: nil, to: &draft)
        draft.allowedHostedDomains = body.allowedHostedDomains
        var config = try Self.checkedProvider(draft)
        try Self.applyVaultFields(tokenVault: body.tokenVault, nativeClientIds: body.nativeClientIds, to: &config)
        try await store.saveIdPConfig(config)
        try await audit(principal, "defaultSupportedIdpConfigs.create", target: providerId, detail: Self.fieldNames(of: body))
        return defaultIdpResource(config)
    }

    public func defaultIdpConfig(_ idpId: String) async throws -> DefaultSupportedIdpConfig {
        let (providerId, _) = try Self.checkDefaultIdpId(idpId)
        guard let config = try await store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        return defaultIdpResource(config)
    }

    public func listDefaultIdpConfigs(pageSize: String?, pageToken: String?) async throws -> DefaultSupportedIdpConfigList {
        let configs = try await store.idpConfigs().filter { Self.defaultSupportedIdps[$0.providerId] != nil }
        let (page, next) = try Self.page(configs, pageSize: pageSize, pageToken: pageToken)
        return DefaultSupportedIdpConfigList(configs: page.map(defaultIdpResource), nextPageToken: next)
    }

    public func updateDefaultIdpConfig(_ idpId: String, _ body: DefaultSupportedIdpConfig, updateMask: String?, by principal: AdminPrincipal) async throws -> DefaultSupportedIdpConfig {
        let (providerId, _) = try Self.checkDefaultIdpId(idpId)
        guard var config = try await store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        let fields = try Self.maskFields(updateMask, body: body, allowed: [
            "enabled", "clientId", "clientSecret", "endpointBase", "graphBase", "allowedTenants", "tokenVault", "nativeClientIds",
            "appleSignInConfig", "appleSignInConfig.bundleIds", "appleSignInConfig.codeFlowConfig", "allowedHostedDomains",
        ])
        if config.kind == .apple {
            // Apple's secret is the code flow's key: moving the endpoints needs it again. Only an update that sets
            // the code flow counts (the key given, or the code flow cleared); a whole `appleSignInConfig` holding
            // bundle ids alone keeps the stored key, so it does not (issue 35, item 10).
            let keyGiven = Self.setsAppleCodeFlow(body, fields: fields)
            try Self.requireSecretWhenEndpointMoves(fields.filter { !$0.hasPrefix("appleSignInConfig") && $0 != "clientSecret" } + (keyGiven ? ["clientSecret"] : []),
                                                    secretName: "appleSignInConfig.codeFlowConfig")
        } else {
            try Self.requireSecretWhenEndpointMoves(fields)
        }
        try Self.applyAppleFields(body, fields: fields, to: &config)
        for field in fields {
            switch field {
            case "clientSecret" where config.kind == .apple:
                throw HearthAPIError(.invalidConfig, "apple.com has no client secret: Hearth mints it from appleSignInConfig.codeFlowConfig.privateKey")
            case "clientId" where config.kind == .apple && (body.clientId ?? "").isEmpty:
                config.clientId = "" // native sign-in only; checkedProvider below refuses it with a code-flow key
            case "allowedHostedDomains":
                config.allowedHostedDomains = try Self.checkHostedDomains(body.allowedHostedDomains, kind: config.kind)
            case "enabled", "clientId", "clientSecret":
                try Self.applyCredentialField(field, enabled: body.enabled, clientId: body.clientId, clientSecret: body.clientSecret, to: &config)
            case "endpointBase":
                try Self.checkURL(body.endpointBase, "endpointBase")
                config.endpointBase = body.endpointBase
            case "graphBase":
                try Self.checkURL(body.graphBase, "graphBase")
                config.graphBase = body.graphBase
            case "allowedTenants":
                config.allowedEntraTenants = try Self.checkAllowedEntraTenants(body.allowedTenants, kind: config.kind)
            case "tokenVault": config.tokenVault = body.tokenVault ?? true
            case "nativeClientIds": try Self.applyVaultFields(tokenVault: nil, nativeClientIds: body.nativeClientIds ?? [], to: &config)
            default: break
            }
        }
        if config.kind == .apple || config.kind == .google { config = try Self.checkedProvider(config) }
        try await saveProviderConfig(config)
        try await audit(principal, "defaultSupportedIdpConfigs.update", target: providerId, detail: fields.joined(separator: ","))
        return defaultIdpResource(config)
    }

    public func deleteIdpConfig(_ providerId: String, action: String, by principal: AdminPrincipal) async throws -> EmptyResponse {
        guard try await store.deleteIdPConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        // The provider's kept tokens go with its settings.
        try await store.deleteProviderTokens(providerId: providerId)
        try await audit(principal, action, target: providerId)
        return EmptyResponse()
    }

    // MARK: OpenID providers (oauthIdpConfigs)

    func oauthResource(_ config: IdPConfig) -> OAuthIdpConfig {
        OAuthIdpConfig(name: "projects/\(configuration.projectId)/oauthIdpConfigs/\(config.providerId)", clientId: config.clientId,
                       clientSecret: nil, issuer: config.issuer, displayName: config.displayName, enabled: config.enabled,
                       responseType: .init(code: true, idToken: false), tokenVault: config.keepsProviderTokens,
                       nativeClientIds: config.nativeClientIds ?? [])
    }

    static func checkOIDCId(_ id: String?) throws -> String {
        guard let id, !id.isEmpty else { throw HearthAPIError(.invalidProviderIdAdmin, "give oauthIdpConfigId (oidc.<name>)") }
        guard IdPConfig.kind(forProviderId: id) == .oidc else {
            throw HearthAPIError(.invalidProviderIdAdmin, "an OpenID provider id is oidc.<letters, digits, - or _>")
        }
        return id
    }

    public func createOAuthIdpConfig(id: String?, _ body: OAuthIdpConfig, by principal: AdminPrincipal) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        if try await store.idpConfig(providerId: providerId) != nil {
            throw HearthAPIError(.configurationExists, "\(providerId) is configured already: PATCH it")
        }
        var config = try Self.checkedProvider(IdPConfig(
            providerId: providerId, kind: .oidc, enabled: body.enabled ?? true, clientId: body.clientId ?? "", clientSecret: body.clientSecret ?? "",
            issuer: body.issuer, displayName: body.displayName))
        try Self.applyVaultFields(tokenVault: body.tokenVault, nativeClientIds: body.nativeClientIds, to: &config)
        try await store.saveIdPConfig(config)
        try await audit(principal, "oauthIdpConfigs.create", target: providerId, detail: Self.fieldNames(of: body))
        return oauthResource(config)
    }

    public func oauthIdpConfig(_ id: String) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        guard let config = try await store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        return oauthResource(config)
    }

    public func listOAuthIdpConfigs(pageSize: String?, pageToken: String?) async throws -> OAuthIdpConfigList {
        let configs = try await store.idpConfigs().filter { $0.kind == .oidc }
        let (page, next) = try Self.page(configs, pageSize: pageSize, pageToken: pageToken)
        return OAuthIdpConfigList(configs: page.map(oauthResource), nextPageToken: next)
    }

    public func updateOAuthIdpConfig(_ id: String, _ body: OAuthIdpConfig, updateMask: String?, by principal: AdminPrincipal) async throws -> OAuthIdpConfig {
        let providerId = try Self.checkOIDCId(id)
        guard var config = try await store.idpConfig(providerId: providerId) else { throw HearthAPIError(.configurationNotFound) }
        let fields = try Self.maskFields(updateMask, body: body, allowed: [
            "enabled", "clientId", "clientSecret", "issuer", "displayName", "responseType", "responseType.code", "responseType.idToken",
            "tokenVault", "nativeClientIds",
        ])
        try Self.requireSecretWhenEndpointMoves(fields)
        for field in fields {
            switch field {
            case "enabled", "clientId", "clientSecret":
                try Self.applyCredentialField(field, enabled: body.enabled, clientId: body.clientId, clientSecret: body.clientSecret, to: &config)
            case "issuer":
                guard let issuer = body.issuer, !issuer.isEmpty else { throw HearthAPIError(.missingIssuer) }
                try Self.checkURL(issuer, "issuer")
                config.issuer = issuer
            case "displayName": config.displayName = body.displayName
            case "tokenVault": config.tokenVault = body.tokenVault ?? true
            case "nativeClientIds": try Self.applyVaultFields(tokenVault: nil, nativeClientIds: body.nativeClientIds ?? [], to: &config)
            default:
                // responseType: Hearth always uses the code flow.
                if body.responseType?.code == false {
                    throw HearthAPIError(.invalidConfig, "Hearth signs in with the authorization code flow: responseType.code stays true")
                }
            }
        }
        try await saveProviderConfig(config)
        try await audit(principal, "oauthIdpConfigs.update", target: providerId, detail: fields.joined(separator: ","))
        return oauthResource(config)
    }

    // MARK: Helpers

    /// Saves a provider's settings; with the token vault turned off, the tokens it kept for the provider go too.
    func saveProviderConfig(_ config: IdPConfig) async throws {
        try await store.saveIdPConfig(config)
        if !config.keepsProviderTokens { try await store.deleteProviderTokens(providerId: config.providerId) }
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

    /// The stored secret goes to the token endpoint: moving that endpoint (issuer, endpointBase, graphBase) without
    /// giving the secret again would let a caller send the write-only secret to a server of their choice.
    /// A client id from a request: `MISSING_OAUTH_CLIENT_ID` when absent, `INVALID_CONFIG` unless it passes
    /// ``IdPConfig/checkedClientId(_:)`` (the console's and the CLI's rule too).
    static func clientId(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw HearthAPIError(.missingOAuthClientId) }
        guard let clientId = IdPConfig.checkedClientId(raw) else { throw HearthAPIError(.invalidConfig, IdPConfig.clientIdProblem) }
        return clientId
    }

    /// The fields both provider kinds share: `enabled`, a non-empty `clientId`, a non-empty (write-only) `clientSecret`.
    static func applyCredentialField(_ field: String, enabled: Bool?, clientId: String?, clientSecret: String?,
                                     to config: inout IdPConfig) throws {
        switch field {
        case "enabled": config.enabled = enabled ?? false
        case "clientId":
            config.clientId = try Self.clientId(clientId)
        default:
            guard let clientSecret, !clientSecret.isEmpty else { throw HearthAPIError(.missingOAuthClientSecret) }
            config.clientSecret = clientSecret
        }
    }

    static func requireSecretWhenEndpointMoves(_ fields: [String], secretName: String = "clientSecret") throws {
        let moves = fields.filter { ["issuer", "endpointBase", "graphBase"].contains($0) }
        if !moves.isEmpty, !fields.contains("clientSecret") {
            throw HearthAPIError(.invalidConfig, "changing \(moves.joined(separator: ", ")) changes where Hearth sends the client secret: give \(secretName) in the same update")
        }
    }

    /// The `appleSignInConfig` parts a create (`fields` nil: whatever the body has) or an update names: the whole
    /// object sets the parts it holds; `appleSignInConfig.bundleIds` / `.codeFlowConfig` set (or clear) that part.
    /// A client secret given for `apple.com` is refused (Hearth mints it).
    static func applyAppleFields(_ body: DefaultSupportedIdpConfig, fields: [String]?, to config: inout IdPConfig) throws {
        guard let fields else {
            if config.kind == .apple, !(body.clientSecret ?? "").isEmpty {
                throw HearthAPIError(.invalidConfig, "apple.com has no client secret: Hearth mints it from appleSignInConfig.codeFlowConfig.privateKey")
            }
            if body.appleSignInConfig != nil || config.kind == .apple {
                try applyAppleSignInConfig(body.appleSignInConfig, setBundleIds: true, setCodeFlow: true, to: &config)
            }
            return
        }
        let whole = fields.contains("appleSignInConfig")
        let setBundleIds = fields.contains("appleSignInConfig.bundleIds") || (whole && body.appleSignInConfig?.bundleIds != nil)
        let setCodeFlow = setsAppleCodeFlow(body, fields: fields)
        if whole, body.appleSignInConfig == nil, config.kind == .apple {
            throw HearthAPIError(.invalidConfig, "appleSignInConfig needs bundleIds or codeFlowConfig")
        }
        if setBundleIds || setCodeFlow || whole {
            try applyAppleSignInConfig(body.appleSignInConfig, setBundleIds: setBundleIds, setCodeFlow: setCodeFlow, to: &config)
        }
    }

    /// Whether an update of `fields` sets `appleSignInConfig.codeFlowConfig` (the team id, key id and `.p8`, or
    /// clears them): named in the mask, or held by a whole `appleSignInConfig` the mask names.
    static func setsAppleCodeFlow(_ body: DefaultSupportedIdpConfig, fields: [String]) -> Bool {
        fields.contains("appleSignInConfig.codeFlowConfig") || (fields.contains("appleSignInConfig") && body.appleSignInConfig?.codeFlowConfig != nil)
    }

    /// The fields to update: the mask's, checked against `allowed`; without a mask, those present in the body.
    static func maskFields(_ updateMask: String?, body: some Encodable, allowed: Set<String>) throws -> [String] {
        let fields: [String]
        if let updateMask, !updateMask.isEmpty {
            fields = updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            let data = try JSONEncoder().encode(body)
            let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            fields = object.keys.filter { $0 != "name" }.sorted()
        }
        if let unknown = fields.first(where: { !allowed.contains($0) }) {
            throw HearthAPIError(.invalidUpdateMask, "'\(unknown)' cannot be updated; the fields are \(allowed.sorted().joined(separator: ", "))")
        }
        return fields
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
