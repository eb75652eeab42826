import Foundation
import HearthCore
import HearthStore
import HearthWire

/// The project's settings (`projects/{p}/config`): shown as the admin API's resource, changed through typed
/// ``ProjectSettingChange``s. The admin API's update mask is read at the HTTP edge (``ProjectConfigWire``); the
/// console and the CLI build the changes themselves. Whoever asks, each value passes the same checks and the write is
/// audited as one `config.update`.
extension AdminService {
    /// `GET /v2/projects/{p}/config`: the settings of the scope's project as the admin API shows them.
    public func projectConfigResource(in scope: Scope) async throws -> AdminProjectConfig {
        projectConfigResource(try await scope.config())
    }

    /// The admin API's view of `config`.
    func projectConfigResource(_ config: ProjectConfig) -> AdminProjectConfig {
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
                                    userVerification: config.passkeys?.userVerification ?? "REQUIRED"),
            blockingFunctions: config.blockingFunctions ?? BlockingFunctionsConfig())
    }

    /// `notification.sendEmail` with every template filled in (defaults included, `customized` set).
    func sendEmailResource(_ config: ProjectConfig) -> AdminProjectConfig.SendEmailConfig {
        var resource = AdminProjectConfig.SendEmailConfig(method: configuration.mail.transport == nil ? "DEFAULT" : "CUSTOM_SMTP",
                                                          callbackUri: config.sendEmail?.callbackUri, appName: config.sendEmail?.appName)
        for kind in EmailTemplates.Kind.allCases { EmailTemplates.set(EmailTemplates.template(kind, in: config.sendEmail), kind, in: &resource) }
        return resource
    }

    /// Applies `changes` to the scope's project settings in their order, each checked (`INVALID_CONFIG` with what to
    /// fix; nothing is saved then), saves them, and audits them as one `config.update` whose detail lists their
    /// paths. An empty list saves the settings as they are (and is audited so). Returns the saved settings, which
    /// the scope sees from then on.
    @discardableResult
    public func updateProjectSettings(_ changes: [ProjectSettingChange], by principal: AdminPrincipal, in scope: Scope) async throws -> ProjectConfig {
        // A tenant's scope reads the project's settings with the tenant's flags laid over them: saving that would
        // give the project the tenant's flags. A tenant's own settings change on the tenant (`tenants.patch`).
        if let tenant = scope.tenantId {
            throw HearthAPIError(.operationNotAllowed, "project settings cannot be changed in tenant \"\(Scope.shown(tenant))\": change the tenant's own settings with PATCH …/tenants/\(Scope.shown(tenant)) (hearth tenants update)")
        }
        var config = try await scope.config()
        for change in changes { try apply(change, to: &config) }
        try await scope.store.saveProjectConfig(config)
        scope.replaceConfig(config)
        try await audit(principal, "config.update", target: "projects/\(config.projectId)/config",
                        detail: changes.map(\.path).joined(separator: ","), in: scope)
        return config
    }

    /// One change, checked, applied to `config`.
    func apply(_ change: ProjectSettingChange, to config: inout ProjectConfig) throws {
        switch change {
        case .passwordSignIn(let on): config.passwordSignInEnabled = on
        case .emailLinkSignIn(let on): config.emailLinkSignInEnabled = on
        case .anonymousSignIn(let on): config.anonymousSignInEnabled = on
        case .allowDuplicateEmails(let on): config.allowDuplicateEmails = on
        case .emailEnumerationProtection(let on): config.emailEnumerationProtection = on
        case .userSignupDisabled(let on): config.userSignupDisabled = on
        case .userDeletionDisabled(let on): config.userDeletionDisabled = on
        case .authorizedDomains(let domains):
            guard domains.allSatisfy(Self.isDomain) else { throw HearthAPIError(.invalidConfig, "authorizedDomains must be host names") }
            config.authorizedDomains = domains
        case .emailAppName(let name):
            let text = name.flatMap { $0.isEmpty ? nil : $0 }
            if let text, text.count > 100 || text.contains(where: \.isNewline) {
                throw HearthAPIError(.invalidConfig, "appName must be one line of at most 100 characters")
            }
            var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
            sendEmail.appName = text
            config.sendEmail = sendEmail
        case .emailCallbackURI(let uri):
            let text = uri.flatMap { $0.isEmpty ? nil : $0 }
            if let text, ActionLinks.checkContinueURL(text, authorizedDomains: [URLComponents(string: text)?.host ?? ""], appSchemes: []) != nil
                || !(text.hasPrefix("https://") || text.hasPrefix("http://")) {
                throw HearthAPIError(.invalidConfig, "callbackUri must be an http(s) URL of your own action handler")
            }
            var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
            sendEmail.callbackUri = text
            config.sendEmail = sendEmail
        case .emailTemplate(let kind, let template):
            if let template, let problem = EmailTemplates.problem(with: template) { throw HearthAPIError(.invalidConfig, "\(change.path): \(problem)") }
            var stored = template
            stored?.customized = nil
            var sendEmail = config.sendEmail ?? AdminProjectConfig.SendEmailConfig()
            EmailTemplates.set(stored, kind, in: &sendEmail)
            config.sendEmail = sendEmail
        case .multiFactorState, .multiFactorEnabledProviders, .multiFactorProviderConfigs:
            config.mfa = try Self.updatedMFA(config.mfa, change)
        case .passkeysEnabled, .passkeyRpId, .passkeyAllowedOrigins, .passkeyUserVerification:
            config.passkeys = try updatedPasskeys(config.passkeys, change)
        case .blockingFunctionTrigger, .blockingFunctionsForwardIdToken, .blockingFunctionsForwardAccessToken, .blockingFunctionsForwardRefreshToken:
            let updated = try updatedBlockingFunctions(config.blockingFunctions, change)
            config.blockingFunctions = updated.isEmpty ? nil : updated
        }
    }

    /// `blockingFunctions` with one change applied, checked: a function URL passes ``BlockingFunctionURLPolicy``
    /// (https; http only for a loopback host under `--dev`; no private, loopback or link-local address unless
    /// `hooks.allow.private.networks`; no user info, fragment, control characters; at most 2048 characters) and
    /// gets `updateTime` now. A host name's addresses are checked before every call.
    func updatedBlockingFunctions(_ current: BlockingFunctionsConfig?, _ change: ProjectSettingChange) throws -> BlockingFunctionsConfig {
        var functions = current ?? BlockingFunctionsConfig()
        var forward = functions.forwardInboundCredentials ?? .init()
        switch change {
        case .blockingFunctionTrigger(let event, let uri):
            guard let uri, !uri.isEmpty else { functions.triggers[event.rawValue] = nil; break }
            if case .failure(let refusal) = BlockingFunctionURLPolicy.check(uri, settings: configuration.blockingFunctions) {
                throw HearthAPIError(.invalidConfig, "blockingFunctions.triggers.\(event.rawValue): \(refusal.message)")
            }
            let stamp = configuration.clock.now().formatted(.iso8601)
            functions.triggers[event.rawValue] = .init(functionUri: uri, updateTime: stamp)
        case .blockingFunctionsForwardIdToken(let on): forward.idToken = on == true ? true : nil
        case .blockingFunctionsForwardAccessToken(let on): forward.accessToken = on == true ? true : nil
        case .blockingFunctionsForwardRefreshToken(let on): forward.refreshToken = on == true ? true : nil
        default: break
        }
        functions.forwardInboundCredentials = forward.isEmpty ? nil : forward
        return functions
    }

    /// `mfa` with one change applied, checked: TOTP only, `adjacentIntervals` 0…10, no MANDATORY.
    static func updatedMFA(_ current: MultiFactorAuthConfig?, _ change: ProjectSettingChange) throws -> MultiFactorAuthConfig {
        var mfa = current ?? MultiFactorAuthConfig(state: .disabled)
        switch change {
        case .multiFactorState(let state):
            if state == .mandatory {
                throw HearthAPIError(.invalidConfig, "mfa.state MANDATORY is not supported: Hearth asks for a second factor of every user who enrolled one; use ENABLED")
            }
            mfa.state = state == .unspecified ? nil : state
        case .multiFactorEnabledProviders(let providers):
            if !providers.isEmpty {
                throw HearthAPIError(.invalidConfig, "mfa.enabledProviders (\(providers.joined(separator: ", ").prefix(80))) is for SMS, which Hearth does not support; enable TOTP in mfa.providerConfigs")
            }
            mfa.enabledProviders = nil
        case .multiFactorProviderConfigs(let configs):
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
        default: break
        }
        return mfa
    }

    /// `passkeys` with one change applied, checked: the rp id is the server's host or a parent domain of it (the
    /// passkey page runs on the server's origin), origins are on the rp id (as set by then) or app origins.
    func updatedPasskeys(_ current: PasskeyConfig?, _ change: ProjectSettingChange) throws -> PasskeyConfig {
        var passkeys = current ?? PasskeyConfig()
        let publicHost = AccountService.publicHost(configuration.publicURL.url)
        switch change {
        case .passkeysEnabled(let enabled):
            passkeys.enabled = enabled
        case .passkeyRpId(let text):
            let rpId = text?.lowercased() ?? ""
            if rpId.isEmpty { passkeys.rpId = nil; break }
            guard Self.isDomain(rpId), !AuthorizedDomains.isAddressLiteral(rpId), !rpId.hasPrefix("."), !rpId.hasSuffix(".") else {
                throw HearthAPIError(.invalidConfig, "passkeys.rpId must be a domain name (an IP address cannot be an rp id)")
            }
            guard publicHost == rpId || publicHost.hasSuffix("." + rpId) else {
                throw HearthAPIError(.invalidConfig, "passkeys.rpId \(rpId) must be this server's host (\(publicHost)) or a parent domain of it: the passkey page runs on the server's origin")
            }
            passkeys.rpId = rpId
        case .passkeyAllowedOrigins(let list):
            guard let origins = list else { passkeys.allowedOrigins = nil; break }
            guard origins.count <= 50 else {
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
        case .passkeyUserVerification(let text):
            guard let text else { passkeys.userVerification = nil; break }
            guard ["REQUIRED", "PREFERRED"].contains(text.uppercased()) else {
                throw HearthAPIError(.invalidConfig, "passkeys.userVerification is REQUIRED (biometrics or a PIN each time) or PREFERRED")
            }
            passkeys.userVerification = text.uppercased()
        default: break
        }
        return passkeys
    }

    /// A host name as `authorizedDomains` and `passkeys.rpId` take it: ASCII letters, digits, '.', '-' (and ':'), 1 to 253 characters.
    static func isDomain(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") }
    }

    // MARK: The Auth emulator's view

    /// `GET /emulator/v1/projects/{p}/config`.
    public func emulatorConfig(in scope: Scope) async throws -> EmulatorConfig {
        let config = try await scope.config()
        return EmulatorConfig(signIn: .init(allowDuplicateEmails: config.allowDuplicateEmails),
                              emailPrivacyConfig: .init(enableImprovedEmailPrivacy: config.emailEnumerationProtection))
    }
}
