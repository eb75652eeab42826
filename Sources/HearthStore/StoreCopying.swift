import Foundation
import HearthCore

/// Whole-store reads that `hearth migrate` needs beyond ``HearthStore``: every project's settings and every
/// refresh token, in pages. Users, keys, providers, apps, service accounts and the audit log are read through
/// the other protocols.
public protocol StoreCopying: HearthStore {
    /// Every project's settings, ordered by project id.
    func projectConfigs() async throws -> [ProjectConfig]
    /// Refresh tokens ordered by hash, strictly after `afterHash` when given, at most `limit`.
    func refreshTokens(after afterHash: String?, limit: Int) async throws -> [RefreshTokenRecord]
    /// Email action codes ordered by hash, strictly after `afterHash` when given, at most `limit`.
    func oobCodes(after afterHash: String?, limit: Int) async throws -> [OobCodeRecord]
    /// Outbox messages ordered by id, strictly after `afterId` when given, at most `limit`.
    func outboxMail(after afterId: String?, limit: Int) async throws -> [OutboxMail]
    /// Passkeys ordered by credential id, strictly after `afterId` when given, at most `limit`.
    func passkeys(after afterId: String?, limit: Int) async throws -> [PasskeyCredential]
}
