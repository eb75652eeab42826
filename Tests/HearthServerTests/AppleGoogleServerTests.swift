import Crypto
import Foundation
import HearthCore
import HearthDevIdP
@testable import HearthOIDC
import HearthStore
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 21, server wiring: `apple.com` and `google.com` configured through the admin API in Firebase's shape,
/// the web flow through the auth handler (Apple's `form_post` callback included) against the Apple- and
/// Google-shaped dev providers on a loopback server of their own, and native ID tokens in `signInWithIdp`.
@Suite struct AppleGoogleServerTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let iosClient = "1234-ios.apps.googleusercontent.com"

    static func configPath(_ h: HearthHarness, _ idpId: String? = nil) -> String {
        "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/defaultSupportedIdpConfigs" + (idpId.map { "?idpId=\($0)" } ?? "")
    }

    static func json(_ value: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    }

    static func appleBody(_ credentials: DevAppleProvider.Credentials, endpointBase: String?, privateKey: String? = nil) -> [String: Any] {
        var body: [String: Any] = [
            "enabled": true, "clientId": credentials.servicesId,
            "appleSignInConfig": ["bundleIds": credentials.bundleIds,
                                  "codeFlowConfig": ["teamId": credentials.teamId, "keyId": credentials.keyId,
                                                     "privateKey": privateKey ?? credentials.privateKeyPEM]],
        ]
        if let endpointBase { body["endpointBase"] = endpointBase }
        return body
    }

    /// A Hearth server and, on a loopback server of their own, the Apple- and Google-shaped dev providers,
    /// configured in Hearth through the admin API (`endpointBase` pointing at them).
    struct Env: Sendable {
        let h: HearthHarness
        let apple: DevAppleProvider
        let google: DevGoogleProvider
        let credentials: DevAppleProvider.Credentials
    }

    static func run(allowedHostedDomains: [String]? = nil, _ body: @Sendable (Env) async throws -> Void) async throws {
        // The dev IdPs live on Hearth's server (their redirect URI is its handler); a demo project then accepts any
        // app and loopback redirect. The settings stored through the admin API win over the dev IdPs' own.
        try await HearthHarness.run(devIdPs: true) { h in
            let dev = try #require(h.devIdPs)
            let credentials = dev.appleCredentials
            let created = try await h.send(.post, configPath(h, "apple.com"), body: json(appleBody(credentials, endpointBase: dev.apple.base)),
                                           headers: owner)
            #expect(created.status == 200, "\(created.text)")
            var googleBody: [String: Any] = ["enabled": true, "clientId": dev.google.client.id, "clientSecret": dev.google.client.secret,
                                             "endpointBase": dev.google.base, "nativeClientIds": [iosClient]]
            if let allowedHostedDomains { googleBody["allowedHostedDomains"] = allowedHostedDomains }
            let createdGoogle = try await h.send(.post, configPath(h, "google.com"), body: json(googleBody), headers: owner)
            #expect(createdGoogle.status == 200, "\(createdGoogle.text)")
            try await body(Env(h: h, apple: dev.apple, google: dev.google, credentials: credentials))
        }
    }

    /// The browser part of a Sign in with Apple: the handler, Apple's login form, and the auto-submitting
    /// `form_post` page, whose fields are POSTed to the handler as a browser would.
    static func appleBrowser(_ env: Env, email: String, name: String, hide: Bool = false,
                             rawSessionId: String = RandomID.alphanumeric(count: 10).uppercased()) async throws -> (flow: FlowResult, posted: [String: String], authorize: String) {
        let start = try await Browser.get(env.h.handlerURL(providerId: "apple.com", rawSessionId: rawSessionId))
        let authorize = try #require(start.location, "\(start.body)")
        let page = try await DevAppleGoogleProviderTests.login(authorize, email: email, name: name, checkbox: hide ? "hide_email" : nil)
        #expect(page.status == 200, "\(page.body.prefix(300))")
        let posted = DevAppleGoogleProviderTests.postedFields(page)
        let action = try #require(HearthHarness.capture(#"<form method="post" action="([^"]+)">"#, in: page.body))
        let delivered = try await Browser.post(action, form: posted.sorted { $0.key < $1.key })
        var flow = FlowResult(appURL: delivered.location, rawSessionId: rawSessionId)
        if let app = delivered.location {
            flow.link = Browser.query(app, "link")
            if let error = Browser.query(app, "firebaseError") { flow.firebaseError = try? JSONDecoder().decode([String: String].self, from: Data(error.utf8)) }
        } else {
            flow.errorPage = delivered
        }
        return (flow, posted, authorize)
    }

    /// The browser part of a Google sign-in (redirect callback, as for Microsoft).
    static func googleBrowser(_ env: Env, email: String, name: String, unverified: Bool = false, customParameters: [String: String]? = nil,
                              rawSessionId: String = RandomID.alphanumeric(count: 10).uppercased()) async throws -> FlowResult {
        let start = try await Browser.get(env.h.handlerURL(providerId: "google.com", rawSessionId: rawSessionId, customParameters: customParameters))
        let location = try #require(start.location, "\(start.body)")
        var flow = FlowResult(rawSessionId: rawSessionId)
        if location.contains("firebaseError=") {
            flow.appURL = location
            flow.firebaseError = Browser.query(location, "firebaseError").flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
            return flow
        }
        let submitted = try await DevAppleGoogleProviderTests.login(location, email: email, name: name, checkbox: unverified ? "unverified" : nil)
        let callback = try #require(submitted.location, "\(submitted.body.prefix(300))")
        let delivered = try await Browser.get(callback)
        let app = try #require(delivered.location, "\(delivered.body.prefix(300))")
        flow.appURL = app
        flow.link = Browser.query(app, "link")
        flow.firebaseError = Browser.query(app, "firebaseError").flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        return flow
    }

    // MARK: Configuration

    @Test(arguments: HearthHarness.StoreChoice.available)
    func appleConfigurationInFirebaseShapeNeverReturnsTheKey(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let credentials = DevAppleProvider.Credentials.random()
            let created = try await h.send(.post, Self.configPath(h, "apple.com"),
                                           body: Self.json(Self.appleBody(credentials, endpointBase: "https://apple.example.test")), headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            #expect(!created.text.contains("PRIVATE KEY"))
            let resource = try created.decode(DefaultSupportedIdpConfig.self)
            #expect(resource.clientId == credentials.servicesId)
            #expect(resource.clientSecret == nil)
            #expect(resource.appleSignInConfig?.bundleIds == credentials.bundleIds)
            #expect(resource.appleSignInConfig?.codeFlowConfig?.teamId == credentials.teamId)
            #expect(resource.appleSignInConfig?.codeFlowConfig?.keyId == credentials.keyId)
            #expect(resource.appleSignInConfig?.codeFlowConfig?.privateKey == nil)
            let read = try await h.send(.get, Self.configPath(h) + "/apple.com", headers: Self.owner)
            #expect(read.status == 200, "\(read.text)")
            #expect(!read.text.contains("PRIVATE KEY"))
            // Kept as the provider's write-only secret (sealed at rest with vault keys, masked in descriptions).
            let stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.kind == .apple)
            #expect(stored.clientSecret == credentials.privateKeyPEM)
            #expect(stored.appleTeamId == credentials.teamId)
            #expect(!stored.description.contains("PRIVATE KEY"))
            #expect(stored.redacted.clientSecret == "********")
            // Moving Apple's endpoints needs the key again.
            let moved = try await h.send(.patch, Self.configPath(h) + "/apple.com?updateMask=endpointBase",
                                         body: #"{"endpointBase":"https://evil.example.test"}"#, headers: Self.owner)
            #expect(moved.errorCode == "INVALID_CONFIG")
            #expect(moved.text.contains("appleSignInConfig.codeFlowConfig"))
            // Bundle ids change alone.
            let bundles = try await h.send(.patch, Self.configPath(h) + "/apple.com?updateMask=appleSignInConfig.bundleIds",
                                           body: #"{"appleSignInConfig":{"bundleIds":["com.example.one","com.example.two"]}}"#, headers: Self.owner)
            #expect(bundles.status == 200, "\(bundles.text)")
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.appleBundleIds == ["com.example.one", "com.example.two"])
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.clientSecret == credentials.privateKeyPEM)
        }
    }

    /// Issue 35, item 10: a whole `appleSignInConfig` holding bundle ids only keeps the stored `.p8`, so it does
    /// not count as the key re-sent: `endpointBase` stays put (with the mask, and without one, where the body's
    /// fields are the mask). Moving it with the key in `codeFlowConfig`, or while removing the key, is accepted.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func appleEndpointBaseDoesNotMoveWithBundleIdsAlone(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let credentials = DevAppleProvider.Credentials.random()
            let home = "https://apple.example.test"
            let created = try await h.send(.post, Self.configPath(h, "apple.com"),
                                           body: Self.json(Self.appleBody(credentials, endpointBase: home)), headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            let evil = "https://evil.example.test"
            let bundlesOnly = #"{"endpointBase":"\#(evil)","appleSignInConfig":{"bundleIds":["com.example.app"]}}"#
            for query in ["?updateMask=endpointBase,appleSignInConfig", "?updateMask=appleSignInConfig,endpointBase", ""] {
                let moved = try await h.send(.patch, Self.configPath(h) + "/apple.com" + query, body: bundlesOnly, headers: Self.owner)
                #expect(moved.errorCode == "INVALID_CONFIG" && moved.text.contains("appleSignInConfig.codeFlowConfig"), "\(query): \(moved.text)")
            }
            let stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(stored.endpointBase == home && stored.clientSecret == credentials.privateKeyPEM)
            #expect(stored.appleBundleIds == credentials.bundleIds)

            // The key given again in the whole object: the endpoint moves with it.
            var withKey = Self.appleBody(credentials, endpointBase: "https://apple2.example.test")
            withKey.removeValue(forKey: "clientId")
            withKey.removeValue(forKey: "enabled")
            let resent = try await h.send(.patch, Self.configPath(h) + "/apple.com?updateMask=endpointBase,appleSignInConfig",
                                          body: Self.json(withKey), headers: Self.owner)
            #expect(resent.status == 200, "\(resent.text)")
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.endpointBase == "https://apple2.example.test")
            // Removing the key while moving: nothing is left to send elsewhere.
            let removed = try await h.send(.patch, Self.configPath(h) + "/apple.com?updateMask=endpointBase,appleSignInConfig.codeFlowConfig",
                                           body: #"{"endpointBase":"https://apple3.example.test"}"#, headers: Self.owner)
            #expect(removed.status == 200, "\(removed.text)")
            let native = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(native.endpointBase == "https://apple3.example.test" && native.clientSecret.isEmpty && native.appleKeyId == nil)
        }
    }

    @Test func applePrivateKeyIsSealedAtRestWithVaultKeys() async throws {
        let keyLine = ProviderTokenKeys.generate(id: "k1")
        try await HearthHarness.run(configure: HearthHarness.vault(keyLine)) { h in
            let credentials = DevAppleProvider.Credentials.random()
            let created = try await h.send(.post, Self.configPath(h, "apple.com"),
                                           body: Self.json(Self.appleBody(credentials, endpointBase: nil)), headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            #expect(try await h.store.idpConfig(providerId: "apple.com")?.clientSecret == credentials.privateKeyPEM)
            // Read without the key: sealed, no part of the PEM.
            h.store.clientSecrets.use(nil)
            let stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
            #expect(ProviderTokenKeys.sealingKeyId(stored.clientSecret) == "k1")
            #expect(!stored.clientSecret.contains("PRIVATE KEY"))
            h.store.clientSecrets.use(try ProviderTokenKeys.parse(keyLine))
        }
    }

    @Test func appleConfigurationErrorsAreClear() async throws {
        try await HearthHarness.run { h in
            let credentials = DevAppleProvider.Credentials.random()
            func create(_ body: [String: Any]) async throws -> HearthHarness.Reply {
                try await h.send(.post, Self.configPath(h, "apple.com"), body: Self.json(body), headers: Self.owner)
            }
            let garbage = try await create(Self.appleBody(credentials, endpointBase: nil, privateKey: "not a key"))
            #expect(garbage.errorCode == "INVALID_CONFIG")
            #expect(garbage.text.contains("privateKey"))
            var noTeam = Self.appleBody(credentials, endpointBase: nil)
            noTeam["appleSignInConfig"] = ["codeFlowConfig": ["keyId": credentials.keyId, "privateKey": credentials.privateKeyPEM]]
            let missingTeam = try await create(noTeam)
            #expect(missingTeam.errorCode == "INVALID_CONFIG")
            #expect(missingTeam.text.contains("teamId"))
            var secret = Self.appleBody(credentials, endpointBase: nil)
            secret["clientSecret"] = "a secret"
            let withSecret = try await create(secret)
            #expect(withSecret.errorCode == "INVALID_CONFIG")
            #expect(withSecret.text.contains("mints"))
            let empty = try await create(["clientId": credentials.servicesId])
            #expect(empty.errorCode == "INVALID_CONFIG")
            #expect(empty.text.contains("bundleIds"))
            // Native sign-in only: bundle ids without a key.
            let native = try await create(["clientId": credentials.servicesId, "appleSignInConfig": ["bundleIds": ["com.example.app"]]])
            #expect(native.status == 200, "\(native.text)")
            #expect(try native.decode(DefaultSupportedIdpConfig.self).appleSignInConfig?.codeFlowConfig == nil)
            // appleSignInConfig belongs to apple.com only.
            let misplaced = try await h.send(.post, Self.configPath(h, "yahoo.com"),
                                             body: Self.json(["clientId": "y", "clientSecret": "s", "appleSignInConfig": ["bundleIds": ["a.b"]]]),
                                             headers: Self.owner)
            #expect(misplaced.errorCode == "INVALID_CONFIG")
        }
    }

    @Test func googleConfigurationWithHostedDomains() async throws {
        try await HearthHarness.run { h in
            let created = try await h.send(.post, Self.configPath(h, "google.com"), body: Self.json([
                "clientId": "1-web.apps.googleusercontent.com", "clientSecret": "GOCSPX-secret", "nativeClientIds": [Self.iosClient],
                "allowedHostedDomains": ["Example.COM", "example.com", "corp.example.org"],
            ]), headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            let resource = try created.decode(DefaultSupportedIdpConfig.self)
            #expect(resource.allowedHostedDomains == ["example.com", "corp.example.org"])
            #expect(resource.clientSecret == nil)
            #expect(resource.nativeClientIds == [Self.iosClient])
            let star = try await h.send(.patch, Self.configPath(h) + "/google.com?updateMask=allowedHostedDomains",
                                        body: #"{"allowedHostedDomains":["*"]}"#, headers: Self.owner)
            #expect(star.errorCode == "INVALID_CONFIG")
            let cleared = try await h.send(.patch, Self.configPath(h) + "/google.com?updateMask=allowedHostedDomains", body: "{}", headers: Self.owner)
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(try await h.store.idpConfig(providerId: "google.com")?.allowedHostedDomains == nil)
            let microsoft = try await h.send(.post, Self.configPath(h, "microsoft.com"), body: Self.json([
                "clientId": "m", "clientSecret": "s", "allowedHostedDomains": ["example.com"]]), headers: Self.owner)
            #expect(microsoft.errorCode == "INVALID_CONFIG")
            let missingSecret = try await h.send(.post, Self.configPath(h, "google.com"), body: #"{"clientId":"x"}"#, headers: Self.owner)
            #expect(missingSecret.status == 409 || missingSecret.errorCode != nil)
        }
    }

    // MARK: Web flow

    @Test func appleWebFlowThroughTheFormPostCallbackKeepsTheName() async throws {
        try await Self.run { env in
            let first = try await Self.appleBrowser(env, email: "ada@example.com", name: "Ada Lovelace")
            #expect(Browser.query(first.authorize, "response_mode") == "form_post")
            #expect(Browser.query(first.authorize, "scope") == "name email")
            #expect(Browser.query(first.authorize, "client_id") == env.credentials.servicesId)
            #expect(Browser.query(first.authorize, "code_challenge") == nil)
            #expect(first.posted["user"] != nil)
            let link = try #require(first.flow.link, "\(first.flow.firebaseError ?? [:]) \(first.flow.errorPage?.body.prefix(300) ?? "")")
            #expect(link.hasPrefix(env.h.baseURL + "/__/auth/handler?"))
            let reply = try await env.h.signInWithIdp(first.flow, providerId: "apple.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "apple.com")
            #expect(body.isNewUser == true)
            #expect(body.email == "ada@example.com")
            #expect(body.emailVerified == true)
            #expect(body.displayName == "Ada Lovelace")
            #expect(body.firstName == "Ada")
            // Apple's subject shape: 6 digits, 32 hex, 4 digits.
            #expect(body.federatedId?.split(separator: ".").map(\.count) == [6, 32, 4])
            let lookup = try await env.h.lookup(try #require(body.idToken)).decode(LookupResponse.self)
            #expect(lookup.users.first?.displayName == "Ada Lovelace")

            // Apple sends the user field only the first time: the account keeps its name.
            let second = try await Self.appleBrowser(env, email: "ada@example.com", name: "Ada Lovelace")
            #expect(second.posted["user"] == nil)
            let again = try await env.h.signInWithIdp(second.flow, providerId: "apple.com")
            let secondBody = try again.decode(SignInWithIdpResponse.self)
            #expect(secondBody.isNewUser == false)
            #expect(secondBody.localId == body.localId)
            let relookup = try await env.h.lookup(try #require(secondBody.idToken)).decode(LookupResponse.self)
            #expect(relookup.users.first?.displayName == "Ada Lovelace")
        }
    }

    @Test func formPostWithAForgedStateIsRefused() async throws {
        try await Self.run { env in
            let handler = env.h.baseURL + "/__/auth/handler"
            let forged = try await Browser.post(handler, form: [("state", RandomID.token(byteCount: 32)), ("code", "c.0.abcd"),
                                                                 ("user", #"{"name":{"firstName":"Eve","lastName":"X"}}"#)])
            #expect(forged.status == 400)
            #expect(forged.location == nil)
            #expect(forged.body.contains("Unknown sign-in"))
            let noState = try await Browser.post(handler, form: [("code", "c.0.abcd")])
            #expect(noState.status == 400)
            #expect(noState.location == nil)
            // A Google sign-in's state posted as if Apple answered: refused, and the state stays usable by its own callback.
            let start = try await Browser.get(env.h.handlerURL(providerId: "google.com", rawSessionId: "ABCDEFGHIJ"))
            let startLocation = try #require(start.location)
            let state = try #require(Browser.query(startLocation, "state"))
            let mixed = try await Browser.post(handler, form: [("state", state), ("code", "c.0.abcd")])
            #expect(mixed.status == 400)
            #expect(mixed.location == nil)
            // A real Apple callback replayed: the state is single-use.
            let flow = try await Self.appleBrowser(env, email: "bob@example.com", name: "Bob")
            #expect(flow.flow.link != nil)
            let replay = try await Browser.post(handler, form: flow.posted.sorted { $0.key < $1.key })
            #expect(replay.status == 400)
            #expect(replay.location == nil)
        }
    }

    @Test func applePrivateRelayNeverMatchesAnotherAccount() async throws {
        try await Self.run { env in
            // The relay address the dev Apple provider shows for ada@example.com (stable per person and team) is
            // already an existing password account's email: the Apple sign-in gets a new account without the
            // address, never needConfirmation naming the other account's methods.
            let address = Data(WireDigest.sha256("relay:\(env.credentials.teamId):ada@example.com")).hexString.prefix(10) + "@privaterelay.appleid.com"
            _ = try await env.h.signUp(email: String(address))
            let again = try await Self.appleBrowser(env, email: "ada@example.com", name: "Ada", hide: true)
            let reply = try await env.h.signInWithIdp(again.flow, providerId: "apple.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.needConfirmation == nil)
            #expect(body.isNewUser == true)
            #expect(body.email == String(address))
            #expect(body.idToken != nil)
            let lookup = try await env.h.lookup(try #require(body.idToken)).decode(LookupResponse.self)
            #expect(lookup.users.first?.email == nil)
        }
    }

    @Test func googleWebFlowAndHostedDomains() async throws {
        try await Self.run(allowedHostedDomains: ["example.com"]) { env in
            let flow = try await Self.googleBrowser(env, email: "grace@example.com", name: "Grace Hopper", customParameters: ["prompt": "select_account"])
            #expect(flow.link != nil, "\(flow.firebaseError ?? [:])")
            let reply = try await env.h.signInWithIdp(flow, providerId: "google.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "google.com")
            #expect(body.email == "grace@example.com")
            #expect(body.emailVerified == true)
            #expect(body.displayName == "Grace Hopper")
            // The authorization carries hd and the app's prompt.
            let start = try await Browser.get(env.h.handlerURL(providerId: "google.com", rawSessionId: "ABCDEFGHIJ",
                                                               customParameters: ["prompt": "consent", "login_hint": "grace@example.com"]))
            let location = try #require(start.location)
            #expect(location.hasPrefix(env.google.base + "/o/oauth2/v2/auth?"))
            #expect(Browser.query(location, "hd") == "example.com")
            #expect(Browser.query(location, "prompt") == "consent")
            #expect(Browser.query(location, "login_hint") == "grace@example.com")
            #expect(Browser.query(location, "code_challenge_method") == "S256")
            // The app may not widen the allow-list: refused before Google.
            let widened = try await Self.googleBrowser(env, email: "eve@evil.test", name: "Eve", customParameters: ["hd": "evil.test"])
            #expect(widened.link == nil)
            #expect(widened.firebaseError?["code"] == "auth/operation-not-allowed")
            // hd is a hint at Google: an account of another domain is refused on the token's hd claim.
            let other = try await Self.googleBrowser(env, email: "eve@evil.test", name: "Eve")
            let refused = try await env.h.signInWithIdp(other, providerId: "google.com")
            #expect(refused.status == 400, "\(refused.text)")
            // A gmail.com account (no hd) is refused too while the list is set.
            let gmail = try await Self.googleBrowser(env, email: "eve@gmail.com", name: "Eve")
            #expect(try await env.h.signInWithIdp(gmail, providerId: "google.com").status == 400)
        }
    }

    @Test func googleUnverifiedEmailNeverMatchesAnotherAccount() async throws {
        try await Self.run { env in
            _ = try await env.h.signUp(email: "grace@example.com")
            for unverified in [true, false] {
                let flow = try await Self.googleBrowser(env, email: "grace@example.com", name: "Grace", unverified: unverified)
                let reply = try await env.h.signInWithIdp(flow, providerId: "google.com")
                #expect(reply.status == 200, "\(reply.text)")
                let body = try reply.decode(SignInWithIdpResponse.self)
                // Never merged on the provider's word: the person proves the existing account first.
                #expect(body.needConfirmation == true, "unverified \(unverified)")
                #expect(body.idToken == nil)
                #expect(body.emailVerified == !unverified)
            }
        }
    }

    // MARK: Native ID tokens

    /// Hearth with apple.com and google.com pointed at a test key's JWKS (`TestTokenMint`).
    static func native(_ body: @Sendable (HearthHarness, TestTokenMint, String) async throws -> Void) async throws {
        let mint = try await TestTokenMint.make()
        try await mint.serve { base in
            try await HearthHarness.run { h in
                let apple = try await h.send(.post, configPath(h, "apple.com"), body: json([
                    "clientId": "com.example.web", "endpointBase": base + "/apple",
                    "appleSignInConfig": ["bundleIds": ["com.example.app"]]]), headers: owner)
                #expect(apple.status == 200, "\(apple.text)")
                let google = try await h.send(.post, configPath(h, "google.com"), body: json([
                    "clientId": "1-web.apps.googleusercontent.com", "clientSecret": "GOCSPX-x", "endpointBase": base + "/google",
                    "nativeClientIds": [iosClient]]), headers: owner)
                #expect(google.status == 200, "\(google.text)")
                try await body(h, mint, base)
            }
        }
    }

    static func appleClaims(_ base: String, sub: String = "000123.abc.0456", email: String = "ada@example.com", nonce: String?,
                            aud: String = "com.example.app", privateRelay: Bool = false) -> [String: JSONValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(base + "/apple"), "aud": .string(aud), "sub": .string(sub), "iat": .number(now), "exp": .number(now + 600),
            "email": .string(email), "email_verified": .string("true"), "is_private_email": .string(privateRelay ? "true" : "false"),
        ]
        if let nonce { claims["nonce"] = .string(WireDigest.sha256Hex(nonce)) }
        return claims
    }

    static func nativeSignIn(_ h: HearthHarness, token: String, providerId: String, nonce: String?, extra: String = "") async throws -> HearthHarness.Reply {
        var postBody = "id_token=\(FormEncoding.escape(token))&providerId=\(providerId)"
        if let nonce { postBody += "&nonce=\(FormEncoding.escape(nonce))" }
        postBody += extra
        return try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
            requestUri: "http://localhost", postBody: postBody, sessionId: nil, returnSecureToken: true, returnIdpCredential: true))
    }

    @Test func appleNativeIDToken() async throws {
        try await Self.native { h, mint, base in
            let token = try await mint.sign(Self.appleClaims(base, nonce: "raw-nonce-1"))
            let reply = try await Self.nativeSignIn(h, token: token, providerId: "apple.com", nonce: "raw-nonce-1",
                                                    extra: "&user=" + FormEncoding.escape(#"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#))
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "apple.com")
            #expect(body.federatedId == "000123.abc.0456")
            #expect(body.emailVerified == true)
            #expect(body.displayName == "Ada Lovelace")
            // Replayed: refused.
            #expect(try await Self.nativeSignIn(h, token: token, providerId: "apple.com", nonce: "raw-nonce-1").errorCode?.hasPrefix("INVALID_IDP_RESPONSE") == true)
            // Missing, wrong raw nonce: MISSING_OR_INVALID_NONCE.
            let fresh = try await mint.sign(Self.appleClaims(base, sub: "000999.def.0456", nonce: "raw-nonce-2"))
            #expect(try await Self.nativeSignIn(h, token: fresh, providerId: "apple.com", nonce: nil).errorCode?.hasPrefix("MISSING_OR_INVALID_NONCE") == true)
            #expect(try await Self.nativeSignIn(h, token: fresh, providerId: "apple.com", nonce: "other").errorCode?.hasPrefix("MISSING_OR_INVALID_NONCE") == true)
            // Another audience, alg none, HS256 with the public key: refused.
            let otherAudience = try await mint.sign(Self.appleClaims(base, nonce: "n3", aud: "com.evil.app"))
            #expect(try await Self.nativeSignIn(h, token: otherAudience, providerId: "apple.com", nonce: "n3").status == 400)
            let none = try mint.unsigned(Self.appleClaims(base, nonce: "n4"))
            #expect(try await Self.nativeSignIn(h, token: none, providerId: "apple.com", nonce: "n4").status == 400)
            let hs = try mint.hs256WithPublicKey(Self.appleClaims(base, nonce: "n5"))
            #expect(try await Self.nativeSignIn(h, token: hs, providerId: "apple.com", nonce: "n5").status == 400)
            // The fresh token still works with its own nonce (the refusals above did not burn it).
            #expect(try await Self.nativeSignIn(h, token: fresh, providerId: "apple.com", nonce: "raw-nonce-2").status == 200)
        }
    }

    /// Bundle ids alone, without a services id (the console's "native sign-in only"): a native token for a bundle id
    /// signs in, any other audience (the empty one included) is refused, and the web flow answers
    /// OPERATION_NOT_ALLOWED instead of reaching Apple without a client id.
    @Test func appleNativeOnlyWithoutAServicesId() async throws {
        let mint = try await TestTokenMint.make()
        try await mint.serve { base in
            // A demo project (dev IdPs) accepts the test's loopback redirect; the stored apple.com wins over the dev one.
            try await HearthHarness.run(devIdPs: true) { h in
                let created = try await h.send(.post, Self.configPath(h, "apple.com"), body: Self.json([
                    "endpointBase": base + "/apple", "appleSignInConfig": ["bundleIds": ["com.example.app"]]]), headers: Self.owner)
                #expect(created.status == 200, "\(created.text)")
                let stored = try #require(try await h.store.idpConfig(providerId: "apple.com"))
                #expect(stored.clientId.isEmpty && stored.clientSecret.isEmpty && stored.appleKeyId == nil)
                let token = try await mint.sign(Self.appleClaims(base, nonce: "native-only-1"))
                let signedIn = try await Self.nativeSignIn(h, token: token, providerId: "apple.com", nonce: "native-only-1")
                #expect(signedIn.status == 200, "\(signedIn.text)")
                for (index, aud) in ["", "com.example.web", "com.evil.app"].enumerated() {
                    let other = try await mint.sign(Self.appleClaims(base, sub: "000777.x.\(index)", nonce: "native-only-2", aud: aud))
                    let refused = try await Self.nativeSignIn(h, token: other, providerId: "apple.com", nonce: "native-only-2")
                    #expect(refused.status == 400, "aud '\(aud)': \(refused.text)")
                }
                let start = try await Browser.get(h.handlerURL(providerId: "apple.com", rawSessionId: "NATIVEONLY"))
                let location = try #require(start.location, "\(start.body)")
                #expect(!location.hasPrefix(base), "never sent to Apple")
                let error = Browser.query(location, "firebaseError").flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
                #expect(error?["code"] == "auth/operation-not-allowed", "\(location)")
                #expect(error?["message"]?.contains("native sign-in only") == true, "\(String(describing: error))")
            }
        }
    }

    @Test func appleNativePrivateRelayAndUnverifiedNeverLink() async throws {
        try await Self.native { h, mint, base in
            _ = try await h.signUp(email: "relay1@privaterelay.appleid.com")
            _ = try await h.signUp(email: "ada@example.com")
            let relay = try await mint.sign(Self.appleClaims(base, sub: "000001.a.0001", email: "relay1@privaterelay.appleid.com", nonce: "r1", privateRelay: true))
            let relayed = try await Self.nativeSignIn(h, token: relay, providerId: "apple.com", nonce: "r1").decode(SignInWithIdpResponse.self)
            #expect(relayed.needConfirmation == nil)
            #expect(relayed.isNewUser == true)
            #expect(relayed.verifiedProvider == nil)
            var unverifiedClaims = Self.appleClaims(base, sub: "000002.b.0002", email: "ada@example.com", nonce: "r2")
            unverifiedClaims["email_verified"] = .string("false")
            let unverified = try await mint.sign(unverifiedClaims)
            let answer = try await Self.nativeSignIn(h, token: unverified, providerId: "apple.com", nonce: "r2").decode(SignInWithIdpResponse.self)
            #expect(answer.needConfirmation == true)
            #expect(answer.idToken == nil)
        }
    }

    /// Item 10: users of a Firebase `auth:export` (imported through `accounts:batchCreate`, which `hearth users
    /// import` and firebase-admin's `import_users` use) with apple.com and google.com identities sign in again as
    /// themselves.
    @Test func importedAppleAndGoogleUsersSignInAgain() async throws {
        try await Self.native { h, mint, base in
            let imported = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:batchCreate", body: Self.json([
                "users": [
                    ["localId": "fb-apple-user", "email": "relay9@privaterelay.appleid.com", "emailVerified": true, "createdAt": "1600000000000",
                     "providerUserInfo": [["providerId": "apple.com", "rawId": "000777.feed.0777", "email": "relay9@privaterelay.appleid.com"]]],
                    ["localId": "fb-google-user", "email": "grace@example.com", "emailVerified": true, "displayName": "Grace Hopper",
                     "providerUserInfo": [["providerId": "google.com", "rawId": "1077", "email": "grace@example.com", "displayName": "Grace Hopper"]]],
                ]]), headers: Self.owner)
            #expect(imported.status == 200, "\(imported.text)")
            #expect(!imported.text.contains("\"error\""), "\(imported.text)")

            let apple = try await mint.sign(Self.appleClaims(base, sub: "000777.feed.0777", email: "relay9@privaterelay.appleid.com", nonce: "imp-1", privateRelay: true))
            let appleReply = try await Self.nativeSignIn(h, token: apple, providerId: "apple.com", nonce: "imp-1")
            #expect(appleReply.status == 200, "\(appleReply.text)")
            let appleBody = try appleReply.decode(SignInWithIdpResponse.self)
            #expect(appleBody.localId == "fb-apple-user")
            #expect(appleBody.isNewUser != true)
            #expect(appleBody.idToken != nil)

            let now = Date().timeIntervalSince1970.rounded(.down)
            let google = try await mint.sign([
                "iss": .string(base + "/google"), "aud": .string(Self.iosClient), "azp": .string(Self.iosClient), "sub": .string("1077"),
                "iat": .number(now), "exp": .number(now + 600), "email": .string("grace@example.com"), "email_verified": .bool(true),
            ])
            let googleReply = try await Self.nativeSignIn(h, token: google, providerId: "google.com", nonce: nil)
            #expect(googleReply.status == 200, "\(googleReply.text)")
            let googleBody = try googleReply.decode(SignInWithIdpResponse.self)
            #expect(googleBody.localId == "fb-google-user")
            #expect(googleBody.isNewUser != true)
            // The account keeps what was imported (the token carried no name).
            #expect(try await h.store.user(localId: "fb-google-user")?.displayName == "Grace Hopper")
            #expect(try await h.store.userCount() == 2)
        }
    }

    @Test func googleNativeIDToken() async throws {
        try await Self.native { h, mint, base in
            let now = Date().timeIntervalSince1970.rounded(.down)
            func claims(aud: String = Self.iosClient, azp: String? = Self.iosClient, iss: String? = nil, sub: String = "1089", nonce: String? = nil) -> [String: JSONValue] {
                var values: [String: JSONValue] = ["iss": .string(iss ?? base + "/google"), "aud": .string(aud), "sub": .string(sub),
                                                   "iat": .number(now), "exp": .number(now + 600), "email": .string("grace@gmail.com"),
                                                   "email_verified": .bool(true), "name": .string("Grace Hopper")]
                if let azp { values["azp"] = .string(azp) }
                if let nonce { values["nonce"] = .string(WireDigest.sha256Hex(nonce)) }
                return values
            }
            let token = try await mint.sign(claims())
            let reply = try await Self.nativeSignIn(h, token: token, providerId: "google.com", nonce: nil, extra: "&access_token=ya29.ignored")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "google.com")
            #expect(body.federatedId == "1089")
            #expect(body.displayName == "Grace Hopper")
            // With a nonce it must match.
            let nonced = try await mint.sign(claims(sub: "2000", nonce: "g1"))
            #expect(try await Self.nativeSignIn(h, token: nonced, providerId: "google.com", nonce: "g2").errorCode?.hasPrefix("MISSING_OR_INVALID_NONCE") == true)
            #expect(try await Self.nativeSignIn(h, token: nonced, providerId: "google.com", nonce: "g1").status == 200)
            // Another client's token, another authorized party, the real Google issuer while the base is moved: refused.
            for bad in [claims(aud: "9-other.apps.googleusercontent.com", azp: nil, sub: "3000"),
                        claims(azp: "9-other.apps.googleusercontent.com", sub: "3001"),
                        claims(iss: "https://accounts.google.com", sub: "3002")] {
                let forged = try await mint.sign(bad)
                #expect(try await Self.nativeSignIn(h, token: forged, providerId: "google.com", nonce: nil).status == 400)
            }
            // A bare access token is no credential.
            let bare = try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: "access_token=ya29.x&providerId=google.com", sessionId: nil, returnSecureToken: true))
            #expect(bare.status == 400)
        }
    }

    // MARK: Dev mode

    /// Runs `/__dev/try` like a browser, following redirects, submitting the dev provider's login form and
    /// Apple's `form_post` page; returns the final page.
    static func tryPage(_ h: HearthHarness, provider: String, email: String, hide: Bool = false) async throws -> Browser.Page {
        var next = h.baseURL + "/__dev/try?provider=\(provider)"
        var submittedLogin = false
        for _ in 0..<12 {
            let page = try await Browser.get(next)
            if let location = page.location, page.status == 302 {
                next = location.hasPrefix("http") ? location : h.baseURL + location
                continue
            }
            guard !submittedLogin, let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: page.body),
                  let action = HearthHarness.capture(#"action="([^"]+)""#, in: page.body) else { return page }
            submittedLogin = true
            var fields = [("request_id", requestId), ("email", email), ("name", "Ada Lovelace"), ("action", "login")]
            if hide { fields.append(("hide_email", "1")) }
            var answer = try await Browser.post(action.hasPrefix("http") ? action : h.baseURL + action, form: fields)
            if answer.status == 200, let target = HearthHarness.capture(#"<form method="post" action="([^"]+)">"#, in: answer.body) {
                // Apple's form_post page: what its script would submit.
                answer = try await Browser.post(target, form: DevAppleGoogleProviderTests.postedFields(answer).sorted { $0.key < $1.key })
            }
            guard let location = answer.location else { return answer }
            next = location.hasPrefix("http") ? location : h.baseURL + location
        }
        throw HarnessError("too many redirects")
    }

    @Test func devModeServesAppleAndGoogleThroughDevTry() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let sources = try await h.server.federation.providerSources(in: h.scope).map(\.providerId)
            #expect(sources.contains("apple.com"))
            #expect(sources.contains("google.com"))
            let apple = try await Self.tryPage(h, provider: "apple.com", email: "ada@example.com", hide: true)
            #expect(apple.body.contains("Signed in with apple.com"), "\(apple.body.prefix(600))")
            #expect(apple.body.contains("privaterelay.appleid.com"))
            let google = try await Self.tryPage(h, provider: "google.com", email: "grace@example.com")
            #expect(google.body.contains("Signed in with google.com"), "\(google.body.prefix(600))")
            let index = try await h.send(.get, "/", headers: [.accept: "text/html"])
            #expect(index.text.contains("/__dev/try?provider=apple.com"))
            #expect(index.text.contains("/__dev/try?provider=google.com"))
        }
    }

    @Test func reauthenticationWithAppleNeverCreatesAUser() async throws {
        try await Self.native { h, mint, base in
            let token = try await mint.sign(Self.appleClaims(base, sub: "000777.r.0001", nonce: "re1"))
            let reply = try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: "id_token=\(token)&nonce=re1&providerId=apple.com", sessionId: nil,
                returnSecureToken: true, autoCreate: false))
            #expect(reply.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func providerCheckMintsApplesClientSecret() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let configs = try #require(h.devIdPs).providerConfigs()
            let apple = try #require(configs.first { $0.providerId == "apple.com" })
            let google = try #require(configs.first { $0.providerId == "google.com" })
            let redirectUri = h.baseURL + "/__/auth/handler"
            // Generous probe time: the suite runs beside hundreds of others on two cores. The relying party minting the
            // client secret keeps the harness's clock, which the dev provider checks `iat`/`exp` against (the real
            // clock runs ahead of the harness's while the suite is busy).
            let report = await RelyingParty(clock: h.clock.wallClock).checkConfiguration(apple, redirectUri: redirectUri, probeTimeout: .seconds(60))
            #expect(report.checks.first { $0.name == "keys" }?.status == .ok, "\(report.text)")
            // invalid_grant for the made-up code: the minted client secret was accepted.
            #expect(report.checks.first { $0.name == "client" }?.status == .ok, "\(report.text)")
            // Another .p8 (the secret signed with a key the provider does not hold): the client is refused.
            var wrongKey = apple
            wrongKey.clientSecret = DevAppleProvider.Credentials.random().privateKeyPEM
            let refused = await RelyingParty(clock: h.clock.wallClock).checkConfiguration(wrongKey, redirectUri: redirectUri, probeTimeout: .seconds(60))
            let refusedClient = refused.checks.first { $0.name == "client" }
            #expect(refusedClient?.status == .failed, "\(refused.text)")
            #expect(refusedClient?.detail.contains("invalid_client") == true, "\(refused.text)")
            #expect(!refused.text.contains("PRIVATE KEY"))
            let googleReport = await RelyingParty(clock: h.clock.wallClock).checkConfiguration(google, redirectUri: redirectUri, probeTimeout: .seconds(60))
            #expect(googleReport.checks.first { $0.name == "client" }?.status == .ok, "\(googleReport.text)")
        }
    }

    @Test func appleRefreshTokenIsKeptAndRenewsWithAMintedSecret() async throws {
        try await HearthHarness.run(configure: ProviderTokenVaultTests.vault(ProviderTokenVaultTests.key().line), devIdPs: true) { h in
            let dev = try #require(h.devIdPs)
            // Nothing stored: the dev IdPs' own apple.com settings serve.
            let env = Env(h: h, apple: dev.apple, google: dev.google, credentials: dev.appleCredentials)
            let flow = try await Self.appleBrowser(env, email: "ada@example.com", name: "Ada Lovelace")
            let reply = try await h.signInWithIdp(flow.flow, providerId: "apple.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            let localId = try #require(body.localId)
            let record = try #require(try await h.store.providerTokens(localId: localId, providerId: "apple.com"))
            #expect(!record.sealed.isEmpty)
            // A forced renewal (at most every 30 s) goes to Apple's token endpoint with a minted client secret (never the .p8).
            h.clock.advance(by: 31)
            let renewed = try await ProviderTokenVaultTests.providerToken(h, idToken: try #require(body.idToken), providerId: "apple.com", force: true)
            #expect(renewed.status == 200, "\(renewed.text)")
            let token = try renewed.decode(ProviderAccessTokenResponse.self)
            #expect(token.providerId == "apple.com")
            #expect(!token.accessToken.isEmpty)
            #expect(token.accessToken != body.oauthAccessToken)
        }
    }
}
