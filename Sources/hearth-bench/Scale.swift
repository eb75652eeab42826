import AsyncHTTPClient
import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization
import _CryptoExtras
#if canImport(Glibc)
import Glibc
#endif

/// `hearth-bench --scale N` (issue 41): a Firebase `auth:export` file of N users, imported in steps (10³, 10⁴, … N)
/// with the real `hearth users import` into one data directory; after each step the server is started and measured
/// (start-up, idle RSS, CPU per request and p99 of lookup, refresh and password sign-in on sessions spread over the
/// whole table, `accounts:batchGet` first page against a page near the end, `accounts:query` by email, the framework
/// floor, database bytes per user); at the end `hearth users export`. Every figure is printed beside its target.
extension Bench {
    /// Firebase's published SCRYPT parameters (the sample of `firebase auth:import`'s documentation): the import's
    /// `--hash-key`, `--salt-separator`, `--rounds`, `--mem-cost`.
    enum FirebaseScrypt {
        static let signerKey = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
        static let saltSeparator = "Bw=="
        static let rounds = 8
        static let memCost = 14
    }

    /// The figures of one step (N users in the store).
    struct ScaleStep: Sendable {
        var users: Int
        var slice: Int
        var importSeconds = 0.0
        var importPeakMB = 0.0
        var startupSeconds = 0.0
        var idleRSS = 0.0
        var lookup: Measurement?
        var refresh: Measurement?
        var password: Measurement?
        var batchFirst: Measurement?
        var batchLast: Measurement?
        var query: Measurement?
        var floor: Measurement?
        /// Bytes of one lookup reply and of one floor reply (the floor answers a body of a lookup reply's size).
        var replyBytes: (lookup: Int, floor: Int)?
        var databaseBytes: Double?
        var importRate: Double { Double(slice) / max(importSeconds, 1e-9) }
        var bytesPerUser: Double? { databaseBytes.map { $0 / Double(max(users, 1)) } }
    }

    /// The users the generated file holds: uids sorted like a real `auth:export` file (Firebase pages by uid),
    /// spread evenly over the key space of the final N, so a step's slice extends the table at its end.
    struct ScaleUsers: Sendable {
        let total: Int
        /// Indices whose password hash is a real Firebase scrypt hash (the password sign-in scenario's users).
        let realHashes: Set<Int>

        static let prefixAlphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

        /// 28 characters like Firebase's uids: a 7-character base-36 prefix that orders the users by index (digits
        /// and lower-case letters: the same order in byte and in locale collations), then 21 pseudo-random ones.
        func uid(_ index: Int) -> String {
            var prefix = Int64(index) * 78_364_164_096 /* 36^7 */ / Int64(max(total, 1))
            var bytes = [UInt8](repeating: 0, count: 28)
            for position in stride(from: 6, through: 0, by: -1) {
                bytes[position] = Self.prefixAlphabet[Int(prefix % 36)]
                prefix /= 36
            }
            var random = SplitMix64(seed: UInt64(index) &+ 0x5EED)
            for position in 7..<28 { bytes[position] = Self.alphabet[Int(random.next() % 62)] }
            return String(decoding: bytes, as: UTF8.self)
        }

        func email(_ index: Int) -> String { "user\(index)@scale.example.com" }
        func password(_ index: Int) -> String { "scale-password-\(index)" }
        func hasPassword(_ index: Int) -> Bool { index % 10 != 9 || realHashes.contains(index) }
    }

    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func bytes(_ count: Int) -> Data {
            var data = Data(capacity: count + 8)
            while data.count < count { withUnsafeBytes(of: next()) { data.append(contentsOf: $0) } }
            return data.prefix(count)
        }
    }

    /// The steps: powers of ten from 10³ below N, then N (or `--scale-steps`).
    static func scaleSteps(_ total: Int, given: [Int]?) -> [Int] {
        if let given, !given.isEmpty { return given }
        var steps: [Int] = []
        var step = 1000
        while step < total { steps.append(step); step *= 10 }
        return steps + [total]
    }

    func scale() async throws {
        let total = options.scale ?? 1_000_000
        let steps = Self.scaleSteps(total, given: options.scaleSteps)
        guard steps == steps.sorted(), Set(steps).count == steps.count, steps.last == total, (steps.first ?? 0) > 0 else {
            throw BenchError("--scale-steps must be increasing and end at --scale (\(total)): \(steps)")
        }
        // Four users with a real Firebase scrypt hash in each step's slice, spread over it.
        var real: Set<Int> = []
        var start = 0
        for step in steps {
            for k in 0..<4 { real.insert(start + (step - start) * k / 4) }
            start = step
        }
        let users = ScaleUsers(total: total, realHashes: real)

        try? FileManager.default.removeItem(atPath: dataDir)
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let engine = options.databaseURL == nil ? "SQLite" : "PostgreSQL"
        say("scale: \(engine), N = \(total) in steps \(steps.map(String.init).joined(separator: ", ")); server \(options.server); data \(dataDir)")

        say("measuring RSA-2048 (openssl speed, Hearth's signer, swift-crypto)…")
        let rsa = try RSAReference.measure(seconds: min(1, options.duration / 2), opensslSeconds: 3)
        say("RSA-2048, CPU per operation on one thread: " + rsa.summary)

        // The database exists before the first import (today's `hearth users import` refuses a directory without
        // one), with the service account that signs custom tokens and the admin API's token grants.
        let store = try await openStore()
        if options.databaseURL != nil, try await store.userCount() > 0 {
            try? await store.close()
            throw BenchError("the PostgreSQL database already holds users: give --scale a fresh database")
        }
        try await store.saveServiceAccountKey(ServiceAccountKey(clientEmail: serviceAccount, keyId: serviceKeyId,
                                                                publicKeyPEM: serviceKey.publicKey.pemRepresentation, createdAt: Date()))
        try await store.close()

        let floor = try startFloor()
        defer { Self.stopChild(floor.pid) }

        var results: [ScaleStep] = []
        var exportFigures: (seconds: Double, peakMB: Double)?
        var failures: [String] = []
        var previous = 0
        do {
            for n in steps {
                var step = ScaleStep(users: n, slice: n - previous)
                // 1. The slice: generated, then imported by the CLI as its own process.
                let file = dataDir + "/slice-\(n).json"
                let generated = ContinuousClock.now
                try writeExportFile(file, users: users, range: previous..<n)
                say(String(format: "step %d: generated users %d..<%d in %.1f s; importing with hearth users import…", n, previous, n,
                           (ContinuousClock.now - generated).seconds))
                let imported = try await runCLI(["users", "import", file, "--hash-algo", "SCRYPT", "--hash-key", FirebaseScrypt.signerKey,
                                                 "--salt-separator", FirebaseScrypt.saltSeparator, "--rounds", "\(FirebaseScrypt.rounds)",
                                                 "--mem-cost", "\(FirebaseScrypt.memCost)"], label: "import-\(n)")
                try? FileManager.default.removeItem(atPath: file)
                step.importSeconds = imported.seconds
                step.importPeakMB = imported.peakMB
                say(String(format: "step %d: imported %d users in %.2f s (%.0f users/s), peak RSS %.0f MB", n, step.slice, step.importSeconds,
                           step.importRate, step.importPeakMB))

                // 2. The server: start-up and idle memory.
                let started = ContinuousClock.now
                try await startServer()
                step.startupSeconds = (ContinuousClock.now - started).seconds
                try await Task.sleep(for: .seconds(1))
                let pid = serverPID.withLock { $0 }!
                step.idleRSS = ProcessStats.rssMB(pid)
                say(String(format: "step %d: start-up %.2f s, idle RSS %.1f MB", n, step.startupSeconds, step.idleRSS))
                try await measureStep(&step, users: users, floorPID: floor.pid, floorPort: floor.port)
                await stopServer()
                step.databaseBytes = databaseBytes()
                if let bytes = step.bytesPerUser { say(String(format: "step %d: %.0f database bytes per user", n, bytes)) }
                results.append(step)
                try writeScaleCSV(results, export: nil)
                previous = n
            }
            // 3. The export of the whole table.
            let exportFile = dataDir + "/export.json"
            say("exporting \(total) users with hearth users export…")
            let exported = try await runCLI(["users", "export", exportFile], label: "export")
            let size = (try? FileManager.default.attributesOfItem(atPath: exportFile)[.size] as? NSNumber)?.intValue ?? 0
            guard size > 0 else { throw BenchError("hearth users export wrote no file") }
            try? FileManager.default.removeItem(atPath: exportFile)
            exportFigures = (exported.seconds, exported.peakMB)
            say(String(format: "exported %d users in %.2f s (%.0f users/s), peak RSS %.0f MB, %.0f bytes per user in the file", total,
                       exported.seconds, Double(total) / max(exported.seconds, 1e-9), exported.peakMB, Double(size) / Double(total)))
            try writeScaleCSV(results, export: exportFigures)
        } catch {
            await stopServer()
            failures.append("\(error)")
        }
        for step in results {
            for m in [step.lookup, step.refresh, step.password, step.batchFirst, step.batchLast, step.query, step.floor].compactMap({ $0 })
            where m.errors > 0 || m.requests == 0 {
                failures.append("N = \(step.users): \(m.name) (\(m.errors) errors, \(m.requests) ok)")
            }
        }
        print(scaleReport(results, export: exportFigures, total: total, engine: engine, rsa: rsa, failures: failures))
        if !failures.isEmpty { throw BenchError("the scale run failed: " + failures.joined(separator: "; ")) }
    }

    // MARK: One step's measurements

    func measureStep(_ step: inout ScaleStep, users: ScaleUsers, floorPID: Int32, floorPort: Int) async throws {
        let n = step.users
        let projectId = try await currentProjectId()
        let token = try await adminAccessToken()

        // Sessions for uids spread over the whole table (custom tokens signed by the bench up front).
        let count = max(1, min(options.users, n))
        let uids = (0..<count).map { users.uid($0 * n / count) }
        say("step \(n): signing in \(count) users spread over the table (signInWithCustomToken)…")
        let tokens = try uids.map { try customToken(uid: $0) }
        let sessions = try await withThrowingTaskGroup(of: [Session].self) { group in
            let workers = max(options.concurrency, 1)
            for worker in 0..<workers {
                group.addTask {
                    var mine: [Session] = []
                    for index in stride(from: worker, to: tokens.count, by: workers) {
                        // The reply names no localId: the session is the token's uid's.
                        let reply = try await self.post(WirePaths.accounts("signInWithCustomToken"), ["token": tokens[index], "returnSecureToken": true])
                        guard let idToken = reply["idToken"] as? String, let refreshToken = reply["refreshToken"] as? String else {
                            throw BenchError("signInWithCustomToken: no tokens in \(reply.keys.sorted())")
                        }
                        mine.append(Session(localId: uids[index], idToken: idToken, refreshToken: refreshToken))
                    }
                    return mine
                }
            }
            var all: [Session] = []
            for try await part in group { all += part }
            return all
        }
        // The store holds exactly the imported users (the sign-ins above created none).
        let counted = try await adminCall(.POST, WirePaths.adminAccounts(projectId: projectId, "query"), token: token,
                                          body: ["returnUserInfo": false, "limit": 1])
        let recordsCount = (counted["recordsCount"] as? String).flatMap(Int.init) ?? (counted["recordsCount"] as? Int)
        guard recordsCount == n else { throw BenchError("after the import of step \(n) the server counts \(recordsCount.map(String.init) ?? "?") users") }

        step.refresh = try await refresh(sessions: sessions)
        step.lookup = try await lookup(sessions: sessions, label: "lookup")

        // The framework floor under the same load as lookup (same tokens, same body).
        struct FloorState: Sendable { var tokens: [String]; var next = 0 }
        let floorURL = "http://127.0.0.1:\(floorPort)/floor/lookup"
        if let session = sessions.first {
            let body = ["idToken": session.idToken]
            step.replyBytes = (try await replySize(base + WirePaths.accounts("lookup"), body), try await replySize(floorURL, body))
        }
        step.floor = try await load("framework floor (Hummingbird JSON round trip)", states: split(sessions.map(\.idToken)).map { FloorState(tokens: $0) },
                                    limit: { _, verify in verify }, limitLabel: "1 OpenSSL verify", pid: floorPID) { state in
            let reply = try await self.postJSON(floorURL, ["idToken": state.tokens[state.next % state.tokens.count]])
            guard reply["users"] != nil else { throw BenchError("no users in the floor's reply") }
            state.next += 1
        }

        // Password sign-in: the users with a real Firebase scrypt hash imported so far; each signs in once first (the
        // first sign-in verifies Firebase's scrypt and rehashes with Hearth's), so the run measures the steady state.
        let passwordUsers = users.realHashes.filter { $0 < n }.sorted().map { (email: users.email($0), password: users.password($0)) }
        for user in passwordUsers {
            _ = try Self.session(try await post(WirePaths.accounts("signInWithPassword"), ["email": user.email, "password": user.password, "returnSecureToken": true]))
        }
        step.password = try await signInWithPassword(users: passwordUsers)

        // accounts:batchGet (keyset pages of 1000): the first page, and the last full page of the table.
        struct Page: Sendable { var query: String; var expected: Int }
        let lastAfter = max(0, n - 1001)
        let pages = [
            ("batchGet first page", Page(query: "maxResults=1000", expected: min(1000, n))),
            ("batchGet page near the end", Page(query: "maxResults=1000&nextPageToken=" + Data(users.uid(lastAfter).utf8).base64URLEncodedString(),
                                                expected: min(1000, n - lastAfter - 1))),
        ]
        let batchGetPath = WirePaths.adminAccounts(projectId: projectId, "batchGet")
        var pageResults: [Measurement] = []
        for (name, page) in pages {
            pageResults.append(try await load(name, states: [page], limit: { _, verify in verify }, limitLabel: "1 OpenSSL verify") { page in
                let reply = try await self.adminCall(.GET, batchGetPath + "?" + page.query, token: token)
                let got = (reply["users"] as? [Any])?.count ?? 0
                guard got == page.expected else { throw BenchError("\(name): \(got) users, expected \(page.expected)") }
            })
        }
        step.batchFirst = pageResults[0]
        step.batchLast = pageResults[1]

        // accounts:query by email: emails spread over the table, one exact match each.
        struct QueryState: Sendable { var emails: [String]; var next = 0 }
        let emails = (0..<min(200, n)).map { users.email($0 * n / min(200, n)) }
        let queryPath = WirePaths.adminAccounts(projectId: projectId, "query")
        step.query = try await load("accounts:query by email", states: [QueryState(emails: emails)], limit: { _, verify in verify },
                                    limitLabel: "1 OpenSSL verify") { state in
            let email = state.emails[state.next % state.emails.count]
            state.next += 1
            let reply = try await self.adminCall(.POST, queryPath, token: token, body: ["expression": [["email": email]], "returnUserInfo": true])
            guard (reply["userInfo"] as? [Any])?.count == 1 else { throw BenchError("accounts:query by \(email): \(reply.keys.sorted())") }
        }
    }

    // MARK: The admin API

    /// The project the server serves (`getProjectConfig`).
    func currentProjectId() async throws -> String {
        let page = try await get(base + WirePaths.v3("getProjectConfig"))
        guard page.status == 200, let data = page.body.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let projectId = object["projectId"] as? String
        else { throw BenchError("getProjectConfig: HTTP \(page.status)") }
        return projectId
    }

    /// An admin access token as firebase-admin gets one: a JWT-bearer grant (RFC 7523) signed with the service
    /// account's key registered in the store.
    func adminAccessToken() async throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": serviceKeyId])
        let now = Int(Date().timeIntervalSince1970)
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": serviceAccount, "aud": "https://oauth2.googleapis.com/token",
            "scope": "https://www.googleapis.com/auth/identitytoolkit", "iat": now, "exp": now + 3600,
        ] as [String: Any])
        let input = header.base64URLEncodedString() + "." + claims.base64URLEncodedString()
        let signature = try serviceKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        let assertion = input + "." + signature.rawRepresentation.base64URLEncodedString()
        var request = HTTPClientRequest(url: base + WirePaths.oauth2Token)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode([("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)])))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, let object = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any],
              let token = object["access_token"] as? String
        else { throw BenchError("token grant: HTTP \(response.status.code) \(String(buffer: bytes).prefix(300))") }
        return token
    }

    func adminCall(_ method: HTTPMethod, _ path: String, token: String, body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer " + token)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw BenchError("\(path): HTTP \(response.status.code) \(String(buffer: bytes).prefix(300))") }
        return (try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]) ?? [:]
    }

    /// The body size of a JSON POST's answer.
    func replySize(_ url: String, _ body: [String: Any]) async throws -> Int {
        try await postBytes(url, body).readableBytes
    }

    /// A JSON POST to an absolute URL (the floor server).
    func postJSON(_ url: String, _ body: [String: Any]) async throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(buffer: try await postBytes(url, body))) as? [String: Any]) ?? [:]
    }

    /// A JSON POST to an absolute URL: the answer's body (an error unless 200).
    func postBytes(_ url: String, _ body: [String: Any]) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BenchError("\(url): HTTP \(response.status.code) \(String(buffer: bytes).prefix(300))") }
        return bytes
    }

    // MARK: The export file

    /// Writes users `range` as an `auth:export` file, streamed in chunks.
    func writeExportFile(_ path: String, users: ScaleUsers, range: Range<Int>) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path)
        else { throw BenchError("cannot write \(path)") }
        defer { try? handle.close() }
        let signerKey = Data(base64Encoded: FirebaseScrypt.signerKey)!
        let separator = Data(base64Encoded: FirebaseScrypt.saltSeparator)!
        let epoch: Int64 = 1_600_000_000_000
        var text = "{\"users\": [\n"
        for index in range {
            var random = SplitMix64(seed: UInt64(index) &* 31 &+ 7)
            let uid = users.uid(index)
            let email = users.email(index)
            let name = "Scale User \(index)"
            var fields = ["\"localId\":\"\(uid)\"", "\"email\":\"\(email)\"", "\"emailVerified\":\(index % 3 != 0)", "\"displayName\":\"\(name)\""]
            var providers: [String] = []
            if users.hasPassword(index) {
                let salt = random.bytes(10)
                let hash: Data
                if users.realHashes.contains(index) {
                    hash = try ImportedPasswordHash(algorithm: .scrypt, hash: Data(), salt: salt, signerKey: signerKey, saltSeparator: separator,
                                                    rounds: FirebaseScrypt.rounds, memoryCost: FirebaseScrypt.memCost).compute(users.password(index))
                } else {
                    hash = random.bytes(64)
                }
                fields.append("\"passwordHash\":\"\(hash.base64EncodedString())\"")
                fields.append("\"salt\":\"\(salt.base64EncodedString())\"")
                providers.append("{\"providerId\":\"password\",\"rawId\":\"\(email)\",\"email\":\"\(email)\",\"displayName\":\"\(name)\"}")
            }
            if index % 4 == 0 { fields.append("\"photoUrl\":\"https://photos.example.com/\(uid).jpg\"") }
            if index % 10 == 0 {
                let phone = "+447" + String(format: "%09d", index / 10)
                fields.append("\"phoneNumber\":\"\(phone)\"")
                providers.append("{\"providerId\":\"phone\",\"rawId\":\"\(phone)\",\"phoneNumber\":\"\(phone)\"}")
            }
            if index % 3 == 0 {
                providers.append("{\"providerId\":\"google.com\",\"rawId\":\"1\(String(format: "%020d", index))\",\"email\":\"\(email)\",\"displayName\":\"\(name)\",\"photoUrl\":\"https://lh3.googleusercontent.com/a/\(uid)\"}")
            }
            if index % 7 == 0 {
                let hex = String(index, radix: 16), tail = String(random.next() & 0xFFFF_FFFF_FFFF, radix: 16)
                let rawId = String(repeating: "0", count: max(0, 8 - hex.count)) + hex + "-0000-4000-8000-"
                    + String(repeating: "0", count: max(0, 12 - tail.count)) + tail
                providers.append("{\"providerId\":\"microsoft.com\",\"rawId\":\"\(rawId)\",\"email\":\"\(email)\",\"displayName\":\"\(name)\"}")
            }
            if index % 4 == 1 { fields.append("\"customAttributes\":\"{\\\"role\\\":\\\"member\\\",\\\"tier\\\":\(index % 5)}\"") }
            let created = epoch + Int64(index) * 1000
            fields.append("\"createdAt\":\"\(created)\"")
            if index % 5 != 4 { fields.append("\"lastSignedInAt\":\"\(created + 86_400_000 + Int64(random.next() % 10_000_000))\"") }
            fields.append("\"disabled\":false")
            fields.append("\"providerUserInfo\":[\(providers.joined(separator: ","))]")
            text += "  {" + fields.joined(separator: ",") + "}" + (index + 1 < range.upperBound ? ",\n" : "\n")
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        text += "]}\n"
        try handle.write(contentsOf: Data(text.utf8))
    }

    // MARK: Child processes

    /// Runs `hearth <arguments> --data-dir <dir> [--database-url …]` to its end: wall time and peak RSS (wait4's
    /// `ru_maxrss`). A non-zero exit fails the run with the end of the command's output.
    func runCLI(_ arguments: [String], label: String) async throws -> (seconds: Double, peakMB: Double) {
        let log = dataDir + "/\(label).log"
        let command = [options.server] + arguments + ["--data-dir", dataDir] + (options.databaseURL.map { ["--database-url", $0] } ?? [])
        let started = ContinuousClock.now
        let pid = try Self.spawn(command, stdout: log, stderr: log)
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped == -1 && errno != EINTR { throw BenchError("wait4 \(label): errno \(errno)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let seconds = (ContinuousClock.now - started).seconds
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw BenchError("hearth \(arguments.prefix(2).joined(separator: " ")) \(exited ? "exited with \(code)" : "was killed by signal \(status & 0x7f)"): \(text.suffix(2000))")
        }
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }

    /// posix_spawn with stdin from /dev/null and stdout and stderr appended to files (the server, the dev IdP, the floor,
    /// the CLI commands of the scale run).
    static func spawn(_ arguments: [String], stdout: String, stderr: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var status = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        // ETXTBSY: the binary is being written (a build beside the run); it is complete within seconds.
        for _ in 0..<100 where status == ETXTBSY {
            usleep(100_000)
            status = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        }
        guard status == 0 else { throw BenchError("could not start \(arguments[0]): error \(status)") }
        return pid
    }

    static func stopChild(_ pid: Int32) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// This executable again with `--floor-server PORT` (Floor.swift), once it answers.
    func startFloor() throws -> (pid: Int32, port: Int) {
        let port = options.floorPort
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let log = dataDir + "/floor.log"
        let pid = try Self.spawn([executable, "--floor-server", "\(port)"], stdout: log, stderr: log)
        for _ in 0..<300 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw BenchError("the floor server exited: \(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(1000))")
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 {
                // Something else may hold the port: then the floor has failed to bind and exits.
                usleep(1_000_000)
                if waitpid(pid, &status, WNOHANG) == pid {
                    throw BenchError("the floor server exited (is port \(port) taken? --floor-port): \(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(1000))")
                }
                return (pid, port)
            }
            usleep(100_000)
        }
        Self.stopChild(pid)
        throw BenchError("the floor server did not listen on port \(port) within 30 s")
    }

    // MARK: Database size

    /// SQLite: the database and its WAL after a checkpoint (`sqlite3`, when installed); PostgreSQL: every table of
    /// the schema with its indexes and TOAST (`pg_total_relation_size`, through `psql`). Nil when not measurable.
    func databaseBytes() -> Double? {
        if let url = options.databaseURL {
            let sql = "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE c.relkind IN ('r', 'm', 'p') AND n.nspname = current_schema()"
            guard let output = OpenSSLSpeed.run(["psql", url, "-tAc", sql]) else {
                say("psql is not installed or failed: database size not measured")
                return nil
            }
            return Double(output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let path = dataDir + "/hearth.sqlite"
        _ = OpenSSLSpeed.run(["sqlite3", path, "PRAGMA wal_checkpoint(TRUNCATE);"])
        return [path, path + "-wal"].reduce(0.0) { sum, file in
            sum + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.doubleValue ?? 0)
        }
    }

    // MARK: Report

    /// One figure's row: its value at each step, its target and the verdict.
    struct ScaleRow {
        var figure: String
        var values: [String]
        var target: String
        /// nil: nothing to judge (reference figures, or steps too small to judge).
        var met: Bool?
    }

    func scaleRows(_ steps: [ScaleStep], export: (seconds: Double, peakMB: Double)?, total: Int) -> [ScaleRow] {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.3f", $0 * 1000) } ?? "—" }
        func judged(_ values: [Double?], _ test: (Double) -> Bool) -> Bool? {
            let present = values.compactMap { $0 }
            return present.isEmpty ? nil : present.allSatisfy(test)
        }
        var rows: [ScaleRow] = []
        let first = steps.first
        /// A figure at the last step (the issue's "at 10⁶") against its value at the first (N = first.users); the steps
        /// between are shown, not judged (a single noisy step in between said nothing about the size of the table).
        func relative(_ figure: String, _ value: (ScaleStep) -> Double?, factor: Double, source: String, format: (Double?) -> String = ms) {
            let base = first.flatMap(value)
            let values = steps.map(value)
            rows.append(ScaleRow(figure: figure, values: values.map(format),
                                 target: String(format: "at the last N ≤ %.2f× the value at N = %d (%@)", factor, first?.users ?? 0, source),
                                 met: steps.count < 2 ? nil : base.flatMap { base in judged([values.last ?? nil], { $0 <= base * factor }) }))
        }
        rows.append(ScaleRow(figure: "import rate (users/s of the step's slice)", values: steps.map { String(format: "%.0f", $0.importRate) },
                             target: "≥ 20 000 (issue; judged on slices of ≥ 10 000 users)",
                             met: judged(steps.map { $0.slice >= 10_000 ? $0.importRate : nil }, { $0 >= 20_000 })))
        rows.append(ScaleRow(figure: "import peak RSS (MB)", values: steps.map { String(format: "%.0f", $0.importPeakMB) },
                             target: "≤ 300 (bench: memory bounded by a batch)", met: judged(steps.map(\.importPeakMB), { $0 <= 300 })))
        rows.append(ScaleRow(figure: "start-up to /healthz (s)", values: steps.map { String(format: "%.2f", $0.startupSeconds) },
                             target: "≤ 5 (issue)", met: judged(steps.map(\.startupSeconds), { $0 <= 5 })))
        relative("idle RSS (MB)", { $0.idleRSS }, factor: 1.25, source: "bench", format: { $0.map { String(format: "%.1f", $0) } ?? "—" })
        relative("lookup: server CPU (ms/req)", { $0.lookup?.cpuPerRequest }, factor: 1.25, source: "issue")
        relative("lookup: p99 (ms)", { $0.lookup?.percentile(0.99) }, factor: 1.5, source: "bench")
        relative("refresh: server CPU (ms/req)", { $0.refresh?.cpuPerRequest }, factor: 1.25, source: "issue")
        relative("refresh: p99 (ms)", { $0.refresh?.percentile(0.99) }, factor: 1.5, source: "bench")
        rows.append(ScaleRow(figure: "refresh: OpenSSL sign / server CPU", values: steps.map { $0.refresh.map { String(format: "%.2f", $0.limit / max($0.cpuPerRequest, 1e-9)) } ?? "—" },
                             target: "≥ 0.50 (issue 41, item 4)", met: judged(steps.map { $0.refresh.map { $0.limit / max($0.cpuPerRequest, 1e-9) } }, { $0 >= 0.5 })))
        relative("password sign-in: server CPU (ms/req)", { $0.password?.cpuPerRequest }, factor: 1.25, source: "bench")
        relative("password sign-in: p99 (ms)", { $0.password?.percentile(0.99) }, factor: 1.5, source: "bench")
        rows.append(ScaleRow(figure: "framework floor: server CPU (ms/req)", values: steps.map { ms($0.floor?.cpuPerRequest) },
                             target: "(reference: Hummingbird 2, JSON in and out)", met: nil))
        rows.append(ScaleRow(figure: "reply bytes: lookup / floor", values: steps.map { $0.replyBytes.map { "\($0.lookup) / \($0.floor)" } ?? "—" },
                             target: "(reference: the floor answers a lookup-sized body)", met: nil))
        rows.append(ScaleRow(figure: "OpenSSL RSA-2048 verify (ms)", values: steps.map { ms($0.lookup?.limit) }, target: "(reference)", met: nil))
        let floorRatios = steps.map { step -> Double? in
            guard let lookup = step.lookup, let floor = step.floor else { return nil }
            return lookup.cpuPerRequest / max(floor.cpuPerRequest + lookup.limit, 1e-9)
        }
        rows.append(ScaleRow(figure: "lookup CPU / (floor + OpenSSL verify)", values: floorRatios.map { $0.map { String(format: "%.2f", $0) } ?? "—" },
                             target: "≤ 2.0 (issue)", met: judged(floorRatios, { $0 <= 2.0 })))
        relative("batchGet first page of 1000 (ms, p50)", { $0.batchFirst?.percentile(0.5) }, factor: 1.25, source: "issue: constant time")
        let pageRatios = steps.map { step -> Double? in
            guard let last = step.batchLast, let first = step.batchFirst else { return nil }
            return last.percentile(0.5) / max(first.percentile(0.5), 1e-9)
        }
        rows.append(ScaleRow(figure: "batchGet page near the end (ms, p50)", values: steps.map { ms($0.batchLast?.percentile(0.5)) },
                             target: "≤ 1.25× the first page at the same N (issue: keyset; judged at the last N)", met: judged([pageRatios.last ?? nil], { $0 <= 1.25 })))
        relative("batchGet first page: server CPU (ms/page)", { $0.batchFirst?.cpuPerRequest }, factor: 1.25, source: "bench")
        let cpuRatios = steps.map { step -> Double? in
            guard let last = step.batchLast, let first = step.batchFirst else { return nil }
            return last.cpuPerRequest / max(first.cpuPerRequest, 1e-9)
        }
        rows.append(ScaleRow(figure: "batchGet page near the end: server CPU (ms/page)", values: steps.map { ms($0.batchLast?.cpuPerRequest) },
                             target: "≤ 1.25× the first page's at the same N (bench: keyset, load-independent; judged at the last N)", met: judged([cpuRatios.last ?? nil], { $0 <= 1.25 })))
        relative("accounts:query by email (ms, p50)", { $0.query?.percentile(0.5) }, factor: 1.25, source: "bench: an index lookup")
        rows.append(ScaleRow(figure: "database bytes per user", values: steps.map { $0.bytesPerUser.map { String(format: "%.0f", $0) } ?? "—" },
                             target: "≤ 1536 (issue; judged from N = 100 000 and at the last step)",
                             met: judged(steps.map { ($0.users >= 100_000 || $0.users == total) ? $0.bytesPerUser : nil }, { $0 <= 1536 })))
        if let export {
            let rate = Double(total) / max(export.seconds, 1e-9)
            rows.append(ScaleRow(figure: "export rate (users/s, N = \(total))", values: steps.indices.map { $0 == steps.count - 1 ? String(format: "%.0f", rate) : "" },
                                 target: "≥ 50 000 (issue)", met: rate >= 50_000))
            rows.append(ScaleRow(figure: "export peak RSS (MB)", values: steps.indices.map { $0 == steps.count - 1 ? String(format: "%.0f", export.peakMB) : "" },
                                 target: "≤ 300 (issue, at 10⁶)", met: export.peakMB <= 300))
        }
        return rows
    }

    func scaleReport(_ steps: [ScaleStep], export: (seconds: Double, peakMB: Double)?, total: Int, engine: String, rsa: RSAReference,
                     failures: [String]) -> String {
        let rows = scaleRows(steps, export: export, total: total)
        func grouped(_ n: Int) -> String {
            let digits = Array(String(n))
            var text = ""
            for (index, digit) in digits.enumerated() {
                if index > 0 && (digits.count - index) % 3 == 0 { text.append(" ") }
                text.append(digit)
            }
            return text
        }
        var lines = [
            "## Scale: \(engine), N = \(grouped(total)) (issue 41)",
            "",
            "RSA-2048, CPU per operation on one thread, at the start: " + rsa.summary,
            "\(options.concurrency) concurrent loopback clients (batchGet and accounts:query: one), \(options.duration) s per scenario; sessions: "
                + "\(options.users) users spread over the table (signInWithCustomToken); server CPU from /proc/<pid>/stat.",
            "",
            "| figure | " + steps.map { "N = " + grouped($0.users) }.joined(separator: " | ") + " | target | |",
            "|---|" + String(repeating: "---:|", count: steps.count) + "---|---|",
        ]
        for row in rows {
            let verdict = row.met.map { $0 ? "met" : "MISSED" } ?? "—"
            lines.append("| \(row.figure) | " + row.values.joined(separator: " | ") + " | \(row.target) | \(verdict) |")
        }
        #if DEBUG
        // The floor runs this executable's code: a debug build's floor is no floor.
        lines.append("")
        lines.append("This hearth-bench is a debug build: the framework floor (its own code) and the ratio to it mean nothing; use scripts/scale.")
        #endif
        let missed = rows.filter { $0.met == false }.map(\.figure)
        lines.append("")
        if steps.isEmpty {
            lines.append("No step completed.")
        } else {
            lines.append(missed.isEmpty ? "Every judged target met." : "Targets MISSED (\(missed.count)): " + missed.joined(separator: "; ") + ".")
        }
        if !failures.isEmpty {
            lines.append("The run FAILED (the steps above are the ones that completed): " + failures.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }

    /// Per-step figures as CSV (for `scripts/scale-plot`); rewritten after each step, so a run cut short keeps its steps.
    func writeScaleCSV(_ steps: [ScaleStep], export: (seconds: Double, peakMB: Double)?) throws {
        guard let path = options.scaleCSV else { return }
        func ms(_ value: Double?) -> String { value.map { String(format: "%.4f", $0 * 1000) } ?? "" }
        var text = "n,import_users_per_s,import_peak_rss_mb,startup_s,idle_rss_mb,lookup_cpu_ms,lookup_p99_ms,refresh_cpu_ms,refresh_p99_ms,"
            + "password_cpu_ms,password_p99_ms,floor_cpu_ms,openssl_verify_ms,lookup_floor_ratio,batchget_first_ms,batchget_last_ms,"
            + "batchget_cpu_ms,query_ms,bytes_per_user,export_users_per_s,export_peak_rss_mb,batchget_last_cpu_ms\n"
        for (index, step) in steps.enumerated() {
            let ratio = step.lookup.flatMap { lookup in step.floor.map { lookup.cpuPerRequest / max($0.cpuPerRequest + lookup.limit, 1e-9) } }
            let last = index == steps.count - 1
            let columns: [String] = [
                "\(step.users)", String(format: "%.0f", step.importRate), String(format: "%.1f", step.importPeakMB),
                String(format: "%.3f", step.startupSeconds), String(format: "%.1f", step.idleRSS),
                ms(step.lookup?.cpuPerRequest), ms(step.lookup?.percentile(0.99)), ms(step.refresh?.cpuPerRequest), ms(step.refresh?.percentile(0.99)),
                ms(step.password?.cpuPerRequest), ms(step.password?.percentile(0.99)), ms(step.floor?.cpuPerRequest), ms(step.lookup?.limit),
                ratio.map { String(format: "%.3f", $0) } ?? "",
                ms(step.batchFirst?.percentile(0.5)), ms(step.batchLast?.percentile(0.5)), ms(step.batchFirst?.cpuPerRequest),
                ms(step.query?.percentile(0.5)), step.bytesPerUser.map { String(format: "%.0f", $0) } ?? "",
                last ? export.map { String(format: "%.0f", Double(step.users) / max($0.seconds, 1e-9)) } ?? "" : "",
                last ? export.map { String(format: "%.1f", $0.peakMB) } ?? "" : "",
                ms(step.batchLast?.cpuPerRequest),
            ]
            text += columns.joined(separator: ",") + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
