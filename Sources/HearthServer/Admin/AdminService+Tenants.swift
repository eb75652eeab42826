import Foundation
import HearthCore
import HearthStore
import HearthWire

/// Identity Platform's tenant resource (`projects/{p}/tenants`, v2): create, get, list, patch, delete. Tenants are
/// the project's: every call here acts on the project's store (``projectScope``) and is audited there
/// (`tenants.create`, `tenants.update`, `tenants.delete`). The wire's refusals (``TenantWireError``) become the
/// API's errors in ``tenantWire(_:)``, the one place they are mapped.
extension AdminService {
    /// `pageSize` when the request gives none, and the most a page holds (Identity Platform's).
    static let tenantPageSizeDefault = 20
    static let tenantPageSizeMax = 1000

    /// Runs a piece of the tenant wire, answering its ``TenantWireError`` as a ``HearthAPIError`` with the same
    /// error string and message.
    static func tenantWire<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TenantWireError {
            throw HearthAPIError(error.code, error.detail)
        }
    }

    /// `TENANT_NOT_FOUND` for `id` (quoted shortened, without control or format characters).
    func tenantNotFound(_ id: String) -> HearthAPIError {
        let shown = id.withoutControlCharacters
        let quoted = shown.count > 64 ? String(shown.prefix(64)) + "…" : shown
        return HearthAPIError(.tenantNotFound, "project \(configuration.projectId) has no tenant \"\(quoted)\": list the tenants (GET …/v2/projects/\(configuration.projectId)/tenants, `hearth tenants list`) for their ids")
    }

    /// The stored tenant `id`, or `TENANT_NOT_FOUND` (a malformed id names no tenant and is not looked up).
    func storedTenant(_ id: String) async throws -> TenantRecord {
        guard TenantRecord.isValidId(id), let tenant = try await projectScope.store.tenant(id: id) else { throw tenantNotFound(id) }
        return tenant
    }

    /// `POST …/tenants`: a new tenant from a create body (``Tenant/decodeBody(_:)``); its id is made by the server
    /// (``TenantRecord/newId(displayName:)``, tried again on the rare clash). Flags the body does not set are off.
    public func createTenant(_ body: Tenant, by principal: AdminPrincipal) async throws -> Tenant {
        let scope = projectScope
        var record = try Self.tenantWire { try TenantRecord.creating(body, at: now) }
        try Self.checkTenantMFA(record.settings.mfa)
        var attempts = 0
        while true {
            do {
                try await scope.store.insertTenant(record)
                break
            } catch StoreError.tenantExists where attempts < 8 {
                attempts += 1
                record.id = TenantRecord.newId(displayName: record.displayName)
            }
        }
        let fields = Tenant.settableFields.filter { field in
            switch field {
            case "displayName": body.displayName != nil
            case "allowPasswordSignup": body.allowPasswordSignup != nil
            case "enableEmailLinkSignin": body.enableEmailLinkSignin != nil
            case "enableAnonymousUser": body.enableAnonymousUser != nil
            case "disableAuth": body.disableAuth != nil
            case "mfaConfig": body.mfaConfig != nil
            default: false
            }
        }
        try await audit(principal, "tenants.create", target: record.id, detail: fields.joined(separator: ","), in: scope)
        return record.resource(projectId: configuration.projectId)
    }

    /// `GET …/tenants/{tenant}`.
    public func tenantResource(_ id: String) async throws -> Tenant {
        try await storedTenant(id).resource(projectId: configuration.projectId)
    }

    /// `GET …/tenants`: tenants ordered by id; `pageSize` 1–1000 (default 20), `pageToken` the last id of the
    /// previous page (`nextPageToken` only when there is more).
    public func listTenants(pageSize: String?, pageToken: String?) async throws -> ListTenantsResponse {
        var size = Self.tenantPageSizeDefault
        if let pageSize, !pageSize.isEmpty {
            guard let value = Int(pageSize), (1...Self.tenantPageSizeMax).contains(value) else {
                throw HearthAPIError(.invalidPageSelection, "pageSize must be a number between 1 and \(Self.tenantPageSizeMax)")
            }
            size = value
        }
        var after: String?
        if let pageToken, !pageToken.isEmpty {
            guard TenantRecord.isValidId(pageToken) else {
                throw HearthAPIError(.invalidPageSelection, "unknown pageToken: give the nextPageToken of the previous page")
            }
            after = pageToken
        }
        let tenants = try await projectScope.store.tenants(after: after, limit: size + 1)
        let page = Array(tenants.prefix(size))
        return ListTenantsResponse(tenants: page.map { $0.resource(projectId: configuration.projectId) },
                                   nextPageToken: tenants.count > size ? page.last?.id : nil)
    }

    /// `PATCH …/tenants/{tenant}`: `paths` (``Tenant/updatePaths(updateMask:body:)``) set from `body`, a path the
    /// body has no value for reset to its default. `TENANT_NOT_FOUND` before anything else is looked at.
    public func updateTenant(_ id: String, _ body: Tenant, paths: [String], by principal: AdminPrincipal) async throws -> Tenant {
        let scope = projectScope
        let current = try await storedTenant(id)
        let record = try Self.tenantWire { try current.patched(with: body, paths: paths) }
        try Self.checkTenantMFA(record.settings.mfa)
        guard try await scope.store.updateTenant(record) else { throw tenantNotFound(id) }
        try await audit(principal, "tenants.update", target: id, detail: paths.joined(separator: ","), in: scope)
        return record.resource(projectId: configuration.projectId)
    }

    /// `DELETE …/tenants/{tenant}`: the tenant and everything it owns (its users and all that hangs off them, its
    /// provider configurations, its codes), at once.
    public func deleteTenant(_ id: String, by principal: AdminPrincipal) async throws -> EmptyResponse {
        let scope = projectScope
        guard TenantRecord.isValidId(id), try await scope.store.deleteTenant(id: id) else { throw tenantNotFound(id) }
        try await audit(principal, "tenants.delete", target: id, in: scope)
        return EmptyResponse()
    }

    /// A tenant's second factors pass the project's rules (``updatedMFA(_:_:)``: TOTP only, `adjacentIntervals`
    /// 0…10, no MANDATORY): one set of checks for both.
    static func checkTenantMFA(_ mfa: MultiFactorAuthConfig?) throws {
        guard let mfa else { return }
        var checked: MultiFactorAuthConfig?
        checked = try updatedMFA(checked, .multiFactorState(mfa.state))
        checked = try updatedMFA(checked, .multiFactorEnabledProviders(mfa.enabledProviders ?? []))
        checked = try updatedMFA(checked, .multiFactorProviderConfigs(mfa.providerConfigs ?? []))
    }
}
