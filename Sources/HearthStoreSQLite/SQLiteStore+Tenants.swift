import Foundation
import HearthCore
import HearthStore

extension SQLiteStore {
    // MARK: Tenants

    public func tenant(id: String) async throws -> TenantRecord? {
        try await read { db in try db.row(StoreSQL.tenant(id: id)).map(TenantRecord.init(row:)) }
    }

    public func tenants(after afterId: String?, limit: Int) async throws -> [TenantRecord] {
        try await read { db in try db.rows(StoreSQL.tenants(after: afterId, limit: limit)).map(TenantRecord.init(row:)) }
    }

    public func insertTenant(_ tenant: TenantRecord) async throws {
        let statement = try StoreSQL.insertTenant(tenant)
        try await transaction { db in
            if try db.row(StoreSQL.tenant(id: tenant.id)) != nil { throw StoreError.tenantExists }
            try db.execute(statement)
        }
    }

    public func updateTenant(_ tenant: TenantRecord) async throws -> Bool {
        let statement = try StoreSQL.updateTenant(tenant)
        return try await transaction { db in try db.execute(statement) == 1 }
    }

    public func deleteTenant(id: String) async throws -> Bool {
        try await transaction { db in
            guard try db.row(StoreSQL.tenant(id: id)) != nil else { return false }
            for statement in StoreSQL.deleteTenantData(id: id) { try db.execute(statement) }
            return try db.execute(StoreSQL.deleteTenantRow(id: id)) == 1
        }
    }
}
