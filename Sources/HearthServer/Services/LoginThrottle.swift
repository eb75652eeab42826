import Logging
import Foundation
import HearthCore
import HearthStore

/// Limits password attempts per account and per client address in a sliding window; past a limit, sign-in is
/// refused with `TOO_MANY_ATTEMPTS_TRY_LATER` until old attempts leave the window.
///
/// Each attempt is reserved before the password is verified (``reserve(account:address:)``): the limit check and
/// the count are one atomic step, and only a successful attempt is taken back (``succeeded(_:)``). A burst of
/// parallel wrong guesses is therefore held to the limit exactly, instead of every guess passing the check before
/// the first failure is counted. With a store that keeps the counts (``SignInThrottleStore``: both stores), every
/// replica on one database enforces one limit; otherwise the counts live in this actor.
public actor LoginThrottle {
    /// A reserved attempt: settle it with ``LoginThrottle/succeeded(_:)`` when the password matched; a failure
    /// needs nothing (the attempt stays counted).
    public struct Reservation: Sendable {
        let id: String
        let account: String
    }

    private struct Attempt {
        var at: Date
        var id: String
    }

    private let configuration: ThrottleConfiguration
    private let clock: WallClock
    private let shared: (any SignInThrottleStore)?
    private let scope: String
    private var attempts: [String: [Attempt]] = [:]

    /// `scope` keeps this throttle's counts apart from another's on the same store (the console's administrators
    /// from the project's users: a user's success must never clear an administrator's failures, nor the reverse).
    public init(configuration: ThrottleConfiguration, clock: WallClock, shared: (any SignInThrottleStore)? = nil, scope: String = "") {
        self.configuration = configuration
        self.clock = clock
        self.shared = shared
        self.scope = scope.isEmpty ? "" : scope + "-"
    }

    func accountKey(_ account: String) -> String { "\(scope)account:\(account)" }
    func addressKey(_ address: String) -> String { "\(scope)address:\(address)" }

    /// Reserves one attempt for `account` from `address`: nil when either limit is reached (nothing is counted then).
    public func reserve(account: String, address: String) async throws -> Reservation? {
        let now = clock.now()
        let cutoff = now.addingTimeInterval(-configuration.window)
        let id = RandomID.token(byteCount: 12)
        let keys = [ThrottleKey(accountKey(account), limit: configuration.maxFailuresPerAccount),
                    ThrottleKey(addressKey(address), limit: configuration.maxFailuresPerAddress)]
        if let shared {
            guard try await shared.reserveThrottleAttempt(keys: keys, attemptId: id, at: now, since: cutoff) else { return nil }
            return Reservation(id: id, account: account)
        }
        // In memory: no suspension point between the check and the count (actor isolation makes it atomic).
        for key in keys { attempts[key.key] = attempts[key.key]?.filter { $0.at >= cutoff } }
        if attempts.count > 10_000 { attempts = attempts.compactMapValues { kept in
            let recent = kept.filter { $0.at >= cutoff }
            return recent.isEmpty ? nil : recent
        } }
        guard keys.allSatisfy({ (attempts[$0.key]?.count ?? 0) < $0.limit }) else { return nil }
        for key in keys { attempts[key.key, default: []].append(Attempt(at: now, id: id)) }
        return Reservation(id: id, account: account)
    }

    /// The reserved attempt succeeded: it is taken back, and the account's earlier failures are forgotten.
    public func succeeded(_ reservation: Reservation) async throws {
        let key = accountKey(reservation.account)
        if let shared {
            try await shared.settleThrottleAttempt(attemptId: reservation.id, clearing: key)
            return
        }
        attempts[key] = nil
        for key in attempts.keys { attempts[key]?.removeAll { $0.id == reservation.id } }
    }
}
