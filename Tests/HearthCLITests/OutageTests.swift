import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18.1: `hearth serve` on a PostgreSQL database that goes away — stopped (`pg_ctl stop -m immediate`), full
/// (`max_connections` reached) or stalled (a lock held) — answers every request within its bound with
/// `503 UNAVAILABLE`, never a 500 or a hang, and serves again within two seconds of the database's return.
/// A cluster of its own (scripts/test-postgres on another port), so stopping it disturbs no other test.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
struct OutageTests {
    static let port = 54391
    static let maxConnections = 12
    static var databaseURL: String { "postgres://postgres:hearth-test@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// `scripts/test-postgres <command> <port>` (start, halt, stop) for this suite's cluster. Through system(3):
    /// Foundation's Process can miss the exit of a script whose child daemonizes (pg_ctl start).
    static func cluster(_ command: String) throws {
        let script = CLI.root.appendingPathComponent("scripts/test-postgres").path
        // Commits are durable (synchronous_commit on): the suite kills the cluster as a crash would, right after a
        // sign-up, and an unflushed commit would be lost (the other test clusters trade that for speed).
        let line = "HEARTH_PG_MAX_CONNECTIONS=\(maxConnections) HEARTH_PG_RESERVED=0 HEARTH_PG_SYNCHRONOUS_COMMIT=on /bin/bash '\(script)' \(command) \(port) >/dev/null"
        let status = system(line)
        // -1 with ECHILD: the status was reaped elsewhere; the script's effect is checked by what follows.
        guard status == 0 || (status == -1 && errno == ECHILD) else { throw CLIFailure("scripts/test-postgres \(command) \(port) failed (\(status))") }
    }

    /// One request as a client sends it, with how long the answer took.
    static func call(_ base: String, _ path: String, _ body: [String: Any]? = nil) async -> (status: Int, message: String, seconds: Double, retryAfter: String?) {
        var request = URLRequest(url: URL(string: base + path + (body == nil ? "" : "?key=k"))!, timeoutInterval: 70)
        if let body {
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: body)
        }
        let start = ContinuousClock.now
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return (0, "no answer", 70, nil) }
        let seconds = Double((ContinuousClock.now - start).components.attoseconds) / 1e18 + Double((ContinuousClock.now - start).components.seconds)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let error = json?["error"] as? [String: Any]
        let message = (error?["status"] as? String).map { "\($0) \(error?["message"] as? String ?? "")" } ?? (error?["message"] as? String ?? "")
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, message, seconds, http?.value(forHTTPHeaderField: "Retry-After"))
    }

    static func signIn(_ base: String) async -> (status: Int, message: String, seconds: Double, retryAfter: String?) {
        await call(base, WirePaths.accounts("signInWithPassword"), ["email": "outage@example.com", "password": "correct horse"])
    }

    /// Polls until a sign-in succeeds; the seconds it took.
    static func recovery(_ base: String, limit: Double = 30) async -> Double {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(limit) {
            if await signIn(base).status == 200 { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func connect() async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(host: "127.0.0.1", port: port, username: "postgres", password: "hearth-test", database: "postgres", tls: .disable),
            id: Int.random(in: 100...100_000), logger: Logger(label: "hearth.test.outage"))
    }

    /// Expects a failed request to be a prompt 503 UNAVAILABLE with Retry-After.
    static func expectUnavailable(_ reply: (status: Int, message: String, seconds: Double, retryAfter: String?), within bound: Double,
                                  _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 503, "\(what): \(reply.status) \(reply.message)", sourceLocation: sourceLocation)
        #expect(reply.message.hasPrefix("UNAVAILABLE"), "\(what): \(reply.message)", sourceLocation: sourceLocation)
        #expect(reply.retryAfter != nil, "\(what)", sourceLocation: sourceLocation)
        #expect(reply.seconds <= bound, "\(what): answered after \(reply.seconds) s", sourceLocation: sourceLocation)
    }

    @Test func stoppedFullAndStalledDatabasesAnswer503WithinTheBoundAndRecoverFast() async throws {
        try Self.cluster("stop")
        try Self.cluster("start")
        defer { try? Self.cluster("stop") }
        let server = try RunningServer.start(["--project-id", "demo-outage", "--store-timeout", "5"],
                                             environment: ["HEARTH_DATABASE_URL": Self.databaseURL])
        defer { server.stop() }
        let base = server.url
        let created = await Self.call(base, WirePaths.accounts("signUp"), ["email": "outage@example.com", "password": "correct horse"])
        #expect(created.status == 200, "\(created.message)")
        #expect(await Self.signIn(base).status == 200)

        // 1. Stopped as by a crash.
        try Self.cluster("halt")
        let stopped = ContinuousClock.now
        let first = await Self.signIn(base)
        Self.expectUnavailable(first, within: 6, "first request after the stop")
        var later: [Double] = []
        for _ in 0..<5 {
            let reply = await Self.signIn(base)
            // Known down: the probe failed, so every request fails fast instead of waiting out its bound again.
            Self.expectUnavailable(reply, within: 1, "request while stopped, after the first")
            later.append(reply.seconds)
        }
        var ready = await Self.call(base, "/readyz")
        #expect(ready.status == 503)
        let toReady503 = (ContinuousClock.now - stopped)
        #expect(toReady503 < .seconds(8), "/readyz turned 503 only after \(toReady503)")
        // Restarted: the first sign-in succeeds within 2 s of the database accepting connections.
        try Self.cluster("start")
        let recoveredAfterStop = await Self.recovery(base)
        #expect(recoveredAfterStop <= 2, "recovered \(recoveredAfterStop) s after the database came back")
        ready = await Self.call(base, "/readyz")
        #expect(ready.status == 200)

        // 2. Up, but refusing connections: every slot taken (max_connections), Hearth's own connections ended.
        var fillers: [PostgresConnection] = []
        let admin = try await Self.connect()
        _ = try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
                                  logger: Logger(label: "hearth.test.outage")).collect()
        for _ in 1..<Self.maxConnections {
            if let filler = try? await Self.connect() { fillers.append(filler) }
        }
        let full = await Self.signIn(base)
        Self.expectUnavailable(full, within: 6, "request while PostgreSQL refuses connections")
        let fullAgain = await Self.signIn(base)
        Self.expectUnavailable(fullAgain, within: 6, "second request while PostgreSQL refuses connections")
        for filler in fillers { try? await filler.close() }
        let recoveredAfterFull = await Self.recovery(base)
        #expect(recoveredAfterFull <= 2, "recovered \(recoveredAfterFull) s after connections were free again")

        // 3. Up and accepting, but stalled: a lock on the users table held by another session.
        _ = try await admin.query("BEGIN", logger: Logger(label: "hearth.test.outage")).collect()
        _ = try await admin.query("LOCK TABLE users IN ACCESS EXCLUSIVE MODE", logger: Logger(label: "hearth.test.outage")).collect()
        let stalled = await Self.signIn(base)
        Self.expectUnavailable(stalled, within: 6.5, "request while a lock stalls the users table")
        _ = try await admin.query("COMMIT", logger: Logger(label: "hearth.test.outage")).collect()
        try? await admin.close()
        let recoveredAfterStall = await Self.recovery(base)
        #expect(recoveredAfterStall <= 2, "recovered \(recoveredAfterStall) s after the lock was released")
        #expect(!server.log.contains("INTERNAL_ERROR"))

        print("""
            outage figures (store.timeout 5 s): stopped — first request 503 after \(String(format: "%.2f", first.seconds)) s, \
            later ones after \(later.map { String(format: "%.2f", $0) }.joined(separator: "/")) s, /readyz 503 within \(toReady503), \
            first success \(String(format: "%.2f", recoveredAfterStop)) s after restart; max_connections — 503 after \
            \(String(format: "%.2f", full.seconds))/\(String(format: "%.2f", fullAgain.seconds)) s, success \(String(format: "%.2f", recoveredAfterFull)) s \
            after slots freed; stalled — 503 after \(String(format: "%.2f", stalled.seconds)) s, success \(String(format: "%.2f", recoveredAfterStall)) s after release
            """)
    }
}
