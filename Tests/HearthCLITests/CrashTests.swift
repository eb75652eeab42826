import AsyncHTTPClient
import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `kill -9` of `hearth serve` (SQLite, `--dev`: the dev IdPs are real OIDC providers) while 500 federated
/// sign-ins and sign-ups are in flight, then a restart on the same data: nothing acknowledged is lost, nothing is
/// half-written, no federated identity has two users, and refresh tokens from before the crash rotate once.
@Suite(.serialized) struct CrashTests {
    /// A client that keeps up to 600 connections (the default pool keeps 8 per host).
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(
        redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(120)),
        connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 600)))

    struct Page: Sendable {
        var status: Int
        var location: String?
        var body: String
    }

    static func send(_ url: String, method: HTTPMethod = .GET, form: [(String, String)]? = nil, json: Data? = nil) async throws -> Page {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        } else if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: json))
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Page(status: Int(response.status.code), location: response.headers.first(name: "Location"), body: String(buffer: body))
    }

    static func postJSON(_ base: String, _ path: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
        let page = try await send(base + path + "?key=k", method: .POST, json: try JSONSerialization.data(withJSONObject: body))
        return (page.status, (try? JSONSerialization.jsonObject(with: Data(page.body.utf8))) as? [String: Any] ?? [:])
    }

    /// A federated sign-in as a browser and an app do it: the auth handler, the dev IdP's login form, the
    /// callback, then `signInWithIdp`. Returns the signInWithIdp reply's JSON when it succeeded.
    static func federatedSignIn(_ base: String, providerId: String, email: String) async throws -> [String: Any]? {
        let rawSessionId = RandomID.alphanumeric(count: 12).uppercased()
        let fields: [(AuthHandlerParameter, String)] = [
            (.apiKey, "k"), (.authType, "signInWithRedirect"), (.providerId, providerId),
            (.sessionId, WireDigest.sha256Hex(rawSessionId)), (.eventId, "EVENT\(RandomID.alphanumeric(count: 6))"),
            (.v, "Hearth-crash-test"), (.redirectUrl, "http://127.0.0.1:65000/callback"),
        ]
        let start = try await send(base + AuthHandlerProtocol.handlerPath + "?" + FormEncoding.encode(fields.map { ($0.0.rawValue, $0.1) }))
        guard start.status == 302, let authorize = start.location, authorize.hasPrefix("http") else { return nil }
        let form = try await send(authorize)
        guard let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body),
              let action = HearthHarness.capture(#"action="([^"]+)""#, in: form.body) else { return nil }
        let submitted = try await send(action.hasPrefix("http") ? action : base + action, method: .POST,
                                       form: [("request_id", requestId), ("email", email), ("name", "Crash Test"), ("action", "login")])
        guard submitted.status == 302, let callback = submitted.location else { return nil }
        let delivered = try await send(callback)
        guard delivered.status == 302, let app = delivered.location,
              let link = URLComponents(string: app)?.queryItems?.first(where: { $0.name == AuthHandlerParameter.link.rawValue })?.value
        else { return nil }
        let reply = try await postJSON(base, WirePaths.accounts("signInWithIdp"), [
            "requestUri": link, "postBody": "providerId=\(providerId)", "sessionId": rawSessionId, "returnSecureToken": true,
        ])
        return reply.status == 200 ? reply.json : nil
    }

    struct Acknowledged: Sendable {
        var signUps: [(email: String, localId: String)] = []
        /// Per federated identity (provider, email): the localIds signInWithIdp answered with.
        var federated: [String: [(localId: String, federatedId: String)]] = [:]
    }

    @Test func killNineUnderFederatedAndPasswordLoad() async throws {
        let dataDir = CLI.temporaryDirectory() + "/data"
        let first = try RunningServer.start(["--dev"], dataDir: dataDir)
        defer { first.stop() }

        // Before the load: sessions whose refresh tokens must survive the crash. Half of them are rotated
        // once before the crash (the rotation acknowledged), half are not.
        var untouched: [String] = [], rotatedOld: [String] = [], rotatedNew: [String] = []
        for index in 0..<10 {
            let signUp = try await Self.postJSON(first.url, WirePaths.accounts("signUp"), ["email": "before\(index)@example.com", "password": "correct horse", "returnSecureToken": true])
            let token = try #require(signUp.json["refreshToken"] as? String, "\(signUp.json)")
            if index % 2 == 0 {
                untouched.append(token)
            } else {
                let refreshed = try await Self.postJSON(first.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": token])
                rotatedOld.append(token)
                rotatedNew.append(try #require(refreshed.json["refresh_token"] as? String, "\(refreshed.json)"))
            }
        }
        let rotatedAt = Date()

        // The load: 500 operations at once; 250 sign-ups, 250 federated sign-ins over 50 identities (5 racing each).
        let acknowledged = Locked(Acknowledged())
        let started = Date()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<500 {
                    group.addTask {
                        if index % 2 == 0 {
                            let email = "load\(index)@example.com"
                            guard let reply = try? await Self.postJSON(first.url, WirePaths.accounts("signUp"), ["email": email, "password": "correct horse"]),
                                  reply.status == 200, let localId = reply.json["localId"] as? String else { return }
                            acknowledged.mutate { $0.signUps.append((email, localId)) }
                        } else {
                            // Sign-ups queue for scrypt while federated sign-ins are quick: the federated ones start once
                            // sign-ups are being acknowledged, so both kinds are in flight at the kill.
                            let wait = Date().addingTimeInterval(60)
                            while acknowledged.value.signUps.count < 3, Date() < wait { try? await Task.sleep(for: .milliseconds(10)) }
                            let identity = (index / 2) % 50
                            let providerId = identity % 2 == 0 ? "microsoft.com" : "yahoo.com"
                            let email = "fed\(identity)@" + (providerId == "microsoft.com" ? "contoso.com" : "yahoo.com")
                            guard let json = try? await Self.federatedSignIn(first.url, providerId: providerId, email: email),
                                  let localId = json["localId"] as? String, let federatedId = json["federatedId"] as? String else { return }
                            acknowledged.mutate { $0.federated["\(providerId) \(email)", default: []].append((localId, federatedId)) }
                        }
                    }
                }
            }
        }
        // Kill once 60 federated sign-ins (and some sign-ups) have been acknowledged; the rest is in flight or queued.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let value = acknowledged.value
            let federated = value.federated.values.map(\.count).reduce(0, +)
            if value.signUps.count >= 5 && federated >= 60 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(first.process.processIdentifier, SIGKILL)
        let killedAfter = Date().timeIntervalSince(started)
        await load.value
        first.stop()
        let acks = acknowledged.value
        let federatedAcks = acks.federated.values.map(\.count).reduce(0, +)
        print("crash test: killed after \(String(format: "%.1f", killedAfter)) s with \(acks.signUps.count) sign-ups and \(federatedAcks) federated sign-ins acknowledged of 250 + 250")
        #expect(acks.signUps.count >= 5 && federatedAcks >= 60, "the load did not get going before the deadline")
        #expect(acks.signUps.count < 250 && federatedAcks < 250, "one kind finished before the kill: none of it was in flight")

        // Restart on the same data.
        let second = try RunningServer.start(["--dev"], dataDir: dataDir)
        defer { second.stop() }
        // Every acknowledged sign-up signs in with its password (the sample keeps scrypt's cost bounded).
        for (email, localId) in acks.signUps.prefix(20) {
            let signIn = try await Self.postJSON(second.url, WirePaths.accounts("signInWithPassword"), ["email": email, "password": "correct horse"])
            #expect(signIn.status == 200 && signIn.json["localId"] as? String == localId, "\(email): \(signIn.json)")
        }
        // A federated identity signs in again to the same user it was acknowledged with.
        for (key, replies) in acks.federated.sorted(by: { $0.key < $1.key }).prefix(6) {
            let parts = key.split(separator: " ").map(String.init)
            let again = try await Self.federatedSignIn(second.url, providerId: parts[0], email: parts[1])
            #expect(again?["localId"] as? String == replies[0].localId, "\(key)")
        }
        // Refresh tokens from before the crash: an untouched one rotates once; the acknowledged replacement of a
        // rotated one rotates; the token it replaced, presented after the grace window, is refused as reused (its
        // rotation before the crash was durable, so it does not rotate a second time).
        for token in untouched {
            let refreshed = try await Self.postJSON(second.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": token])
            #expect(refreshed.status == 200, "\(refreshed.json)")
        }
        for token in rotatedNew {
            let refreshed = try await Self.postJSON(second.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": token])
            #expect(refreshed.status == 200, "\(refreshed.json)")
        }
        let graceEnds = rotatedAt.addingTimeInterval(31)
        if graceEnds > Date() { try await Task.sleep(for: .seconds(graceEnds.timeIntervalSinceNow)) }
        for token in rotatedOld {
            let replayed = try await Self.postJSON(second.url, WirePaths.secureToken, ["grant_type": "refresh_token", "refresh_token": token])
            #expect(replayed.status == 400 && ((replayed.json["error"] as? [String: Any])?["message"] as? String ?? "").hasPrefix("TOKEN_EXPIRED"), "\(replayed.json)")
        }
        second.stop()

        // The database itself, with the server stopped.
        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        var users: [UserRecord] = []
        var after: String?
        while true {
            let page = try await store.listUsers(after: after, limit: 500)
            users += page
            guard let last = page.last, page.count == 500 else { break }
            after = last.localId
        }
        try await store.close()
        let byId = Dictionary(uniqueKeysWithValues: users.map { ($0.localId, $0) })
        // Every acknowledged account is there, as acknowledged.
        for (email, localId) in acks.signUps {
            #expect(byId[localId]?.email == email, "acknowledged sign-up \(email) lost")
        }
        for (key, replies) in acks.federated {
            // All acknowledged sign-ins of one identity answered with one user, and that user holds the identity.
            #expect(Set(replies.map(\.localId)).count == 1, "\(key) became several users: \(replies.map(\.localId))")
            let user = byId[replies[0].localId]
            #expect(user?.identities.contains { $0.federatedId == replies[0].federatedId } == true, "acknowledged identity \(key) lost")
        }
        // No federated identity belongs to two users.
        var owners: [String: [String]] = [:]
        for user in users {
            for identity in user.identities where identity.providerId != "password" {
                owners["\(identity.providerId) \(identity.federatedId)", default: []].append(user.localId)
            }
        }
        let shared = owners.filter { $0.value.count > 1 }
        #expect(shared.isEmpty, "identities with several users: \(shared)")
        // No half-written user: a password user has its email and hash; a federated user its identity, and its
        // identity's email; nobody is left without a way to sign in.
        for user in users {
            let federated = user.identities.filter { $0.providerId != "password" }
            if user.email?.hasSuffix("@example.com") == true {
                #expect(user.passwordHash != nil, "\(user.localId) has no password hash")
            } else {
                #expect(federated.count == 1, "\(user.localId): \(user.identities)")
                #expect(federated.allSatisfy { $0.email != nil }, "\(user.localId): \(user.identities)")
            }
        }
        print("crash test: \(users.count) users after restart, \(owners.count) federated identities, none shared")
    }
}
