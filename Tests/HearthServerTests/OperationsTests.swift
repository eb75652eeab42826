import Foundation
import HearthCore
import HTTPTypes
import HearthServer
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// What an operator sees: request ids, `/readyz`, `/metrics` (and who may read it), and log lines — none of which
/// may carry a token, a password, a secret or a whole email address.
@Suite struct OperationsTests {
    static let requestID = HTTPField.Name("X-Request-Id")!

    @Test func everyResponseCarriesARequestIdAndASaneIncomingOneIsKept() async throws {
        try await HearthHarness.run { h in
            let ok = try await h.send(.get, "/healthz")
            let generated = try #require(ok.headers[Self.requestID])
            #expect(generated.count >= 16)
            // Errors too: an unknown route, a refused API call, a CORS preflight.
            let missing = try await h.send(.get, "/no/such/route")
            #expect(missing.status == 404)
            #expect(missing.headers[Self.requestID] != nil && missing.headers[Self.requestID] != generated)
            let refused = try await h.post(WirePaths.accounts("lookup"), raw: "{not json")
            #expect(refused.status == 400 && refused.headers[Self.requestID] != nil)
            let preflight = try await h.send(.options, WirePaths.accounts("signUp"),
                                             headers: [.origin: "https://app.example.com", .accessControlRequestMethod: "POST"])
            #expect(preflight.headers[Self.requestID] != nil)
            // A caller's sane id is answered back; anything else is replaced.
            let kept = try await h.send(.get, "/healthz", headers: [Self.requestID: "trace-42.abc:7_x"])
            #expect(kept.headers[Self.requestID] == "trace-42.abc:7_x")
            for insane in ["has space", "ada@example.com", String(repeating: "a", count: 129), "<script>"] {
                let replaced = try await h.send(.get, "/healthz", headers: [Self.requestID: insane])
                #expect(replaced.headers[Self.requestID] != insane)
                #expect(replaced.headers[Self.requestID].map(HearthRequestID.accepts) == true)
            }
        }
    }

    @Test func readyOnceKeysAreLoadedAndTheStoreAnswers() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.send(.get, "/readyz")
            #expect(reply.status == 200)
            #expect(reply.json?["status"] as? String == "ready")
        }
    }

    @Test func notReadyUntilASigningKeyIsLoadedAndSaysWhy() async throws {
        let store = try await SQLiteStore.inMemory()
        let server = try await HearthApp(configuration: HearthServerConfiguration(port: 0, passwordParameters: HearthHarness.fastPasswords),
                                            store: store)
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            // Not started: no signing key yet.
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status.code == 503)
                let envelope = try JSONDecoder().decode(GoogleErrorEnvelope.self, from: Data(response.body.readableBytesView))
                #expect(envelope.errorCode == "NOT_READY")
                #expect(envelope.error.message.contains("no signing key"))
                #expect(envelope.error.status == "UNAVAILABLE")
            }
            try await server.start()
            try await client.execute(uri: "/readyz", method: .get) { response in #expect(response.status.code == 200) }
            try await client.execute(uri: "/healthz", method: .get) { response in #expect(response.status.code == 200) }
        }
        try await store.close()
    }

    /// A real outage: the server's PostgreSQL database stops accepting connections and drops the open ones.
    @Test(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
    func notReadyWhenTheDatabaseIsGone() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let store = try await PostgresStore.open(configuration)
            let server = try await HearthApp(configuration: HearthServerConfiguration(port: 0, passwordParameters: HearthHarness.fastPasswords),
                                                store: store)
            try await server.start()
            let app = Application(router: server.router())
            try await app.test(.router) { client in
                try await client.execute(uri: "/readyz", method: .get) { response in #expect(response.status.code == 200) }
                var admin = configuration
                admin.database = "postgres"
                try await PostgresTestDatabase.execute("ALTER DATABASE \(configuration.database) ALLOW_CONNECTIONS false", on: admin)
                try await PostgresTestDatabase.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(configuration.database)'", on: admin)
                try await client.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status.code == 503)
                    let envelope = try JSONDecoder().decode(GoogleErrorEnvelope.self, from: Data(response.body.readableBytesView))
                    #expect(envelope.errorCode == "NOT_READY")
                    #expect(envelope.error.message.contains("store"), "\(envelope.error.message)")
                    #expect(!envelope.error.message.contains(configuration.password ?? "-"))
                }
                try await client.execute(uri: "/healthz", method: .get) { response in #expect(response.status.code == 200) }
            }
            try? await store.close()
        }
    }

    @Test func metricsCountRequestsSignInsRefusalsReuseRotationsAndStoreLatency() async throws {
        try await HearthHarness.run(configure: { $0.refreshGraceWindow = 30 }) { h in
            let email = "grace.hopper@example.com"
            let password = "correct horse battery"
            let created = try await h.signUp(email: email, password: password)
            #expect(try await h.signIn(email: email, password: "wrong password").status == 400)
            let first = try #require(created.refreshToken)
            let rotated = try await h.refresh(first).decode(GrantTokenResponse.self)
            h.clock.advance(by: 60)
            #expect(try await h.refresh(first).errorCode == "TOKEN_EXPIRED")
            _ = try await h.send(.get, "/no/such/route")

            let reply = try await h.send(.get, "/metrics")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = reply.text
            let signUp = WirePaths.accounts("signUp")
            #expect(text.contains(#"hearth_http_requests_total{route="\#(signUp)",method="POST",status="200"} 1"#))
            #expect(text.contains(#"hearth_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
            #expect(text.contains(#"hearth_http_request_duration_seconds_bucket{route="\#(signUp)",method="POST",status="200",le="+Inf"} 1"#))
            #expect(text.contains(#"hearth_sign_ins_total{provider="password",result="success",tenant=""} 1"#))
            #expect(text.contains(#"hearth_sign_ins_total{provider="password",result="refused",tenant=""} 1"#))
            #expect(text.contains(#"hearth_sign_ins_refused_total{reason="INVALID_LOGIN_CREDENTIALS"} 1"#))
            #expect(text.contains(#"hearth_sign_ups_total{provider="password",tenant=""} 1"#))
            #expect(text.contains("hearth_refresh_token_reuse_detections_total 1"))
            #expect(text.contains("hearth_signing_key_rotations_total 1"))
            #expect(text.contains(#"hearth_store_operation_duration_seconds_count{operation="createUser",result="ok"} 1"#))
            #expect(text.contains(#"hearth_store_operation_duration_seconds_count{operation="refreshSession",result="ok"} 2"#))
            // Nothing secret or personal: no token, no password, no email address or its local part.
            for secret in [email, "grace.hopper", password, first, rotated.refreshToken, rotated.idToken, try #require(created.idToken), created.localId] {
                #expect(!text.contains(secret), "metrics carry \(secret.prefix(6))…")
            }
        }
    }

    @Test func metricsAccessIsLocalByDefaultAndConfigurable() async throws {
        let proxied: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.7"]
        try await HearthHarness.run { h in
            #expect(try await h.send(.get, "/metrics").status == 200)
            let refused = try await h.send(.get, "/metrics", headers: proxied)
            #expect(refused.status == 403 && refused.errorCode == "PERMISSION_DENIED")
        }
        try await HearthHarness.run(configure: { $0.metricsAccess = .public }) { h in
            let reply = try await h.send(.get, "/metrics", headers: proxied)
            #expect(reply.status == 200)
        }
        try await HearthHarness.run(configure: { $0.metricsAccess = .off }) { h in
            let reply = try await h.send(.get, "/metrics")
            #expect(reply.status == 404)
        }
        let token = "0123456789abcdef0123456789abcdef"
        try await HearthHarness.run(configure: { $0.metricsAccess = .token; $0.metricsToken = token }) { h in
            let none = try await h.send(.get, "/metrics")
            #expect(none.status == 401 && none.errorCode == "UNAUTHENTICATED")
            let wrong = try await h.send(.get, "/metrics", headers: [.authorization: "Bearer \(token.dropLast())x"])
            #expect(wrong.status == 401)
            var bearer = proxied
            bearer[.authorization] = "Bearer \(token)"
            let right = try await h.send(.get, "/metrics", headers: bearer)
            #expect(right.status == 200)
        }
    }

    @Test func logLinesCarryTheRequestIdAndNoSecret() async throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "hearth") { label in
            HearthLogHandler(label: label, format: .json, level: .trace) { line in lines.withLock { $0.append(line) } }
        }
        logger.logLevel = .trace
        let email = "ada.lovelace@example.com"
        let password = "analytical engine 1843"
        let (signUpID, tokens) = try await HearthHarness.run(logger: logger) { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: email, password: password),
                                         query: "")
            #expect(reply.status == 200)
            let created = try reply.decode(SignUpResponse.self)
            _ = try await h.signIn(email: email, password: "not the password")
            _ = try await h.refresh(try #require(created.refreshToken))
            _ = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, password: "a new secret 42"))
            return (try #require(reply.headers[Self.requestID]), [created.idToken ?? "", created.refreshToken ?? ""])
        }
        let captured = lines.withLock { $0 }
        let objects = try captured.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "not a JSON line: \(line)")
        }
        // The sign-up's own line carries the sign-up response's id.
        let created = try #require(objects.first { $0["message"] == "user created" })
        #expect(created["request_id"] == signUpID)
        #expect(created["level"] == "info" && created["logger"] == "hearth")
        // Every line written while a request was served has an id (the request ones are the ones with Hummingbird's).
        for object in objects where object["hb.request.id"] != nil { Issue.record("Hummingbird's id was not replaced: \(object)") }
        let all = captured.joined(separator: "\n")
        for secret in [email, "ada.lovelace", password, "not the password", "a new secret 42"] + tokens where !secret.isEmpty {
            #expect(!all.contains(secret), "a log line carries \(secret.prefix(6))…")
        }
    }

    @Test func logHandlerRedactsAndWritesOneJSONObjectPerLine() throws {
        let lines = Mutex<[String]>([])
        let handler = HearthLogHandler(label: "hearth.test", format: .json) { line in lines.withLock { $0.append(line) } }
        let logger = Logger(label: "hearth.test") { _ in handler }
        HearthRequestID.$current.withValue("req-1") {
            logger.info("signed in ada@example.com with eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
                        metadata: ["refresh": "hrt1.AbC-dEf_123", "quote": "say \"hi\"\n", "message": "clash"])
        }
        logger.warning("outside a request")
        let captured = lines.withLock { $0 }
        #expect(captured.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(captured[0].utf8)) as? [String: String])
        #expect(first["request_id"] == "req-1")
        #expect(first["message"] == "signed in a…@example.com with [redacted]")
        #expect(first["refresh"] == "[redacted]")
        #expect(first["quote"] == "say \"hi\"\n")
        #expect(first["meta.message"] == "clash")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(captured[1].utf8)) as? [String: String])
        #expect(second["request_id"] == nil && second["level"] == "warning")
        // Text lines carry the id too.
        let text = Mutex<[String]>([])
        let textLogger = Logger(label: "t") { label in HearthLogHandler(label: label, format: .text) { line in text.withLock { $0.append(line) } } }
        HearthRequestID.$current.withValue("req-2") { textLogger.info("hello bob@example.org") }
        let line = try #require(text.withLock { $0.first })
        #expect(line.contains("request_id=req-2") && line.hasSuffix("hello b…@example.org"))
    }
}
