import Logging
import Foundation
import HearthCore
import HearthStore

/// Limits password attempts per account and per client address in a sliding window; past a limit, sign-in is
/// refused with `TOO_MANY_ATTEMPTS_TRY_LATER` until old attempts leave the window.
///
/// Each attempt is reserved before the password is verified (``reserve(account:address:)``): the limit check and
/// the count are one atomic step in the store (``SignInThrottleStore``, so every replica on one database enforces one
/// limit), and only a successful attempt is taken back (``succeeded(_:)``). A burst of parallel wrong guesses is
/// therefore held to the limit exactly, instead of every guess passing the check before the first failure is counted.
public struct LoginThrottle: Sendable {
    /// A reserved attempt: settle it with ``LoginThrottle/succeeded(_:)`` when the password matched; a failure
    /// needs nothing (the attempt stays counted).
    public struct Reservation: Sendable {
        let id: String
        let account: String
    }

    private let configuration: ThrottleConfiguration
    private let clock: WallClock
    private let store: any SignInThrottleStore
    private let scope: String

    /// `scope` keeps this throttle's counts apart from another's on the same store (the console's administrators
    /// from the project's users: a user's success must never clear an administrator's failures, nor the reverse).
    public init(configuration: ThrottleConfiguration, clock: WallClock, store: any SignInThrottleStore, scope: String = "") {
        self.configuration = configuration
        self.clock = clock
        self.store = store
        self.scope = scope.isEmpty ? "" : scope + "-"
    }

    func accountKey(_ account: String) -> String { "\(scope)account:\(account)" }
    func addressKey(_ address: String) -> String { "\(scope)address:\(address)" }

    /// Reserves one attempt for `account` from `address`: nil when either limit is reached (nothing is counted then).
    public func reserve(account: String, address: String) async throws -> Reservation? {
        let now = clock.now()
        let id = RandomID.token(byteCount: 12)
        let keys = [ThrottleKey(accountKey(account), limit: configuration.maxFailuresPerAccount),
                    ThrottleKey(addressKey(address), limit: configuration.maxFailuresPerAddress)]
        guard try await store.reserveThrottleAttempt(keys: keys, attemptId: id, at: now, since: now.addingTimeInterval(-configuration.window))
        else { return nil }
        return Reservation(id: id, account: account)
    }

    /// The reserved attempt succeeded: it is taken back, and the account's earlier failures are forgotten.
    public func succeeded(_ reservation: Reservation) async throws {
        try await store.settleThrottleAttempt(attemptId: reservation.id, clearing: accountKey(reservation.account))
    }
}
