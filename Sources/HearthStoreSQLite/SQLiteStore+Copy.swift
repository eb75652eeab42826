import Foundation
import HearthCore
import GRDB
import HearthStore

extension SQLiteStore: StoreCopying {
    public func projectConfigs() async throws -> [ProjectConfig] {
        try await read { db in try db.rows(StoreSQL.projectConfigs).map { try $0.json(ProjectConfig.self, "config_json") } }
    }

    public func refreshTokens(after afterHash: String?, limit: Int) async throws -> [RefreshTokenRecord] {
        try await read { db in try db.rows(StoreSQL.refreshTokens(after: afterHash, limit: limit)).map(RefreshTokenRecord.init(row:)) }
    }

    public func passkeys(after afterId: String?, limit: Int) async throws -> [PasskeyCredential] {
        try await read { db in try db.rows(StoreSQL.passkeys(after: afterId, limit: limit)).map(PasskeyCredential.init(row:)) }
    }

    public func oobCodes(after afterHash: String?, limit: Int) async throws -> [OobCodeRecord] {
        try await read { db in try db.rows(StoreSQL.oobCodes(after: afterHash, limit: limit)).map(OobCodeRecord.init(row:)) }
    }

    public func outboxMail(after afterId: String?, limit: Int) async throws -> [OutboxMail] {
        try await read { db in try db.rows(StoreSQL.outboxMail(after: afterId, limit: limit)).map(OutboxMail.init(row:)) }
    }
}

extension SQLiteStore {
    /// Copies the whole database into a new file at `path` with SQLite's online backup API: consistent, and the
    /// server keeps serving (readers are not blocked; writers wait only for the page copy steps).
    public func backup(to path: String) async throws {
        do {
            try OwnerOnlyFiles.prepare(databaseAt: path)
            let destination = try DatabaseQueue(path: path)
            try writer.backup(to: destination)
            try destination.close()
        } catch let error as DatabaseError {
            throw StoreError.backend("sqlite: backup to \(path) failed: \(error.message ?? "\(error.resultCode)")")
        }
    }
}
