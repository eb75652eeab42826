import AsyncHTTPClient
import Foundation
import HearthCore
import HearthStore
import HearthWire
import _CryptoExtras
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `hearth-bench --soak`: a long run of the whole client API at a steady rate (half of the throughput the same mix
/// reaches flat out, measured first), reporting errors, p99 latency and the server's RSS per interval.
extension Bench {
    /// The operations of the mix, one per endpoint family; `signInWithIdp` is the whole federated flow.
    enum SoakOperation: String, CaseIterable, Sendable {
        case refresh, lookup, update, signInWithPassword, signInWithCustomToken, signInWithIdp, signUpAndDelete
        case createAuthUri, getProjectConfig, publicKeys, jwks
    }

    /// Figures of one reporting interval.
    struct SoakWindow: Sendable {
        var latencies: [Double] = []
        var errors = 0
        var firstErrors: [String] = []
    }

    struct SoakLine: Sendable {
        var time: Double
        var requests: Int
        var errors: Int
        var p50: Double
        var p99: Double
        var rss: Double
        /// The anonymous part of RSS (heap, stacks: not the binary's or libraries' pages).
        var rssAnon: Double
        /// The SQLite database and its WAL (0 with PostgreSQL).
        var storeMB: Double
    }

    /// Everything the soak's workers share: a rotating pool of sessions (refresh rotates them), the next slot and
    /// the current window's figures.
    final class SoakState: Sendable {
        let sessions: Mutex<[Session]>
        let window = Mutex(SoakWindow())
        let slot = Mutex(0)
        /// Requests that succeeded in the current `runMix`.
        let completed = Mutex(0)
        /// The reporter's lines and the errors it saw.
        let lines = Mutex<[SoakLine]>([])
        let errors = Mutex<[String]>([])
        /// Custom tokens for signInWithCustomToken; they live an hour (Firebase's limit), so the reporter mints new
        /// ones every half hour.
        let customTokens = Mutex<[String]>([])

        init(sessions: [Session]) { self.sessions = Mutex(sessions) }

        func record(_ latency: Double?, error: String?) {
            window.withLock { window in
                if let latency { window.latencies.append(latency) }
                if let error {
                    window.errors += 1
                    if window.firstErrors.count < 3 { window.firstErrors.append(error) }
                }
            }
        }

        func takeWindow() -> SoakWindow { window.withLock { window in defer { window = SoakWindow() }; return window } }
    }

    func soak() async throws {
        try? FileManager.default.removeItem(atPath: dataDir)
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let store = try await openStore()
        try await store.saveServiceAccountKey(ServiceAccountKey(clientEmail: serviceAccount, keyId: serviceKeyId,
                                                                publicKeyPEM: serviceKey.publicKey.pemRepresentation, createdAt: Date()))
        try await store.close()
        try await startServer()
        let pid = serverPID.withLock { $0 }!
        say("soak: server \(options.server), data \(dataDir)")
        let sessions = try await createUsers(max(options.users, 50))
        let passwordUsers = try await createPasswordUsers(options.passwordUsers)
        let state = SoakState(sessions: sessions)
        try mintCustomTokens(state)

        // Calibration: the same mix flat out (closed loop, `concurrency` workers).
        let calibration = options.soakCalibrationSeconds
        say("calibrating: the mix flat out for \(Int(calibration)) s with \(options.concurrency) clients…")
        let calibrated = try await runMix(state: state, passwordUsers: passwordUsers, seconds: calibration, rate: nil)
        _ = state.takeWindow()
        let rate = options.soakRate ?? max(1, calibrated / 2)
        say(String(format: "flat out: %.0f req/s; soak rate: %.0f req/s for %.0f s, reported every %.0f s", calibrated, rate,
                   options.soakSeconds, options.soakInterval))

        // The soak: a steady open-loop rate; a reporter prints a line per interval.
        let started = ContinuousClock.now
        let reporter = Task { () -> Void in
            var minted = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(options.soakInterval))
                if Task.isCancelled { break }
                let window = state.takeWindow()
                let sorted = window.latencies.sorted()
                func percentile(_ p: Double) -> Double {
                    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
                }
                let elapsed = (ContinuousClock.now - started).seconds
                let line = SoakLine(time: elapsed, requests: window.latencies.count, errors: window.errors, p50: percentile(0.5) * 1000,
                                    p99: percentile(0.99) * 1000, rss: ProcessStats.rssMB(pid),
                                    rssAnon: ProcessStats.rssMB(pid, field: "RssAnon"), storeMB: storeMB())
                say(String(format: "  t=%5.0f s  %6d req (%5.0f/s)  %d errors  p50 %6.2f ms  p99 %7.2f ms  RSS %6.1f MB (anonymous %5.1f)  store %6.1f MB",
                           line.time, line.requests, Double(line.requests) / options.soakInterval, line.errors, line.p50, line.p99,
                           line.rss, line.rssAnon, line.storeMB))
                for error in window.firstErrors { say("    error: \(error)") }
                state.lines.withLock { $0.append(line) }
                if elapsed - minted >= 1800 {
                    try? self.mintCustomTokens(state)
                    minted = elapsed
                }
                state.errors.withLock { $0 += window.firstErrors }
            }
        }
        _ = try await runMix(state: state, passwordUsers: passwordUsers, seconds: options.soakSeconds, rate: rate)
        try? await Task.sleep(for: .milliseconds(100))
        reporter.cancel()
        let lines = state.lines.withLock { $0 }
        let rest = state.takeWindow()
        let allErrors = state.errors.withLock { $0 } + rest.firstErrors
        await stopServer()

        let requests = lines.map(\.requests).reduce(0, +) + rest.latencies.count
        let errors = lines.map(\.errors).reduce(0, +) + rest.errors
        // RSS growth from the end of the first interval (caches and pools warm) to the end of the run.
        let firstRSS = lines.first?.rss ?? 0, lastRSS = lines.last?.rss ?? 0
        let growth = firstRSS > 0 ? (lastRSS - firstRSS) / firstRSS * 100 : 0
        let p99s = lines.map(\.p99)
        // The plateau: RSS at the end against the line nearest `plateau-seconds` before the end.
        let end = lines.last?.time ?? 0
        let plateauStart = lines.min { abs($0.time - (end - options.soakPlateauSeconds)) < abs($1.time - (end - options.soakPlateauSeconds)) }
        let judgesPlateau = options.soakSeconds >= 2 * options.soakPlateauSeconds
        let plateauGrowth = plateauStart.map { $0.rss > 0 ? (lastRSS - $0.rss) / $0.rss * 100 : 0 } ?? 0
        if let csv = options.soakCSV {
            var text = "t_s,requests,errors,p50_ms,p99_ms,rss_mb,rss_anon_mb,store_mb\n"
            for line in lines {
                text += String(format: "%.0f,%d,%d,%.3f,%.3f,%.1f,%.1f,%.1f\n", line.time, line.requests, line.errors, line.p50, line.p99,
                               line.rss, line.rssAnon, line.storeMB)
            }
            try text.write(toFile: csv, atomically: true, encoding: .utf8)
            say("per-interval figures written to \(csv) (plot: scripts/soak-plot \(csv) soak.png)")
        }
        print("""
            ## Soak (\(Int(options.soakSeconds)) s at \(Int(rate)) req/s, half of the mix's \(Int(calibrated)) req/s flat out; \(options.concurrency) clients for calibration)

            | figure | value | goal |
            |---|---|---|
            | requests | \(requests) | |
            | errors | \(errors) | 0 |
            | p99 latency per \(Int(options.soakInterval)) s interval (ms) | min \(String(format: "%.2f", p99s.min() ?? 0)), max \(String(format: "%.2f", p99s.max() ?? 0)), last \(String(format: "%.2f", p99s.last ?? 0)) | steady |
            | RSS after the first interval → at the end (MB) | \(String(format: "%.1f → %.1f", firstRSS, lastRSS)) | |
            | RSS growth | \(String(format: "%+.1f %%", growth)) | \(judgesPlateau ? "" : "< 10 %") |
            | RSS growth over the last \(Int(options.soakPlateauSeconds / 60)) min (\(String(format: "%.1f → %.1f", plateauStart?.rss ?? 0, lastRSS)) MB) | \(judgesPlateau ? String(format: "%+.1f %%", plateauGrowth) : "run too short") | \(judgesPlateau ? "< 5 %" : "") |
            | anonymous RSS after the first interval → at the end (MB) | \(String(format: "%.1f → %.1f", lines.first?.rssAnon ?? 0, lines.last?.rssAnon ?? 0)) | |
            | store (SQLite + WAL) after the first interval → at the end (MB) | \(String(format: "%.1f → %.1f", lines.first?.storeMB ?? 0, lines.last?.storeMB ?? 0)) | |

            Operations in the mix (round robin): \(SoakOperation.allCases.map(\.rawValue).joined(separator: ", ")).
            """)
        print("| t (s) | requests | errors | p50 (ms) | p99 (ms) | RSS (MB) | anonymous (MB) | store (MB) |\n|---|---|---|---|---|---|---|---|")
        for line in lines {
            print(String(format: "| %.0f | %d | %d | %.2f | %.2f | %.1f | %.1f | %.1f |", line.time, line.requests, line.errors, line.p50, line.p99,
                         line.rss, line.rssAnon, line.storeMB))
        }
        // A run of at least twice the plateau window is judged on the plateau (< 5 % over its last part); shorter
        // runs of 5 minutes or more on the growth since the first interval (< 10 %); a short run cannot tell
        // growth from warm-up.
        let grew = judgesPlateau ? plateauGrowth >= 5 : (growth >= 10 && options.soakSeconds >= 300)
        if errors > 0 || grew {
            throw BenchError("soak goals missed: \(errors) errors (first: \(allErrors.prefix(3))), RSS growth \(String(format: "%.1f", judgesPlateau ? plateauGrowth : growth)) %")
        }
    }

    /// Size of the SQLite database and its WAL in the data directory, MB.
    func storeMB() -> Double {
        ["hearth.sqlite", "hearth.sqlite-wal"].reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: dataDir + "/" + name)[.size] as? NSNumber)?.doubleValue ?? 0
            return total + size / 1_048_576
        }
    }

    /// 200 fresh custom tokens (each valid for an hour).
    func mintCustomTokens(_ state: SoakState) throws {
        let fresh = try (0..<200).map { try customToken(uid: "soak-custom-\($0)") }
        state.customTokens.withLock { $0 = fresh }
    }

    /// Runs the mix for `seconds`: with `rate`, open loop (request k starts at k / rate, up to 256 in flight);
    /// without, closed loop with `concurrency` workers. Returns the requests per second achieved.
    func runMix(state: SoakState, passwordUsers: [(email: String, password: String)], seconds: Double, rate: Double?) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(seconds)
        state.slot.withLock { $0 = 0 }
        state.completed.withLock { $0 = 0 }
        let workers = rate == nil ? options.concurrency : 256
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    while true {
                        let slot = state.slot.withLock { slot in defer { slot += 1 }; return slot }
                        if let rate {
                            let due = start + .seconds(Double(slot) / rate)
                            if due >= deadline { return }
                            if due > clock.now { try? await Task.sleep(until: due, clock: clock) }
                        } else if clock.now >= deadline {
                            return
                        }
                        let operation = SoakOperation.allCases[slot % SoakOperation.allCases.count]
                        let begin = clock.now
                        do {
                            try await self.perform(operation, slot: slot, state: state, passwordUsers: passwordUsers)
                            state.record((clock.now - begin).seconds, error: nil)
                            state.completed.withLock { $0 += 1 }
                        } catch {
                            state.record(nil, error: "\(operation.rawValue): \(error)")
                        }
                    }
                }
            }
        }
        return Double(state.completed.withLock { $0 }) / (clock.now - start).seconds
    }

    func perform(_ operation: SoakOperation, slot: Int, state: SoakState, passwordUsers: [(email: String, password: String)]) async throws {
        switch operation {
        case .refresh:
            // Take a session out of the pool while its token rotates, so no two workers present one token.
            guard let session = state.sessions.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            do {
                let reply = try await post(WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": session.refreshToken])
                guard let refreshToken = reply["refresh_token"] as? String, let idToken = reply["id_token"] as? String else { throw BenchError("no tokens") }
                state.sessions.withLock { $0.append(Session(localId: session.localId, idToken: idToken, refreshToken: refreshToken)) }
            } catch {
                state.sessions.withLock { $0.append(session) }
                throw error
            }
        case .lookup:
            guard let token = state.sessions.withLock({ $0.isEmpty ? nil : $0[slot % $0.count].idToken }) else { return }
            let reply = try await post(WirePaths.accounts("lookup"), ["idToken": token])
            guard reply["users"] != nil else { throw BenchError("no users in lookup reply") }
        case .update:
            guard let token = state.sessions.withLock({ $0.isEmpty ? nil : $0[slot % $0.count].idToken }) else { return }
            _ = try await post(WirePaths.accounts("update"), ["idToken": token, "displayName": "Soak \(slot % 100)"])
        case .signInWithPassword:
            let user = passwordUsers[slot % passwordUsers.count]
            _ = try Self.session(try await post(WirePaths.accounts("signInWithPassword"), ["email": user.email, "password": user.password, "returnSecureToken": true]))
        case .signInWithCustomToken:
            guard let token = state.customTokens.withLock({ $0.isEmpty ? nil : $0[slot % $0.count] }) else { return }
            let reply = try await post(WirePaths.accounts("signInWithCustomToken"), ["token": token, "returnSecureToken": true])
            guard reply["idToken"] is String, reply["refreshToken"] is String else { throw BenchError("no tokens in \(reply.keys.sorted())") }
        case .signInWithIdp:
            try await federatedSignIn(email: "soak\(slot % 200)@example.com")
        case .signUpAndDelete:
            // A new account that is deleted again: the user table stays the same size over the run.
            let session = try Self.session(try await post(WirePaths.accounts("signUp"), ["returnSecureToken": true]))
            _ = try await post(WirePaths.accounts("delete"), ["idToken": session.idToken])
        case .createAuthUri:
            let reply = try await post(WirePaths.accounts("createAuthUri"), ["identifier": passwordUsers[slot % passwordUsers.count].email, "continueUri": "http://localhost/"])
            guard reply["registered"] != nil || reply["signinMethods"] != nil || reply["sessionId"] != nil else { throw BenchError("createAuthUri: \(reply.keys.sorted())") }
        case .getProjectConfig:
            let page = try await get(base + WirePaths.v3("getProjectConfig"))
            guard page.status == 200 else { throw BenchError("getProjectConfig: HTTP \(page.status)") }
        case .publicKeys:
            let page = try await get(base + WirePaths.x509Certificates)
            guard page.status == 200 else { throw BenchError("public keys: HTTP \(page.status)") }
        case .jwks:
            let page = try await get(base + WirePaths.wellKnownJWKS)
            guard page.status == 200 else { throw BenchError("JWKS: HTTP \(page.status)") }
        }
    }
}
