import Foundation

/// Wire types of Identity Platform's tenant resource, `identitytoolkit.projects.tenants` (v2):
/// `POST/GET …/v2/projects/{p}/tenants`, `GET/PATCH/DELETE …/v2/projects/{p}/tenants/{t}`.

/// One tenant, `projects/{p}/tenants/{t}`: the fields Hearth honours. A create or patch body is read with
/// ``decodeBody(_:)``, which refuses every other field by name rather than dropping it; a patch's fields are chosen
/// by ``updatePaths(updateMask:body:)``.
public struct Tenant: Codable, Sendable, Equatable {
    /// `projects/{projectId}/tenants/{tenantId}` (output only: accepted in a body and ignored). The SDKs read the
    /// tenant id from its last segment.
    public var name: String?
    /// The tenant's display name: a letter, then letters, digits or hyphens, 4 to 20 characters in all (the rule the
    /// Admin SDKs check). Required on create; need not be unique.
    public var displayName: String?
    /// Email/password sign-up and sign-in allowed (off for a new tenant).
    public var allowPasswordSignup: Bool?
    /// Email-link (passwordless) sign-in allowed (off for a new tenant).
    public var enableEmailLinkSignin: Bool?
    /// Anonymous sign-up allowed (off for a new tenant).
    public var enableAnonymousUser: Bool?
    /// Nobody signs in to the tenant and its users cannot be managed (off for a new tenant).
    public var disableAuth: Bool?
    /// Second factors for the tenant's users (TOTP); absent until set, which is off.
    public var mfaConfig: MultiFactorAuthConfig?

    /// A tenant resource.
    public init(name: String? = nil, displayName: String? = nil, allowPasswordSignup: Bool? = nil,
                enableEmailLinkSignin: Bool? = nil, enableAnonymousUser: Bool? = nil, disableAuth: Bool? = nil,
                mfaConfig: MultiFactorAuthConfig? = nil) {
        self.name = name
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.mfaConfig = mfaConfig
    }

    /// `projects/{projectId}/tenants/{tenantId}`.
    public static func resourceName(projectId: String, tenantId: String) -> String {
        "projects/\(projectId)/tenants/\(tenantId)"
    }

    /// The top-level fields a create or patch may set, in the order the API documents them.
    public static let settableFields = ["displayName", "allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser",
                                        "disableAuth", "mfaConfig"]

    /// The `updateMask` paths Hearth can change: the settable fields, and `mfaConfig`'s own fields (the SDKs build
    /// their masks from the leaves they send, e.g. `mfaConfig.providerConfigs,mfaConfig.state`).
    public static let updateMaskPaths = settableFields + ["mfaConfig.state", "mfaConfig.enabledProviders", "mfaConfig.providerConfigs"]

    /// Fields of Identity Platform's tenant that Hearth cannot honour, with the reason: refused by name.
    public static let unsupportedFields: [String: String] = [
        "testPhoneNumbers": "a tenant's users use the project's test phone numbers (set them with hearth project sms test-numbers)",
        "smsRegionConfig": "a tenant's users use the project's SMS region policy (set it with hearth project sms set)",
        "recaptchaConfig": "Hearth has no reCAPTCHA integration",
        "passwordPolicyConfig": "the password policy is the project's, for every tenant",
        "emailPrivacyConfig": "email enumeration protection is the project's setting, for every tenant",
        "inheritance": "email templates and SMTP are the project's, for every tenant",
        "client": "user-action permissions are the project's setting, for every tenant",
        "autodeleteAnonymousUsers": "Hearth does not delete anonymous users on a schedule",
        "monitoring": "Hearth has no per-tenant request logging setting (metrics are the server's)",
        "mobileLinksConfig": "email-action links are the project's, for every tenant",
        "hashConfig": "it is output only (Hearth hashes every password with standard scrypt)",
    ]

    /// The fields of `mfaConfig` and of each of its `providerConfigs`.
    static let mfaFields: Set<String> = ["state", "enabledProviders", "providerConfigs"]
    static let mfaProviderFields: Set<String> = ["state", "totpProviderConfig"]
    static let totpFields: Set<String> = ["adjacentIntervals"]

    /// What a tenant has, for messages.
    static var fieldList: String { (["name"] + settableFields).joined(separator: ", ") }

    /// Reads a create or patch body. Refuses (``TenantWireError``): a body that is not a JSON object
    /// (`INVALID_JSON_PAYLOAD`); a field of Identity Platform's tenant that Hearth cannot honour, a field a tenant
    /// does not have (the emulator's `tenantId` included) and a value of the wrong type (`INVALID_ARGUMENT`, naming the
    /// field). Values are not range-checked here (the display name's rule is ``TenantDisplayName/check(_:)``).
    public static func decodeBody(_ body: JSONValue) throws -> Tenant {
        guard case .object(let object) = body else {
            throw TenantWireError(.invalidJSONPayload, "the body must be a tenant object ({\"displayName\": …, \"allowPasswordSignup\": …})")
        }
        var tenant = Tenant()
        for key in object.keys.sorted() {
            let value = object[key]!
            switch key {
            case "name": tenant.name = try string(value, field: key)
            case "displayName": tenant.displayName = try string(value, field: key)
            case "allowPasswordSignup": tenant.allowPasswordSignup = try bool(value, field: key)
            case "enableEmailLinkSignin": tenant.enableEmailLinkSignin = try bool(value, field: key)
            case "enableAnonymousUser": tenant.enableAnonymousUser = try bool(value, field: key)
            case "disableAuth": tenant.disableAuth = try bool(value, field: key)
            case "mfaConfig": tenant.mfaConfig = try multiFactor(value)
            default: throw refusal(field: key)
            }
        }
        return tenant
    }

    /// The fields a `PATCH` changes: with an `updateMask`, its paths (each one of ``updateMaskPaths``, else
    /// `INVALID_UPDATE_MASK` naming it; `name` is skipped, repeats are dropped); without one, the settable fields
    /// present in the body, `null` included (Hearth's rule for every config resource, where Google's would reset the
    /// rest). A path named but absent or null in the body resets that field to its default. `body` is the raw body,
    /// read by ``decodeBody(_:)`` first.
    public static func updatePaths(updateMask: String?, body: JSONValue) throws -> [String] {
        var paths: [String] = []
        if let updateMask, !updateMask.trimmingCharacters(in: .whitespaces).isEmpty {
            for part in updateMask.split(separator: ",") {
                let path = part.trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty, path != "name" else { continue }
                guard updateMaskPaths.contains(path) else {
                    let top = String(path.prefix { $0 != "." })
                    let reason = unsupportedFields[top].map { " (\($0))" } ?? (settableFields.contains(top) ? "" : ": a tenant has no such field")
                    throw TenantWireError(.invalidUpdateMask, "Hearth cannot change a tenant's '\(shown(path))'\(reason); it can change \(updateMaskPaths.joined(separator: ", "))")
                }
                if !paths.contains(path) { paths.append(path) }
            }
        } else if case .object(let object) = body {
            paths = settableFields.filter { object[$0] != nil }
        }
        return paths
    }

    // MARK: - Reading values

    static func refusal(field: String) -> TenantWireError {
        if let reason = unsupportedFields[field] {
            return TenantWireError(.invalidArgument, "Hearth does not support '\(field)' on a tenant: \(reason); remove it from the request")
        }
        if field == "tenantId" {
            return TenantWireError(.invalidArgument, "'tenantId' is not a field of a tenant: the id is the last segment of 'name' and of the URL, chosen by the server on create")
        }
        return TenantWireError(.invalidArgument, "'\(shown(field))' is not a field of a tenant; a tenant has \(fieldList)")
    }

    static func string(_ value: JSONValue, field: String) throws -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw TenantWireError(.invalidArgument, "'\(field)' must be a string")
        }
    }

    static func bool(_ value: JSONValue, field: String) throws -> Bool? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        default: throw TenantWireError(.invalidArgument, "'\(field)' must be true or false")
        }
    }

    /// `mfaConfig`: `{state, enabledProviders, providerConfigs: [{state, totpProviderConfig: {adjacentIntervals}}]}`,
    /// every other field refused by its path.
    static func multiFactor(_ value: JSONValue) throws -> MultiFactorAuthConfig? {
        switch value {
        case .null: return nil
        case .object(let object):
            for key in object.keys.sorted() where !mfaFields.contains(key) {
                throw TenantWireError(.invalidArgument, "'mfaConfig.\(shown(key))' is not a field of a tenant's mfaConfig; it has state, enabledProviders and providerConfigs")
            }
            if case .array(let providers)? = object["providerConfigs"] {
                for (index, provider) in providers.enumerated() {
                    guard case .object(let fields) = provider else {
                        throw TenantWireError(.invalidArgument, "'mfaConfig.providerConfigs[\(index)]' must be an object ({state, totpProviderConfig: {adjacentIntervals}})")
                    }
                    for key in fields.keys.sorted() where !mfaProviderFields.contains(key) {
                        throw TenantWireError(.invalidArgument, "'mfaConfig.providerConfigs[\(index)].\(shown(key))' is not a field of a second-factor provider; it has state and totpProviderConfig (Hearth's only non-SMS factor is TOTP)")
                    }
                    if case .object(let totp)? = fields["totpProviderConfig"] {
                        for key in totp.keys.sorted() where !totpFields.contains(key) {
                            throw TenantWireError(.invalidArgument, "'mfaConfig.providerConfigs[\(index)].totpProviderConfig.\(shown(key))' is not a field of totpProviderConfig; it has adjacentIntervals")
                        }
                    }
                }
            }
            do {
                return try JSONDecoder().decode(MultiFactorAuthConfig.self, from: JSONEncoder().encode(value))
            } catch {
                throw TenantWireError(.invalidArgument, "'mfaConfig' must be {\"state\": \"ENABLED\"|\"DISABLED\", \"enabledProviders\": [strings], \"providerConfigs\": [{\"state\": \"ENABLED\"|\"DISABLED\", \"totpProviderConfig\": {\"adjacentIntervals\": 0…10}}]}")
            }
        default:
            throw TenantWireError(.invalidArgument, "'mfaConfig' must be an object ({state, enabledProviders, providerConfigs})")
        }
    }

    /// A field name as quoted in a message: at most 64 characters, no control or format characters.
    static func shown(_ name: String) -> String {
        let visible = String(String.UnicodeScalarView(name.unicodeScalars.filter {
            $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
        }))
        return visible.count > 64 ? String(visible.prefix(64)) + "…" : visible
    }
}

/// A page of tenants: `GET …/v2/projects/{p}/tenants?pageSize=&pageToken=` (`tenants` absent when there are none;
/// `nextPageToken` absent on the last page).
public struct ListTenantsResponse: Codable, Sendable, Equatable {
    public var tenants: [Tenant]?
    public var nextPageToken: String?

    /// A page.
    public init(tenants: [Tenant], nextPageToken: String?) {
        self.tenants = tenants.isEmpty ? nil : tenants
        self.nextPageToken = nextPageToken
    }
}

/// A refusal of a tenant request at the wire: the error string and the message (the server answers it with the
/// Google error envelope).
public struct TenantWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error string, e.g. `INVALID_ARGUMENT`.
    public let code: ServerErrorCode
    /// What is wrong and what to do; never holds a secret.
    public let detail: String

    /// A refusal.
    public init(_ code: ServerErrorCode, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue) : \(detail)" }
}

/// The tenant display-name rule the Admin SDKs check (firebase-admin-python's `_validate_display_name`): a letter,
/// then letters, digits or hyphens, 4 to 20 characters in all.
public enum TenantDisplayName {
    /// The rule, as said in messages.
    public static let rule = "a tenant's displayName starts with a letter and has 4 to 20 letters (a–z, A–Z), digits or hyphens"

    /// Whether `name` follows the rule.
    public static func isValid(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard (4...20).contains(scalars.count), let first = scalars.first, isLetter(first) else { return false }
        return scalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// `name` if it follows the rule; else `INVALID_DISPLAY_NAME` saying the rule (a missing name included).
    public static func check(_ name: String?) throws -> String {
        guard let name else { throw TenantWireError(.invalidDisplayName, "a tenant needs a displayName: \(rule)") }
        guard isValid(name) else { throw TenantWireError(.invalidDisplayName, "\"\(Tenant.shown(name))\" is not a valid name: \(rule)") }
        return name
    }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
}
