import Foundation

/// The requests one rate-limit key made in the current fixed window and in the window before it (the limiter
/// weighs the previous window by how much of it still overlaps the sliding window).
public struct RateLimitWindowCounts: Sendable, Equatable {
    public var current: Int
    public var previous: Int

    public init(current: Int, previous: Int) {
        self.current = current
        self.previous = previous
    }
}

/// Request counters for rate limits, kept in the store so every replica on one database enforces one limit.
/// Keys are opaque to the store (`signUp|address|203.0.113.7`); windows are numbered by the caller
/// (`floor(time / window length)`).
public protocol RateLimitStore: Sendable {
    /// Counts one request for `key` in window `window`, atomically, and returns the key's count in that window
    /// (this request included) and in window `window - 1`. The row may be dropped after `expiresAt`.
    func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) async throws -> RateLimitWindowCounts
    /// The key's counts in window `window` and `window - 1`, without counting anything (zero for a key never
    /// counted): what a page shows, e.g. the SMS sent today.
    func rateLimitCount(key: String, window: Int64) async throws -> RateLimitWindowCounts
    /// Drops counters whose `expiresAt` is before `now`; returns how many.
    @discardableResult
    func pruneRateLimits(now: Date) async throws -> Int
}
