import Foundation
import HearthCore

/// Identity Platform tenants: the `tenants` table. Asked of the project's store (a tenant's rows are reached through
/// ``HearthStore/bound(toTenant:)``).
public protocol TenantStore: Sendable {
    /// The tenant, or nil.
    func tenant(id: String) async throws -> TenantRecord?
    /// Tenants ordered by id, strictly after `afterId` when given, at most `limit`.
    func tenants(after afterId: String?, limit: Int) async throws -> [TenantRecord]
    /// Adds a tenant; ``StoreError/tenantExists`` when its id is taken.
    func insertTenant(_ tenant: TenantRecord) async throws
    /// Rewrites a tenant's display name and settings; false when there is no such tenant.
    func updateTenant(_ tenant: TenantRecord) async throws -> Bool
    /// Deletes the tenant and, in the same transaction, everything it owns: its users and all that hangs off them
    /// (identities, refresh tokens, factors' sessions, passkeys, vault tokens, action codes), its provider
    /// configurations, its sign-ins in progress and pending credentials. False when there is no such tenant.
    func deleteTenant(id: String) async throws -> Bool
}

extension TenantStore {
    /// Every tenant, in id order (read in pages of 500).
    public func allTenants() async throws -> [TenantRecord] {
        var tenants: [TenantRecord] = []
        var after: String?
        while true {
            let page = try await self.tenants(after: after, limit: 500)
            guard let last = page.last else { break }
            tenants.append(contentsOf: page)
            after = last.id
        }
        return tenants
    }
}
