import Foundation
import HearthWire

/// A tenant's own settings (Identity Platform's tenant flags and second factors), laid over the project's
/// configuration in the tenant's scope. Everything else (signing keys, authorized domains, email templates, apps,
/// passkey relying party, email enumeration protection, password policy) is the project's. Stored as JSON: fields
/// added later decode to their defaults.
public struct TenantSettings: Sendable, Equatable, Codable {
    /// Email/password sign-up and sign-in allowed (`allowPasswordSignup`). Off for a new tenant.
    public var allowPasswordSignup: Bool
    /// Email-link (passwordless) sign-in allowed (`enableEmailLinkSignin`). Off for a new tenant.
    public var enableEmailLinkSignin: Bool
    /// Anonymous sign-up allowed (`enableAnonymousUser`). Off for a new tenant.
    public var enableAnonymousUser: Bool
    /// Nobody signs in to the tenant and its users cannot be managed (`disableAuth`). Off for a new tenant.
    public var disableAuth: Bool
    /// Second factors (`mfaConfig`): nil until set, which is off.
    public var mfa: MultiFactorAuthConfig?

    /// Settings; the defaults are a new tenant's (Identity Platform's): every sign-in method off.
    public init(allowPasswordSignup: Bool = false, enableEmailLinkSignin: Bool = false, enableAnonymousUser: Bool = false,
                disableAuth: Bool = false, mfa: MultiFactorAuthConfig? = nil) {
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.mfa = mfa
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        allowPasswordSignup = try c.decodeIfPresent(Bool.self, forKey: .allowPasswordSignup) ?? false
        enableEmailLinkSignin = try c.decodeIfPresent(Bool.self, forKey: .enableEmailLinkSignin) ?? false
        enableAnonymousUser = try c.decodeIfPresent(Bool.self, forKey: .enableAnonymousUser) ?? false
        disableAuth = try c.decodeIfPresent(Bool.self, forKey: .disableAuth) ?? false
        mfa = try c.decodeIfPresent(MultiFactorAuthConfig.self, forKey: .mfa)
    }
}

/// An Identity Platform tenant: an isolated pool of users inside the project, with its own sign-in settings and
/// identity providers (`projects/{p}/tenants/{id}`).
public struct TenantRecord: Sendable, Equatable, Codable {
    /// The tenant id, in Identity Platform's form (``newId(displayName:)``); see ``isValidId(_:)``.
    public var id: String
    /// The display name (``TenantDisplayName``); need not be unique.
    public var displayName: String
    /// The tenant's own settings.
    public var settings: TenantSettings
    /// When the tenant was created.
    public var createdAt: Date

    /// A tenant.
    public init(id: String, displayName: String, settings: TenantSettings = TenantSettings(), createdAt: Date) {
        self.id = id
        self.displayName = displayName
        self.settings = settings
        self.createdAt = createdAt
    }

    // MARK: - Ids

    /// The characters of a new id's random suffix.
    static let suffixAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    /// A new tenant id in Identity Platform's form: the display name in lower case (other characters than `a-z`,
    /// `0-9` and `-` become `-`; at most 20; `tenant` if it does not start with a letter), `-`, and 5 random
    /// characters of `a-z0-9` — e.g. `acme-corp-x7k2p` for "Acme-Corp". The caller retries on the rare clash with
    /// an existing id.
    public static func newId(displayName: String) -> String {
        "\(idPrefix(displayName: displayName))-\(RandomID.string(count: 5, from: suffixAlphabet))"
    }

    /// The display-name part of a new id.
    static func idPrefix(displayName: String) -> String {
        let mapped = displayName.lowercased().unicodeScalars.prefix(20).map { scalar -> Character in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" ? Character(scalar) : "-"
        }
        guard let first = mapped.first, ("a"..."z").contains(first) else { return "tenant" }
        return String(mapped)
    }

    /// Whether `id` can be a tenant id: 4 to 32 characters of `a-z`, `0-9` and `-`, starting with a letter and not
    /// ending with `-` (every id ``newId(displayName:)`` makes, and Identity Platform's). Anything else names no
    /// tenant, so it is refused before the store is asked.
    public static func isValidId(_ id: String) -> Bool {
        let scalars = Array(id.unicodeScalars)
        guard (4...32).contains(scalars.count), let first = scalars.first, let last = scalars.last,
              ("a"..."z").contains(first), last != "-" else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    // MARK: - The wire

    /// A tenant made from a create body (``Tenant/decodeBody(_:)``): the display name is required and checked
    /// (`INVALID_DISPLAY_NAME`, a ``TenantWireError``); flags absent from the body are off. `id` defaults to a new
    /// ``newId(displayName:)``.
    public static func creating(_ body: Tenant, id: String? = nil, at createdAt: Date) throws -> TenantRecord {
        let displayName = try TenantDisplayName.check(body.displayName)
        let settings = TenantSettings(allowPasswordSignup: body.allowPasswordSignup ?? false,
                                      enableEmailLinkSignin: body.enableEmailLinkSignin ?? false,
                                      enableAnonymousUser: body.enableAnonymousUser ?? false,
                                      disableAuth: body.disableAuth ?? false, mfa: body.mfaConfig)
        return TenantRecord(id: id ?? newId(displayName: displayName), displayName: displayName, settings: settings, createdAt: createdAt)
    }

    /// This tenant changed by a patch: each of `paths` (``Tenant/updatePaths(updateMask:body:)``) set from `body`,
    /// or reset to its default when the body has no value for it. The display name cannot be removed, and a new
    /// one is checked (`INVALID_DISPLAY_NAME`, a ``TenantWireError``).
    public func patched(with body: Tenant, paths: [String]) throws -> TenantRecord {
        var record = self
        var settings = record.settings
        for path in paths {
            switch path {
            case "displayName": record.displayName = try TenantDisplayName.check(body.displayName)
            case "allowPasswordSignup": settings.allowPasswordSignup = body.allowPasswordSignup ?? false
            case "enableEmailLinkSignin": settings.enableEmailLinkSignin = body.enableEmailLinkSignin ?? false
            case "enableAnonymousUser": settings.enableAnonymousUser = body.enableAnonymousUser ?? false
            case "disableAuth": settings.disableAuth = body.disableAuth ?? false
            case "mfaConfig": settings.mfa = body.mfaConfig
            case "mfaConfig.state":
                settings.mfa = Self.multiFactor(settings.mfa) { $0.state = body.mfaConfig?.state }
            case "mfaConfig.enabledProviders":
                settings.mfa = Self.multiFactor(settings.mfa) { $0.enabledProviders = body.mfaConfig?.enabledProviders }
            case "mfaConfig.providerConfigs":
                settings.mfa = Self.multiFactor(settings.mfa) { $0.providerConfigs = body.mfaConfig?.providerConfigs }
            default:
                throw TenantWireError(.invalidUpdateMask, "Hearth cannot change a tenant's '\(String(path.withoutControlCharacters.prefix(64)))'; it can change \(Tenant.updateMaskPaths.joined(separator: ", "))")
            }
        }
        record.settings = settings
        return record
    }

    /// `mfa` with one field changed; nil when nothing is left set.
    static func multiFactor(_ mfa: MultiFactorAuthConfig?, _ change: (inout MultiFactorAuthConfig) -> Void) -> MultiFactorAuthConfig? {
        var config = mfa ?? MultiFactorAuthConfig(state: nil)
        change(&config)
        return config == MultiFactorAuthConfig(state: nil) ? nil : config
    }

    /// The resource the API answers: `name`, the display name, every flag written out, `mfaConfig` when set.
    public func resource(projectId: String) -> Tenant {
        Tenant(name: Tenant.resourceName(projectId: projectId, tenantId: id), displayName: displayName,
               allowPasswordSignup: settings.allowPasswordSignup, enableEmailLinkSignin: settings.enableEmailLinkSignin,
               enableAnonymousUser: settings.enableAnonymousUser, disableAuth: settings.disableAuth, mfaConfig: settings.mfa)
    }
}
