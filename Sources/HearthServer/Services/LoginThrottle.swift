import Logging
import Foundation
import HearthCore
import HearthStore

/// Counts failed password sign-ins per account and per client address in a sliding window; past the limit,
/// sign-in is refused with `TOO_MANY_ATTEMPTS_TRY_LATER` until old failures leave the window.
/// With a store that keeps the counts (``SignInThrottleStore``: PostgreSQL), every replica on that database
/// enforces one limit; otherwise (SQLite: one server process) the counts live in this process.
public actor LoginThrottle {
    private let configuration: ThrottleConfiguration
    private let clock: WallClock
    private let shared: (any SignInThrottleStore)?
    private var accountFailures: [String: [Date]] = [:]
    private var addressFailures: [String: [Date]] = [:]

    public init(configuration: ThrottleConfiguration, clock: WallClock, shared: (any SignInThrottleStore)? = nil) {
        self.configuration = configuration
        self.clock = clock
        self.shared = shared
    }

    static func accountKey(_ account: String) -> String { "account:\(account)" }
    static func addressKey(_ address: String) -> String { "address:\(address)" }

    /// Whether a sign-in for `account` from `address` may be attempted now.
    public func isAllowed(account: String, address: String) async throws -> Bool {
        let cutoff = clock.now().addingTimeInterval(-configuration.window)
        if let shared {
            let counts = try await shared.throttleFailureCounts(keys: [Self.accountKey(account), Self.addressKey(address)], since: cutoff)
            return (counts[Self.accountKey(account)] ?? 0) < configuration.maxFailuresPerAccount
                && (counts[Self.addressKey(address)] ?? 0) < configuration.maxFailuresPerAddress
        }
        accountFailures[account] = Self.recent(accountFailures[account], after: cutoff)
        addressFailures[address] = Self.recent(addressFailures[address], after: cutoff)
        if accountFailures.count + addressFailures.count > 10_000 { pruneAll(after: cutoff) }
        return (accountFailures[account]?.count ?? 0) < configuration.maxFailuresPerAccount
            && (addressFailures[address]?.count ?? 0) < configuration.maxFailuresPerAddress
    }

    public func recordFailure(account: String, address: String) async throws {
        let now = clock.now()
        if let shared {
            try await shared.recordThrottleFailure(keys: [Self.accountKey(account), Self.addressKey(address)], at: now,
                                                   expiredBefore: now.addingTimeInterval(-configuration.window))
            return
        }
        accountFailures[account, default: []].append(now)
        addressFailures[address, default: []].append(now)
    }

    /// A successful sign-in clears the account's failures.
    public func recordSuccess(account: String) async throws {
        if let shared {
            try await shared.clearThrottleFailures(key: Self.accountKey(account))
            return
        }
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
