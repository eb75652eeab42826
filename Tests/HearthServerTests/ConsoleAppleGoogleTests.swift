import Crypto
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import Testing

/// Issue 21 (console): Sign in with Apple's own form (the `.p8` uploaded, never shown again; bundle ids alone for
/// native sign-in) and Google's hosted-domain allow-list, saved through the admin API with its errors beside the fields.
@Suite struct ConsoleAppleGoogleTests {
    let console = ConsoleTests()

    func post(_ h: HearthHarness, _ session: ConsoleTests.Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await console.post(h, "/console/provider", session, [("csrf", session.csrf)] + pairs)
    }

    /// The base64 lines of a PEM (what must never reach a page).
    static func keyLines(_ pem: String) -> [String] {
        pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
    }

    @Test func theAppleKeyIsUploadedOnceAndNeverShown() async throws {
        try await HearthHarness.run { h in
            let session = try await console.signIn(h)
            let empty = try await h.send(.get, "/console/provider?id=apple.com", headers: session.headers)
            #expect(empty.status == 200)
            #expect(empty.text.contains(#"value="\#(h.server.configuration.publicURL.authHandlerURL)""#), "the return URL to register")
            #expect(empty.text.contains("Apple requires HTTPS and a verified domain"))
            #expect(empty.text.contains("accepts only HTTPS return URLs"), "the harness's public URL is http: the page warns")
            #expect(empty.text.contains("no key on file: native sign-in only"))
            #expect(!empty.text.contains(#"name="clientSecret""#), "Apple has no typed client secret")

            let pem = P256.Signing.PrivateKey().pemRepresentation
            let fields: [(String, String)] = [("provider", "apple.com"), ("clientId", "com.example.web"), ("teamId", "TEAM123456"),
                                              ("keyId", "KEY1234567"), ("bundleIds", "com.example.one\r\ncom.example.two"),
                                              ("enabled", "true"), ("tokenVault", "true")]
            // A bad key: the admin API's reason beside the key's field, the text sent never echoed, nothing saved.
            let bad = try await post(h, session, fields + [("privateKey", "not-a-key-Xy91")])
            #expect(bad.status == 400)
            #expect(bad.text.contains(#"<p class="field-error" id="private-key-error">The private key (.p8): the Apple private key is not a PEM file"#), "\(bad.text)")
            #expect(!bad.text.contains("not-a-key-Xy91"))
            #expect(bad.text.contains(#"value="TEAM123456""#) && bad.text.contains(">com.example.one\r\ncom.example.two</textarea>"), "the rest as typed")
            #expect(try await h.store.idpConfig(providerId: "apple.com") == nil)
            let rsa = try await post(h, session, fields + [("privateKeyFile", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----")])
            #expect(rsa.status == 400 && rsa.text.contains("RSA key"), "\(rsa.text)")
            // The key without its team id: beside the team id.
            let noTeam = try await post(h, session, fields.filter { $0.0 != "teamId" } + [("privateKeyFile", pem)])
            #expect(noTeam.status == 400)
            #expect(noTeam.text.contains(#"id="team-id-error""#), "\(noTeam.text)")
            #expect(!Self.keyLines(pem).contains { noTeam.text.contains($0) })

            // The uploaded file's text (read by the page's script) is saved sealed as the configuration's key.
            let saved = try await post(h, session, fields + [("privateKeyFile", pem), ("privateKey", "")])
            #expect(saved.status == 303, "\(saved.text)")
            var stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.clientId == "com.example.web" && stored.appleTeamId == "TEAM123456" && stored.appleKeyId == "KEY1234567")
            #expect(stored.appleBundleIds == ["com.example.one", "com.example.two"] && stored.enabled)
            #expect(!stored.clientSecret.isEmpty)
            for path in ["/console/provider?id=apple.com", "/console/providers", "/console/audit", "/console"] {
                let reply = try await h.send(.get, path, headers: session.headers)
                #expect(reply.status == 200, "\(path)")
                #expect(!Self.keyLines(pem).contains { reply.text.contains($0) }, "\(path) must not show the key")
                #expect(!reply.text.contains("-----END PRIVATE KEY-----"), "\(path)") // the paste label names only the BEGIN line
            }
            let page = try await h.send(.get, "/console/provider?id=apple.com", headers: session.headers)
            #expect(page.text.contains("key on file (key ID KEY1234567)"))
            #expect(page.text.contains(#"name="removeKey""#))
            let list = try await h.send(.get, "/console/providers", headers: session.headers)
            #expect(list.text.contains(#"<span class="tag on">Enabled</span> <span class="note">web and native (key KEY1234567, 2 bundle IDs)</span>"#), "\(list.text)")

            // Saving without a key keeps it; a new key id without its key is refused (the key goes with its ids).
            let kept = try await post(h, session, fields.map { $0.0 == "bundleIds" ? ("bundleIds", "com.example.one") : $0 })
            #expect(kept.status == 303, "\(kept.text)")
            stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.appleBundleIds == ["com.example.one"] && stored.appleKeyId == "KEY1234567" && !stored.clientSecret.isEmpty)
            let sealedKey = stored.clientSecret
            let newId = try await post(h, session, fields.map { $0.0 == "keyId" ? ("keyId", "KEY7654321") : $0 })
            #expect(newId.status == 400)
            #expect(newId.text.contains(#"id="private-key-error""#) && newId.text.contains("upload the .p8 again"), "\(newId.text)")
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.appleKeyId == "KEY1234567")
            // Replacing it means uploading again; here pasted, with the CRLF line ends a browser posts a textarea with.
            let other = P256.Signing.PrivateKey().pemRepresentation.replacingOccurrences(of: "\n", with: "\r\n")
            let replaced = try await post(h, session, fields.map { $0.0 == "keyId" ? ("keyId", "KEY7654321") : $0 } + [("privateKey", other)])
            #expect(replaced.status == 303, "\(replaced.text)")
            stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.appleKeyId == "KEY7654321" && stored.clientSecret != sealedKey)
            // Removing the key leaves native sign-in.
            let removed = try await post(h, session, fields + [("removeKey", "true")])
            #expect(removed.status == 303, "\(removed.text)")
            stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.clientSecret.isEmpty && stored.appleKeyId == nil && stored.appleTeamId == nil)
            let native = try await h.send(.get, "/console/providers", headers: session.headers)
            #expect(native.text.contains(#"<span class="tag on">Enabled</span> <span class="note">native only (2 bundle IDs, no web key)</span>"#), "\(native.text)")
            let actions = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.actor == "console:owner" }.map(\.action)
            #expect(actions.contains("defaultSupportedIdpConfigs.create") && actions.contains("defaultSupportedIdpConfigs.update"))
        }
    }

    @Test func appleBundleIdsAloneEnableNativeSignInOnly() async throws {
        try await HearthHarness.run { h in
            let session = try await console.signIn(h)
            let nothing = try await post(h, session, [("provider", "apple.com"), ("enabled", "true")])
            #expect(nothing.status == 400)
            #expect(nothing.text.contains("Nothing was saved: Give the key (team ID, key ID and .p8) for the web flow, or the bundle IDs"), "\(nothing.text)")
            let badBundle = try await post(h, session, [("provider", "apple.com"), ("bundleIds", "not a bundle"), ("enabled", "true")])
            #expect(badBundle.status == 400)
            #expect(badBundle.text.contains(#"<p class="field-error" id="bundle-ids-error">The bundle IDs: &#39;not a bundle&#39; is not a bundle id"#), "\(badBundle.text)")
            let idsWithoutKey = try await post(h, session, [("provider", "apple.com"), ("teamId", "TEAM123456"), ("bundleIds", "com.example.app"),
                                                            ("enabled", "true")])
            #expect(idsWithoutKey.status == 400 && idsWithoutKey.text.contains(#"id="private-key-error""#), "\(idsWithoutKey.text)")
            let saved = try await post(h, session, [("provider", "apple.com"), ("clientId", ""), ("bundleIds", "com.example.app"), ("enabled", "true")])
            #expect(saved.status == 303, "\(saved.text)")
            let stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.clientId.isEmpty && stored.appleBundleIds == ["com.example.app"] && stored.clientSecret.isEmpty)
            let list = try await h.send(.get, "/console/providers", headers: session.headers)
            #expect(list.text.contains(#"<span class="tag on">Enabled</span> <span class="note">native only (1 bundle ID, no web key)</span>"#), "\(list.text)")
            // The web flow later needs the services id with the key.
            let pem = P256.Signing.PrivateKey().pemRepresentation
            let noServices = try await post(h, session, [("provider", "apple.com"), ("teamId", "TEAM123456"), ("keyId", "KEY1234567"),
                                                         ("privateKey", pem), ("bundleIds", "com.example.app"), ("enabled", "true")])
            #expect(noServices.status == 400)
            #expect(noServices.text.contains(#"id="services-id-error""#), "\(noServices.text)")
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.appleKeyId == nil)
        }
    }

    @Test func googleTakesHostedDomainsAndKeepsItsSecretWriteOnly() async throws {
        try await HearthHarness.run { h in
            let session = try await console.signIn(h)
            let page = try await h.send(.get, "/console/provider?id=google.com", headers: session.headers)
            #expect(page.status == 200)
            #expect(page.text.contains(#"value="\#(h.server.configuration.publicURL.authHandlerURL)""#), "the redirect URI to register")
            #expect(page.text.contains("Authorized redirect URIs"))
            #expect(page.text.contains(#"name="allowedHostedDomains""#) && page.text.contains("never widen it"))
            let secret = "google-secret-Qm27"
            let fields: [(String, String)] = [("provider", "google.com"), ("clientId", "1234-web.apps.googleusercontent.com"),
                                              ("clientSecret", secret), ("enabled", "true"), ("vaultFields", "1"),
                                              ("nativeClientIds", "1234-ios.apps.googleusercontent.com")]
            let wildcard = try await post(h, session, fields + [("allowedHostedDomains", "example.com, *")])
            #expect(wildcard.status == 400)
            #expect(wildcard.text.contains(#"id="allowed-hosted-domains-error""#), "\(wildcard.text)")
            #expect(wildcard.text.contains(#"value="example.com, *""#) && !wildcard.text.contains(secret))
            #expect(try await h.store.idpConfig(providerId: "google.com") == nil)
            let saved = try await post(h, session, fields + [("allowedHostedDomains", "Example.com, example.org")])
            #expect(saved.status == 303, "\(saved.text)")
            let stored = try #require(try await h.store.idpConfig(providerId: "google.com"))
            #expect(stored.allowedHostedDomains == ["example.com", "example.org"])
            #expect(stored.nativeClientIds == ["1234-ios.apps.googleusercontent.com"] && stored.clientSecret == secret)
            for path in ["/console/provider?id=google.com", "/console/providers", "/console/audit"] {
                let reply = try await h.send(.get, path, headers: session.headers)
                #expect(!reply.text.contains(secret), "\(path)")
            }
            let again = try await h.send(.get, "/console/provider?id=google.com", headers: session.headers)
            #expect(again.text.contains(#"value="example.com, example.org""#) && again.text.contains("set; never shown"))
            let list = try await h.send(.get, "/console/providers", headers: session.headers)
            #expect(list.text.contains(#"<span class="tag on">Enabled</span> <span class="note">hosted domains: example.com, example.org</span>"#), "\(list.text)")
            // Emptied, every account may sign in again; the secret is kept.
            #expect(try await post(h, session, fields.filter { $0.0 != "clientSecret" } + [("allowedHostedDomains", "")]).status == 303)
            let cleared = try #require(try await h.store.idpConfig(providerId: "google.com"))
            #expect(cleared.allowedHostedDomains == nil && cleared.clientSecret == secret)
        }
    }
}
