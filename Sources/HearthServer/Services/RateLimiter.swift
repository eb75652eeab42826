import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird
import HTTPTypes
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts requests to the limited endpoints in the store (every replica on one database shares the counts) with a
/// sliding window estimated from two fixed windows, per client address and per project.
public struct RateLimiter: Sendable {
    let configuration: RateLimitConfiguration
    let store: any RateLimitStore
    let projectId: String
    let clock: WallClock
    let logger: Logger
    /// Where refusals are counted (``MetricName/rateLimited``); nil: not counted.
    let metrics: HearthMetrics?

    public init(configuration: RateLimitConfiguration, store: any RateLimitStore, projectId: String, clock: WallClock, logger: Logger,
                metrics: HearthMetrics? = nil) {
        self.configuration = configuration
        self.store = store
        self.projectId = projectId
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// Counts a request from `address` to `endpoint`. Nil when it may proceed; otherwise the seconds after which
    /// trying again can succeed. The address limit is checked first, and a request it refuses is not counted
    /// against the project, so one address's flood does not use up the project's allowance.
    public func admit(_ endpoint: RateLimitedEndpoint, address: String) async -> Int? {
        guard configuration.enabled, let rule = configuration.rules[endpoint] else { return nil }
        // One log line when a limit is first reached in a window, not one per refused request (a flood must not
        // become a flood of log lines).
        if let refusal = await hit(key: "\(endpoint.rawValue)|address|\(ClientAddress.limitKey(address))", rule.perAddress) {
            if refusal.first {
                logger.notice("rate limit reached", metadata: ["endpoint": "\(endpoint.rawValue)", "scope": "address", "client": "\(address)"])
            }
            metrics?.count(.rateLimited, [endpoint.rawValue, "address"])
            return refusal.wait
        }
        if let refusal = await hit(key: "\(endpoint.rawValue)|project|\(projectId)", rule.perProject) {
            if refusal.first { logger.warning("project rate limit reached", metadata: ["endpoint": "\(endpoint.rawValue)", "scope": "project"]) }
            metrics?.count(.rateLimited, [endpoint.rawValue, "project"])
            return refusal.wait
        }
        return nil
    }

    /// Counts an email to `recipient` (any sender): nil when it may go, else the seconds to wait.
    public func admitEmail(to recipient: String) async -> Int? {
        guard configuration.enabled else { return nil }
        guard let refusal = await hit(key: "email|recipient|\(recipient.sha256Hex)", configuration.emailsPerRecipient) else { return nil }
        if refusal.first { logger.notice("email limit per recipient reached") }
        metrics?.count(.rateLimited, [RateLimitedEndpoint.sendOobCode.rawValue, "recipient"])
        return refusal.wait
    }

    /// Counts an SMS about to be sent (issue 40) against the project's SMS limits: first per client address, then per
    /// number (a send the address limit refuses is not counted against the number, so one client's flood does not lock
    /// the number out). Nil when it may go; else the limit that refused it (`address` or `number`) and the seconds to
    /// wait. Off with the other limits (``RateLimitConfiguration/enabled``: `demo-*` projects, as the emulator).
    /// Only a hash of the number is kept in the counter's key, never the number. Refusals are counted by the caller
    /// (`hearth_sms_total`, outcome `refused_address` / `refused_number`).
    public func admitSms(to phoneNumber: String, from address: String, perNumber: RateLimitConfiguration.Limit,
                         perAddress: RateLimitConfiguration.Limit) async -> (scope: String, wait: Int)? {
        guard configuration.enabled else { return nil }
        if let refusal = await hit(key: "sms|address|\(ClientAddress.limitKey(address))", perAddress) {
            if refusal.first { logger.notice("SMS limit per address reached", metadata: ["client": "\(address)"]) }
            return ("address", refusal.wait)
        }
        if let refusal = await hit(key: "sms|number|\(phoneNumber.sha256Hex)", perNumber) {
            if refusal.first { logger.notice("SMS limit per number reached", metadata: ["number": "\(SmsRedaction.hint(phoneNumber))"]) }
            return ("number", refusal.wait)
        }
        return nil
    }

    /// Counts a request for `key`; nil when within `limit`, else the seconds to wait and whether this is the first
    /// refusal (the estimate has just passed the limit).
    private func hit(key: String, _ limit: RateLimitConfiguration.Limit) async -> (wait: Int, first: Bool)? {
        let now = clock.now().timeIntervalSince1970
        let window = Int64((now / limit.window).rounded(.down))
        let elapsed = (now - Double(window) * limit.window) / limit.window
        let counts: RateLimitWindowCounts
        do {
            counts = try await store.countRateLimitedRequest(key: key, window: window,
                                                             expiresAt: Date(timeIntervalSince1970: Double(window + 2) * limit.window))
        } catch {
            // The store is failing: the request itself will report that; a limit never turns it into a 500.
            logger.error("rate-limit counter unavailable", metadata: ["error.type": "\(type(of: error))"])
            return nil
        }
        let estimate = Double(counts.previous) * (1 - elapsed) + Double(counts.current)
        guard estimate > Double(limit.limit) else { return nil }
        return (max(1, Int((limit.window * (1 - elapsed)).rounded(.up))), estimate <= Double(limit.limit) + 1)
    }
}
