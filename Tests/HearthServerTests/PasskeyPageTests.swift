import Foundation
import HearthCore
import HearthPages
@testable import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The passkey page (`/__/auth/passkey`, issue 23): its return address checked like the auth handler's, its options
/// and query checked, its CSP (the script from this origin only, no requests), its script; and browsers on other
/// origins calling the v2 passkey RPCs (CORS).
@Suite struct PasskeyPageTests {
    static let requestOptions = PasskeyRequestOptions(rpId: "localhost", challenge: PasskeyBytes.standard([UInt8](repeating: 0xfb, count: 32)),
                                                      timeout: 60000, allowCredentials: [], userVerification: "required")
    static let creationOptions = PasskeyCreationOptions(
        rp: PasskeyRelyingPartyEntity(id: "localhost", name: "Hearth"),
        user: PasskeyUserEntity(id: PasskeyBytes.standard([UInt8](repeating: 0xff, count: 32)), name: "ada@example.com", displayName: "Ada"),
        challenge: PasskeyBytes.standard([UInt8](repeating: 0x3e, count: 32)), pubKeyCredParams: [PasskeyCredentialParameter(alg: -7)],
        timeout: 60000, excludeCredentials: [PasskeyCredentialDescriptor(id: "AAEC")],
        authenticatorSelection: PasskeyAuthenticatorSelection(residentKey: "required", requireResidentKey: true, userVerification: "required"),
        attestation: "none")

    static func encoded(_ value: some Encodable) throws -> String { try JSONEncoder().encode(value).base64URLEncodedString() }

    static func pagePath(mode: String = "signin", options: String, redirectUrl: String, state: String? = "s-123", appId: String? = nil) -> String {
        var pairs = [("mode", mode), ("options", options), ("redirectUrl", redirectUrl)]
        if let state { pairs.append(("state", state)) }
        if let appId { pairs.append(("appId", appId)) }
        return WirePaths.passkeyPage + "?" + FormEncoding.encode(pairs)
    }

    @Test func pageForARegisteredDesktopAppCarriesTheCheckedValuesAndItsCSP() async throws {
        try await HearthHarness.run { h in
            try await h.store.saveApp(AppRegistration(id: "cli", kind: .desktop, name: "Hearth CLI"))
            let options = try Self.encoded(Self.requestOptions)
            let reply = try await h.send(.get, Self.pagePath(options: options, redirectUrl: "http://127.0.0.1:65000/cb?x=1", appId: "cli"))
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
            #expect(reply.headers[.contentSecurityPolicy] == Pages.passkeyContentSecurityPolicy)
            let csp = Pages.passkeyContentSecurityPolicy
            #expect(csp.contains("script-src 'self'") && csp.contains("connect-src 'none'") && csp.contains("frame-ancestors 'none'"))
            #expect(!csp.contains("unsafe-inline'; script") && !csp.contains("script-src 'unsafe"))
            #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(reply.headers[.cacheControl] == "no-store")
            let html = reply.text
            // One script, from this origin, and no inline script or handler.
            #expect(html.components(separatedBy: "<script").count == 2)
            #expect(html.contains("<script src=\"\(WirePaths.passkeyScript)\"></script>"))
            #expect(!html.contains("onclick") && !html.contains("javascript:"))
            #expect(html.contains("data-mode=\"signin\""))
            #expect(html.contains("data-options=\"\(options)\""))
            #expect(html.contains("data-return=\"http://127.0.0.1:65000/cb?x=1\""))
            #expect(html.contains("data-state=\"s-123\""))
            #expect(html.contains("Hearth CLI"), "who asks")
            #expect(html.contains("Sign in to localhost with a passkey"))
            // Enrollment: the creation options, standard or URL-safe base64 inside.
            let enroll = try await h.send(.get, Self.pagePath(mode: "enroll", options: try Self.encoded(Self.creationOptions),
                                                              redirectUrl: "http://[::1]:65000/cb", appId: "cli"))
            #expect(enroll.status == 200, "\(enroll.text.prefix(300))")
            #expect(enroll.text.contains("Create a passkey for localhost"))
            #expect(enroll.text.contains("data-mode=\"enroll\""))
        }
    }

    @Test func pageForARegisteredAppleAppScheme() async throws {
        try await HearthHarness.run { h in
            try await h.store.saveApp(AppRegistration(id: "ios-1", kind: .apple, bundleId: "com.example.app", appId: "1:1234:ios:abcd", name: "Example"))
            try await h.store.saveApp(AppRegistration(id: "ios-2", kind: .apple, bundleId: "com.example.two", clientId: "1234-abc.apps.googleusercontent.com"))
            let options = try Self.encoded(Self.requestOptions)
            let byAppId = try await h.send(.get, Self.pagePath(options: options, redirectUrl: "app-1-1234-ios-abcd://passkey"))
            #expect(byAppId.status == 200, "\(byAppId.text.prefix(300))")
            #expect(byAppId.text.contains("Example"))
            let byClientId = try await h.send(.get, Self.pagePath(options: options, redirectUrl: "com.googleusercontent.apps.1234-abc://passkey?from=page"))
            #expect(byClientId.status == 200, "\(byClientId.text.prefix(300))")
            #expect(byClientId.text.contains("com.example.two"))
            let other = try await h.send(.get, Self.pagePath(options: options, redirectUrl: "app-1-9999-ios-ffff://passkey"))
            #expect(other.status == 400)
            #expect(other.text.contains("Return address not allowed"))
            #expect(!other.text.contains("data-return"))
        }
    }

    @Test func unregisteredOrWebReturnAddressesAreRefused() async throws {
        try await HearthHarness.run { h in
            try await h.store.saveApp(AppRegistration(id: "cli", kind: .desktop))
            let options = try Self.encoded(Self.requestOptions)
            for (target, appId) in [("https://evil.example.com/steal", "cli"), ("http://localhost:8080/x", "cli"), ("http://127.0.0.1/no-port", "cli"),
                                    ("javascript:alert(1)//", "cli"), ("data:text/html,hi", "cli"), ("http://user@127.0.0.1:9/x", "cli"),
                                    ("http://127.0.0.1:65000/cb#frag", "cli"), ("http://127.0.0.1:65000/cb", "not-registered"),
                                    ("http://127.0.0.1:65000/cb", ""), ("", "cli"), ("app-1-1-ios-1://x", "cli")] {
                let reply = try await h.send(.get, Self.pagePath(options: options, redirectUrl: target, appId: appId))
                #expect(reply.status == 400, "\(target) \(appId)")
                #expect(reply.text.contains("Return address not allowed"), "\(target)")
                #expect(reply.headers[.location] == nil)
                #expect(!reply.text.contains("<script"), "\(target): refusals have no script")
            }
            // A project that accepts any app takes any loopback address and app-like schemes, never web ones.
            var project = try await h.scope.config()
            project.chooseAcceptAnyApp(true)
            try await h.store.saveProjectConfig(project)
            for target in ["http://127.0.0.1:65000/cb", "app-1-77-ios-aa://x", "com.example.any://cb"] {
                let reply = try await h.send(.get, Self.pagePath(options: options, redirectUrl: target))
                #expect(reply.status == 200, "\(target): \(reply.text.prefix(200))")
            }
            for target in ["https://evil.example.com/", "javascript:alert(1)", "file:///etc/passwd", "myapp://cb"] {
                let reply = try await h.send(.get, Self.pagePath(options: options, redirectUrl: target))
                #expect(reply.status == 400, "\(target)")
            }
        }
    }

    @Test func malformedOrOversizedRequestsGetAnErrorPageNotA500() async throws {
        try await HearthHarness.run { h in
            try await h.store.saveApp(AppRegistration(id: "cli", kind: .desktop))
            let redirect = "http://127.0.0.1:65000/cb"
            var noChallenge = Self.requestOptions
            noChallenge.challenge = "AAEC"
            var badUser = Self.creationOptions
            badUser.user.id = "not base64!"
            var badAllow = Self.requestOptions
            badAllow.allowCredentials = [PasskeyCredentialDescriptor(id: "%%%")]
            let cases: [(String, String)] = [
                ("garbage", Self.pagePath(options: "garbage!!", redirectUrl: redirect, appId: "cli")),
                ("not JSON", Self.pagePath(options: Data("hello".utf8).base64URLEncodedString(), redirectUrl: redirect, appId: "cli")),
                ("empty", Self.pagePath(options: "", redirectUrl: redirect, appId: "cli")),
                ("short challenge", Self.pagePath(options: try Self.encoded(noChallenge), redirectUrl: redirect, appId: "cli")),
                ("creation options as request", Self.pagePath(mode: "signin", options: try Self.encoded(Self.creationOptions), redirectUrl: redirect, appId: "cli")),
                ("request options as creation", Self.pagePath(mode: "enroll", options: try Self.encoded(Self.requestOptions), redirectUrl: redirect, appId: "cli")),
                ("bad user id", Self.pagePath(mode: "enroll", options: try Self.encoded(badUser), redirectUrl: redirect, appId: "cli")),
                ("bad credential id", Self.pagePath(options: try Self.encoded(badAllow), redirectUrl: redirect, appId: "cli")),
                ("bad mode", Self.pagePath(mode: "steal", options: try Self.encoded(Self.requestOptions), redirectUrl: redirect, appId: "cli")),
                ("no state", Self.pagePath(options: try Self.encoded(Self.requestOptions), redirectUrl: redirect, state: nil, appId: "cli")),
                ("oversized", Self.pagePath(options: String(repeating: "A", count: 9000), redirectUrl: redirect, appId: "cli")),
                ("nothing", WirePaths.passkeyPage),
            ]
            for (name, path) in cases {
                let reply = try await h.send(.get, path)
                #expect(reply.status == 400, "\(name): \(reply.status) \(reply.text.prefix(200))")
                #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true, "\(name)")
                #expect(!reply.text.contains("<script"), "\(name)")
            }
            let oversized = try await h.send(.get, Self.pagePath(options: String(repeating: "A", count: 9000), redirectUrl: redirect, appId: "cli"))
            #expect(oversized.text.contains("Request too large"))
            let garbage = try await h.send(.get, Self.pagePath(options: "garbage!!", redirectUrl: redirect, appId: "cli"))
            #expect(garbage.text.contains("options the app sent cannot be read"))
        }
    }

    @Test func scriptIsServedFromThisOrigin() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.send(.get, WirePaths.passkeyScript)
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(reply.text.contains("navigator.credentials.get") && reply.text.contains("navigator.credentials.create"))
            #expect(reply.text.contains("passkeyResponse"))
            // The script makes no requests of its own (the CSP would refuse them anyway).
            #expect(!reply.text.contains("fetch(") && !reply.text.contains("XMLHttpRequest"))
        }
    }

    @Test func pageEscapesWhatTheAppSends() {
        let html = Pages.passkey(enroll: false, options: "AAAA", returnURL: "http://127.0.0.1:1/cb?a=\"><script>x</script>", state: "\"'<>&",
                                 appName: PageTemplateTests.evil, site: "localhost", script: WirePaths.passkeyScript)
        #expect(html.contains(PageTemplateTests.escaped))
        #expect(html.contains("data-state=\"&quot;&#39;&lt;&gt;&amp;\""))
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(!html.contains("{{"), "no mustache tag is left")
    }

    /// A page on an authorized domain (not Hearth's origin) calls the v2 passkey RPCs from the browser: the CORS
    /// preflight passes and the answers (success and error) carry the origin.
    @Test func otherOriginsCallThePasskeyRPCs() async throws {
        try await HearthHarness.run { h in
            var project = try await h.scope.config()
            project.passkeys = PasskeyConfig(enabled: true, rpId: "localhost")
            try await h.store.saveProjectConfig(project)
            let origin = "https://app.example.com"
            for path in [WirePaths.passkeySignInStart, WirePaths.passkeySignInFinalize, WirePaths.passkeyEnrollmentStart, WirePaths.passkeyEnrollmentFinalize] {
                let preflight = try await h.send(.options, path + "?key=k", headers: [
                    .origin: origin, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type,x-client-version",
                ])
                #expect((200..<300).contains(preflight.status), "\(path): \(preflight.status)")
                #expect(preflight.headers[.accessControlAllowOrigin] == origin, "\(path)")
                #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true, "\(path)")
                #expect(preflight.headers[.accessControlAllowHeaders]?.lowercased().contains("content-type") == true, "\(path)")
            }
            let started = try await h.send(.post, WirePaths.passkeySignInStart + "?key=k", body: "{}", headers: [.origin: origin])
            #expect(started.status == 200, "\(started.text.prefix(300))")
            #expect(started.headers[.accessControlAllowOrigin] == origin)
            let options = try started.decode(StartPasskeySignInResponse.self).credentialRequestOptions
            #expect(options.rpId == "localhost")
            #expect(PasskeyBytes.decode(options.challenge)?.count ?? 0 >= 16)
            let refused = try await h.send(.post, WirePaths.passkeySignInFinalize + "?key=k", body: #"{"authenticatorAuthenticationResponse":{"id":"%%"}}"#,
                                           headers: [.origin: origin])
            #expect(refused.status == 400, "\(refused.text.prefix(300))")
            #expect(refused.envelope != nil)
            #expect(refused.headers[.accessControlAllowOrigin] == origin)
        }
    }

    @Test func returnRuleMatchesTheAuthHandlers() {
        let apps = [AppRegistration(id: "ios", kind: .apple, bundleId: "com.example.app", appId: "1:1:ios:1"),
                    AppRegistration(id: "desk", kind: .desktop, name: "Desk")]
        func allowed(_ url: String, appId: String? = nil, any: Bool = false) -> PasskeyPageReturn? {
            try? FederationService.passkeyPageReturn(redirectUrl: url, appId: appId, apps: apps, acceptsAnyApp: any).get()
        }
        #expect(allowed("APP-1-1-IOS-1://cb")?.appName == "com.example.app", "schemes compare without case")
        #expect(allowed("http://127.0.0.1:5000/cb", appId: "desk")?.appName == "Desk")
        #expect(allowed("http://127.0.0.1:5000/cb", appId: "ios") == nil, "an Apple app is no desktop app")
        #expect(allowed("http://127.0.0.1:5000/cb", any: true)?.appName == "a program on this computer (127.0.0.1:5000)")
        #expect(allowed("app-2-2-ios-2://cb", any: true) != nil)
        #expect(allowed("app-2-2-ios-2://cb") == nil)
        for url in ["https://127.0.0.1:5000/cb", "javascript:alert(1)", "JAVASCRIPT://x", "data:,x", "1app://x", "ap p://x", "app-1-1-ios-1://u:p@cb"] {
            #expect(allowed(url, appId: "desk", any: true) == nil, "\(url)")
        }
    }
}
