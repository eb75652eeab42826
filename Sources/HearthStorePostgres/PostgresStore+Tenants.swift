import Foundation
import HearthCore
import HearthStore

extension PostgresStore {
    // MARK: Tenants

    public func tenant(id: String) async throws -> TenantRecord? {
        try await single { db in try await db.row(StoreSQL.tenant(id: id)).map(TenantRecord.init(row:)) }
    }

    public func tenants(after afterId: String?, limit: Int) async throws -> [TenantRecord] {
        try await single { db in try await db.rows(StoreSQL.tenants(after: afterId, limit: limit)).map(TenantRecord.init(row:)) }
    }

    /// The primary key decides between two replicas creating one id.
    public func insertTenant(_ tenant: TenantRecord) async throws {
        let statement = try StoreSQL.insertTenant(tenant)
        let inserted = try await single { db in try await db.execute(statement + " ON CONFLICT (tenant_id) DO NOTHING") }
        if inserted == 0 { throw StoreError.tenantExists }
    }

    public func updateTenant(_ tenant: TenantRecord) async throws -> Bool {
        let statement = try StoreSQL.updateTenant(tenant)
        return try await single { db in try await db.execute(statement) == 1 }
    }

    /// The tenant's row is locked first: a user created in the tenant meanwhile (its scope read the tenant before
    /// the delete) either commits before — and is deleted here — or finds no tenant when it is used next.
    public func deleteTenant(id: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.row(StoreSQL.tenant(id: id) + " FOR UPDATE") != nil else { return false }
            for statement in StoreSQL.deleteTenantData(id: id) { try await db.execute(statement) }
            return try await db.execute(StoreSQL.deleteTenantRow(id: id)) == 1
        }
    }
}
