import Logging
import Foundation
import HearthCore

/// Counts failed password sign-ins per account and per client address in a sliding window; past the limit,
/// sign-in is refused with `TOO_MANY_ATTEMPTS_TRY_LATER` until old failures leave the window.
/// Per process: with several replicas each enforces its own limit (documented in docs/security.md).
public actor LoginThrottle {
    private let configuration: ThrottleConfiguration
    private let clock: WallClock
    private var accountFailures: [String: [Date]] = [:]
    private var addressFailures: [String: [Date]] = [:]

    public init(configuration: ThrottleConfiguration, clock: WallClock) {
        self.configuration = configuration
        self.clock = clock
    }

    /// Whether a sign-in for `account` from `address` may be attempted now.
    public func isAllowed(account: String, address: String) -> Bool {
        let now = clock.now()
        prune(now: now)
        return (accountFailures[account]?.count ?? 0) < configuration.maxFailuresPerAccount
            && (addressFailures[address]?.count ?? 0) < configuration.maxFailuresPerAddress
    }

    public func recordFailure(account: String, address: String) {
        let now = clock.now()
        accountFailures[account, default: []].append(now)
        addressFailures[address, default: []].append(now)
    }

    /// A successful sign-in clears the account's failures.
    public func recordSuccess(account: String) {
        accountFailures[account] = nil
    }

    private func prune(now: Date) {
        let cutoff = now.addingTimeInterval(-configuration.window)
        accountFailures = accountFailures.compactMapValues { dates in
            let kept = dates.filter { $0 > cutoff }
            return kept.isEmpty ? nil : kept
        }
        addressFailures = addressFailures.compactMapValues { dates in
            let kept = dates.filter { $0 > cutoff }
            return kept.isEmpty ? nil : kept
        }
    }
}
