import Foundation

/// Failed password sign-ins kept in the store, so every replica on one database enforces one limit. A store that
/// only one server process uses (SQLite) need not conform: the server then counts in memory.
public protocol SignInThrottleStore: Sendable {
    /// For each of `keys`, the failures recorded at or after `since`.
    func throttleFailureCounts(keys: [String], since: Date) async throws -> [String: Int]
    /// Records one failure for each of `keys` at `at`, and drops their failures before `expiredBefore`.
    func recordThrottleFailure(keys: [String], at: Date, expiredBefore: Date) async throws
    /// Forgets the failures of `key` (a successful sign-in clears its account's count).
    func clearThrottleFailures(key: String) async throws
}
