import Foundation
import HearthServer
import HearthTesting
import Hummingbird
import Testing

/// The OpenAPI document (`Sources/HearthServer/OpenAPI/openapi.json`) against the router: every route the
/// server can serve (with the dev IdPs, so theirs count too) is documented, and every documented operation is served.
@Suite struct OpenAPIRouteTests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `METHOD /path` for every operation of the document.
    static func documentedOperations() throws -> Set<String> {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        var operations: Set<String> = []
        for (path, item) in paths {
            let item = try #require(item as? [String: Any], "path item \(path)")
            for method in item.keys where methods.contains(method) { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    /// `METHOD /path` for every route of a router, in the document's path syntax (`{name}` captures).
    static func routes(_ router: Router<HearthRequestContext>) -> Set<String> {
        Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    /// What is missing from each side, as messages naming the routes.
    static func differences(routes: Set<String>, documented: Set<String>) -> [String] {
        var problems: [String] = []
        for route in routes.subtracting(documented).sorted() {
            problems.append("the router serves \(route) but the OpenAPI document lacks it: add it to Sources/HearthServer/OpenAPI/openapi.json")
        }
        for operation in documented.subtracting(routes).sorted() {
            problems.append("the OpenAPI document describes \(operation) but the router does not serve it: remove it from the document or add the route")
        }
        return problems
    }

    @Test func documentIsOpenAPI31WithTheGoogleErrorEnvelope() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        #expect(root["openapi"] as? String == "3.1.0")
        let components = try #require(root["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let envelope = try #require(schemas["GoogleError"] as? [String: Any])
        #expect((envelope["required"] as? [String]) == ["error"])
        // Every JSON API operation answers its errors with the envelope.
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        for (path, item) in paths where path.hasPrefix("/identitytoolkit") || path.hasPrefix("/www.googleapis.com/identitytoolkit/v3/relyingparty/")
            || path.hasPrefix("/securetoken") || path.hasPrefix("/emulator/v1") {
            for (method, operation) in item where Self.methods.contains(method) {
                let responses = try #require((operation as? [String: Any])?["responses"] as? [String: Any], "\(method) \(path)")
                let error = responses["4XX"] as? [String: Any]
                #expect(error?["$ref"] as? String == "#/components/responses/Error", "\(method.uppercased()) \(path) must describe its 4XX errors with the envelope")
            }
        }
        // Operation ids are unique (stateful links name them).
        var ids: [String] = []
        for item in paths.values {
            for (method, operation) in item where Self.methods.contains(method) {
                if let id = (operation as? [String: Any])?["operationId"] as? String { ids.append(id) }
            }
        }
        #expect(Set(ids).count == ids.count)
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let problems = Self.differences(routes: Self.routes(h.server.router()), documented: try Self.documentedOperations())
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test func anUndocumentedRouteIsNamed() async throws {
        try await HearthHarness.run { h in
            let router = h.server.router()
            router.get("/not-in-the-document") { _, _ in "x" }
            let problems = Self.differences(routes: Self.routes(router), documented: try Self.documentedOperations())
            #expect(problems.contains { $0.contains("GET /not-in-the-document") && $0.contains("lacks it") })
            // Without the dev IdPs their documented routes are not served, and each is named.
            #expect(problems.contains { $0.contains("GET /__dev/yahoo/openid/v1/certs") && $0.contains("does not serve it") })
        }
    }

    @Test func documentIsServedAtOpenAPIJSON() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.send(.get, "/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(reply.text == OpenAPIDocument.json)
        }
    }
}
