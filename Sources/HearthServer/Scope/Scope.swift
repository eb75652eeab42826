import Foundation
import HearthCore
import HearthStore
import HearthWire
import Synchronization

/// What one call acts on: the project, the Identity Platform tenant (none yet), the project's settings — read from
/// the store at most once per call — and the store bound to them. Resolved once where a request enters (the RPC
/// route, the auth handler, the action pages, the console, the CLI: ``Scopes/resolve(tenantId:)``) and passed down;
/// the services act on a scope, never on ambient configuration.
///
/// A scope is a value made for one call: its settings are a snapshot taken on first use, so the steps of one sign-in
/// see the same settings and read them once.
public struct Scope: Sendable {
    /// The project whose users the call acts on.
    public let projectId: String
    /// The Identity Platform tenant; nil: the project's own users. Hearth has no tenants yet, so always nil.
    public let tenantId: String?
    /// The store, bound to the project (and, when tenants come, to the tenant).
    public let store: any HearthStore
    private let settings: SettingsOnce

    init(projectId: String, tenantId: String?, store: any HearthStore, initial: ProjectConfig?) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.store = store
        self.settings = SettingsOnce(projectId: projectId, store: store, initial: initial)
    }

    /// The project's settings (the stored ones, else the initial ones), read once per scope.
    public func config() async throws -> ProjectConfig { try await settings.value() }

    /// The settings after a change this call made (the snapshot is replaced, so later steps see the change).
    func replaceConfig(_ config: ProjectConfig) { settings.replace(config) }

    /// Refuses a tenant named inside a request the scope was resolved for — a custom token's `tenant_id`, an
    /// imported user's `tenantId`, the JS SDK's `tid` — unless it is the scope's own. The one rule for every place
    /// a tenant is named; ``Scopes/resolve(tenantId:)`` applies it to the request itself.
    public func admit(tenantId named: String?, in place: String = "the request") throws {
        guard let named, !named.isEmpty, named != tenantId else { return }
        throw Self.unknownTenant(named, in: place, projectId: projectId)
    }

    /// `TENANT_NOT_FOUND`, Identity Platform's answer for a tenant that does not exist, saying what to do.
    static func unknownTenant(_ tenant: String, in place: String, projectId: String) -> HearthAPIError {
        let shown = String(String.UnicodeScalarView(tenant.withoutControlCharacters.unicodeScalars.prefix(64)))
        return HearthAPIError(.tenantNotFound, "\(place) names tenant \"\(shown)\", which project \(projectId) does not have: Hearth serves the project's own users only (Identity Platform tenants are not supported yet). Send no tenantId — in the JS SDK leave auth.tenantId null; in an Admin SDK use auth, not tenant_manager / tenantManager().authForTenant")
    }
}

/// Resolves the scope of a call: the one place a request's `tenantId` is decided.
public struct Scopes: Sendable {
    let configuration: HearthServerConfiguration
    let store: any HearthStore

    public init(configuration: HearthServerConfiguration, store: any HearthStore) {
        self.configuration = configuration
        self.store = store
    }

    /// The scope of a call that names `tenantId` (nil or empty: the project's own users). A tenant is refused here
    /// with `TENANT_NOT_FOUND`, never ignored: Hearth has no tenants yet.
    public func resolve(tenantId: String? = nil) throws -> Scope {
        if let tenantId, !tenantId.isEmpty {
            throw Scope.unknownTenant(tenantId, in: "the request", projectId: configuration.projectId)
        }
        return project
    }

    /// The project's own scope (the console, the CLI, background work): never fails.
    public var project: Scope {
        Scope(projectId: configuration.projectId, tenantId: nil, store: store, initial: configuration.initialProjectConfig)
    }
}

/// A scope's settings snapshot: read on first use, then kept for the call.
/// The Mutex guards only the cached value; a race of two first reads costs one extra read and both see a stored value.
private final class SettingsOnce: Sendable {
    let projectId: String
    let store: any HearthStore
    let initial: ProjectConfig?
    let cached = Mutex<ProjectConfig?>(nil)

    init(projectId: String, store: any HearthStore, initial: ProjectConfig?) {
        self.projectId = projectId
        self.store = store
        self.initial = initial
    }

    func value() async throws -> ProjectConfig {
        if let config = cached.withLock({ $0 }) { return config }
        let config = try await store.projectConfig(projectId: projectId) ?? initial ?? ProjectConfig(projectId: projectId)
        cached.withLock { $0 = config }
        return config
    }

    func replace(_ config: ProjectConfig) { cached.withLock { $0 = config } }
}
