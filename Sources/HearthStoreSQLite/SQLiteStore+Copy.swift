import Foundation
import HearthCore
import GRDB
import HearthStore

extension SQLiteStore: StoreCopying {
    public func projectConfigs() async throws -> [ProjectConfig] {
        let texts = try await read { db in
            try db.rows("SELECT config_json FROM project_config ORDER BY project_id").compactMap { $0.string("config_json") }
        }
        return try texts.map { try JSONDecoder().decode(ProjectConfig.self, from: Data($0.utf8)) }
    }

    public func refreshTokens(after afterHash: String?, limit: Int) async throws -> [RefreshTokenRecord] {
        try await read { db in
            try db.rows("SELECT * FROM refresh_tokens WHERE token_hash > ? ORDER BY token_hash LIMIT ?",
                        [.text(afterHash ?? ""), .integer(max(0, limit))]).map(Self.tokenRecord)
        }
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
