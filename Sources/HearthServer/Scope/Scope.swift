import Foundation
import HearthCore
import HearthStore
import HearthWire
import Synchronization

/// What one call acts on: the project, the Identity Platform tenant (or the project's own users), the settings —
/// read from the store at most once per call — and the store bound to the tenant. Resolved once where a request
/// enters (the RPC route, the auth handler, the action pages, the console, the CLI: ``Scopes/resolve(tenantId:)``)
/// and passed down; the services act on a scope, never on ambient configuration.
///
/// A scope is a value made for one call: its settings are a snapshot taken on first use, so the steps of one sign-in
/// see the same settings and read them once.
public struct Scope: Sendable {
    /// The project whose users the call acts on.
    public let projectId: String
    /// The Identity Platform tenant; nil: the project's own users.
    public var tenantId: String? { tenant?.id }
    /// The tenant, as it was when the call began; nil: the project's own users.
    public let tenant: TenantRecord?
    /// The store, bound to the tenant (``HearthStore/bound(toTenant:)``): its user, identity, provider, code and
    /// audit queries see this tenant's rows only.
    public let store: any HearthStore
    /// Where the call came from (the client's address, user agent and locale), set where a request enters; empty for
    /// the CLI, the console and background work. Blocking functions receive it (`ip_address`, `user_agent`, `locale`).
    public var client = ClientFacts()
    private let settings: SettingsOnce

    init(projectId: String, tenant: TenantRecord?, store: any HearthStore, initial: ProjectConfig?) {
        self.projectId = projectId
        self.tenant = tenant
        // The project's scope (most calls) uses the store as it is when it is already the project's.
        self.store = tenant == nil && store.tenantId == nil ? store : store.bound(toTenant: tenant?.id)
        self.settings = SettingsOnce(projectId: projectId, store: store, initial: initial, tenant: tenant?.settings)
    }

    /// The settings, read once per scope: the project's (the stored ones, else the initial ones), with a tenant's
    /// own sign-in flags and second factors laid over them.
    public func config() async throws -> ProjectConfig { try await settings.value() }

    /// The settings after a change this call made (the snapshot is replaced, so later steps see the change).
    func replaceConfig(_ config: ProjectConfig) { settings.replace(config) }

    /// Refuses a tenant named inside a request the scope was resolved for — a custom token's `tenant_id`, an
    /// imported user's `tenantId`, the JS SDK's `tid` — unless it is the scope's own (`TENANT_ID_MISMATCH`).
    public func admit(tenantId named: String?, in place: String = "the request") throws {
        let named = named.flatMap { $0.isEmpty ? nil : $0 }
        guard named != tenantId else { return }
        throw HearthAPIError(.tenantIdMismatch, "\(place) names \(Self.describe(named)), but the request is for \(Self.describe(tenantId))")
    }

    /// The key failed sign-ins of `account` (an email) are counted under: the same address in two tenants is two
    /// accounts, each with its own limit.
    func throttleAccount(_ account: String) -> String {
        tenantId.map { "tenant/\($0)/\(account)" } ?? account
    }

    /// "tenant \"acme-x7k2p\"" or "the project's own users", for messages (quoted safely, at most 64 characters).
    static func describe(_ tenantId: String?) -> String {
        guard let tenantId else { return "the project's own users" }
        return "tenant \"\(shown(tenantId))\""
    }

    static func shown(_ tenant: String) -> String {
        String(String.UnicodeScalarView(tenant.withoutControlCharacters.unicodeScalars.prefix(64)))
    }

    /// `TENANT_NOT_FOUND`, Identity Platform's answer for a tenant that does not exist, saying what to do.
    static func unknownTenant(_ tenant: String, in place: String, projectId: String) -> HearthAPIError {
        HearthAPIError(.tenantNotFound, "\(place) names tenant \"\(shown(tenant))\", which project \(projectId) does not have: check the tenant id (`hearth tenants list`, or the Admin SDKs' tenant manager), or send no tenantId for the project's own users")
    }
}

/// What a request says about its client, for blocking functions (issue 39). Never a secret.
public struct ClientFacts: Sendable, Equatable {
    /// The client's address (after trusted proxies), "" when there is no request.
    public var ipAddress: String
    /// `User-Agent`, at most 512 characters, "" when absent.
    public var userAgent: String
    /// `X-Firebase-Locale` (the client SDKs' language code), nil when absent.
    public var locale: String?

    public init(ipAddress: String = "", userAgent: String = "", locale: String? = nil) {
        self.ipAddress = ipAddress
        self.userAgent = String(String.UnicodeScalarView(userAgent.withoutControlCharacters.unicodeScalars.prefix(512)))
        self.locale = locale.flatMap { text in
            let cut = String(String.UnicodeScalarView(text.withoutControlCharacters.unicodeScalars.prefix(35)))
            return cut.isEmpty ? nil : cut
        }
    }
}

/// Resolves the scope of a call: the one place a request's tenant is decided.
public struct Scopes: Sendable {
    let configuration: HearthServerConfiguration
    let store: any HearthStore

    public init(configuration: HearthServerConfiguration, store: any HearthStore) {
        self.configuration = configuration
        self.store = store.bound(toTenant: nil)
    }

    /// The scope of a call that names `tenantId` (nil or empty: the project's own users): the stored tenant, or
    /// `TENANT_NOT_FOUND` — a tenant is never ignored; a tenant with `disableAuth` is `OPERATION_NOT_ALLOWED` for
    /// every call (RPCs, refresh, the auth handler, the action pages, the CLI's `--tenant`). `place` names where the
    /// request named it, for the message.
    public func resolve(tenantId: String?, in place: String = "the request") async throws -> Scope {
        guard let tenantId, !tenantId.isEmpty else { return project }
        guard TenantRecord.isValidId(tenantId), let tenant = try await store.tenant(id: tenantId) else {
            throw Scope.unknownTenant(tenantId, in: place, projectId: configuration.projectId)
        }
        if tenant.settings.disableAuth {
            throw HearthAPIError(.operationNotAllowed, "tenant \"\(tenant.id)\" has sign-in and user management turned off (disableAuth): turn it back on to use it")
        }
        return Scope(projectId: configuration.projectId, tenant: tenant, store: store, initial: configuration.initialProjectConfig)
    }

    /// The project's own scope (the console, the CLI, background work): never fails.
    public var project: Scope {
        Scope(projectId: configuration.projectId, tenant: nil, store: store, initial: configuration.initialProjectConfig)
    }
}

/// A scope's settings snapshot: read on first use, then kept for the call.
/// The Mutex guards only the cached value; a race of two first reads costs one extra read and both see a stored value.
private final class SettingsOnce: Sendable {
    let projectId: String
    let store: any HearthStore
    let initial: ProjectConfig?
    let tenant: TenantSettings?
    let cached = Mutex<ProjectConfig?>(nil)

    init(projectId: String, store: any HearthStore, initial: ProjectConfig?, tenant: TenantSettings?) {
        self.projectId = projectId
        self.store = store
        self.initial = initial
        self.tenant = tenant
    }

    func value() async throws -> ProjectConfig {
        if let config = cached.withLock({ $0 }) { return config }
        var config = try await store.projectConfig(projectId: projectId) ?? initial ?? ProjectConfig(projectId: projectId)
        if let tenant { config.apply(tenant) }
        cached.withLock { $0 = config }
        return config
    }

    func replace(_ config: ProjectConfig) { cached.withLock { $0 = config } }
}

extension ProjectConfig {
    /// A tenant's own settings laid over the project's: its sign-in methods and second factors. Everything else
    /// (authorized domains, mail, apps, passkeys, enumeration protection) stays the project's.
    mutating func apply(_ tenant: TenantSettings) {
        passwordSignInEnabled = tenant.allowPasswordSignup
        emailLinkSignInEnabled = tenant.enableEmailLinkSignin
        anonymousSignInEnabled = tenant.enableAnonymousUser
        mfa = tenant.mfa
    }
}
