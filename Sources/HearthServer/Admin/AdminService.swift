import Foundation
import HearthCore
import HearthStore
import HearthWire
import JWTKit
import Logging

/// The admin API's logic, independent of HTTP: user management, session cookies, project and provider
/// configuration. Every write is recorded in the audit log with its principal.
public struct AdminService: Sendable {
    let accounts: AccountService
    let logger: Logger
    /// Sends users the notices of administrator changes (nil: offline commands, which send none).
    let mailer: Mailer?

    init(accounts: AccountService, logger: Logger, mailer: Mailer? = nil) {
        self.accounts = accounts
        self.logger = logger
        self.mailer = mailer
    }

    var store: any HearthStore { accounts.store }
    /// The project's own scope: what the CLI and the console act on (they name no tenant).
    public var projectScope: Scope { accounts.scopes.project }
    var configuration: HearthServerConfiguration { accounts.configuration }
    var now: Date { accounts.now }

    /// Records one admin write. A failure to record is logged, and fails the call (no unaudited writes go unnoticed).
    func audit(_ principal: AdminPrincipal, _ action: String, target: String, detail: String? = nil, in scope: Scope) async throws {
        try await scope.store.appendAuditEntry(AuditEntry(time: now, actor: principal.actor, action: action, target: target, detail: detail))
        logger.info("admin write", metadata: ["actor": "\(principal.actor)", "action": "\(action)", "target": "\(target)"])
    }

    /// `GET …/auditLog`: newest first.
    public func auditLog(pageSize: Int?, pageToken: String?, in scope: Scope) async throws -> AuditLogResponse {
        let size = pageSize ?? 100
        guard (1...1000).contains(size) else { throw HearthAPIError(.invalidPageSelection, "pageSize must be between 1 and 1000") }
        var before: Int64?
        if let pageToken, !pageToken.isEmpty {
            guard let id = Int64(pageToken), id > 0 else { throw HearthAPIError(.invalidPageSelection, "unknown pageToken") }
            before = id
        }
        let entries = try await scope.store.auditEntries(before: before, limit: size + 1)
        let page = entries.prefix(size)
        return AuditLogResponse(
            entries: page.map { AuditLogEntry(id: String($0.id), time: $0.time.formatted(.iso8601), actor: $0.actor, action: $0.action,
                                              target: $0.target, detail: $0.detail) },
            nextPageToken: entries.count > size ? page.last.map { String($0.id) } : nil)
    }
}

extension AuditLogRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> AuditLogResponse {
        var pageSize: Int?
        if let text = request.pageSize {
            guard let size = Int(text) else { throw HearthAPIError(.invalidPageSelection, "pageSize must be a number") }
            pageSize = size
        }
        return try await call.admin.auditLog(pageSize: pageSize, pageToken: request.pageToken, in: call.scope)
    }
}
