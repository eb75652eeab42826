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

/// The unauthenticated endpoints that cost the server work and are rate-limited.
public enum RateLimitedEndpoint: String, CaseIterable, Sendable {
    /// `accounts:signUp` (v3 `signupNewUser`): a password hash and a new user.
    case signUp
    /// `accounts:signInWithPassword` (v3 `verifyPassword`): a password hash check.
    case signInWithPassword
    /// `accounts:createAuthUri` (v3 too): a provider lookup, for a provider id an authorization session.
    case createAuthUri
    /// The auth handler (`/__/auth/handler`, `/emulator/auth/handler`): a sign-in session, and on the provider's
    /// callback a code exchange with the provider.
    case authHandler

}

/// How many requests one client address, and the whole project, may make to each limited endpoint.
public struct RateLimitConfiguration: Sendable, Equatable {
    /// A limit: at most `limit` requests in any sliding `window` seconds.
    public struct Limit: Sendable, Equatable {
        public var limit: Int
        public var window: TimeInterval

        public init(_ limit: Int, per window: TimeInterval) {
            self.limit = limit
            self.window = window
        }
    }

    public struct Rule: Sendable, Equatable {
        public var perAddress: Limit
        public var perProject: Limit

        public init(perAddress: Limit, perProject: Limit) {
            self.perAddress = perAddress
            self.perProject = perProject
        }
    }

    /// Off: nothing is counted.
    public var enabled: Bool
    public var rules: [RateLimitedEndpoint: Rule]

    /// Sign-ups per client address per hour (Firebase's documented quota is 100).
    public static let defaultSignUpsPerAddressPerHour = 100
    /// Requests per client address per minute to each of the other limited endpoints.
    public static let defaultPerAddressPerMinute = 120
    /// Requests per minute to each limited endpoint from all addresses together.
    public static let defaultPerProjectPerMinute = 6000

    /// The limits: sign-ups per address per hour, and per minute the other endpoints' per-address limit and every
    /// endpoint's per-project limit.
    public init(enabled: Bool = true, signUpsPerAddressPerHour: Int = defaultSignUpsPerAddressPerHour,
                perAddressPerMinute: Int = defaultPerAddressPerMinute, perProjectPerMinute: Int = defaultPerProjectPerMinute) {
        self.enabled = enabled
        let project = Limit(perProjectPerMinute, per: 60)
        let address = Limit(perAddressPerMinute, per: 60)
        rules = [
            .signUp: Rule(perAddress: Limit(signUpsPerAddressPerHour, per: 3600), perProject: project),
            .signInWithPassword: Rule(perAddress: address, perProject: project),
            .createAuthUri: Rule(perAddress: address, perProject: project),
            .authHandler: Rule(perAddress: address, perProject: project),
        ]
    }

    /// No limits.
    public static let off = RateLimitConfiguration(enabled: false)

    /// The default for a project: on, except for `demo-*` projects, which behave like the Firebase emulator
    /// (no limits) unless limits are configured.
    public static func defaults(projectId: String) -> RateLimitConfiguration {
        projectId.hasPrefix("demo-") ? .off : RateLimitConfiguration()
    }
}

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

/// Refuses requests over their rate limit: `429` with `TOO_MANY_ATTEMPTS_TRY_LATER` in the Google envelope (an
/// HTML page for the auth handler, which a browser shows) and `Retry-After`.
///
/// It is a route-group middleware: the routes of one limited endpoint are registered in a group that carries it,
/// so it runs for exactly the requests the router matched to those routes — whatever the path's spelling (a
/// trailing or doubled slash reaches the same route, and the same limit), never by comparing path text.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let limiter: RateLimiter
    let endpoint: RateLimitedEndpoint

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let wait = await limiter.admit(endpoint, address: context.clientAddress) else { return try await next(request, context) }
        var response: Response
        if endpoint == .authHandler {
            response = HTMLPage.message("Too many sign-in attempts", "Too many sign-ins were started from your network. Wait \(wait) seconds, then try again.",
                                        tone: .error, status: .tooManyRequests, badge: ServerErrorCode.tooManyAttempts.rawValue)
        } else {
            let error = HearthAPIError(.tooManyAttempts, "Too many requests from this client or project. Try again in \(wait) seconds.", httpStatus: 429)
            response = try HearthResponseEncoder.response(error.envelope, status: .tooManyRequests)
        }
        response.headers[.retryAfter] = "\(wait)"
        return response
    }
}

/// Client addresses: parsing, the trusted-proxy rule and the key a client is limited by.
public enum ClientAddress {
    /// An address as bytes (4 for IPv4, 16 for IPv6; IPv4-mapped IPv6 addresses become IPv4).
    static func bytes(_ text: String) -> [UInt8]? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("["), let end = trimmed.firstIndex(of: "]") { trimmed = String(trimmed[trimmed.index(after: trimmed.startIndex)..<end]) }
        if let percent = trimmed.firstIndex(of: "%") { trimmed = String(trimmed[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, trimmed, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12..<16]) }
        return bytes
    }

    /// The key a client is counted under: its IPv4 address, or its IPv6 /64 network (one host usually holds a
    /// whole /64, so counting single IPv6 addresses would let it rotate through them).
    static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", bytes[$0], bytes[$0 + 1]) }.joined(separator: ":") + "::/64"
    }
}

/// Networks whose peers are reverse proxies: only a request from one of them has its client address taken from
/// `X-Forwarded-For` (the right-most address that is not itself a trusted proxy). With none configured the header
/// is ignored, so a client cannot choose its own address.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let networks: [Network]

    public static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) { self.networks = networks }

    /// Parses addresses and CIDR networks (`10.0.0.0/8`, `::1`, `fd00::/8`). Throws a message naming the bad entry.
    public init(_ entries: [String]) throws {
        networks = try entries.map { entry in
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let bytes = ClientAddress.bytes(String(parts[0])) else {
                throw TrustedProxyError(entry: entry)
            }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { throw TrustedProxyError(entry: entry) }
            return Network(bytes: bytes, prefix: prefix)
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    func contains(_ address: String) -> Bool {
        guard let bytes = ClientAddress.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address for a request whose peer is `peer` and whose `X-Forwarded-For` values are
    /// `forwardedFor`: the peer unless it is a trusted proxy; then the right-most forwarded address that is not a
    /// trusted proxy (addresses left of it were written by the client and prove nothing).
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard ClientAddress.bytes(hop) != nil else { break }
            client = hop
            if !contains(hop) { break }
        }
        return client
    }
}

/// A `trusted.proxies` entry that is not an address or CIDR network.
public struct TrustedProxyError: Error, CustomStringConvertible {
    public let entry: String
    public var description: String { "\"\(entry)\" is not an IP address or CIDR network (such as 10.0.0.0/8 or fd00::/8)" }
}

/// Sets the request's client address from `X-Forwarded-For` when its peer is a trusted proxy.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let forwarded = request.headers[values: HTTPField.Name("X-Forwarded-For")!]
        if !forwarded.isEmpty {
            context.forwardedClientAddress = proxies.clientAddress(peer: context.peerAddress, forwardedFor: forwarded)
        }
        return try await next(request, context)
    }
}
