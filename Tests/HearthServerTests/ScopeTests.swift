import Foundation
import HTTPTypes
import HearthTesting
import HearthWire
import Testing

/// Issue 37: one scope per call. A `tenantId` on any RPC is decided in one place (the route's scope) and refused
/// with one error, never ignored.
@Suite struct ScopeTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// The RPCs of the catalog whose request carries a `tenantId`: a request decoded from `{"tenantId": …}` that
    /// encodes it again. Each must also say so to the route (``TenantScopedRequest``), or the route would not see it.
    static func tenantCarrying() throws -> [any WireRPC.Type] {
        try RPCCatalog.all.filter { rpc in
            guard let decoded = try? JSONDecoder().decode(rpc, from: Data(#"{"tenantId":"no-such-tenant"}"#.utf8)) else { return false }
            let encoded = String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self)
            return encoded.contains("no-such-tenant")
        }
    }

    /// Issue 37, item 6: the catalog-wide check. Every RPC that carries a `tenantId` answers a named tenant with the
    /// same refusal — `TENANT_NOT_FOUND`, HTTP 400, a message saying what to do — before anything else is checked
    /// (no sign-up, no rename, no mail), on both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func everyRPCThatCarriesATenantRefusesItTheSameWay(store: HearthHarness.StoreChoice) async throws {
        let rpcs = try Self.tenantCarrying()
        // The ten that ignored it before, and the rest: the catalog has at least these.
        let names = Set(rpcs.map { $0.method.description })
        for expected in ["signUp", "signInWithPassword", "signInWithIdp", "signInWithCustomToken", "createAuthUri", "sendOobCode",
                         "resetPassword", "signInWithEmailLink", "lookup", "update", "delete", "accounts:lookup", "accounts:batchCreate",
                         "accounts:batchGet", "mfaEnrollment:start", "passkeySignIn:finalize"] {
            #expect(names.contains(expected), "\(expected) carries no tenantId")
        }
        for rpc in rpcs {
            #expect(rpc is any TenantScopedRequest.Type, "\(rpc.method) decodes a tenantId but does not tell the route about it")
        }
        try await HearthHarness.run(store: store) { h in
            let before = try await h.store.userCount()
            for rpc in rpcs {
                for route in rpc.method.routes {
                    let path = route.path.replacingOccurrences(of: "{project}", with: "demo-hearth")
                        .replacingOccurrences(of: "{tenant}", with: "no-such-tenant")
                    let method = route.httpMethods[0]
                    let reply: HearthHarness.Reply
                    let headers: HTTPFields = rpc.method.group == .admin ? Self.owner : [:]
                    let key = rpc.method.group == .admin ? "" : "key=test-key&"
                    if method == "GET" || method == "DELETE" {
                        reply = try await h.send(HTTPRequest.Method(method)!, path + "?\(key)tenantId=no-such-tenant", headers: headers)
                    } else {
                        reply = try await h.send(.post, path + (key.isEmpty ? "" : "?key=test-key"),
                                                 body: #"{"tenantId":"no-such-tenant"}"#,
                                                 headers: headers)
                    }
                    #expect(reply.status == 400, "\(route.path): \(reply.text.prefix(300))")
                    #expect(reply.errorCode == "TENANT_NOT_FOUND", "\(route.path): \(reply.text.prefix(300))")
                    #expect(reply.envelope?.error.message.contains("hearth tenants list") == true, "\(route.path): \(reply.text.prefix(300))")
                }
            }
            // Nothing was created on the project's own users by a request meant for a tenant.
            #expect(try await h.store.userCount() == before)
        }
    }

    /// Issue 37, item 1: the case the issue found — a sign-up for a tenant created a project user, and an update
    /// for one renamed the project's user. Both are refused now, and the user is unchanged.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsSignUpAndUpdateNoLongerReachTheProjectsUsers(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let signUp = try await h.post(WirePaths.accounts("signUp"), raw: #"{"email":"x@example.com","password":"correct horse","tenantId":"no-such-tenant"}"#)
            #expect(signUp.errorCode == "TENANT_NOT_FOUND")
            #expect(try await h.store.userCount() == 0)
            let user = try await h.signUp(email: "owner@example.com")
            let update = try await h.post(WirePaths.accounts("update"), raw: #"{"idToken":"\#(user.idToken ?? "")","displayName":"Mallory","tenantId":"t1"}"#)
            #expect(update.errorCode == "TENANT_NOT_FOUND")
            #expect(try await h.store.user(localId: user.localId)?.displayName == nil)
            // An oversized tenant with a bidi override is refused the same way; the message quotes at most 64 of its
            // characters and none of the format characters (a log or page showing it cannot be reordered).
            let hostile = "acme\u{202E}gnp." + String(repeating: "t", count: 5000)
            let body = String(decoding: try JSONEncoder().encode(["email": "y@example.com", "password": "correct horse", "tenantId": hostile]), as: UTF8.self)
            let oversized = try await h.post(WirePaths.accounts("signUp"), raw: body)
            #expect(oversized.errorCode == "TENANT_NOT_FOUND")
            let message = oversized.envelope?.error.message ?? ""
            #expect(!message.contains("\u{202E}"), "\(message)")
            #expect(message.count < 600, "\(message.count) characters")
            #expect(try await h.store.userCount() == 1)
            // An empty tenantId is the project's own (what clients send when none is set).
            let lookup = try await h.post(WirePaths.accounts("lookup"), raw: #"{"idToken":"\#(user.idToken ?? "")","tenantId":""}"#)
            #expect(lookup.status == 200, "\(lookup.text)")
        }
    }

    /// Issue 37, item 2: the two exits are the only places a user is created and a session is minted — no other
    /// server or CLI source calls the store's `createUser`, `insertRefreshToken` or `recordSignIn` (`hearth migrate`
    /// copies a store's rows as they are, which is neither), nor the exits' private session helpers.
    @Test func onlyTheExitsCreateUsersAndMintSessions() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let exits = "Sources/HearthServer/Services/AccountService+Exits.swift"
        let pattern = try Regex(#"\.(createUser|insertRefreshToken|recordSignIn)\(|\b(issueSession|signInSession|secondFactorChallenge)\("#)
        var offenders: [String] = []
        var exitCalls = 0
        for folder in ["Sources/HearthServer", "Sources/hearth"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let path = String(url.path.dropFirst(root.path.count + 1))
                let text = try String(contentsOf: url, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("///"), !code.hasPrefix("//"), line.contains(pattern) else { continue }
                    if path == exits { exitCalls += 1; continue }
                    // The admin service's and the console's own `createUser(_:by:in:)` go through createAccount.
                    if line.contains("service.createUser(") || line.contains("admin.createUser(") { continue }
                    if path == "Sources/hearth/Migrate.swift" { continue }
                    offenders.append("\(path):\(number + 1): \(code)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(exitCalls >= 3, "the exits file should hold the store calls it guards")
    }
}
