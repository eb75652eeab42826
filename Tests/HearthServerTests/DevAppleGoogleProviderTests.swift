import Crypto
import Foundation
import HearthCore
import HearthDevIdP
import HearthOIDC
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 21 item 8: the Apple- and Google-shaped dev providers, driven over loopback HTTP as a browser and a
/// relying party would, and checked with Hearth's own Apple and Google rules.
@Suite struct DevAppleGoogleProviderTests {
    struct Env: Sendable {
        let apple: DevAppleProvider
        let google: DevGoogleProvider
        let credentials: DevAppleProvider.Credentials
        let publicURL: PublicBaseURL
        var redirectUri: String { publicURL.authHandlerURL }
        var appleSettings: AppleSignInSettings {
            AppleSignInSettings(servicesId: credentials.servicesId, bundleIds: credentials.bundleIds, endpointBase: apple.base)
        }
    }

    static let iosClient = "1234-ios.apps.googleusercontent.com"

    static func run(_ body: @Sendable (Env) async throws -> Void) async throws {
        let publicURL = PublicBaseURL("http://127.0.0.1:1")
        let credentials = DevAppleProvider.Credentials.random()
        let apple = try await DevAppleProvider(publicURL: publicURL, credentials: credentials)
        let google = try await DevGoogleProvider(publicURL: publicURL, nativeClientIds: [iosClient])
        let router = Router()
        apple.register(on: router)
        google.register(on: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            publicURL.set("http://127.0.0.1:\(try #require(client.port))")
            try await body(Env(apple: apple, google: google, credentials: credentials, publicURL: publicURL))
        }
    }

    /// The hidden fields of a `form_post` page, by name.
    /// A relying party whose upstream calls wait long enough for a loopback provider when the whole suite shares
    /// two cores (the 10-second default is for real providers).
    static func party() -> RelyingParty { RelyingParty(http: UpstreamHTTP(timeout: .seconds(60))) }

    static func postedFields(_ page: Browser.Page) -> [String: String] {
        let regex = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        var fields: [String: String] = [:]
        for match in regex.matches(in: page.body, range: NSRange(page.body.startIndex..., in: page.body)) {
            let name = String(page.body[Range(match.range(at: 1), in: page.body)!])
            let value = String(page.body[Range(match.range(at: 2), in: page.body)!])
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            fields[name] = value
        }
        return fields
    }

    /// Opens the authorize URL and submits the login form; returns the page the provider answers with.
    static func login(_ authorize: String, email: String, name: String, checkbox: String? = nil, action: String = "login") async throws -> Browser.Page {
        let form = try await Browser.get(authorize)
        let requestId = try #require(HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body), "\(form.body.prefix(400))")
        let path = try #require(HearthHarness.capture(#"action="([^"]+)""#, in: form.body))
        let base = authorize.components(separatedBy: "/__dev/")[0]
        var fields = [("request_id", requestId), ("email", email), ("name", name), ("action", action)]
        if let checkbox { fields.append((checkbox, "1")) }
        return try await Browser.post(base + path, form: fields)
    }

    static func appleAuthorize(_ env: Env, scope: String = "name email", mode: String = "form_post", nonce: String = "nonce-1",
                               redirectUri: String? = nil) -> String {
        env.apple.base + "/auth/authorize?" + FormEncoding.encode([
            ("client_id", env.credentials.servicesId), ("redirect_uri", redirectUri ?? env.redirectUri), ("response_type", "code"),
            ("response_mode", mode), ("scope", scope), ("state", "state-1"), ("nonce", nonce),
        ])
    }

    static func minter(_ env: Env, key: String? = nil, clientId: String? = nil, clock: WallClock = .system) async throws -> AppleClientSecret {
        let signing = try AppleSigningKey(p8: key ?? env.credentials.privateKeyPEM, keyId: env.credentials.keyId, teamId: env.credentials.teamId,
                                          clientId: clientId ?? env.credentials.servicesId)
        return try await AppleClientSecret(key: signing, audience: env.appleSettings.clientSecretAudience, clock: clock)
    }

    static func appleToken(_ env: Env, code: String, secret: String) async throws -> Browser.Page {
        try await Browser.post(env.apple.base + "/auth/token", form: [
            ("client_id", env.credentials.servicesId), ("client_secret", secret), ("code", code),
            ("grant_type", "authorization_code"), ("redirect_uri", env.redirectUri),
        ])
    }

    static func json(_ page: Browser.Page) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(page.body.utf8))) as? [String: Any] ?? [:]
    }

    @Test func appleFormPostFlowWithTheUserFieldOnlyTheFirstTime() async throws {
        try await Self.run { env in
            let page = try await Self.login(Self.appleAuthorize(env), email: "ada@example.com", name: "Ada Lovelace")
            #expect(page.status == 200)
            // An auto-submitting POST form to the redirect URI, with a button for browsers without JavaScript.
            #expect(page.body.contains(#"<form method="post" action="\#(env.redirectUri)">"#))
            #expect(page.body.contains("<script>document.forms[0].submit();</script>"))
            #expect(page.body.contains(#"<button type="submit">"#))
            let fields = Self.postedFields(page)
            #expect(fields["state"] == "state-1")
            let user = try #require(AppleUserField.parse(fields["user"]))
            #expect(user.displayName == "Ada Lovelace")
            #expect(user.email == "ada@example.com")

            let secret = try await Self.minter(env).secret()
            let token = try await Self.appleToken(env, code: try #require(fields["code"]), secret: secret)
            #expect(token.status == 200, "\(token.body)")
            let body = Self.json(token)
            #expect(body["refresh_token"] is String)
            let idToken = try #require(body["id_token"] as? String)
            let claims = try #require(jwtPayload(idToken))
            #expect(claims["email_verified"] as? String == "true")
            #expect(claims["is_private_email"] as? String == "false")
            let signIn = try await Self.party().validateAppleIDToken(idToken, settings: env.appleSettings, nonce: .exact("nonce-1"))
            #expect(signIn.identity.email == "ada@example.com")
            #expect(signIn.emailVerified)
            #expect(!signIn.emailIsPrivateRelay)

            // The code is single use.
            #expect(try await Self.appleToken(env, code: try #require(fields["code"]), secret: secret).status == 400)

            // The second authorization: a code, no `user` field; the same subject.
            let again = Self.postedFields(try await Self.login(Self.appleAuthorize(env, nonce: "nonce-2"), email: "ada@example.com", name: "Ada Lovelace"))
            #expect(again["user"] == nil)
            let second = Self.json(try await Self.appleToken(env, code: try #require(again["code"]), secret: secret))
            let secondSignIn = try await Self.party().validateAppleIDToken(try #require(second["id_token"] as? String), settings: env.appleSettings,
                                                                             nonce: .exact("nonce-2"))
            #expect(secondSignIn.identity.federatedId == signIn.identity.federatedId)

            // Cancel: Apple's error posted back with the state.
            let cancelled = Self.postedFields(try await Self.login(Self.appleAuthorize(env), email: "", name: "", action: "cancel"))
            #expect(cancelled["error"] == "user_cancelled_authorize")
            #expect(cancelled["state"] == "state-1")
        }
    }

    @Test func appleHideMyEmailGivesAPrivateRelayAddress() async throws {
        try await Self.run { env in
            let fields = Self.postedFields(try await Self.login(Self.appleAuthorize(env), email: "grace@example.com", name: "Grace", checkbox: "hide_email"))
            let user = try #require(AppleUserField.parse(fields["user"]))
            #expect(user.email?.hasSuffix("@privaterelay.appleid.com") == true)
            let token = Self.json(try await Self.appleToken(env, code: try #require(fields["code"]), secret: try await Self.minter(env).secret()))
            let idToken = try #require(token["id_token"] as? String)
            #expect(jwtPayload(idToken)?["is_private_email"] as? String == "true")
            let signIn = try await Self.party().validateAppleIDToken(idToken, settings: env.appleSettings, nonce: .exact("nonce-1"))
            #expect(signIn.identity.email == user.email)
            #expect(signIn.emailVerified)
            #expect(signIn.emailIsPrivateRelay)
        }
    }

    @Test func appleRequiresFormPostForNameAndEmail() async throws {
        try await Self.run { env in
            let page = try await Browser.get(Self.appleAuthorize(env, mode: "query"))
            #expect(page.status == 400)
            #expect(page.body.contains("form_post"))
            // Without name and email scopes, a query answer is allowed.
            let plain = try await Self.login(Self.appleAuthorize(env, scope: "", mode: "query"), email: "q@example.com", name: "")
            #expect(plain.status == 302)
            #expect(plain.location.flatMap { Browser.query($0, "code") } != nil)
            #expect(plain.location.flatMap { Browser.query($0, "user") } == nil)
            // An unregistered redirect URI is shown, never followed.
            let foreign = try await Browser.get(Self.appleAuthorize(env, redirectUri: "https://evil.example/cb"))
            #expect(foreign.status == 400)
            #expect(foreign.location == nil)
        }
    }

    @Test func appleTokenEndpointChecksTheClientSecret() async throws {
        try await Self.run { env in
            func code() async throws -> String {
                try #require(Self.postedFields(try await Self.login(Self.appleAuthorize(env), email: "ada@example.com", name: "Ada"))["code"])
            }
            // Signed with another key (same kid, team and client).
            let stranger = try await Self.minter(env, key: P256.Signing.PrivateKey().pemRepresentation).secret()
            let refused = try await Self.appleToken(env, code: try await code(), secret: stranger)
            #expect(refused.status == 400)
            #expect(Self.json(refused)["error"] as? String == "invalid_client")
            // For another client id.
            let otherClient = try await Self.minter(env, clientId: "com.other.web").secret()
            #expect(Self.json(try await Self.appleToken(env, code: try await code(), secret: otherClient))["error"] as? String == "invalid_client")
            // Expired (minted two hours ago, for one hour).
            let past = TestClock(Date().addingTimeInterval(-7200))
            let expired = try await Self.minter(env, clock: past.wallClock).secret()
            #expect(Self.json(try await Self.appleToken(env, code: try await code(), secret: expired))["error"] as? String == "invalid_client")
            // Not a JWT at all.
            #expect(Self.json(try await Self.appleToken(env, code: try await code(), secret: "plain-secret"))["error"] as? String == "invalid_client")
            // The right one.
            #expect(try await Self.appleToken(env, code: try await code(), secret: try await Self.minter(env).secret()).status == 200)
        }
    }

    @Test func appleRevocationStopsTheRefreshToken() async throws {
        try await Self.run { env in
            let fields = Self.postedFields(try await Self.login(Self.appleAuthorize(env), email: "ada@example.com", name: "Ada"))
            let secret = try await Self.minter(env).secret()
            let code = try #require(fields["code"])
            let refresh = try #require(Self.json(try await Self.appleToken(env, code: code, secret: secret))["refresh_token"] as? String)
            let renew: [(String, String)] = [("client_id", env.credentials.servicesId), ("client_secret", secret), ("grant_type", "refresh_token"),
                                             ("refresh_token", refresh)]
            let renewed = try await Browser.post(env.apple.base + "/auth/token", form: renew)
            #expect(renewed.status == 200)
            #expect(Self.json(renewed)["id_token"] is String)
            // Revocation needs the client secret too.
            let anonymous = try await Browser.post(env.apple.base + "/auth/revoke", form: [("client_id", env.credentials.servicesId), ("token", refresh)])
            #expect(anonymous.status == 400)
            #expect(env.apple.revokedTokenCount == 0)
            let revoked = try await Browser.post(env.apple.base + "/auth/revoke", form: [
                ("client_id", env.credentials.servicesId), ("client_secret", secret), ("token", refresh), ("token_type_hint", "refresh_token"),
            ])
            #expect(revoked.status == 200)
            #expect(env.apple.revokedTokenCount == 1)
            #expect(Self.json(try await Browser.post(env.apple.base + "/auth/token", form: renew))["error"] as? String == "invalid_grant")
        }
    }

    static func googleAuthorize(_ env: Env, clientId: String? = nil, hd: String? = nil, challenge: String? = nil) -> String {
        var query: [(String, String)] = [("client_id", clientId ?? env.google.client.id), ("redirect_uri", env.redirectUri), ("response_type", "code"),
                                         ("scope", "openid email profile"), ("state", "g-state"), ("nonce", "g-nonce")]
        if let hd { query.append(("hd", hd)) }
        if let challenge { query += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return env.google.base + "/o/oauth2/v2/auth?" + FormEncoding.encode(query)
    }

    static func googleToken(_ env: Env, _ page: Browser.Page, secret: String? = nil, clientId: String? = nil, verifier: String? = nil) async throws -> Browser.Page {
        let code = try #require(page.location.flatMap { Browser.query($0, "code") }, "\(page.status) \(page.location ?? page.body)")
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", env.redirectUri), ("client_id", clientId ?? env.google.client.id)]
        if let secret { form.append(("client_secret", secret)) }
        if let verifier { form.append(("code_verifier", verifier)) }
        return try await Browser.post(env.google.base + "/token", form: form)
    }

    @Test func googleHostedDomainAndEmailVerified() async throws {
        try await Self.run { env in
            let settings = GoogleSignInSettings(clientId: env.google.client.id, nativeClientIds: [Self.iosClient],
                                                allowedHostedDomains: ["example.com"], endpointBase: env.google.base)
            let party = Self.party()
            // A Workspace account of an allowed domain.
            let ada = try await Self.login(Self.googleAuthorize(env, hd: "example.com"), email: "ada@example.com", name: "Ada Lovelace")
            #expect(ada.location.flatMap { Browser.query($0, "state") } == "g-state")
            let tokens = Self.json(try await Self.googleToken(env, ada, secret: env.google.client.secret))
            let idToken = try #require(tokens["id_token"] as? String)
            #expect(jwtPayload(idToken)?["hd"] as? String == "example.com")
            let signIn = try await party.validateGoogleIDToken(idToken, settings: settings, nonce: .exact("g-nonce"), requestedHostedDomain: "example.com")
            #expect(signIn.identity.email == "ada@example.com")
            #expect(signIn.emailVerified)
            #expect(signIn.firstName == "Ada")

            // `hd` is only a hint at Google: another domain's account still gets a token, which the allow-list refuses.
            let eve = try await Self.login(Self.googleAuthorize(env, hd: "example.com"), email: "eve@evil.example", name: "Eve")
            let eveToken = try #require(Self.json(try await Self.googleToken(env, eve, secret: env.google.client.secret))["id_token"] as? String)
            #expect(jwtPayload(eveToken)?["hd"] as? String == "evil.example")
            await expectRefusal(.hostedDomainNotAllowed) { try await party.validateGoogleIDToken(eveToken, settings: settings, nonce: .exact("g-nonce")) }

            // A Gmail account has no hd; an unverified address says so.
            var open = settings
            open.allowedHostedDomains = []
            let gmail = try await Self.login(Self.googleAuthorize(env), email: "bob@gmail.com", name: "Bob", checkbox: "unverified")
            let gmailToken = try #require(Self.json(try await Self.googleToken(env, gmail, secret: env.google.client.secret))["id_token"] as? String)
            #expect(jwtPayload(gmailToken)?["hd"] == nil)
            #expect(try await party.validateGoogleIDToken(gmailToken, settings: open, nonce: .exact("g-nonce")).emailVerified)
            let unverified = try await Self.login(Self.googleAuthorize(env), email: "carol@example.org", name: "Carol", checkbox: "unverified")
            let unverifiedToken = try #require(Self.json(try await Self.googleToken(env, unverified, secret: env.google.client.secret))["id_token"] as? String)
            #expect(try await party.validateGoogleIDToken(unverifiedToken, settings: open, nonce: .exact("g-nonce")).emailVerified == false)

            // A wrong client secret.
            let wrong = try await Self.login(Self.googleAuthorize(env), email: "ada@example.com", name: "Ada")
            let refused = try await Self.googleToken(env, wrong, secret: "GOCSPX-wrong")
            #expect(refused.status == 401)
            #expect(Self.json(refused)["error"] as? String == "invalid_client")
        }
    }

    @Test func googleNativeClientIsPublicWithPKCE() async throws {
        try await Self.run { env in
            // Without PKCE the native client is refused.
            let bare = try await Browser.get(Self.googleAuthorize(env, clientId: Self.iosClient))
            #expect(bare.location.flatMap { Browser.query($0, "error") } == "invalid_request")
            let pair = RelyingParty.pkcePair()
            let page = try await Self.login(Self.googleAuthorize(env, clientId: Self.iosClient, challenge: pair.challenge), email: "ada@example.com", name: "Ada")
            let token = try await Self.googleToken(env, page, clientId: Self.iosClient, verifier: pair.verifier)
            #expect(token.status == 200, "\(token.body)")
            let idToken = try #require(Self.json(token)["id_token"] as? String)
            #expect(jwtPayload(idToken)?["azp"] as? String == Self.iosClient)
            let settings = GoogleSignInSettings(clientId: env.google.client.id, nativeClientIds: [Self.iosClient], endpointBase: env.google.base)
            #expect(try await Self.party().validateGoogleIDToken(idToken, settings: settings, nonce: .exact("g-nonce")).identity.email == "ada@example.com")
            // Without the native client id configured, the token is for another client.
            let webOnly = GoogleSignInSettings(clientId: env.google.client.id, endpointBase: env.google.base)
            await expectRefusal(.idToken) { try await Self.party().validateGoogleIDToken(idToken, settings: webOnly, nonce: .exact("g-nonce")) }
        }
    }

    @Test func appleCodeFlowAndRevocationThroughTheRelyingParty() async throws {
        try await Self.run { env in
            let party = Self.party()
            let url = try party.appleAuthorizationURL(env.appleSettings, redirectUri: env.redirectUri, state: "st", nonce: "hearth-flow.n1")
            #expect(Browser.query(url, "response_mode") == "form_post")
            #expect(Browser.query(url, "scope") == "name email")
            let fields = Self.postedFields(try await Self.login(url, email: "ada@example.com", name: "Ada Lovelace"))
            #expect(fields["state"] == "st")
            let code = try #require(fields["code"])
            let minter = try await Self.minter(env)
            let signIn = try await party.completeApple(env.appleSettings, code: code, redirectUri: env.redirectUri, nonce: "hearth-flow.n1",
                                                       clientSecret: minter, userField: fields["user"])
            #expect(signIn.identity.displayName == "Ada Lovelace")
            #expect(signIn.firstName == "Ada" && signIn.lastName == "Lovelace")
            #expect(signIn.identity.email == "ada@example.com")
            #expect(!signIn.oauthAccessToken.isEmpty)
            let refresh = try #require(signIn.oauthRefreshToken)

            // A replayed code, and a client secret signed with another key: the provider's refusal, parsed.
            do {
                _ = try await party.completeApple(env.appleSettings, code: code, redirectUri: env.redirectUri, nonce: "hearth-flow.n1",
                                                  clientSecret: minter, userField: nil)
                Issue.record("a replayed code was accepted")
            } catch let error as RelyingPartyError {
                #expect(error.kind == .tokenExchange)
                #expect(error.providerError?.error == "invalid_grant")
            }
            let again = Self.postedFields(try await Self.login(url, email: "ada@example.com", name: "Ada Lovelace"))
            let stranger = try await Self.minter(env, key: P256.Signing.PrivateKey().pemRepresentation)
            do {
                _ = try await party.completeApple(env.appleSettings, code: try #require(again["code"]), redirectUri: env.redirectUri,
                                                  nonce: "hearth-flow.n1", clientSecret: stranger, userField: nil)
                Issue.record("a client secret signed with another key was accepted")
            } catch let error as RelyingPartyError {
                #expect(error.providerError?.error == "invalid_client")
                #expect(!error.message.contains(try await stranger.secret()))
            }

            // Revocation (account deletion).
            await #expect(throws: RelyingPartyError.self) { try await party.revokeApple(env.appleSettings, token: refresh, clientSecret: stranger) }
            #expect(env.apple.revokedTokenCount == 0)
            try await party.revokeApple(env.appleSettings, token: refresh, clientSecret: minter)
            #expect(env.apple.revokedTokenCount == 1)
        }
    }

    @Test func googleCodeFlowThroughTheRelyingParty() async throws {
        try await Self.run { env in
            let party = Self.party()
            let settings = GoogleSignInSettings(clientId: env.google.client.id, allowedHostedDomains: ["example.com"], endpointBase: env.google.base)
            // The app may not widen the allow-list.
            #expect(throws: RelyingPartyError.self) {
                try party.googleAuthorizationURL(settings, redirectUri: env.redirectUri, state: "s", nonce: "n", codeChallenge: nil, hostedDomain: "evil.example")
            }
            let pair = RelyingParty.pkcePair()
            let url = try party.googleAuthorizationURL(settings, redirectUri: env.redirectUri, state: "s", nonce: "hearth-flow.g", codeChallenge: pair.challenge,
                                                       prompt: "select_account", loginHint: "ada@example.com", offlineAccess: true)
            #expect(Browser.query(url, "hd") == "example.com")
            #expect(Browser.query(url, "scope") == "openid email profile")
            func complete(_ email: String) async throws -> FederatedSignIn {
                let page = try await Self.login(url, email: email, name: "Someone Else")
                let code = try #require(page.location.flatMap { Browser.query($0, "code") })
                return try await party.completeGoogle(settings, clientSecret: env.google.client.secret, code: code, redirectUri: env.redirectUri,
                                                      codeVerifier: pair.verifier, nonce: "hearth-flow.g", requestedHostedDomain: "example.com")
            }
            let ada = try await complete("ada@example.com")
            #expect(ada.identity.providerId == "google.com")
            #expect(ada.emailVerified)
            #expect(ada.oauthRefreshToken != nil)
            #expect(ada.grantedScope == "openid email profile")
            await expectRefusal(.hostedDomainNotAllowed) { try await complete("eve@evil.example") }
        }
    }
}
