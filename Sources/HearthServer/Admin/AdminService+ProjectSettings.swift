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
                          phoneNumber: .init(enabled: config.phoneSignInEnabled,
                                             testPhoneNumbers: config.testPhoneNumbers.isEmpty ? nil : config.testPhoneNumbers),
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
            blockingFunctions: config.blockingFunctions ?? BlockingFunctionsConfig(),
            smsRegionConfig: config.smsRegionConfig,
            sms: Self.smsResource(config))
    }

    /// Hearth's `sms` as the admin API shows it: every value in force (defaults filled in), the reCAPTCHA secret only
    /// as `secretKeySet`.
    static func smsResource(_ config: ProjectConfig) -> SmsSettings {
        let settings = config.smsSettings
        return SmsSettings(dailyBudget: settings.effectiveDailyBudget, perNumberPerHour: settings.effectivePerNumberPerHour,
                           perAddressPerHour: settings.effectivePerAddressPerHour,
                           appVerificationDisabled: settings.appVerificationDisabled ?? false,
                           recaptcha: .init(secretKeySet: settings.hasRecaptchaSecret, verifyUrl: settings.effectiveVerifyUrl,
                                            minScore: settings.effectiveMinScore))
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
        case .phoneSignIn(let on): config.phoneSignInEnabled = on
        case .testPhoneNumbers(let numbers): config.testPhoneNumbers = try Self.checkedTestPhoneNumbers(numbers)
        case .smsRegionConfig(let policy): config.smsRegionConfig = try Self.checkedRegionConfig(policy)
        case .smsDailyBudget, .smsPerNumberPerHour, .smsPerAddressPerHour, .smsAppVerificationDisabled, .smsRecaptchaSecretKey,
             .smsRecaptchaVerifyUrl, .smsRecaptchaMinScore:
            let updated = try updatedSms(config.sms ?? SmsSettings(), change)
            config.sms = updated == SmsSettings() ? nil : updated
        }
    }

    // MARK: Phone and SMS (issue 40)

    /// `signIn.phoneNumber.testPhoneNumbers`, checked: each number parsed to E.164 (the one parser), each code six
    /// ASCII digits, no number twice, at most ten (Firebase's limit).
    static func checkedTestPhoneNumbers(_ numbers: [String: String]) throws -> [String: String] {
        let limit = AdminProjectConfig.PhoneNumberConfig.maximumTestPhoneNumbers
        guard numbers.count <= limit else {
            throw HearthAPIError(.invalidConfig, "signIn.phoneNumber.testPhoneNumbers holds at most \(limit) numbers (\(numbers.count) given); remove some first")
        }
        var checked: [String: String] = [:]
        for (number, code) in numbers.sorted(by: { $0.key < $1.key }) {
            let shown = String(number.withoutControlCharacters.prefix(40))
            let e164: String
            do throws(PhoneNumberError) {
                e164 = try PhoneNumber.parse(number)
            } catch {
                throw HearthAPIError(.invalidConfig, "signIn.phoneNumber.testPhoneNumbers: \(shown) is not a phone number: \(error.detail)")
            }
            guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw HearthAPIError(.invalidConfig, "signIn.phoneNumber.testPhoneNumbers: the code of \(e164) must be 6 digits (0-9), such as 123456")
            }
            guard checked[e164] == nil else {
                throw HearthAPIError(.invalidConfig, "signIn.phoneNumber.testPhoneNumbers: \(e164) is given twice (written differently)")
            }
            checked[e164] = code
        }
        return checked
    }

    /// `smsRegionConfig`, checked: one of `allowByDefault` and `allowlistOnly`, two-letter region codes that some
    /// calling code belongs to (upper-cased), at most 300; neither member (or nil): every region.
    static func checkedRegionConfig(_ policy: SmsRegionConfig?) throws -> SmsRegionConfig? {
        guard let policy else { return nil }
        func regions(_ list: [String]?, _ field: String) throws -> [String] {
            let list = list ?? []
            guard list.count <= 300 else { throw HearthAPIError(.invalidConfig, "smsRegionConfig.\(field) holds at most 300 regions") }
            var seen: [String] = []
            for region in list {
                let code = region.uppercased()
                guard code.count == 2, PhoneNumber.isValidRegionCode(code) else {
                    throw HearthAPIError(.invalidConfig, "smsRegionConfig.\(field): \(String(region.withoutControlCharacters.prefix(20))) is not a region code: use two-letter ISO 3166 codes such as US, GB, DE")
                }
                if !seen.contains(code) { seen.append(code) }
            }
            return seen
        }
        switch (policy.allowByDefault, policy.allowlistOnly) {
        case (nil, nil): return nil
        case (.some, .some):
            throw HearthAPIError(.invalidConfig, "smsRegionConfig takes one of allowByDefault and allowlistOnly, not both")
        case (let allow?, nil):
            return SmsRegionConfig(allowByDefault: .init(disallowedRegions: try regions(allow.disallowedRegions, "allowByDefault.disallowedRegions")))
        case (nil, let only?):
            return SmsRegionConfig(allowlistOnly: .init(allowedRegions: try regions(only.allowedRegions, "allowlistOnly.allowedRegions")))
        }
    }

    /// Hearth's `sms` with one change applied, checked: the budget 0…10 000 000 (0 stops sending), the hourly limits
    /// 1…1000 per number and 1…100 000 per address, the reCAPTCHA secret one line of at most 512 printable
    /// characters, the verify URL https (http only to a loopback host under `--dev`), the score 0…1.
    func updatedSms(_ current: SmsSettings, _ change: ProjectSettingChange) throws -> SmsSettings {
        var sms = current
        var recaptcha = sms.recaptcha ?? SmsSettings.Recaptcha()
        func limit(_ value: Int?, _ range: ClosedRange<Int>, _ field: String, _ meaning: String) throws -> Int? {
            guard let value else { return nil }
            guard range.contains(value) else {
                throw HearthAPIError(.invalidConfig, "sms.\(field) must be between \(range.lowerBound) and \(range.upperBound) (\(meaning)); \(value) given")
            }
            return value
        }
        switch change {
        case .smsDailyBudget(let value):
            sms.dailyBudget = try limit(value, 0...10_000_000, "dailyBudget", "SMS per UTC day; 0 stops sending")
        case .smsPerNumberPerHour(let value):
            sms.perNumberPerHour = try limit(value, 1...1000, "perNumberPerHour", "codes sent to one number per hour")
        case .smsPerAddressPerHour(let value):
            sms.perAddressPerHour = try limit(value, 1...100_000, "perAddressPerHour", "codes sent for one client address per hour")
        case .smsAppVerificationDisabled(let off):
            sms.appVerificationDisabled = off == true ? true : nil
        case .smsRecaptchaSecretKey(let secret):
            let secret = secret.flatMap { $0.isEmpty ? nil : $0 }
            if let secret, secret.count > 512 || secret.contains(where: { $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
                throw HearthAPIError(.invalidConfig, "sms.recaptcha.secretKey must be the reCAPTCHA secret key: one word of at most 512 characters")
            }
            recaptcha.secretKey = secret
        case .smsRecaptchaVerifyUrl(let url):
            let url = url.flatMap { $0.isEmpty ? nil : $0 }
            if let url, let problem = Self.verifyURLProblem(url, development: configuration.blockingFunctions.development) {
                throw HearthAPIError(.invalidConfig, "sms.recaptcha.verifyUrl: \(problem)")
            }
            recaptcha.verifyUrl = url
        case .smsRecaptchaMinScore(let score):
            if let score, !(0...1).contains(score) || score.isNaN {
                throw HearthAPIError(.invalidConfig, "sms.recaptcha.minScore must be between 0 and 1 (reCAPTCHA's scores: 1 is very likely a person)")
            }
            recaptcha.minScore = score
        default: break
        }
        recaptcha.secretKeySet = nil
        sms.recaptcha = recaptcha == SmsSettings.Recaptcha() ? nil : recaptcha
        return sms
    }

    /// What is wrong with a reCAPTCHA verification URL, nil when nothing: an absolute https URL without user info
    /// or fragment, at most 2048 characters; http only to a loopback host when the server runs with `--dev`.
    static func verifyURLProblem(_ text: String, development: Bool) -> String? {
        guard text.count <= 2048, !text.contains(where: { $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }),
              let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { return "\(String(text.withoutControlCharacters.prefix(100))) is not a URL: give the https:// URL of a siteverify endpoint" }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            return "the URL must hold no user name, password or #fragment (the secret goes in the form, as reCAPTCHA takes it)"
        }
        let loopback = ["localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.")
        switch scheme {
        case "https": return nil
        case "http" where loopback && development: return nil
        case "http" where loopback:
            return "http:// is accepted only for a loopback host when the server runs with --dev; use https://"
        default: return "the URL must be https:// (http:// only to a loopback host when the server runs with --dev)"
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

    /// `mfa` with one change applied, checked: `enabledProviders` PHONE_SMS or none, TOTP's config with
    /// `adjacentIntervals` 0…10, no MANDATORY.
    static func updatedMFA(_ current: MultiFactorAuthConfig?, _ change: ProjectSettingChange) throws -> MultiFactorAuthConfig {
        var mfa = current ?? MultiFactorAuthConfig(state: .disabled)
        switch change {
        case .multiFactorState(let state):
            if state == .mandatory {
                throw HearthAPIError(.invalidConfig, "mfa.state MANDATORY is not supported: Hearth asks for a second factor of every user who enrolled one; use ENABLED")
            }
            mfa.state = state == .unspecified ? nil : state
        case .multiFactorEnabledProviders(let providers):
            // Firebase's one provider here is SMS (`PHONE_SMS`, issue 40); TOTP is enabled in mfa.providerConfigs.
            if let other = providers.first(where: { $0 != MultiFactorAuthConfig.phoneSMSProvider }) {
                throw HearthAPIError(.invalidConfig, "mfa.enabledProviders takes PHONE_SMS only (SMS as a second factor); \(String(other.withoutControlCharacters.prefix(40))) is not one: enable TOTP in mfa.providerConfigs")
            }
            mfa.enabledProviders = providers.isEmpty ? nil : [MultiFactorAuthConfig.phoneSMSProvider]
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
