import Foundation

/// One key a sign-in attempt is counted under (`account:<email>`, `address:<client>`) and its limit.
public struct ThrottleKey: Sendable, Equatable {
    public var key: String
    /// The most attempts the key may have in the window.
    public var limit: Int

    public init(_ key: String, limit: Int) {
        self.key = key
        self.limit = limit
    }
}

/// Failed password sign-ins kept in the store, so every replica on one database enforces one limit.
///
/// An attempt is *reserved* before the password is checked — counted as a failure in advance, in the same atomic
/// step that checks the limit — and the reservation is settled (removed) only when the password matched. So a
/// burst of parallel guesses cannot all pass the check before any of them is counted: the N+1st finds N attempts.
public protocol SignInThrottleStore: Sendable {
    /// Atomically: counts each key's attempts at or after `since`; when every count is below its key's limit,
    /// records one attempt under `attemptId` at `at` for every key (dropping the keys' attempts before `since`) and
    /// returns true; otherwise records nothing and returns false.
    func reserveThrottleAttempt(keys: [ThrottleKey], attemptId: String, at: Date, since: Date) async throws -> Bool
    /// A sign-in that succeeded: deletes the attempt `attemptId` (every key's) and all attempts of `clearing`
    /// (a successful sign-in clears its account's count).
    func settleThrottleAttempt(attemptId: String, clearing key: String) async throws
}
