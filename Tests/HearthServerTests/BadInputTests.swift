import Foundation
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .post
        var path: String
        var body: String?
        var contentType = "application/json"
        var status: Int
        var code: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "truncated JSON", path: WirePaths.accounts("signUp"), body: #"{"email":"a@b.co""#, status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "not JSON", path: WirePaths.accounts("signInWithPassword"), body: "hello", status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "array body", path: WirePaths.accounts("lookup"), body: "[1,2]", status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "number for email", path: WirePaths.accounts("signUp"), body: #"{"email":5,"password":"secret1"}"#, status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "string for boolean", path: WirePaths.accounts("signUp"), body: #"{"returnSecureToken":"yes"}"#, status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "object for deleteAttribute", path: WirePaths.accounts("update"), body: #"{"idToken":"x","deleteAttribute":{"a":1}}"#, status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "deep nesting", path: WirePaths.accounts("signUp"), body: String(repeating: "[", count: 5000), status: 400, code: "INVALID_JSON_PAYLOAD"),
        Case(name: "invalid UTF-8 form", path: WirePaths.secureToken, body: "grant_type=%FF%FE", contentType: "application/x-www-form-urlencoded", status: 400, code: "INVALID_GRANT_TYPE"),
        Case(name: "oversized body", path: WirePaths.accounts("signUp"), body: "{\"displayName\":\"" + String(repeating: "x", count: 300_000) + "\"}", status: 413, code: "PAYLOAD_TOO_LARGE"),
        Case(name: "unknown method", path: WirePaths.accounts("doSomething"), body: "{}", status: 404, code: "NOT_FOUND"),
        Case(name: "unknown path", method: .get, path: "/nothing/here", status: 404, code: "NOT_FOUND"),
        Case(name: "GET on a POST method", method: .get, path: WirePaths.accounts("signUp"), status: 404, code: "NOT_FOUND"),
        Case(name: "huge email", path: WirePaths.accounts("signUp"), body: "{\"email\":\"" + String(repeating: "a", count: 5000) + "@x.com\",\"password\":\"secret1\"}", status: 400, code: "INVALID_EMAIL"),
        Case(name: "huge password", path: WirePaths.accounts("signUp"), body: "{\"email\":\"a@x.com\",\"password\":\"" + String(repeating: "p", count: 5000) + "\"}", status: 400, code: "WEAK_PASSWORD"),
        Case(name: "huge display name", path: WirePaths.accounts("signUp"), body: "{\"displayName\":\"" + String(repeating: "n", count: 1000) + "\"}", status: 400, code: "INVALID_DISPLAY_NAME"),
        Case(name: "huge refresh token", path: WirePaths.secureToken, body: "{\"grantType\":\"refresh_token\",\"refreshToken\":\"" + String(repeating: "r", count: 5000) + "\"}", status: 400, code: "INVALID_REFRESH_TOKEN"),
        Case(name: "garbage ID token", path: WirePaths.accounts("lookup"), body: #"{"idToken":"a.b.c"}"#, status: 400, code: "INVALID_ID_TOKEN"),
        Case(name: "null ID token", path: WirePaths.accounts("delete"), body: #"{"idToken":null}"#, status: 400, code: "MISSING_ID_TOKEN"),
    ]

    @Test(arguments: cases)
    func badInputGetsTheEnvelopeAndA4xx(_ testCase: Case) async throws {
        try await HearthHarness.run { h in
            let path = testCase.path + (testCase.path.contains("googleapis") ? "?key=k" : "")
            let reply = try await h.send(testCase.method, path, body: testCase.body, contentType: testCase.contentType)
            #expect(reply.status == testCase.status)
            let envelope = try #require(reply.envelope, "body was: \(reply.text.prefix(200))")
            #expect(envelope.error.code == testCase.status)
            #expect(envelope.errorCode == testCase.code)
            #expect(envelope.error.errors.count == 1)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func serverStillServesAfterBadInput() async throws {
        try await HearthHarness.run { h in
            for testCase in Self.cases {
                _ = try await h.send(testCase.method, testCase.path + "?key=k", body: testCase.body, contentType: testCase.contentType)
            }
            #expect(try await h.signUp(email: "after@example.com").idToken != nil)
        }
    }
}

@Suite struct APIKeyTests {
    @Test func configuredKeysAreEnforced() async throws {
        try await HearthHarness.run(configure: { $0.apiKeys = ["AIza-good"] }) { h in
            let body = #"{"email":"a@example.com","password":"secret1"}"#
            let missing = try await h.post(WirePaths.accounts("signUp"), raw: body, query: "")
            #expect(missing.status == 400)
            #expect(missing.envelope?.error.errors.first?.reason == "keyInvalid")
            #expect(missing.envelope?.error.message == "API key not valid. Please pass a valid API key.")
            #expect(try await h.post(WirePaths.accounts("signUp"), raw: body, query: "key=AIza-bad").envelope?.error.errors.first?.reason == "keyInvalid")
            #expect(try await h.post(WirePaths.secureToken, raw: "{}", query: "key=AIza-bad").envelope?.error.errors.first?.reason == "keyInvalid")
            #expect(try await h.post(WirePaths.accounts("signUp"), raw: body, query: "key=AIza-good").status == 200)
            var headers = HTTPFields()
            headers[HTTPField.Name("X-Goog-Api-Key")!] = "AIza-good"
            #expect(try await h.send(.post, WirePaths.accounts("signInWithPassword"), body: body, headers: headers).status == 200)
            // Public keys need no API key.
            #expect(try await h.send(.get, WirePaths.x509Certificates).status == 200)
        }
    }

    @Test func nonDemoProjectWithoutKeysRefusesEverything() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "prod-project" }) { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), raw: "{}", query: "key=anything")
            #expect(reply.envelope?.error.errors.first?.reason == "keyInvalid")
        }
    }
}
