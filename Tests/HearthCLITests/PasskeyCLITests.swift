import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Testing

/// `hearth signin passkey [--enroll]`: usage errors before any request, the server's refusals in words, and the
/// passkey page it opens (its URL carries the options, a loopback return address and a state, never a token). The
/// whole ceremony with an authenticator runs in Tests/e2e/passkeys.py.
@Suite struct PasskeyCLITests {
    @Test func usageErrorsComeBeforeAnyRequest() throws {
        for (arguments, expected) in [(["signin", "password", "--email", "a@example.com", "--enroll"], "--enroll and --passkey-name belong to hearth signin passkey"),
                                      (["signin", "passkey", "--email", "a@example.com"], "--email goes with --enroll"),
                                      (["signin", "passkey", "--enroll", "--passkey-name", "  "], "--passkey-name takes 1 to 100 characters"),
                                      (["signin", "microsoft.com", "--passkey-name", "x"], "belong to hearth signin passkey")] {
            let result = try CLI.run(arguments, timeout: 10)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        let offline = try CLI.run(["signin", "passkey", "--server", "http://127.0.0.1:9"], timeout: 30)
        #expect(offline.status != 0)
        #expect(offline.stderr.contains("does not answer"), "\(offline.stderr)")
        #expect(!offline.stderr.contains("unknown provider"))
    }

    @Test func refusalsSayWhatToDo() throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let off = try CLI.run(["signin", "passkey", "--server", server.url], timeout: 30)
        #expect(off.status != 0)
        #expect(off.stderr.contains("passkeys are not enabled on \(server.url)"), "\(off.stderr)")
        #expect(!off.stderr.contains("Opening the browser"))
        let nobody = try CLI.run(["signin", "passkey", "--enroll", "--server", server.url], timeout: 30)
        #expect(nobody.status != 0)
        #expect(nobody.stderr.contains("nobody is signed in to create a passkey for"), "\(nobody.stderr)")
    }

    @Test func opensThePasskeyPageAndWaitsForItsAnswer() async throws {
        // A domain rp id (an IP address cannot be one): the public URL's host; the CLI still talks to 127.0.0.1.
        let server = try RunningServer.start(["--dev", "--public-url", "http://localhost"])
        defer { server.stop() }
        _ = try await MultiFactorCLITests.call(server.url, WirePaths.identityToolkitV2 + "/projects/demo-hearth/config?updateMask=passkeys.enabled",
                                               ["passkeys": PasskeyConfig(enabled: true)], method: "PATCH", admin: true,
                                               as: JSONValue.self)
        let started = Date()
        let result = try CLI.run(["signin", "passkey", "--server", server.url, "--timeout", "5"], timeout: 40)
        #expect(result.status != 0)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(result.stderr.contains("Opening the browser to sign in with a passkey"), "\(result.stderr)")
        #expect(result.stderr.contains("no answer from the passkey page within 5 seconds"), "\(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains(WirePaths.passkeyPage + "?") })
        let url = try #require(URLComponents(string: line.trimmingCharacters(in: .whitespaces)))
        var query: [String: String] = [:]
        for item in url.queryItems ?? [] { query[item.name] = item.value }
        #expect(query["mode"] == "signin")
        #expect(query["redirectUrl"]?.hasPrefix("http://127.0.0.1:") == true, "\(query)")
        #expect(query["state"]?.count == 32)
        #expect(query["appId"] == "hearth-cli")
        let options = try JSONDecoder().decode(PasskeyRequestOptions.self, from: try #require(Data(base64URLEncoded: query["options"] ?? "")))
        #expect(options.rpId == "localhost")
        #expect(!line.contains("idToken") && !line.contains("refreshToken"))
        // The URL the CLI printed is a page the server serves (the --dev project accepts any app's loopback address).
        let (data, response) = try await URLSession.shared.data(from: try #require(url.url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self).prefix(300))")
        #expect(String(decoding: data, as: UTF8.self).contains("Sign in to localhost with a passkey"))
    }
}
