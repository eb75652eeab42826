import Foundation
import HearthCore

/// How `accounts:query` sorts.
public enum UserSortKey: String, Sendable, CaseIterable {
    case userId = "USER_ID"
    case name = "NAME"
    case createdAt = "CREATED_AT"
    case lastLoginAt = "LAST_LOGIN_AT"
    case userEmail = "USER_EMAIL"
}

/// A query over users (`accounts:query`, `hearth users list --search`).
public struct UserQuery: Sendable, Equatable {
    /// Users matching any of these (all users when empty).
    public var emails: [String]
    public var phoneNumbers: [String]
    public var localIds: [String]
    public var sortBy: UserSortKey
    public var ascending: Bool
    public var offset: Int
    public var limit: Int
    /// Keyset paging by creation time (with `sortBy: .createdAt`; ignored otherwise): only the users strictly after
    /// this one in the query's order — one index range, however deep the page (issue 41: the console pages by key).
    public var after: Cursor?
    /// Whether ``AdminUserStore/queryUsers(_:)`` counts every match; when false its `total` is 0 and nothing is
    /// counted (a count of a million users is a scan of a million index entries).
    public var countsTotal: Bool

    /// A user's place in a list by creation time: its exact `createdAt` and its uid (the tie-breaker).
    public struct Cursor: Sendable, Equatable {
        public var createdAt: Date
        public var localId: String

        public init(createdAt: Date, localId: String) {
            self.createdAt = createdAt
            self.localId = localId
        }
    }

    public init(emails: [String] = [], phoneNumbers: [String] = [], localIds: [String] = [], sortBy: UserSortKey = .userId,
                ascending: Bool = true, offset: Int = 0, limit: Int = 500, after: Cursor? = nil, countsTotal: Bool = true) {
        self.emails = emails
        self.phoneNumbers = phoneNumbers
        self.localIds = localIds
        self.sortBy = sortBy
        self.ascending = ascending
        self.offset = offset
        self.limit = limit
        self.after = after
        self.countsTotal = countsTotal
    }
}

/// Administrative reads and bulk writes over users.
public protocol AdminUserStore: Sendable {
    /// Users ordered by `localId`, strictly after `afterLocalId` when given, at most `limit`.
    func listUsers(after afterLocalId: String?, limit: Int) async throws -> [UserRecord]
    /// The users matching `query` (one page) and how many match in all (0 when `query.countsTotal` is false).
    func queryUsers(_ query: UserQuery) async throws -> (total: Int, users: [UserRecord])
    /// Deletes every user, identity and refresh token (the emulator's wipe). Returns how many users there were.
    @discardableResult
    func deleteAllUsers() async throws -> Int

    /// The bulk path of imports (issue 41): inserts `users` with their identities (phone numbers included) in one
    /// transaction, at most 500 rows a statement, in this store's tenant, without the per-user reads of
    /// `createUser`. A unique conflict — a `localId` held by any user, an email held in the tenant, a federated
    /// identity held in the tenant, or the same within `users` — throws ``StoreError/duplicateLocalId``,
    /// ``StoreError/emailExists`` or ``StoreError/federatedIdTaken(providerId:)`` and writes nothing.
    /// Only through `AccountService.createAccounts` (the one exit for new users).
    func importUsers(_ users: [UserRecord]) async throws
    /// Which of `localIds` a user holds, in any tenant (a uid is unique across the server): uid → its tenant id
    /// ('' for the project's own users). One query for a batch of an import.
    func tenantsOfUsers(localIds: [String]) async throws -> [String: String]
}

/// One recorded admin write. `detail` lists changed field names, never values of secrets.
public struct AuditEntry: Sendable, Equatable {
    /// Assigned by the store (increasing); 0 before insertion.
    public var id: Int64
    public var time: Date
    /// `serviceAccount:<email>` or `emulator:owner`.
    public var actor: String
    public var action: String
    public var target: String
    public var detail: String?

    public init(id: Int64 = 0, time: Date, actor: String, action: String, target: String, detail: String? = nil) {
        self.id = id
        self.time = time
        self.actor = actor
        self.action = action
        self.target = target
        self.detail = detail
    }
}

/// The append-only log of admin writes.
public protocol AuditLogStore: Sendable {
    func appendAuditEntry(_ entry: AuditEntry) async throws
    /// Entries newest first, with `id` below `beforeId` when given, at most `limit`.
    func auditEntries(before beforeId: Int64?, limit: Int) async throws -> [AuditEntry]
}
