import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization
import _CryptoExtras
#if canImport(Glibc)
import Glibc
#endif

/// `hearth-bench`: starts a release `hearth serve --dev` as its own process, loads it over loopback with a
/// concurrent client, reads the server's CPU time from `/proc/<pid>/stat`, and compares the CPU each request
/// costs with the machine's RSA-2048 limit (`openssl speed rsa2048`) measured in the same run, swift-crypto's
/// figure beside it; Glewlwyd's refresh grant runs under the same load as a peer (`--glewlwyd-port`).
@main
struct HearthBench {
    static func main() async throws {
        let options = try Options(CommandLine.arguments.dropFirst())
        if let port = options.devIdPServer {
            // The signInWithIdp scenario's provider, in a process of its own (DevIdPServer.swift).
            try await DevIdPServer.run(port: port, relyingParty: options.relyingParty ?? "http://127.0.0.1:\(options.port)",
                                       clientId: options.devIdPClientId ?? "", clientSecret: options.devIdPClientSecret ?? "")
            return
        }
        if let port = options.floorServer {
            // The framework floor of the scale run, in a process of its own (Floor.swift).
            try await FloorServer.run(port: port)
            return
        }
        let bench = try Bench(options: options)
        do {
            if options.soak { try await bench.soak() } else if options.scale != nil { try await bench.scale() } else { try await bench.run() }
        } catch {
            await bench.stopServer()
            bench.stopPeer()
            try? await bench.client.shutdown()
            FileHandle.standardError.write(Data("hearth-bench failed: \(error)\n".utf8))
            exit(1)
        }
        try await bench.client.shutdown()
    }
}

struct Options {
    var server: String
    var port = 9180
    var duration = 5.0
    var concurrency = 8
    var users = 1000
    var bigUsers = 1_000_000
    var passwordUsers = 8
    var dataDir: String?
    /// A PostgreSQL database (emptied tables are not assumed: give a fresh database) instead of SQLite.
    var databaseURL: String?
    /// `--soak`: the long run of the whole mix (Soak.swift) instead of the per-endpoint benchmark.
    var soak = false
    var soakSeconds = 600.0
    var soakRate: Double?
    var soakInterval = 30.0
    var soakCalibrationSeconds = 10.0
    /// The last 30 minutes' RSS growth is judged on runs of at least twice this (the soak's plateau goal).
    var soakPlateauSeconds = 1800.0
    /// Per-interval figures as CSV (for `scripts/soak-plot`).
    var soakCSV: String?
    /// Glewlwyd on this port as the refresh peer (`scripts/glewlwyd-peer`); nil: no peer.
    var glewlwydPort: Int?
    var peerScript = "scripts/glewlwyd-peer"
    /// A fixed number of requests per scenario instead of `duration` (for instruction counts).
    var requests: Int?
    /// Runs the server under callgrind and reports instructions per request (implies `--requests`, default 200).
    var callgrind = false
    var callgrindDir = "/tmp/hearth-callgrind"
    /// How long the server may take to answer `/healthz` after its start.
    var startupTimeout = 30.0
    /// `--scale [N]` (Scale.swift): generate, import, serve and measure N users in steps; `--smoke` makes it N = 2 000.
    var scale: Int?
    var scaleSteps: [Int]?
    /// Per-step figures as CSV (for `scripts/scale-plot`).
    var scaleCSV: String?
    /// `--floor-server PORT`: this process is the scale run's framework floor (Floor.swift); `--floor-port`: where the
    /// scale run starts it (default: `port` + 5).
    var floorServer: Int?
    var floorPort = 0
    var smoke = false
    /// The port of the dev IdP process the signInWithIdp scenario signs in at (default: `port` + 2).
    var devIdPPort: Int?
    /// `--dev-idp-server PORT`: this process is that dev IdP (spawned by the bench), for `--relying-party`'s handler.
    var devIdPServer: Int?
    var relyingParty: String?
    var devIdPClientId: String?
    var devIdPClientSecret: String?

    init(_ arguments: ArraySlice<String>) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        server = executable.deletingLastPathComponent().appendingPathComponent("hearth").path
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            func value() throws -> String {
                guard let next = iterator.next() else { throw BenchError("\(argument) needs a value") }
                return next
            }
            switch argument {
            case "--server": server = try value()
            case "--port": port = Int(try value()) ?? port
            case "--duration": duration = Double(try value()) ?? duration
            case "--concurrency": concurrency = Int(try value()) ?? concurrency
            case "--users": users = Int(try value()) ?? users
            case "--big-users": bigUsers = Int(try value()) ?? bigUsers
            case "--password-users": passwordUsers = Int(try value()) ?? passwordUsers
            case "--data-dir": dataDir = try value()
            case "--database-url": databaseURL = try value()
            case "--soak": soak = true
            case "--soak-seconds": soakSeconds = Double(try value()) ?? soakSeconds
            case "--rate": soakRate = Double(try value())
            case "--interval": soakInterval = Double(try value()) ?? soakInterval
            case "--calibration-seconds": soakCalibrationSeconds = Double(try value()) ?? soakCalibrationSeconds
            case "--plateau-seconds": soakPlateauSeconds = Double(try value()) ?? soakPlateauSeconds
            case "--soak-csv": soakCSV = try value()
            case "--glewlwyd-port": glewlwydPort = Int(try value())
            case "--peer-script": peerScript = try value()
            case "--requests": requests = Int(try value())
            case "--callgrind": callgrind = true
            case "--callgrind-dir": callgrindDir = try value()
            case "--startup-timeout": startupTimeout = Double(try value()) ?? startupTimeout
            case "--dev-idp-port": devIdPPort = Int(try value())
            case "--dev-idp-server": devIdPServer = Int(try value())
            case "--relying-party": relyingParty = try value()
            case "--client-id": devIdPClientId = try value()
            case "--client-secret": devIdPClientSecret = try value()
            case "--scale":
                // The count is optional: `--scale` alone is 10⁶ (2 000 with --smoke).
                var peek = iterator
                if let next = peek.next(), let count = Int(next.replacingOccurrences(of: "_", with: "")) {
                    scale = count
                    iterator = peek
                } else {
                    scale = 0
                }
            case "--scale-steps": scaleSteps = try value().split(separator: ",").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
            case "--scale-csv": scaleCSV = try value()
            case "--floor-server": floorServer = Int(try value())
            case "--floor-port": floorPort = Int(try value()) ?? floorPort
            case "--smoke":
                smoke = true
                duration = 0.5; concurrency = 2; users = 20; bigUsers = 2000; passwordUsers = 2; glewlwydPort = nil
            case "-h", "--help":
                print("""
                    usage: hearth-bench [--server PATH] [--port 9180] [--duration SECONDS] [--concurrency N]
                                        [--users 1000] [--big-users 1000000] [--password-users 8] [--data-dir DIR] [--smoke]
                                        [--database-url postgres://user:password@host:5432/fresh-database]
                                        [--glewlwyd-port 4593] [--peer-script scripts/glewlwyd-peer]
                                        [--requests N] [--callgrind] [--callgrind-dir /tmp/hearth-callgrind] [--startup-timeout 30]
                                        [--dev-idp-port PORT+2]
                           hearth-bench --scale [1000000] [--scale-steps 1000,10000,100000,1000000] [--scale-csv FILE] [--floor-port PORT+5]
                                        [--database-url …] [--duration 5] [--concurrency 8] [--users 1000] [--server PATH] [--port 9180] [--smoke]
                           hearth-bench --soak [--soak-seconds 600] [--rate REQ_PER_S] [--interval 30] [--calibration-seconds 10]
                                        [--plateau-seconds 1800] [--soak-csv FILE]
                                        [--concurrency N] [--users 1000] [--password-users 8] [--server PATH] [--port 9180]
                    """)
                exit(0)
            default: throw BenchError("unknown argument \(argument)")
            }
        }
        if floorPort == 0 { floorPort = port + 5 }
        if let count = scale {
            // --smoke: N = 2 000 in two steps against the debug build (scripts/test).
            if smoke { scale = 2000; scaleSteps = scaleSteps ?? [1000, 2000] } else if count <= 0 { scale = 1_000_000 }
            startupTimeout = max(startupTimeout, 600)
        }
        if callgrind {
            requests = requests ?? 200
            startupTimeout = max(startupTimeout, 600)
            glewlwydPort = nil
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One scenario's figures.
struct Measurement {
    var name: String
    var requests: Int
    var errors: Int
    var seconds: Double
    var latencies: [Double]
    var serverCPU: Double
    /// The RSA work a request cannot avoid, in seconds.
    var limit: Double
    var limitLabel: String
    /// The same limit with swift-crypto's RSA figures.
    var swiftCryptoLimit: Double
    /// Instructions the server executed per request (callgrind), when measured.
    var instructions: Double?

    var perSecond: Double { Double(requests) / seconds }
    var cpuPerRequest: Double { serverCPU / Double(max(requests, 1)) }
    func percentile(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}

/// The figures of a server process, from `/proc`.
enum ProcessStats {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// User + system CPU seconds of `pid`.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state(0) ppid(1) … utime(11) stime(12).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticksPerSecond
    }

    /// Resident set size of `pid` in MB (`field` VmRSS, or RssAnon: the part not backed by the binary and libraries).
    static func rssMB(_ pid: Int32, field: String = "VmRSS") -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb / 1024
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A refresh-token chain one worker owns.
struct Session: Sendable {
    var localId: String
    var idToken: String
    var refreshToken: String
}

final class Bench: Sendable {
    let options: Options
    let client: HTTPClient
    let dataDir: String
    let serverPID = Mutex<Int32?>(nil)
    let peer = Mutex<GlewlwydPeer?>(nil)
    var base: String { "http://127.0.0.1:\(options.port)" }
    let serviceAccount = "bench@hearth-bench.iam.gserviceaccount.com"
    let serviceKey: _RSA.Signing.PrivateKey
    let serviceKeyId = "benchkey1"

    init(options: Options) throws {
        self.options = options
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(options.concurrency, 8))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        dataDir = options.dataDir ?? NSTemporaryDirectory() + "hearth-bench-\(ProcessInfo.processInfo.processIdentifier)"
        serviceKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    func run() async throws {
        try? FileManager.default.removeItem(atPath: dataDir)
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        say("server: \(options.server); data: \(dataDir); \(options.concurrency) concurrent clients, \(options.duration) s per scenario")

        say("measuring RSA-2048 (openssl speed, Hearth's signer, swift-crypto)…")
        let rsa = try RSAReference.measure(seconds: min(1, options.duration / 2), opensslSeconds: 3)
        say("RSA-2048, CPU per operation on one thread: " + rsa.summary)
        if let port = options.glewlwydPort {
            say("starting the Glewlwyd peer on port \(port) (\(options.peerScript))…")
            let started = try GlewlwydPeer.start(script: options.peerScript, port: port)
            peer.withLock { $0 = started }
        }

        // The service account that signs custom tokens, registered as the CLI would.
        let store = try await openStore()
        try await store.saveServiceAccountKey(ServiceAccountKey(clientEmail: serviceAccount, keyId: serviceKeyId,
                                                                publicKeyPEM: serviceKey.publicKey.pemRepresentation, createdAt: Date()))
        // signInWithIdp signs in at the dev IdP process (DevIdPServer.swift), configured as Microsoft is in production.
        try await store.saveIdPConfig(DevIdPServer.config(port: devIdPPort, client: devIdPClient))
        try await store.close()

        try await startServer()
        try await Task.sleep(for: .seconds(1))
        let pid = serverPID.withLock { $0 }!
        let rssIdle = ProcessStats.rssMB(pid)
        let anonIdle = ProcessStats.rssMB(pid, field: "RssAnon")
        say(String(format: "RSS idle: %.1f MB (anonymous %.1f MB)", rssIdle, anonIdle))

        say("creating \(options.users) users (anonymous sign-up) and \(options.passwordUsers) password users…")
        let sessions = try await createUsers(options.users)
        let passwordUsers = try await createPasswordUsers(options.passwordUsers)

        var results: [Measurement] = []
        var peers: [(Measurement, rss: Double)] = []
        results.append(try await refresh(sessions: sessions))
        if let glewlwyd = peer.withLock({ $0 }) {
            peers.append((try await peerRefresh(glewlwyd), ProcessStats.rssMB(glewlwyd.pid)))
            stopPeer()
        }
        let lookupSmall = try await lookup(sessions: sessions, label: "lookup (\(options.users) users)")
        results.append(lookupSmall)
        results.append(try await signInWithPassword(users: passwordUsers))
        results.append(try await signInWithCustomToken())
        results.append(try await signInWithIdp())
        let rssLoaded = ProcessStats.rssMB(pid)
        let anonLoaded = ProcessStats.rssMB(pid, field: "RssAnon")
        say(String(format: "RSS after load: %.1f MB (anonymous %.1f MB)", rssLoaded, anonLoaded))
        if options.callgrind {
            await stopServer()
            print(report(results, rsa: rsa, rss: (rssIdle, rssLoaded, 0), anonymous: (anonIdle, anonLoaded, 0), p99Ratio: 0, total: 0, peers: []))
            return
        }

        // Lookup again with a large user table, seeded through the store's bulk path.
        await stopServer()
        let big = max(options.bigUsers - options.users - options.passwordUsers, 0)
        say("seeding \(big) more users through the store's importUsers…")
        let seedStart = ContinuousClock.now
        try await seed(big)
        say(String(format: "seeded in %.1f s", (ContinuousClock.now - seedStart).seconds))
        try await startServer()
        let total = big + options.users + options.passwordUsers
        let lookupBig = try await lookup(sessions: sessions, label: "lookup (\(total) users)")
        results.append(lookupBig)
        let bigPID = serverPID.withLock { $0 }!
        let rssBig = ProcessStats.rssMB(bigPID)
        let anonBig = ProcessStats.rssMB(bigPID, field: "RssAnon")
        await stopServer()

        print(report(results, rsa: rsa, rss: (rssIdle, rssLoaded, rssBig), anonymous: (anonIdle, anonLoaded, anonBig),
                     p99Ratio: lookupBig.percentile(0.99) / max(lookupSmall.percentile(0.99), 1e-9), total: total,
                     peers: peers.map { ($0.0, $0.rss, rssLoaded) }))
        let peerFailures = peers.map(\.0).filter { $0.errors > 0 || $0.requests == 0 }
        if !peerFailures.isEmpty { say("the peer had errors: \(peerFailures.map { "\($0.errors) errors, \($0.requests) ok" })") }
        let failed = results.filter { $0.errors > 0 || $0.requests == 0 }
        if !failed.isEmpty {
            throw BenchError("scenarios with errors: \(failed.map { "\($0.name) (\($0.errors) errors, \($0.requests) ok)" }.joined(separator: ", "))")
        }
    }

    // MARK: Server process

    func startServer() async throws {
        let log = dataDir + "/server.log"
        var arguments = [options.server, "serve", "--port", "\(options.port)", "--data-dir", dataDir, "--dev", "--log-level", "warning"]
            + (options.databaseURL.map { ["--database-url", $0] } ?? [])
        if options.callgrind {
            // Instrumentation starts off; `load` switches it on around each measured scenario.
            try FileManager.default.createDirectory(atPath: options.callgrindDir, withIntermediateDirectories: true)
            // Valgrind 3.19 cannot read the DWARF 5 of Swift's release build: it gets a copy without debug
            // information (the symbol table stays, so functions keep their names).
            let stripped = options.callgrindDir + "/hearth"
            try? FileManager.default.removeItem(atPath: stripped)
            guard OpenSSLSpeed.run(["objcopy", "--strip-debug", options.server, stripped]) != nil else {
                throw BenchError("objcopy --strip-debug \(options.server) failed (binutils is needed for --callgrind)")
            }
            arguments[0] = stripped
            arguments = ["/usr/bin/valgrind", "--tool=callgrind", "--instr-atstart=no",
                         "--callgrind-out-file=\(options.callgrindDir)/callgrind.out.%p"] + arguments
        }
        let pid = try Self.spawn(arguments, stdout: "/dev/null", stderr: log)
        serverPID.withLock { $0 = pid }
        let deadline = ContinuousClock.now + .seconds(options.startupTimeout)
        while ContinuousClock.now < deadline {
            var exit: Int32 = 0
            if waitpid(pid, &exit, WNOHANG) == pid {
                serverPID.withLock { $0 = nil }
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw BenchError("the server exited: \(text.suffix(2000))")
            }
            if let response = try? await client.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(2)),
               response.status == .ok {
                _ = try? await response.body.collect(upTo: 1 << 16)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("the server did not answer /healthz within \(Int(options.startupTimeout)) s")
    }

    func stopPeer() {
        guard let running = peer.withLock({ current in defer { current = nil }; return current }) else { return }
        running.stop()
    }

    /// SIGTERM (graceful shutdown), then SIGKILL after 5 s; reaps the child.
    func stopServer() async {
        guard let pid = serverPID.withLock({ $0 }) else { return }
        serverPID.withLock { $0 = nil }
        kill(pid, SIGTERM)
        var exit: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &exit, WNOHANG) == pid { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        waitpid(pid, &exit, 0)
    }

    // MARK: HTTP

    func post(_ path: String, _ body: [String: Any], contentType: String = "application/json") async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw BenchError("\(path): HTTP \(response.status.code) \(String(buffer: bytes).prefix(300))")
        }
        return (try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]) ?? [:]
    }

    func get(_ url: String) async throws -> (status: Int, location: String?, body: String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "Location"), String(buffer: bytes))
    }

    func postForm(_ url: String, _ fields: [(String, String)]) async throws -> (status: Int, location: String?) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "Location"))
    }

    static func session(_ reply: [String: Any]) throws -> Session {
        guard let localId = reply["localId"] as? String ?? reply["user_id"] as? String,
              let idToken = reply["idToken"] as? String ?? reply["id_token"] as? String,
              let refresh = reply["refreshToken"] as? String ?? reply["refresh_token"] as? String
        else { throw BenchError("no tokens in \(reply.keys.sorted())") }
        return Session(localId: localId, idToken: idToken, refreshToken: refresh)
    }

    // MARK: Setup

    func createUsers(_ count: Int) async throws -> [Session] {
        try await withThrowingTaskGroup(of: [Session].self) { group in
            let workers = max(options.concurrency, 1)
            for worker in 0..<workers {
                group.addTask {
                    var mine: [Session] = []
                    for _ in stride(from: worker, to: count, by: workers) {
                        mine.append(try Self.session(try await self.post(WirePaths.accounts("signUp"), ["returnSecureToken": true])))
                    }
                    return mine
                }
            }
            var all: [Session] = []
            for try await part in group { all += part }
            return all
        }
    }

    func createPasswordUsers(_ count: Int) async throws -> [(email: String, password: String)] {
        var users: [(String, String)] = []
        for index in 0..<count {
            let email = "bench\(index)@example.com"
            let password = "bench-password-\(index)"
            _ = try await post(WirePaths.accounts("signUp"), ["email": email, "password": password, "returnSecureToken": true])
            users.append((email, password))
        }
        return users
    }

    /// The store the server will use: SQLite in the data directory, or the PostgreSQL database.
    func openStore() async throws -> any HearthStore {
        if let url = options.databaseURL { return try await PostgresStore.open(try PostgresStoreConfiguration(url: url)) }
        return try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
    }

    func seed(_ count: Int) async throws {
        let store = try await openStore()
        let now = Date()
        var next = 0
        while next < count {
            let end = min(next + 50_000, count)
            let users = (next..<end).map { index in
                UserRecord(localId: "bulk\(index)", email: "bulk\(index)@example.com", displayName: "Bulk User \(index)",
                           createdAt: now, validSince: now.addingTimeInterval(-86_400))
            }
            if let postgres = store as? PostgresStore {
                try await postgres.importUsers(users)
            } else if let sqlite = store as? SQLiteStore {
                try await sqlite.importUsers(users)
            }
            next = end
        }
        try await store.close()
    }

    // MARK: Load

    /// Runs `concurrency` workers for the configured duration; each owns a state and calls `op` in a loop.
    /// `limit` gives the RSA work a request cannot avoid from one sign's and one verify's cost. With `--requests`,
    /// each worker makes its share of that many requests instead of running for the duration; with `--callgrind`,
    /// the server's instrumentation is on only for those requests. `pid`: whose CPU counts (default: Hearth's).
    func load<State: Sendable>(_ name: String, states: [State], limit: @escaping @Sendable (_ sign: Double, _ verify: Double) -> Double,
                               limitLabel: String, pid measured: Int32? = nil, share: Double = 1,
                               op: @escaping @Sendable (inout State) async throws -> Void) async throws -> Measurement {
        // Warm-up (connections, caches); the run goes on from the warmed-up states (a rotated refresh token is not
        // presented again).
        let states = try await withThrowingTaskGroup(of: (Int, State).self) { group in
            for (index, state) in states.enumerated() {
                group.addTask {
                    var state = state
                    for _ in 0..<2 { try await op(&state) }
                    return (index, state)
                }
            }
            var warmed = states
            for try await (index, state) in group { warmed[index] = state }
            return warmed
        }
        // The RSA reference again, just before this scenario: the machine's load drifts during a run.
        let reference = try RSAReference.measure(seconds: min(0.5, options.duration / 4), opensslSeconds: 1)
        let pid = measured ?? serverPID.withLock { $0 }!
        let perWorker = options.requests.map { max(1, Int(Double($0) * share) / max(states.count, 1)) }
        if options.callgrind { try Callgrind.start(pid: pid) }
        let cpuBefore = ProcessStats.cpuSeconds(pid)
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(options.duration)
        let parts = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for state in states {
                group.addTask {
                    var state = state
                    var latencies: [Double] = []
                    var errors = 0
                    var made = 0
                    while perWorker.map({ made < $0 }) ?? (clock.now < deadline) {
                        made += 1
                        let begin = clock.now
                        do {
                            try await op(&state)
                            latencies.append((clock.now - begin).seconds)
                        } catch {
                            errors += 1
                            if errors == 1 { self.say("\(name): \(error)") }
                        }
                    }
                    return (latencies, errors)
                }
            }
            var all: [([Double], Int)] = []
            for try await part in group { all.append(part) }
            return all
        }
        let seconds = (clock.now - start).seconds
        let cpu = ProcessStats.cpuSeconds(pid) - cpuBefore
        let instructions = options.callgrind
            ? try await Callgrind.stop(pid: pid, directory: options.callgrindDir, label: name) { _ = try? await self.get(self.base + "/healthz") }
            : nil
        let latencies = parts.flatMap(\.0)
        var measurement = Measurement(name: name, requests: latencies.count, errors: parts.map(\.1).reduce(0, +), seconds: seconds,
                                      latencies: latencies, serverCPU: cpu, limit: limit(reference.limitSign, reference.limitVerify),
                                      limitLabel: limitLabel, swiftCryptoLimit: limit(reference.sign, reference.verify))
        if let instructions { measurement.instructions = instructions / Double(max(measurement.requests + measurement.errors, 1)) }
        say(String(format: "%@: %.0f req/s, p50 %.2f ms, p99 %.2f ms, server CPU %.3f ms/req, %d errors%@", name, measurement.perSecond,
                   measurement.percentile(0.5) * 1000, measurement.percentile(0.99) * 1000, measurement.cpuPerRequest * 1000, measurement.errors,
                   measurement.instructions.map { String(format: ", %.2f M instructions/req", $0 / 1e6) } ?? ""))
        return measurement
    }

    func split<T>(_ items: [T]) -> [[T]] {
        let workers = max(1, min(options.concurrency, items.count))
        return (0..<workers).map { worker in stride(from: worker, to: items.count, by: workers).map { items[$0] } }
    }

    func refresh(sessions: [Session]) async throws -> Measurement {
        // Each worker rotates its own users' refresh tokens, round robin.
        struct State: Sendable { var sessions: [Session]; var next = 0 }
        return try await load("refresh", states: split(sessions).map { State(sessions: $0) }, limit: { sign, _ in sign }, limitLabel: "1 OpenSSL sign") { state in
            let index = state.next % state.sessions.count
            let reply = try await self.post(WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": state.sessions[index].refreshToken])
            guard let token = reply["refresh_token"] as? String else { throw BenchError("no refresh_token") }
            state.sessions[index].refreshToken = token
            state.next += 1
        }
    }

    func lookup(sessions: [Session], label: String) async throws -> Measurement {
        // Fresh ID tokens: the refresh scenario revoked nothing, but tokens must be unexpired.
        struct State: Sendable { var tokens: [String]; var next = 0 }
        return try await load(label, states: split(sessions.map(\.idToken)).map { State(tokens: $0) }, limit: { _, verify in verify },
                              limitLabel: "1 OpenSSL verify") { state in
            let reply = try await self.post(WirePaths.accounts("lookup"), ["idToken": state.tokens[state.next % state.tokens.count]])
            guard reply["users"] != nil else { throw BenchError("no users in lookup reply") }
            state.next += 1
        }
    }

    func signInWithPassword(users: [(email: String, password: String)]) async throws -> Measurement {
        struct State: Sendable { var email: String; var password: String }
        let states = (0..<options.concurrency).map { State(email: users[$0 % users.count].email, password: users[$0 % users.count].password) }
        return try await load("signInWithPassword", states: states, limit: { sign, _ in sign }, limitLabel: "1 OpenSSL sign (+ scrypt N=2^14)",
                              share: 0.1 /* scrypt: a tenth of the requests is plenty to count */) { state in
            _ = try Self.session(try await self.post(WirePaths.accounts("signInWithPassword"),
                                                     ["email": state.email, "password": state.password, "returnSecureToken": true]))
        }
    }

    func customToken(uid: String) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": serviceKeyId])
        let claims = CustomTokenClaims(serviceAccount: serviceAccount, uid: uid, issuedAt: Date())
        let payload = try JSONEncoder().encode(claims)
        let input = header.base64URLEncodedString() + "." + payload.base64URLEncodedString()
        let signature = try serviceKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + signature.rawRepresentation.base64URLEncodedString()
    }

    func signInWithCustomToken() async throws -> Measurement {
        // Tokens signed up front, so the client's signing does not compete with the server during the run.
        let tokens = try (0..<200).map { try customToken(uid: "custom-\($0)") }
        struct State: Sendable { var tokens: [String]; var next = 0 }
        return try await load("signInWithCustomToken", states: split(tokens).map { State(tokens: $0) }, limit: { sign, verify in verify + sign },
                              limitLabel: "1 OpenSSL verify + 1 sign") { state in
            let reply = try await self.post(WirePaths.accounts("signInWithCustomToken"),
                                            ["token": state.tokens[state.next % state.tokens.count], "returnSecureToken": true])
            guard reply["idToken"] is String, reply["refreshToken"] is String else { throw BenchError("no tokens in \(reply.keys.sorted())") }
            state.next += 1
        }
    }

    /// The whole federated flow against the Microsoft dev IdP served by a process of its own (``DevIdPServer``):
    /// auth handler → authorize → login form → callback → `signInWithIdp` (code exchange, ID-token validation, user
    /// read/write, Hearth session). Only the measured server's CPU counts, not the provider's.
    func signInWithIdp() async throws -> Measurement {
        struct State: Sendable { var worker: Int; var next = 0 }
        let states = (0..<options.concurrency).map { State(worker: $0) }
        let idp = try await startDevIdP(port: devIdPPort, client: devIdPClient)
        do {
            let measurement = try await load("signInWithIdp (full flow)", states: states, limit: { sign, _ in 2 * sign },
                                             limitLabel: "2 OpenSSL signs") { state in
                let email = "idp\(state.worker)-\(state.next % 50)@example.com"
                state.next += 1
                try await self.federatedSignIn(email: email)
            }
            await stopDevIdP(idp)
            return measurement
        } catch {
            await stopDevIdP(idp)
            throw error
        }
    }

    func federatedSignIn(email: String) async throws {
        let rawSession = RandomID.alphanumeric(count: 10).uppercased()
        let fields: [(String, String)] = [
            ("apiKey", "bench"), ("authType", "signInWithRedirect"), ("providerId", "microsoft.com"),
            ("sessionId", rawSession.sha256Hex), ("eventId", RandomID.alphanumeric(count: 10)),
            ("redirectUrl", "http://127.0.0.1:65000/callback"), ("v", "hearth-bench"),
        ]
        let start = try await get(base + "/__/auth/handler?" + FormEncoding.encode(fields))
        guard start.status == 302, let authorize = start.location else { throw BenchError("auth handler: HTTP \(start.status) \(start.body.prefix(200))") }
        let form = try await get(authorize)
        guard form.status == 200, let requestId = Self.capture(#"name="request_id" value="([^"]+)""#, in: form.body),
              let action = Self.capture(#"action="([^"]+)""#, in: form.body)
        else { throw BenchError("dev IdP form: HTTP \(form.status)") }
        // The form's action is a path on the provider's own server (this server's, or the dev IdP process's).
        let origin = URLComponents(string: authorize).map { "\($0.scheme ?? "http")://\($0.host ?? "127.0.0.1")" + ($0.port.map { ":\($0)" } ?? "") } ?? base
        let submitted = try await postForm(action.hasPrefix("http") ? action : origin + action,
                                           [("request_id", requestId), ("email", email), ("name", "Bench User"), ("action", "login")])
        guard submitted.status == 302, let callback = submitted.location else { throw BenchError("dev IdP login: HTTP \(submitted.status)") }
        let delivered = try await get(callback)
        guard delivered.status == 302, let app = delivered.location,
              let link = URLComponents(string: app)?.queryItems?.first(where: { $0.name == "link" })?.value
        else { throw BenchError("callback: HTTP \(delivered.status) \(delivered.location ?? "")") }
        let reply = try await post(WirePaths.accounts("signInWithIdp"), [
            "requestUri": link, "postBody": "providerId=microsoft.com", "sessionId": rawSession,
            "returnSecureToken": true, "returnIdpCredential": true,
        ])
        guard reply["idToken"] != nil else { throw BenchError("signInWithIdp: no idToken (needConfirmation: \(reply["needConfirmation"] ?? "-"))") }
    }

    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range]).replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: Report

    func report(_ results: [Measurement], rsa: RSAReference, rss: (idle: Double, loaded: Double, big: Double),
                anonymous: (idle: Double, loaded: Double, big: Double), p99Ratio: Double, total: Int,
                peers: [(measurement: Measurement, rss: Double, hearthRSS: Double)]) -> String {
        let load = options.requests.map { "\($0) requests per scenario" } ?? "\(options.duration) s per scenario"
        var lines = [
            "RSA-2048, CPU per operation on one thread, same run, at the start: " + rsa.summary,
            "Each row's limit is measured again (openssl speed, 1 s) just before its scenario; the last column takes swift-crypto's figures instead.",
            "\(options.concurrency) concurrent loopback clients, \(load), server CPU from /proc/<pid>/stat",
            "",
        ]
        let counted = results.contains { $0.instructions != nil }
        lines.append("| scenario | req/s | p50 ms | p99 ms | server CPU ms/req | req/s per core of server CPU | limit | ratio to limit | ratio to swift-crypto's |"
                     + (counted ? " instructions/req (M) |" : ""))
        lines.append("|---|---:|---:|---:|---:|---:|---|---:|---:|" + (counted ? "---:|" : ""))
        for m in results {
            lines.append(String(format: "| %@ | %.0f | %.2f | %.2f | %.3f | %.0f | %@ (%.3f ms) | %.2f | %.2f |", m.name, m.perSecond,
                                m.percentile(0.5) * 1000, m.percentile(0.99) * 1000, m.cpuPerRequest * 1000,
                                1 / max(m.cpuPerRequest, 1e-9), m.limitLabel, m.limit * 1000, m.limit / max(m.cpuPerRequest, 1e-9),
                                m.swiftCryptoLimit / max(m.cpuPerRequest, 1e-9))
                         + (counted ? String(format: " %.2f |", (m.instructions ?? 0) / 1e6) : ""))
        }
        if !counted {
            lines.append("")
            lines.append(String(format: "lookup p99 with %d users / with %d users: %.2f", total, options.users, p99Ratio))
            lines.append(String(format: "RSS: idle %.1f MB, after load %.1f MB, after the large-table lookup %.1f MB", rss.idle, rss.loaded, rss.big))
            lines.append(String(format: "    of which anonymous (not the binary's or libraries' pages): %.1f MB, %.1f MB, %.1f MB",
                                anonymous.idle, anonymous.loaded, anonymous.big))
        }
        if let hearth = results.first(where: { $0.name == "refresh" }), !peers.isEmpty {
            lines += ["", "Refresh beside a peer (same client, \(options.concurrency) clients, \(load), \(options.users) refresh tokens rotating):", "",
                      "| server | req/s | p50 ms | p99 ms | server CPU ms/req | ratio to 1 OpenSSL sign | RSS after (MB) | errors |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|"]
            func row(_ label: String, _ m: Measurement, _ rss: Double) -> String {
                String(format: "| %@ | %.0f | %.2f | %.2f | %.3f | %.2f | %.1f | %d |", label, m.perSecond, m.percentile(0.5) * 1000,
                       m.percentile(0.99) * 1000, m.cpuPerRequest * 1000, m.limit / max(m.cpuPerRequest, 1e-9), rss, m.errors)
            }
            lines.append(row("Hearth refresh (\(rsa.hearthSigner))", hearth, peers[0].hearthRSS))
            for peer in peers {
                lines.append(row("Glewlwyd refresh (client secret PBKDF2 ×\(GlewlwydPeer.pbkdf2Iterations))", peer.measurement, peer.rss))
                lines.append("")
                lines.append(String(format: "Hearth / Glewlwyd server CPU per refresh: %.2f (target ≤ 0.5)",
                                    hearth.cpuPerRequest / max(peer.measurement.cpuPerRequest, 1e-9)))
            }
        }
        return lines.joined(separator: "\n")
    }
}
