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
        let cutoff = clock.now().addingTimeInterval(-configuration.window)
        accountFailures[account] = Self.recent(accountFailures[account], after: cutoff)
        addressFailures[address] = Self.recent(addressFailures[address], after: cutoff)
        if accountFailures.count + addressFailures.count > 10_000 { pruneAll(after: cutoff) }
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

    private static func recent(_ dates: [Date]?, after cutoff: Date) -> [Date]? {
        guard let kept = dates?.filter({ $0 > cutoff }), !kept.isEmpty else { return nil }
        return kept
    }

    /// Drops every expired entry (bounded memory under many distinct accounts/addresses).
    private func pruneAll(after cutoff: Date) {
        accountFailures = accountFailures.compactMapValues { Self.recent($0, after: cutoff) }
        addressFailures = addressFailures.compactMapValues { Self.recent($0, after: cutoff) }
    }
}
