import Foundation
import HearthCore
import HearthWire

/// The admin API's project-config writes at the HTTP edge: `PATCH /v2/projects/{p}/config?updateMask=a.b,c` (each
/// path, or a parent of leaves, is set from the body; an absent or null value resets the leaf to its default; without
/// a mask, the leaves present in the body) and the Auth emulator's `PATCH /emulator/v1/projects/{p}/config` (the
/// fields present). Both become typed ``ProjectSettingChange``s for ``AdminService/updateProjectSettings(_:by:in:)``,
/// which checks the values; a value of the wrong JSON type is refused here, `INVALID_CONFIG` naming the leaf.
enum ProjectConfigWire {
    /// The leaf fields of `projects/{p}/config` Hearth can change, by update-mask path.
    static let leaves = [
        "signIn.email.enabled", "signIn.email.passwordRequired", "signIn.anonymous.enabled", "signIn.allowDuplicateEmails",
        "authorizedDomains", "emailPrivacyConfig.enableImprovedEmailPrivacy",
        "client.permissions.disabledUserSignup", "client.permissions.disabledUserDeletion",
        "notification.sendEmail.appName", "notification.sendEmail.callbackUri",
        "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs",
        "passkeys.enabled", "passkeys.rpId", "passkeys.allowedOrigins", "passkeys.userVerification",
        "signIn.phoneNumber.enabled", "signIn.phoneNumber.testPhoneNumbers", "smsRegionConfig",
        "sms.dailyBudget", "sms.perNumberPerHour", "sms.perAddressPerHour", "sms.appVerificationDisabled",
        "sms.recaptcha.secretKey", "sms.recaptcha.verifyUrl", "sms.recaptcha.minScore",
    ] + EmailTemplates.Kind.allCases.map { "notification.sendEmail.\($0.configField)" }
        + BlockingEventType.allCases.map { "blockingFunctions.triggers.\($0.rawValue)" }
        + ["idToken", "accessToken", "refreshToken"].map { "blockingFunctions.forwardInboundCredentials.\($0)" }

    /// The changes a `PATCH …/config` asks for, in the mask's order: `INVALID_JSON_PAYLOAD` unless the body is an
    /// object, `INVALID_UPDATE_MASK` for a path Hearth cannot change, `INVALID_CONFIG` for a value of the wrong type.
    static func changes(body: JSONValue, updateMask: String?) throws -> [ProjectSettingChange] {
        guard case .object = body else { throw HearthAPIError(.invalidJSONPayload, "the body must be a config object") }
        let paths: [String]
        if let updateMask, !updateMask.isEmpty {
            paths = updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            paths = leafPaths(in: body)
        }
        var named: [String] = []
        // Output-only fields a client may send back from a GET (`sms.recaptcha.secretKeySet`) are not changes.
        for path in paths where path != "name" && !outputOnly.contains(path) {
            let matching = leaves.filter { $0 == path || $0.hasPrefix(path + ".") }
            guard !matching.isEmpty else {
                throw HearthAPIError(.invalidUpdateMask, "Hearth cannot change '\(path)'; it supports \(leaves.joined(separator: ", "))")
            }
            named.append(contentsOf: matching)
        }
        // A body read from GET and sent back holds `secretKeySet: true` and no secret: the stored secret stays (an
        // absent secret would otherwise clear it). `"secretKey": ""` or null (with no `secretKeySet`) clears it.
        if value(at: "sms.recaptcha.secretKey", in: body) == nil, value(at: "sms.recaptcha.secretKeySet", in: body) == .bool(true) {
            named.removeAll { $0 == "sms.recaptcha.secretKey" }
        }
        return try named.map { try change(leaf: $0, value: value(at: $0, in: body)) }
    }

    /// Fields the admin API answers but does not take.
    static let outputOnly: Set<String> = ["sms.recaptcha.secretKeySet"]

    /// The changes of the emulator's `PATCH …/config`: the fields present.
    static func changes(emulator body: EmulatorConfig) -> [ProjectSettingChange] {
        var changes: [ProjectSettingChange] = []
        if let allow = body.signIn?.allowDuplicateEmails { changes.append(.allowDuplicateEmails(allow)) }
        if let privacy = body.emailPrivacyConfig?.enableImprovedEmailPrivacy { changes.append(.emailEnumerationProtection(privacy)) }
        return changes
    }

    /// The change that sets `leaf` to `value` (nil: absent from the body).
    static func change(leaf: String, value: JSONValue?) throws -> ProjectSettingChange {
        func bool(_ defaultValue: Bool) throws -> Bool {
            switch value {
            case nil, .null?: return defaultValue
            case .bool(let flag)?: return flag
            default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a boolean")
            }
        }
        func optionalBool() throws -> Bool? {
            switch value {
            case nil, .null?: return nil
            default: return try bool(false)
            }
        }
        func text() throws -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let string)?: return string
            default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a string")
            }
        }
        func strings(notStrings: String, notArray: String) throws -> [String]? {
            switch value {
            case nil, .null?: return nil
            case .array(let items)?:
                let strings = items.compactMap(\.stringValue)
                guard strings.count == items.count else { throw HearthAPIError(.invalidConfig, notStrings) }
                return strings
            default: throw HearthAPIError(.invalidConfig, notArray)
            }
        }
        func integer() throws -> Int? {
            switch value {
            case nil, .null?: return nil
            case .number(let number)? where number == number.rounded() && abs(number) < 1e15: return Int(number)
            case .string(let text)? where Int(text) != nil: return Int(text) // proto int64 fields may travel as strings
            default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a whole number")
            }
        }
        func decode<T: Decodable>(_ type: T.Type, _ expected: String) throws -> T? {
            guard let value, value != .null else { return nil }
            do {
                return try JSONDecoder().decode(T.self, from: WireJSON.encoder.encode(value))
            } catch {
                throw HearthAPIError(.invalidConfig, "'\(leaf)' must be \(expected)")
            }
        }
        switch leaf {
        case "signIn.email.enabled": return .passwordSignIn(try bool(false))
        case "signIn.email.passwordRequired": return .emailLinkSignIn(!(try bool(true)))
        case "signIn.anonymous.enabled": return .anonymousSignIn(try bool(false))
        case "signIn.allowDuplicateEmails": return .allowDuplicateEmails(try bool(false))
        case "emailPrivacyConfig.enableImprovedEmailPrivacy": return .emailEnumerationProtection(try bool(false))
        case "client.permissions.disabledUserSignup": return .userSignupDisabled(try bool(false))
        case "client.permissions.disabledUserDeletion": return .userDeletionDisabled(try bool(false))
        case "authorizedDomains":
            return .authorizedDomains(try strings(notStrings: "authorizedDomains must be host names",
                                                  notArray: "authorizedDomains must be an array of host names") ?? [])
        case "notification.sendEmail.appName": return .emailAppName(try text())
        case "notification.sendEmail.callbackUri": return .emailCallbackURI(try text())
        case "mfa.state": return .multiFactorState(try decode(MultiFactorState.self, "ENABLED or DISABLED"))
        case "mfa.enabledProviders": return .multiFactorEnabledProviders(try decode([String].self, "an array of provider names") ?? [])
        case "mfa.providerConfigs":
            return .multiFactorProviderConfigs(try decode([MultiFactorAuthConfig.ProviderConfig].self,
                                                          "an array of provider configs ({state, totpProviderConfig: {adjacentIntervals}})") ?? [])
        case "passkeys.enabled": return .passkeysEnabled(try optionalBool())
        case "passkeys.rpId": return .passkeyRpId(try text())
        case "passkeys.allowedOrigins":
            return .passkeyAllowedOrigins(try strings(notStrings: "passkeys.allowedOrigins must be an array of at most 50 origins",
                                                      notArray: "'passkeys.allowedOrigins' must be an array of origins"))
        case "blockingFunctions.forwardInboundCredentials.idToken": return .blockingFunctionsForwardIdToken(try optionalBool())
        case "blockingFunctions.forwardInboundCredentials.accessToken": return .blockingFunctionsForwardAccessToken(try optionalBool())
        case "blockingFunctions.forwardInboundCredentials.refreshToken": return .blockingFunctionsForwardRefreshToken(try optionalBool())
        case _ where leaf.hasPrefix("blockingFunctions.triggers."):
            guard let event = BlockingEventType(rawValue: String(leaf.dropFirst("blockingFunctions.triggers.".count))) else {
                throw HearthAPIError(.invalidUpdateMask, "Hearth cannot change '\(leaf)'; the events are \(BlockingEventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            switch value {
            case nil, .null?: return .blockingFunctionTrigger(event, nil)
            case .object(let trigger)?:
                switch trigger["functionUri"] {
                case nil, .null?: return .blockingFunctionTrigger(event, nil)
                case .string(let uri)?: return .blockingFunctionTrigger(event, uri)
                default: throw HearthAPIError(.invalidConfig, "'\(leaf).functionUri' must be a string (the function's https URL)")
                }
            default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be an object {\"functionUri\": \"https://…\"}")
            }
        case "signIn.phoneNumber.enabled": return .phoneSignIn(try bool(false))
        case "signIn.phoneNumber.testPhoneNumbers":
            return .testPhoneNumbers(try decode([String: String].self, "an object of E.164 numbers and their 6-digit codes, {\"+15555550100\": \"123456\"}") ?? [:])
        case "smsRegionConfig":
            return .smsRegionConfig(try decode(SmsRegionConfig.self,
                                               "{\"allowByDefault\": {\"disallowedRegions\": [\"…\"]}} or {\"allowlistOnly\": {\"allowedRegions\": [\"…\"]}}"))
        case "sms.dailyBudget": return .smsDailyBudget(try integer())
        case "sms.perNumberPerHour": return .smsPerNumberPerHour(try integer())
        case "sms.perAddressPerHour": return .smsPerAddressPerHour(try integer())
        case "sms.appVerificationDisabled": return .smsAppVerificationDisabled(try optionalBool())
        case "sms.recaptcha.secretKey": return .smsRecaptchaSecretKey(try text())
        case "sms.recaptcha.verifyUrl": return .smsRecaptchaVerifyUrl(try text())
        case "sms.recaptcha.minScore":
            switch value {
            case nil, .null?: return .smsRecaptchaMinScore(nil)
            case .number(let number)?: return .smsRecaptchaMinScore(number)
            default: throw HearthAPIError(.invalidConfig, "'\(leaf)' must be a number between 0 and 1")
            }
        case "passkeys.userVerification":
            switch value {
            case nil, .null?: return .passkeyUserVerification(nil)
            case .string(let text)?: return .passkeyUserVerification(text)
            default: throw HearthAPIError(.invalidConfig, "passkeys.userVerification is REQUIRED (biometrics or a PIN each time) or PREFERRED")
            }
        default:
            guard let kind = EmailTemplates.Kind.allCases.first(where: { leaf == "notification.sendEmail.\($0.configField)" }) else {
                throw HearthAPIError(.invalidUpdateMask, "Hearth cannot change '\(leaf)'; it supports \(leaves.joined(separator: ", "))")
            }
            return .emailTemplate(kind, try decode(AdminProjectConfig.EmailTemplate.self,
                                                   "an email template object (subject, body, bodyFormat, senderDisplayName, senderLocalPart, replyTo)"))
        }
    }

    static func value(at path: String, in body: JSONValue) -> JSONValue? {
        var current: JSONValue? = body
        for part in path.split(separator: ".") {
            guard case .object(let object)? = current else { return nil }
            current = object[String(part)]
        }
        return current
    }

    /// The leaf paths present in a body (a mask-less update): objects are walked into, except the leaves that are objects.
    static func leafPaths(in value: JSONValue, prefix: String = "") -> [String] {
        guard case .object(let object) = value else { return prefix.isEmpty ? [] : [prefix] }
        return object.keys.sorted().flatMap { key -> [String] in
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            if case .object = object[key]!, path != "authorizedDomains", !leaves.contains(path) { return leafPaths(in: object[key]!, prefix: path) }
            return [path]
        }
    }
}
