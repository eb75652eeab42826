import HearthCore
import Foundation
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import Testing

/// The RPC catalog (HearthWire's ``RPCCatalog``) against the running server and the OpenAPI document: every RPC
/// is routed at each of its paths, behind its route group's middleware, documented, and its documented examples
/// decode into its HearthWire types.
@Suite struct RPCCatalogTests {
    /// A catalog path with the `{project}` parameter filled in.
    static func concrete(_ path: String, project: String) -> String {
        path.replacingOccurrences(of: "{project}", with: project).replacingOccurrences(of: "{tenant}", with: "acme-aaaaa")
    }

    /// Every RPC path answers (never "no such endpoint"), and each group's middleware stands in front of it:
    /// a wrong API key is refused on the client API and the secure token service, a missing admin credential on
    /// the admin API.
    @Test func everyCatalogRouteIsServedBehindItsGroupsMiddleware() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "catalog-test"; $0.apiKeys = ["right-key"] }) { h in
            #expect(RPCCatalog.all.count >= 21)
            for rpc in RPCCatalog.all {
                for route in rpc.method.routes {
                    let path = route.path
                    for method in route.httpMethods {
                        let uri = Self.concrete(path, project: h.projectId) + "?key=wrong-key"
                        let reply = try await h.send(HTTPRequest.Method(method)!, uri, body: method == "GET" ? nil : "{}")
                        let code = reply.json.flatMap { ($0["error"] as? [String: Any])?["message"] as? String } ?? ""
                        switch rpc.method.group {
                        case .clientAPI, .secureToken:
                            #expect(reply.status == 400 && code.contains("API key not valid"), "\(method) \(path): \(reply.status) \(code)")
                        case .emulator:
                            // A production project has no emulator endpoints: the emulator authenticator says so.
                            #expect(reply.status == 404 && code.contains("emulator endpoints exist only"), "\(method) \(path): \(reply.status) \(code)")
                            continue
                        case .admin:
                            #expect(!code.hasPrefix("NOT_FOUND"), "\(method) \(path) is in the catalog but not routed")
                            #expect(reply.status == 401 && code.hasPrefix("UNAUTHENTICATED"), "\(method) \(path): \(reply.status) \(code)")
                        }
                    }
                }
            }
        }
    }

    /// The rate limit belongs to the route, not to path text: a variant of the path that still reaches the
    /// sign-up handler (a trailing or doubled slash, the v3 alias) is limited with it.
    @Test func theRateLimitCannotBeSidesteppedByPathVariants() async throws {
        try await HearthHarness.run(configure: { $0.rateLimits = RateLimitConfiguration(signUpsPerAddressPerHour: 2) }) { h in
            let variants = [WirePaths.accounts("signUp"), WirePaths.accounts("signUp") + "/", "/" + WirePaths.accounts("signUp"),
                            WirePaths.v3("signupNewUser"), WirePaths.v3("signupNewUser") + "/"]
            var created = 0
            for variant in variants {
                let reply = try await h.post(variant, SignUpRequest())
                if reply.status == 200 { created += 1 } else { #expect(reply.status == 429 || reply.status == 404, "\(variant): \(reply.status)") }
            }
            #expect(created == 2)
        }
    }

    /// Every RPC's operations are in the document, and every example the document gives for a request or a 200
    /// answer decodes into the RPC's HearthWire request or response type.
    @Test func theDocumentDescribesEveryRPCAndItsExamplesDecode() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        var examples = 0
        for rpc in RPCCatalog.all {
            examples += try Self.check(rpc, paths: paths)
        }
        // At least one request example per RPC with a body.
        #expect(examples >= RPCCatalog.all.filter { $0.method.routes.contains { $0.httpMethods.contains("POST") } }.count)
    }

    static func check<R: WireRPC>(_ rpc: R.Type, paths: [String: [String: Any]]) throws -> Int {
        var decoded = 0
        for route in R.method.routes {
            let path = route.path
            let item = try #require(paths[path], "the OpenAPI document lacks \(path) (\(R.method))")
            for method in route.httpMethods {
                let operation = try #require(item[method.lowercased()] as? [String: Any], "the OpenAPI document lacks \(method) \(path)")
                let request = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                if let example = request?["example"] {
                    let data = try JSONSerialization.data(withJSONObject: example)
                    #expect(throws: Never.self, "the request example of \(method) \(path) is not a \(R.self)") {
                        _ = try WireJSON.decoder.decode(R.self, from: data)
                    }
                    decoded += 1
                }
                let ok = (((operation["responses"] as? [String: Any])?["200"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                if let example = ok?["example"] {
                    let data = try JSONSerialization.data(withJSONObject: example)
                    #expect(throws: Never.self, "the 200 example of \(method) \(path) is not a \(R.Response.self)") {
                        _ = try WireJSON.decoder.decode(R.Response.self, from: data)
                    }
                }
            }
        }
        return decoded
    }

    /// A bad example is caught: the checker is not vacuous.
    @Test func aWrongExampleIsNamed() throws {
        let paths: [String: [String: Any]] = [
            WirePaths.accounts("lookup"): ["post": ["requestBody": ["content": ["application/json": ["example": ["idToken": 42]]]]]],
            WirePaths.v3("getAccountInfo"): ["post": [:]],
        ]
        var decoded = 0
        withKnownIssue("the example's idToken is a number") {
            decoded = (try? Self.check(LookupRequest.self, paths: paths)) ?? -1
        }
        #expect(decoded == 1)
    }
}
