import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Testing

/// `hearth serve`'s operability settings as users run them: JSON logs on standard error with the request id of
/// each line, `/readyz`, `/metrics` access, and the checked settings.
@Suite struct OperationsCLITests {
    static func request(_ url: String, method: String = "GET", body: [String: Any]? = nil,
                        headers: [String: String] = [:]) async throws -> (status: Int, headers: [AnyHashable: Any], body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.allHeaderFields ?? [:], data)
    }

    @Test func jsonLogsCarryTheRequestIdAndNoSecret() async throws {
        let server = try RunningServer.start(["--log-format", "json", "--log-level", "debug"],
                                             environment: ["HEARTH_METRICS_ACCESS": "public", "HEARTH_LOG_FORMATT": "x"])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let email = "katherine.johnson@example.com", password = "orbital mechanics 1962"
        let created = try await Self.request(base + WirePaths.accounts("signUp") + "?key=k", method: "POST",
                                             body: ["email": email, "password": password, "returnSecureToken": true],
                                             headers: ["X-Request-Id": "cli-signup-1"])
        #expect(created.status == 200)
        #expect(created.headers["X-Request-Id"] as? String == "cli-signup-1")
        let tokens = (try JSONSerialization.jsonObject(with: created.body) as? [String: Any]) ?? [:]
        #expect(try await Self.request(base + "/readyz").status == 200)
        let metrics = try await Self.request(base + "/metrics", headers: ["X-Forwarded-For": "198.51.100.1"])
        #expect(metrics.status == 200)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("hearth_sign_ins_total"))
        try await Task.sleep(for: .milliseconds(300))
        // Every line is JSON, start-up warnings included.
        let lines = server.log.split(separator: "\n").map(String.init)
        var objects: [[String: String]] = []
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
                Issue.record("not a JSON log line: \(line)")
                continue
            }
            objects.append(object)
        }
        #expect(objects.contains { $0["level"] == "warning" && $0["message"]?.contains("did you mean HEARTH_LOG_FORMAT?") == true })
        let userCreated = try #require(objects.first { $0["message"] == "user created" }, "\(server.log)")
        #expect(userCreated["request_id"] == "cli-signup-1")
        let everything = server.log + server.banner
        for secret in [email, "katherine.johnson", password, tokens["idToken"] as? String ?? "-", tokens["refreshToken"] as? String ?? "-"] {
            #expect(!everything.contains(secret), "the server's output carries \(secret.prefix(6))…")
        }
    }

    @Test func operabilitySettingsAreChecked() throws {
        let data = CLI.temporaryDirectory()
        let config = CLI.temporaryDirectory() + "/hearth.json"
        _ = FileManager.default.createFile(atPath: config, contents: Data(#"{"log": {"formt": "json"}}"#.utf8))
        let cases: [([String], [String: String], [String])] = [
            (["serve", "--data-dir", data, "--log-format", "xml"], [:], ["--log-format", "\"xml\"", "text or json"]),
            (["serve", "--data-dir", data], ["HEARTH_METRICS_ACCESS": "everyone"], ["HEARTH_METRICS_ACCESS", "local, public, token or off"]),
            (["serve", "--data-dir", data, "--metrics-access", "token"], [:], ["--metrics-access", "--metrics-token"]),
            (["serve", "--data-dir", data], ["HEARTH_METRICS_TOKEN": "short"], ["HEARTH_METRICS_TOKEN", "at least 16"]),
            (["serve", "--data-dir", data, "--metrics-access", "public"], ["HEARTH_METRICS_TOKEN": "0123456789abcdef0123"],
             ["HEARTH_METRICS_TOKEN", "applies only to metrics.access token"]),
            (["serve", "--config", config], [:], ["unknown key \"log.formt\"", "did you mean \"log.format\""]),
        ]
        for (arguments, environment, expected) in cases {
            let result = try CLI.run(arguments, environment: environment, timeout: 20)
            #expect(result.status != 0, "\(arguments) started")
            for text in expected { #expect(result.stderr.contains(text), "\(arguments): \(result.stderr)") }
            // A token is a secret: never repeated.
            #expect(!result.stderr.contains("0123456789abcdef0123") && !result.stderr.contains("\"short\""))
        }
    }
}
