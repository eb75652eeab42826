import AsyncHTTPClient
import Foundation
import HearthWire
import NIOCore
import NIOHTTP1
import NIOFoundationCompat

/// Glewlwyd (Debian's OpenID Connect server in C) on loopback, set up by `scripts/glewlwyd-peer`: the peer whose
/// refresh-token grant is loaded with the same client, concurrency and duration as Hearth's refresh.
struct GlewlwydPeer: Sendable {
    var script: String
    var port: Int
    var tokenURL: String
    var clientID: String
    var clientSecret: String
    var username: String
    var password: String
    var pid: Int32

    /// Runs `script start PORT` (installs the package when absent, makes a fresh directory, key and database).
    static func start(script: String, port: Int) throws -> GlewlwydPeer {
        guard let output = OpenSSLSpeed.run(["bash", script, "start", "\(port)"]) else {
            throw BenchError("\(script) start \(port) failed (run it by hand to see why)")
        }
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            values[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        guard let url = values["GLEWLWYD_TOKEN_URL"], let id = values["GLEWLWYD_CLIENT_ID"], let secret = values["GLEWLWYD_CLIENT_SECRET"],
              let username = values["GLEWLWYD_USERNAME"], let password = values["GLEWLWYD_PASSWORD"],
              let pid = values["GLEWLWYD_PID"].flatMap({ Int32($0) })
        else { throw BenchError("\(script) start printed no peer settings: \(output.prefix(300))") }
        return GlewlwydPeer(script: script, port: port, tokenURL: url, clientID: id, clientSecret: secret,
                            username: username, password: password, pid: pid)
    }

    func stop() { _ = OpenSSLSpeed.run(["bash", script, "stop", "\(port)"]) }

    /// The shipped cost of the client secret's hash, for the report.
    static var pbkdf2Iterations: String { ProcessInfo.processInfo.environment["GLEWLWYD_PBKDF2_ITERATIONS"] ?? "1" }
}

extension Bench {
    /// An OAuth token request (form body, HTTP Basic client authentication) to an absolute URL.
    func tokenRequest(_ peer: GlewlwydPeer, _ fields: [(String, String)]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: peer.tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Authorization", value: "Basic " + Data("\(peer.clientID):\(peer.clientSecret)".utf8).base64EncodedString())
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw BenchError("Glewlwyd token endpoint: HTTP \(response.status.code) \(String(buffer: bytes).prefix(300))")
        }
        return (try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]) ?? [:]
    }

    /// Glewlwyd's refresh grant under the load of Hearth's refresh scenario: `users` refresh tokens minted first
    /// (password grant), split over the workers; each token lives in one worker, so none is presented twice (a
    /// replay would end its chain). A failed refresh drops its token rather than retrying it.
    func peerRefresh(_ peer: GlewlwydPeer) async throws -> Measurement {
        say("Glewlwyd: minting \(options.users) refresh tokens (password grant)…")
        let tokens = try await withThrowingTaskGroup(of: [String].self) { group in
            let workers = max(options.concurrency, 1)
            for worker in 0..<workers {
                group.addTask {
                    var mine: [String] = []
                    for _ in stride(from: worker, to: self.options.users, by: workers) {
                        let reply = try await self.tokenRequest(peer, [("grant_type", "password"), ("username", peer.username),
                                                                        ("password", peer.password), ("scope", "openid")])
                        guard let token = reply["refresh_token"] as? String else { throw BenchError("Glewlwyd: no refresh_token") }
                        mine.append(token)
                    }
                    return mine
                }
            }
            var all: [String] = []
            for try await part in group { all += part }
            return all
        }
        struct State: Sendable { var tokens: [String]; var next = 0 }
        return try await load("refresh (Glewlwyd)", states: split(tokens).map { State(tokens: $0) }, limit: { sign, _ in sign },
                              limitLabel: "1 OpenSSL sign", pid: peer.pid) { state in
            guard !state.tokens.isEmpty else { throw BenchError("Glewlwyd: this worker has no usable refresh token left") }
            let index = state.next % state.tokens.count
            do {
                let reply = try await self.tokenRequest(peer, [("grant_type", "refresh_token"), ("refresh_token", state.tokens[index])])
                guard reply["access_token"] is String else { throw BenchError("Glewlwyd: no access_token") }
                if let rotated = reply["refresh_token"] as? String { state.tokens[index] = rotated }
                state.next += 1
            } catch {
                state.tokens.remove(at: index)
                throw error
            }
        }
    }
}
