import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthStorePostgres
import HearthTesting
import HearthWire
import Testing

/// The rate-limit and trusted-proxy settings through the `hearth` binary: checked values, the banner, and the
/// limits of a running server.
@Suite(.serialized) struct RateLimitCLITests {
    static func writeConfig(_ text: String) -> String {
        let path = CLI.temporaryDirectory() + "/hearth.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test func badSettingsNameTheKeyAndTheValue() throws {
        let data = CLI.temporaryDirectory()
        let cases: [([String], [String: String], [String])] = [
            (["serve", "--data-dir", data, "--rate-limit-per-address", "0"], [:], ["--rate-limit-per-address", "from 1 to 10000000", "\"0\""]),
            (["serve", "--data-dir", data], ["HEARTH_RATE_LIMITS": "maybe"], ["HEARTH_RATE_LIMITS", "on or off", "\"maybe\""]),
            (["serve", "--config", Self.writeConfig(#"{"rate": {"limit": {"signup": {"per": {"adress": 5}}}}}"#)], [:],
             ["unknown key \"rate.limit.signup.per.adress\"", "did you mean \"rate.limit.signup.per.address\""]),
            (["serve", "--config", Self.writeConfig(#"{"rate.limit.per.project": "lots"}"#)], [:], ["\"rate.limit.per.project\"", "\"lots\""]),
            (["serve", "--data-dir", data, "--trusted-proxy", "proxy.example.com"], [:], ["--trusted-proxy", "\"proxy.example.com\" is not an IP address or CIDR network"]),
            (["serve", "--data-dir", data], ["HEARTH_TRUSTED_PROXIES": "10.0.0.0/8, 10.0.0.0/99"], ["HEARTH_TRUSTED_PROXIES", "\"10.0.0.0/99\""]),
        ]
        for (arguments, environment, expected) in cases {
            let result = try CLI.run(arguments, environment: environment, timeout: 20)
            #expect(result.status != 0, "\(arguments) started")
            for text in expected { #expect(result.stderr.contains(text), "\(arguments): \(result.stderr)") }
            #expect(!result.stdout.contains("Hearth is serving"))
        }
    }

    static func signUp(_ base: String, _ email: String, forwardedFor: String? = nil) async throws -> (status: Int, retryAfter: String?, message: String) {
        var request = URLRequest(url: URL(string: base + WirePaths.accounts("signUp") + "?key=k")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let forwardedFor { request.setValue(forwardedFor, forHTTPHeaderField: "X-Forwarded-For") }
        request.httpBody = try JSONSerialization.data(withJSONObject: ["email": email, "password": "correct horse"])
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Retry-After"), ((json?["error"] as? [String: Any])?["message"] as? String) ?? "")
    }

    /// A production project is limited by default; the limits come from the settings; behind a trusted proxy (from
    /// the configuration file) each forwarded client has its own allowance.
    @Test func aProductionServerLimitsSignUps() async throws {
        let config = Self.writeConfig(#"{"rate": {"limit": {"signup.per.address": 3}}, "trusted": {"proxies": ["127.0.0.1"]}}"#)
        let server = try RunningServer.start(["--project-id", "acme-prod", "--api-key", "k", "--config", config])
        defer { server.stop() }
        #expect(server.banner.contains("rate limits:   per address 3 sign-ups/hour, 120/minute"), "\(server.banner)")
        #expect(server.banner.contains("X-Forwarded-For from trusted proxies 127.0.0.1"), "\(server.banner)")
        var statuses: [Int] = []
        for index in 0..<4 { statuses.append(try await Self.signUp(server.url, "a\(index)@example.com", forwardedFor: "203.0.113.5").status) }
        #expect(statuses == [200, 200, 200, 429])
        let refused = try await Self.signUp(server.url, "a9@example.com", forwardedFor: "203.0.113.5")
        #expect(refused.status == 429 && refused.message.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER"), "\(refused)")
        #expect(Int(refused.retryAfter ?? "") ?? 0 > 0, "\(refused)")
        #expect(try await Self.signUp(server.url, "b@example.com", forwardedFor: "198.51.100.8").status == 200)
    }

    @Test func aDemoServerHasNoLimitsUnlessAsked() async throws {
        let demo = try RunningServer.start()
        #expect(demo.banner.contains("rate limits:   off"), "\(demo.banner)")
        #expect(demo.banner.contains("X-Forwarded-For ignored"), "\(demo.banner)")
        demo.stop()
        let limited = try RunningServer.start(["--rate-limits", "on"])
        defer { limited.stop() }
        #expect(limited.banner.contains("rate limits:   per address 100 sign-ups/hour"), "\(limited.banner)")
    }

    /// Two replicas on one PostgreSQL database enforce one limit: sign-ups from one address alternate between them,
    /// and the fourth is refused although each replica saw only two.
    @Test(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
    func replicasShareOneLimit() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let (a, b) = try await ReplicaTests.startPair(ReplicaTests.url(configuration),
                                                          arguments: ["--project-id", "acme-prod", "--api-key", "k", "--rate-limit-signup-per-address", "3"])
            defer { a.stop(); b.stop() }
            var statuses: [Int] = []
            for index in 0..<4 { statuses.append(try await Self.signUp(index % 2 == 0 ? a.url : b.url, "r\(index)@example.com").status) }
            #expect(statuses == [200, 200, 200, 429], "\(statuses)")
            #expect(try await Self.signUp(b.url, "r9@example.com").status == 429)
        }
    }
}
