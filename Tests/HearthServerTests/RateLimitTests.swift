import HearthCore
import Foundation
import HTTPTypes
import Logging
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// Rate limits on the unauthenticated endpoints that cost work: per client address, per project, in the store.
@Suite struct RateLimitTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// One sign-up; `forwardedFor` as the client (or an attacker) sets the header.
    static func signUp(_ h: HearthHarness, _ email: String, forwardedFor: String? = nil) async throws -> HearthHarness.Reply {
        var headers: HTTPFields = [:]
        if let forwardedFor { headers[Self.forwardedFor] = forwardedFor }
        let body = try JSONEncoder().encode(SignUpRequest(email: email, password: "correct horse"))
        return try await h.send(.post, WirePaths.accounts("signUp") + "?key=test-key", body: String(decoding: body, as: UTF8.self), headers: headers)
    }

    /// Sends `count` sign-ups, 50 at a time; returns the replies.
    static func flood(_ h: HearthHarness, count: Int, prefix: String, forwardedFor: @escaping @Sendable (Int) -> String?) async throws -> [HearthHarness.Reply] {
        var replies: [HearthHarness.Reply] = []
        // Ten at a time: concurrent enough to race the counters, few enough that a test server sharing two cores
        // with the rest of the suite answers each within the test client's 20 s read timeout.
        for batch in stride(from: 0, to: count, by: 10) {
            replies += try await withThrowingTaskGroup(of: HearthHarness.Reply.self) { group in
                for index in batch..<min(count, batch + 10) {
                    group.addTask { try await Self.signUp(h, "\(prefix)\(index)@flood.example.com", forwardedFor: forwardedFor(index)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        return replies
    }

    static func message(_ reply: HearthHarness.Reply) -> String {
        ((try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    /// The attack: 1000 sign-ups from one address, each claiming another address in `X-Forwarded-For` (no proxy is
    /// trusted, so the header proves nothing). 100 (the hourly limit) are accepted, the rest refused before any
    /// password is hashed or user written, with 429, the Google envelope and `Retry-After`.
    @Test func aThousandSignUpsFromOneAddressStopAtTheLimit() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration() }) { h in
            let replies = try await Self.flood(h, count: 1000, prefix: "a") { "198.51.100.\($0 % 250)" }
            let accepted = replies.filter { $0.status == 200 }
            let refused = replies.filter { $0.status == 429 }
            #expect(accepted.count == RateLimitConfiguration.defaultSignUpsPerAddressPerHour)
            #expect(refused.count == 1000 - accepted.count)
            for reply in refused.prefix(5) {
                #expect(Self.message(reply).hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER"), "\(reply.text)")
                let json = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
                #expect((json["error"] as? [String: Any])?["code"] as? Int == 429)
                let retryAfter = try #require(reply.headers[.retryAfter].flatMap { Int($0) })
                #expect((1...3600).contains(retryAfter))
            }
            #expect(try await h.store.userCount() == accepted.count)
            // Counted for operators at /metrics, under the client's scope.
            #expect(h.server.configuration.metrics.counterValue(.rateLimited, ["signUp", "address"]) == Double(refused.count))
            #expect(h.server.configuration.metrics.counterValue(.rateLimited, ["signUp", "project"]) == nil)
            // The v3 alias shares the limit.
            let v3 = try await h.post(WirePaths.v3("signupNewUser"), raw: #"{"email":"v3@flood.example.com","password":"correct horse"}"#)
            #expect(v3.status == 429, "\(v3.text)")
            // Other endpoints have their own limits: password sign-in still works for an account made before.
            let signIn = try await h.signIn(email: "a0@flood.example.com")
            #expect(signIn.status == 200 || Self.message(signIn) == "EMAIL_NOT_FOUND", "\(signIn.text)")
            // Once the window has passed, the address may sign up again.
            h.clock.advance(by: 2 * 3600 + 1)
            #expect(try await Self.signUp(h, "later@flood.example.com").status == 200)
        }
    }

    /// A flood is one log line per window and address, not one per refused request.
    @Test func aFloodIsOneLogLine() async throws {
        let records = LogCapture.Records()
        let logger = Logger(label: "hearth.test") { _ in LogCapture(records: records) }
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 5) }, logger: logger) { h in
            let replies = try await Self.flood(h, count: 100, prefix: "log") { _ in nil }
            #expect(replies.filter { $0.status == 429 }.count == 95)
            let lines = records.all.filter { $0.message == "rate limit reached" }
            #expect(lines.count == 1, "\(lines.map(\.metadata))")
            #expect(lines.first?.metadata["endpoint"] == "signUp" && lines.first?.metadata["client"] == "127.0.0.1")
        }
    }

    /// Behind a trusted proxy, each client is counted by the address the proxy saw: one client's flood does not
    /// block another, nor use up the project's allowance (refused requests are not counted for the project), and
    /// a client that writes its own `X-Forwarded-For` is still counted by its real address (the right-most entry).
    @Test func oneClientsFloodDoesNotBlockAnother() async throws {
        try await HearthHarness.run(configure: {
            $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 100, perProjectPerMinute: 300)
            $0.trustedProxies = try! TrustedProxies(["127.0.0.1/32", "10.0.0.0/8"])
        }) { h in
            let replies = try await Self.flood(h, count: 1000, prefix: "f") { _ in "203.0.113.7" }
            #expect(replies.filter { $0.status == 200 }.count == 100)
            #expect(replies.filter { $0.status == 429 }.count == 900)
            // A spoofed left-most entry does not help: the proxy appended the real address.
            let spoofed = try await Self.signUp(h, "spoof@flood.example.com", forwardedFor: "192.0.2.1, 203.0.113.7")
            #expect(spoofed.status == 429, "\(spoofed.text)")
            // Nor does another trusted hop in between.
            let viaInnerProxy = try await Self.signUp(h, "inner@flood.example.com", forwardedFor: "203.0.113.7, 10.1.2.3")
            #expect(viaInnerProxy.status == 429, "\(viaInnerProxy.text)")
            // Another client signs up normally: the project has counted 100 (not 1000) of its 300.
            for index in 0..<20 {
                let other = try await Self.signUp(h, "other\(index)@example.com", forwardedFor: "198.51.100.\(index)")
                #expect(other.status == 200, "\(other.text)")
            }
        }
    }

    /// An IPv6 client is counted by its /64 (it can rotate through the addresses of its network); an IPv4-mapped
    /// IPv6 address is its IPv4 address.
    @Test func ipv6ClientsAreCountedByTheirSlash64() async throws {
        try await HearthHarness.run(configure: {
            $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 2)
            $0.trustedProxies = try! TrustedProxies(["127.0.0.1"])
        }) { h in
            let cases: [(String, Int)] = [
                ("2001:db8:1:2::1", 200), ("2001:db8:1:2::ffff", 200), ("2001:db8:1:2:abcd::9", 429), ("2001:db8:1:3::1", 200),
                ("198.51.100.1", 200), ("::ffff:198.51.100.1", 200), ("198.51.100.1", 429),
            ]
            for (index, (address, status)) in cases.enumerated() {
                let reply = try await Self.signUp(h, "v6-\(index)@example.com", forwardedFor: address)
                #expect(reply.status == status, "\(address): \(reply.text)")
            }
        }
    }

    /// The per-project limit: many addresses together are stopped too.
    @Test func theProjectLimitCoversAllAddresses() async throws {
        try await HearthHarness.run(configure: {
            $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 100, perProjectPerMinute: 30)
            $0.trustedProxies = try! TrustedProxies(["127.0.0.1"])
        }) { h in
            let replies = try await Self.flood(h, count: 60, prefix: "p") { "198.51.100.\($0)" }
            #expect(replies.filter { $0.status == 200 }.count == 30)
            #expect(replies.filter { $0.status == 429 }.allSatisfy { Self.message($0).hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") })
        }
    }

    /// Password sign-in, createAuthUri and the auth handler each have a per-address limit; the handler answers a
    /// browser with a 429 page.
    @Test func theOtherEndpointsAreLimitedToo() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(perAddressPerMinute: 5) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            for index in 0..<6 {
                let reply = try await h.signIn(email: "ada@example.com")
                #expect(reply.status == (index < 5 ? 200 : 429), "\(index): \(reply.text)")
            }
            for index in 0..<6 {
                let reply = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "ada@example.com", continueUri: "http://localhost/"))
                #expect(reply.status == (index < 5 ? 200 : 429), "\(index): \(reply.text)")
            }
            var statuses: [Int] = []
            var last: HearthHarness.Reply?
            for _ in 0..<6 {
                let reply = try await h.send(.get, h.handlerURL(providerId: "microsoft.com", rawSessionId: "SESSION1234").replacingOccurrences(of: h.baseURL, with: ""))
                statuses.append(reply.status)
                last = reply
            }
            #expect(statuses.prefix(5).allSatisfy { $0 != 429 } && statuses.last == 429, "\(statuses)")
            #expect(last?.text.contains("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
            #expect(last?.headers[.retryAfter] != nil)
            // Each passkey sign-in start stores a challenge.
            let passkeys = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=passkeys",
                                            body: #"{"passkeys":{"enabled":true}}"#, headers: [.authorization: "Bearer owner"])
            #expect(passkeys.status == 200, "\(passkeys.text)")
            for index in 0..<6 {
                let reply = try await h.post(WirePaths.passkeySignInStart, raw: "{}")
                #expect(reply.status == (index < 5 ? 200 : 429), "\(index): \(reply.text)")
            }
            // Refresh tokens and lookups are not limited.
            let session = try await h.signUp(email: "bob@example.com")
            for _ in 0..<8 { #expect(try await h.refresh(try #require(session.refreshToken)).status == 200) }
        }
    }

    /// `demo-*` projects behave like the emulator: no limits unless configured; other projects are limited.
    @Test func defaults() {
        #expect(!RateLimitConfiguration.defaults(projectId: "demo-hearth").enabled)
        let production = RateLimitConfiguration.defaults(projectId: "acme-prod")
        #expect(production.enabled)
        #expect(production.rules[.signUp]?.perAddress == .init(100, per: 3600))
        #expect(production.rules[.signInWithPassword]?.perAddress == .init(120, per: 60))
        #expect(HearthServerConfiguration(projectId: "acme-prod").rateLimits.enabled)
        #expect(!HearthServerConfiguration(projectId: "demo-x").rateLimits.enabled)
    }

    @Test func trustedProxiesAndClientAddresses() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "fd00::/8", "192.0.2.1"])
        // An untrusted peer is the client, whatever it forwards.
        #expect(proxies.clientAddress(peer: "198.51.100.1", forwardedFor: ["1.2.3.4"]) == "198.51.100.1")
        // A trusted peer: the right-most untrusted hop.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: ["1.2.3.4, 203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: ["1.2.3.4", "203.0.113.9, 192.0.2.1"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "fd12::1", forwardedFor: ["2001:db8::7"]) == "2001:db8::7")
        #expect(proxies.clientAddress(peer: "::ffff:10.1.1.1", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        // Garbage in the header stops the walk at the last good hop.
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: ["203.0.113.9, not-an-address"]) == "10.0.0.5")
        #expect(proxies.clientAddress(peer: "10.0.0.5", forwardedFor: ["not-an-address, 203.0.113.9"]) == "203.0.113.9")
        // Only whole networks: 11.x is not in 10/8.
        #expect(proxies.clientAddress(peer: "11.0.0.5", forwardedFor: ["203.0.113.9"]) == "11.0.0.5")
        for bad in ["10.0.0.0/33", "example.com", "10.0.0.0/", "::/129", ""] {
            #expect(throws: TrustedProxyError.self) { try TrustedProxies([bad]) }
        }
    }
}
