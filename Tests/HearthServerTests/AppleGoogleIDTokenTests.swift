import Crypto
import CryptoExtras
import Foundation
import HearthCore
@testable import HearthOIDC
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Testing

/// A test provider's signing key: published at the JWKS paths the Apple and Google rules read (under `/apple` and
/// `/google` of a loopback server), and the tokens signed with it — or forged without it.
struct TestTokenMint: Sendable {
    static let kid = "test-key-1"
    let keys: JWTKeyCollection
    let jwk: [String: String]
    let publicKeyPEM: String

    struct Claims: JWTPayload {
        var values: [String: JSONValue]
        init(_ values: [String: JSONValue]) { self.values = values }
        init(from decoder: any Decoder) throws { values = try decoder.singleValueContainer().decode([String: JSONValue].self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func make() async throws -> TestTokenMint {
        let key = try Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048))
        let (n, e) = try key.publicKey.getKeyPrimitives()
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return TestTokenMint(keys: keys, jwk: ["kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
                                               "n": n.base64URLEncodedString(), "e": e.base64URLEncodedString()],
                             publicKeyPEM: key.publicKey.pemRepresentation)
    }

    func sign(_ claims: [String: JSONValue]) async throws -> String {
        try await keys.sign(Claims(claims), kid: JWKIdentifier(string: Self.kid))
    }

    static func segment(_ object: [String: JSONValue]) throws -> String {
        try JSONEncoder().encode(JSONValue.object(object)).base64URLEncodedString()
    }

    /// `alg: none`, no signature.
    func unsigned(_ claims: [String: JSONValue]) throws -> String {
        "\(try Self.segment(["alg": .string("none"), "kid": .string(Self.kid)])).\(try Self.segment(claims))."
    }

    /// HS256 "signed" with the provider's public key as the HMAC secret (the algorithm-confusion attack).
    func hs256WithPublicKey(_ claims: [String: JSONValue]) throws -> String {
        let input = "\(try Self.segment(["alg": .string("HS256"), "typ": .string("JWT"), "kid": .string(Self.kid)])).\(try Self.segment(claims))"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(publicKeyPEM.utf8)))
        return input + "." + Data(mac).base64URLEncodedString()
    }

    /// A loopback server publishing the key at `/apple/auth/keys` and `/google/oauth2/v3/certs`, and Google's
    /// discovery document at `/google/.well-known/openid-configuration` (google.com with `endpointBase` resolves
    /// through it); `body` gets its base URL.
    func serve<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        let document = try WireJSON.encoder.encode(JSONValue.object(["keys": .array([.object(jwk.mapValues { .string($0) })])]))
        for path in ["/apple/auth/keys", "/google/oauth2/v3/certs"] {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: document)))
            }
        }
        router.get("/google/.well-known/openid-configuration") { request, _ in
            let google = "http://\(request.head.authority ?? "")/google"
            let discovery = try WireJSON.encoder.encode(JSONValue.object([
                "issuer": .string(google), "authorization_endpoint": .string(google + "/o/oauth2/v2/auth"),
                "token_endpoint": .string(google + "/token"), "jwks_uri": .string(google + "/oauth2/v3/certs"),
                "userinfo_endpoint": .string(google + "/v1/userinfo"),
            ]))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: discovery)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))")
        }
    }
}

/// Expects `operation` to fail with a ``RelyingPartyError`` of `kind`.
func expectRefusal(_ kind: RelyingPartyError.Kind, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                   _ operation: () async throws -> FederatedSignIn) async {
    do {
        let signIn = try await operation()
        Issue.record("accepted (\(signIn.identity.federatedId)) but expected a \(kind) refusal \(comment.map { "— \($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as RelyingPartyError {
        #expect(error.kind == kind, "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

/// Issue 21 items 2 and 11: Apple's ID-token rules on top of the one validator, with real signatures.
@Suite struct AppleIDTokenRuleTests {
    static let clock = TestClock()
    static var now: Double { clock.now.timeIntervalSince1970 }
    static let rawNonce = "raw-nonce-0123456789"

    static func settings(_ base: String) -> AppleSignInSettings {
        AppleSignInSettings(servicesId: "com.example.web", bundleIds: ["com.example.app", "com.example.app.watch"], endpointBase: base + "/apple/")
    }

    static func claims(_ base: String, _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(base + "/apple"), "aud": .string("com.example.app"), "sub": .string("001234.0123456789abcdef0123456789abcdef.0456"),
            "iat": .number(now), "exp": .number(now + 600), "auth_time": .number(now), "nonce_supported": .bool(true),
            "nonce": .string(WireDigest.sha256Hex(rawNonce)), "email": .string("k7x2q9@privaterelay.appleid.com"),
            "email_verified": .string("true"), "is_private_email": .string("true"),
        ]
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    @Test func settingsPlaceEveryURLAtApple() {
        let real = AppleSignInSettings(servicesId: "com.example.web", bundleIds: ["com.example.app"])
        #expect(real.issuer == "https://appleid.apple.com")
        #expect(real.jwksURI == "https://appleid.apple.com/auth/keys")
        #expect(real.authorizationEndpoint == "https://appleid.apple.com/auth/authorize")
        #expect(real.tokenEndpoint == "https://appleid.apple.com/auth/token")
        #expect(real.revocationEndpoint == "https://appleid.apple.com/auth/revoke")
        #expect(real.clientSecretAudience == "https://appleid.apple.com")
        #expect(real.audiences == ["com.example.app", "com.example.web"])
        let moved = AppleSignInSettings(servicesId: "s", endpointBase: "http://127.0.0.1:9/__dev/apple/")
        #expect([moved.issuer, moved.jwksURI, moved.tokenEndpoint, moved.revocationEndpoint, moved.authorizationEndpoint, moved.clientSecretAudience]
            .allSatisfy { $0.hasPrefix("http://127.0.0.1:9/__dev/apple") && !$0.contains("apple.com") })
    }

    @Test func nativeTokenWithStringBooleansAndAPrivateRelayAddress() async throws {
        let mint = try await TestTokenMint.make()
        try await mint.serve { base in
            let party = RelyingParty(clock: Self.clock.wallClock)
            let token = try await mint.sign(Self.claims(base))
            let signIn = try await party.validateAppleIDToken(token, settings: Self.settings(base), nonce: .sha256OfRaw(Self.rawNonce))
            #expect(signIn.identity.providerId == "apple.com")
            #expect(signIn.identity.federatedId == "001234.0123456789abcdef0123456789abcdef.0456")
            #expect(signIn.identity.email == "k7x2q9@privaterelay.appleid.com")
            #expect(signIn.emailVerified)
            #expect(signIn.emailIsPrivateRelay)
            #expect(signIn.tokenUse != nil)

            // Booleans as booleans; a real address; another registered bundle id.
            let plain = try await mint.sign(Self.claims(base, ["email": .string("Ada@Example.com"), "email_verified": .bool(true),
                                                               "is_private_email": .bool(false), "aud": .string("com.example.app.watch")]))
            let ada = try await party.validateAppleIDToken(plain, settings: Self.settings(base), nonce: .sha256OfRaw(Self.rawNonce))
            #expect(ada.identity.email == "ada@example.com")
            #expect(ada.emailVerified)
            #expect(!ada.emailIsPrivateRelay)

            // "false" is false; a relay domain is flagged even when is_private_email is missing.
            let unverified = try await mint.sign(Self.claims(base, ["email": .string("bob@example.com"), "email_verified": .string("false"),
                                                                    "is_private_email": .string("false")]))
            #expect(try await party.validateAppleIDToken(unverified, settings: Self.settings(base), nonce: .sha256OfRaw(Self.rawNonce)).emailVerified == false)
            let relay = try await mint.sign(Self.claims(base, ["is_private_email": nil]))
            #expect(try await party.validateAppleIDToken(relay, settings: Self.settings(base), nonce: .sha256OfRaw(Self.rawNonce)).emailIsPrivateRelay)

            // The code flow: the services id as audience and Hearth's own nonce.
            let web = try await mint.sign(Self.claims(base, ["aud": .string("com.example.web"), "nonce": .string("hearth-flow.abc")]))
            let webSignIn = try await party.validateAppleIDToken(web, settings: Self.settings(base), nonce: .exact("hearth-flow.abc"))
            #expect(webSignIn.identity.federatedId.hasPrefix("001234."))
            #expect(webSignIn.tokenUse == nil)
        }
    }

    @Test func attacksAreRefused() async throws {
        let mint = try await TestTokenMint.make()
        try await mint.serve { base in
            let party = RelyingParty(clock: Self.clock.wallClock)
            let settings = Self.settings(base)
            let native = IDTokenNonce.sha256OfRaw(Self.rawNonce)
            func attempt(_ token: String, _ nonce: IDTokenNonce = native) async throws -> FederatedSignIn {
                try await party.validateAppleIDToken(token, settings: settings, nonce: nonce)
            }
            let other = try await mint.sign(Self.claims(base, ["aud": .string("com.attacker.app")]))
            await expectRefusal(.idToken, "another audience") { try await attempt(other) }
            let good = try await mint.sign(Self.claims(base))
            await expectRefusal(.nonce, "nonce mismatch") { try await attempt(good, .sha256OfRaw("another-raw-nonce")) }
            await expectRefusal(.nonce, "no raw nonce on the native path") { try await attempt(good, .none) }
            await expectRefusal(.nonce, "empty raw nonce") { try await attempt(good, .sha256OfRaw("")) }
            let rawInToken = try await mint.sign(Self.claims(base, ["nonce": .string(Self.rawNonce)]))
            await expectRefusal(.nonce, "the raw nonce itself in the token") { try await attempt(rawInToken) }
            let noNonce = try await mint.sign(Self.claims(base, ["nonce": nil]))
            await expectRefusal(.nonce, "a token without a nonce") { try await attempt(noNonce) }
            let issuer = try await mint.sign(Self.claims(base, ["iss": .string("https://appleid.apple.com")]))
            await expectRefusal(.idToken, "the real issuer while the base is moved") { try await attempt(issuer) }
            let foreign = try await mint.sign(Self.claims(base, ["iss": .string("https://evil.example")]))
            await expectRefusal(.idToken, "a foreign issuer") { try await attempt(foreign) }
            await expectRefusal(.idToken, "alg none") { try await attempt(try mint.unsigned(Self.claims(base))) }
            await expectRefusal(.idToken, "HS256 with the public key") { try await attempt(try mint.hs256WithPublicKey(Self.claims(base))) }
            let expired = try await mint.sign(Self.claims(base, ["iat": .number(Self.now - 7200), "exp": .number(Self.now - 3600)]))
            await expectRefusal(.idToken, "expired") { try await attempt(expired) }
            // A correct token still passes after all of that (the refusals are about the tokens).
            #expect(try await attempt(good).identity.federatedId.hasPrefix("001234."))
            // Without any audience configured nothing is accepted.
            await expectRefusal(.configuration) {
                try await party.validateAppleIDToken(good, settings: AppleSignInSettings(servicesId: nil, endpointBase: base + "/apple"), nonce: native)
            }
        }
    }

    @Test func userFieldParsing() {
        let field = AppleUserField.parse(#"{"name":{"firstName":" Ada ","lastName":"Lovelace"},"email":"ada@example.com"}"#)
        #expect(field?.firstName == "Ada")
        #expect(field?.lastName == "Lovelace")
        #expect(field?.displayName == "Ada Lovelace")
        #expect(field?.email == "ada@example.com")
        #expect(AppleUserField.parse(#"{"email":"x@privaterelay.appleid.com"}"#)?.displayName == nil)
        #expect(AppleUserField.parse("not json") == nil)
        #expect(AppleUserField.parse(nil) == nil)
    }
}

/// Issue 21 items 3, 6 and 11: Google's ID-token rules — both issuer forms, client ids, `azp`, the hosted-domain
/// allow-list (narrowed, never widened, by the app's `hd`), `email_verified`.
@Suite struct GoogleIDTokenRuleTests {
    static let clock = TestClock()
    static var now: Double { clock.now.timeIntervalSince1970 }
    static let web = "1234-web.apps.googleusercontent.com"
    static let ios = "1234-ios.apps.googleusercontent.com"

    static func settings(_ base: String, domains: [String] = []) -> GoogleSignInSettings {
        GoogleSignInSettings(clientId: web, nativeClientIds: [ios], allowedHostedDomains: domains, endpointBase: base + "/google")
    }

    static func claims(_ base: String, _ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(base + "/google"), "aud": .string(web), "azp": .string(web), "sub": .string("110169484474386276334"),
            "iat": .number(now), "exp": .number(now + 3600), "email": .string("ada@example.com"), "email_verified": .bool(true),
            "hd": .string("example.com"), "name": .string("Ada Lovelace"), "given_name": .string("Ada"), "family_name": .string("Lovelace"),
            "picture": .string("https://example.com/ada.png"),
        ]
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    @Test func settingsAndIssuers() throws {
        let real = GoogleSignInSettings(clientId: Self.web)
        #expect(real.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(real.jwksURI == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(real.discoveryURL == "https://accounts.google.com/.well-known/openid-configuration")
        #expect(real.tokenEndpoint == "https://oauth2.googleapis.com/token")
        let rule = IssuerRule.oneOf(real.issuers)
        #expect(try rule.expectedIssuer(claims: ["iss": .string("accounts.google.com")]) == "accounts.google.com")
        #expect(try rule.expectedIssuer(claims: ["iss": .string("https://accounts.google.com")]) == "https://accounts.google.com")
        #expect(throws: RelyingPartyError.self) { try rule.expectedIssuer(claims: ["iss": .string("https://accounts.google.com.evil")]) }
        let moved = GoogleSignInSettings(clientId: Self.web, endpointBase: "http://127.0.0.1:9/__dev/google")
        #expect(moved.issuers == ["http://127.0.0.1:9/__dev/google"])
        #expect([moved.jwksURI, moved.tokenEndpoint, moved.authorizationEndpoint, moved.revocationEndpoint, moved.userinfoEndpoint, moved.discoveryURL]
            .allSatisfy { $0.hasPrefix("http://127.0.0.1:9/__dev/google/") })
    }

    @Test func hostedDomainNarrowing() throws {
        let two = GoogleSignInSettings(clientId: Self.web, allowedHostedDomains: ["Example.com", "corp.example"])
        #expect(try two.narrowedHostedDomain(requested: nil) == "*")
        #expect(try two.narrowedHostedDomain(requested: "*") == "*")
        #expect(try two.narrowedHostedDomain(requested: "EXAMPLE.com") == "example.com")
        #expect(throws: RelyingPartyError(.hostedDomainNotAllowed, "accounts of other.com are not allowed to sign in to this app")) {
            try two.narrowedHostedDomain(requested: "other.com")
        }
        let one = GoogleSignInSettings(clientId: Self.web, allowedHostedDomains: ["example.com"])
        #expect(try one.narrowedHostedDomain(requested: nil) == "example.com")
        let open = GoogleSignInSettings(clientId: Self.web)
        #expect(try open.narrowedHostedDomain(requested: "other.com") == "other.com")
        #expect(try open.narrowedHostedDomain(requested: nil) == nil)
        #expect(try GoogleSignInSettings.normalizeHostedDomains([" Example.COM", "example.com", "corp.example"]) == ["example.com", "corp.example"])
        #expect(throws: RelyingPartyError.self) { try GoogleSignInSettings.normalizeHostedDomains(["*"]) }
        #expect(throws: RelyingPartyError.self) { try GoogleSignInSettings.normalizeHostedDomains(["not a domain"]) }
    }

    @Test func webAndNativeTokensAndTheirAttacks() async throws {
        let mint = try await TestTokenMint.make()
        try await mint.serve { base in
            let party = RelyingParty(clock: Self.clock.wallClock)
            let settings = Self.settings(base, domains: ["example.com"])
            func attempt(_ token: String, _ settings: GoogleSignInSettings, nonce: IDTokenNonce = .none, hd: String? = nil) async throws -> FederatedSignIn {
                try await party.validateGoogleIDToken(token, settings: settings, nonce: nonce, requestedHostedDomain: hd)
            }
            let signIn = try await attempt(try await mint.sign(Self.claims(base)), settings)
            #expect(signIn.identity.providerId == "google.com")
            #expect(signIn.identity.federatedId == "110169484474386276334")
            #expect(signIn.identity.displayName == "Ada Lovelace")
            #expect(signIn.identity.photoUrl == "https://example.com/ada.png")
            #expect(signIn.firstName == "Ada" && signIn.lastName == "Lovelace")
            #expect(signIn.emailVerified)
            #expect(!signIn.emailIsPrivateRelay)

            // Native: the iOS client as audience and authorized party, with the app's raw nonce.
            let raw = "google-raw-nonce"
            let native = try await mint.sign(Self.claims(base, ["aud": .string(Self.ios), "azp": .string(Self.ios), "nonce": .string(WireDigest.sha256Hex(raw))]))
            #expect(try await attempt(native, settings, nonce: .sha256OfRaw(raw)).tokenUse != nil)
            await expectRefusal(.nonce) { try await attempt(native, settings, nonce: .sha256OfRaw("other")) }
            await expectRefusal(.nonce, "a nonce without its raw value") { try await attempt(native, settings) }
            // The web client as audience with the iOS client as authorized party (Google Sign-In's server client id).
            #expect(try await attempt(try await mint.sign(Self.claims(base, ["azp": .string(Self.ios)])), settings).identity.email == "ada@example.com")

            await expectRefusal(.idToken, "another audience") { try await attempt(try await mint.sign(Self.claims(base, ["aud": .string("999-other.apps.googleusercontent.com"), "azp": nil])), settings) }
            await expectRefusal(.idToken, "another authorized party") { try await attempt(try await mint.sign(Self.claims(base, ["azp": .string("999-other.apps.googleusercontent.com")])), settings) }
            await expectRefusal(.idToken, "Google's real issuer while the base is moved") { try await attempt(try await mint.sign(Self.claims(base, ["iss": .string("accounts.google.com")])), settings) }
            await expectRefusal(.idToken, "alg none") { try await attempt(try mint.unsigned(Self.claims(base)), settings) }
            await expectRefusal(.idToken, "HS256") { try await attempt(try mint.hs256WithPublicKey(Self.claims(base)), settings) }
            await expectRefusal(.idToken, "expired") { try await attempt(try await mint.sign(Self.claims(base, ["iat": .number(Self.now - 7200), "exp": .number(Self.now - 3600)])), settings) }

            // Hosted domains: outside the list, none at all (a consumer account), or not the one the app asked for.
            await expectRefusal(.hostedDomainNotAllowed, "hd outside the list") { try await attempt(try await mint.sign(Self.claims(base, ["hd": .string("evil.example"), "email": .string("m@evil.example")])), settings) }
            await expectRefusal(.hostedDomainNotAllowed, "no hd") { try await attempt(try await mint.sign(Self.claims(base, ["hd": nil, "email": .string("ada@gmail.com")])), settings) }
            let open = Self.settings(base)
            let other = try await mint.sign(Self.claims(base, ["hd": .string("other.com")]))
            #expect(try await attempt(other, open).identity.federatedId == "110169484474386276334")
            await expectRefusal(.hostedDomainNotAllowed, "the app asked for example.com") { try await attempt(other, open, hd: "example.com") }
            let consumer = try await mint.sign(Self.claims(base, ["hd": nil]))
            await expectRefusal(.hostedDomainNotAllowed, "the app asked for any Workspace domain") { try await attempt(consumer, open, hd: "*") }

            // email_verified false (boolean or string) is not verified.
            #expect(try await attempt(try await mint.sign(Self.claims(base, ["email_verified": .bool(false)])), settings).emailVerified == false)
            #expect(try await attempt(try await mint.sign(Self.claims(base, ["email_verified": .string("true")])), settings).emailVerified)
        }
    }

    /// With `endpointBase`, google.com reads `<base>/.well-known/openid-configuration` like an `oidc.*` provider, so
    /// any OpenID provider stands in for Google: its endpoints (whatever their paths), its JWKS for native tokens,
    /// HTTP Basic at its token endpoint when it advertises no `client_secret_post`; an issuer other than the base is
    /// refused. Without `endpointBase` nothing is fetched: Google's fixed URLs.
    @Test func endpointBaseResolvesThroughDiscovery() async throws {
        let mint = try await TestTokenMint.make()
        let keys = try WireJSON.encoder.encode(JSONValue.object(["keys": .array([.object(mint.jwk.mapValues { .string($0) })])]))
        let router = Router()
        router.get("/op/.well-known/openid-configuration") { request, _ in
            let base = "http://\(request.head.authority ?? "")/op"
            let body = try WireJSON.encoder.encode(JSONValue.object([
                "issuer": .string(base), "authorization_endpoint": .string(base + "/authorize"), "token_endpoint": .string(base + "/token"),
                "jwks_uri": .string(base + "/jwks"), "userinfo_endpoint": .string(base + "/me"),
            ]))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/foreign/.well-known/openid-configuration") { _, _ in
            let body = try WireJSON.encoder.encode(JSONValue.object([
                "issuer": .string("https://accounts.google.com"), "authorization_endpoint": .string("https://accounts.google.com/o/oauth2/v2/auth"),
                "token_endpoint": .string("https://oauth2.googleapis.com/token"), "jwks_uri": .string("https://www.googleapis.com/oauth2/v3/certs"),
            ]))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/op/jwks") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: keys)))
        }
        router.post("/op/token") { request, _ in
            // Client authentication with HTTP Basic only (the discovery document advertises no method).
            let expected = "Basic " + Data("\(Self.web):web-secret".utf8).base64EncodedString()
            let body = try await request.body.collect(upTo: 1 << 16)
            let form = FormEncoding.decode(String(buffer: body))
            guard request.headers[.authorization] == expected, !form.contains(where: { $0.0 == "client_secret" }),
                  form.first(where: { $0.0 == "code" })?.1 == "the-code" else {
                return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_client"}"#)))
            }
            let idToken = try await mint.sign(Self.claims("", ["iss": .string("http://\(request.head.authority ?? "")/op"), "hd": nil, "nonce": .string("n1")]))
            let answer = try WireJSON.encoder.encode(JSONValue.object(["access_token": .string("at"), "token_type": .string("Bearer"),
                                                                       "id_token": .string(idToken)]))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let root = "http://127.0.0.1:\(try #require(client.port))"
            let base = root + "/op"
            let party = RelyingParty(clock: Self.clock.wallClock)
            let config = IdPConfig(providerId: "google.com", kind: .google, clientId: Self.web, clientSecret: "web-secret", endpointBase: base + "/")
            let provider = try await party.resolve(config, entraTenantOrHostedDomain: nil)
            #expect(provider.discovery.authorizationEndpoint == base + "/authorize")
            #expect(provider.googleSettings.jwksURI == base + "/jwks" && provider.googleSettings.issuers == [base])
            let url = party.authorizationURL(provider, redirectUri: "https://hearth.example/__/auth/handler", state: "st", nonce: "n1",
                                             codeChallenge: nil, scopes: ["openid", "email", "profile"], parameters: [])
            #expect(url.hasPrefix(base + "/authorize?client_id="))

            // The code exchange, with HTTP Basic, and the ID token checked against the discovered JWKS and issuer.
            let signIn = try await party.complete(provider, code: "the-code", redirectUri: "https://hearth.example/__/auth/handler",
                                                  codeVerifier: nil, nonce: "n1")
            #expect(signIn.identity.providerId == "google.com" && signIn.oauthAccessToken == "at")

            // A native token: keys from the discovered JWKS; Google's own issuer is refused while the base is moved.
            let raw = "raw-nonce"
            let native = try await mint.sign(Self.claims(root, ["iss": .string(base), "hd": nil, "nonce": .string(WireDigest.sha256Hex(raw))]))
            #expect(try await party.signIn(nativeIDToken: native, provider: provider, rawNonce: raw).identity.federatedId == "110169484474386276334")
            let realIssuer = try await mint.sign(Self.claims(root, ["hd": nil, "iss": .string("https://accounts.google.com")]))
            await expectRefusal(.idToken) { try await party.signIn(nativeIDToken: realIssuer, provider: provider, rawNonce: nil) }

            // A discovery document naming another issuer than the base.
            var foreign = config
            foreign.endpointBase = root + "/foreign"
            await #expect(throws: RelyingPartyError.self) { try await party.resolve(foreign, entraTenantOrHostedDomain: nil) }

            // No base: Google's fixed endpoints, nothing fetched.
            var real = config
            real.endpointBase = nil
            let google = try await party.resolve(real, entraTenantOrHostedDomain: nil)
            #expect(google.discovery.authorizationEndpoint == "https://accounts.google.com/o/oauth2/v2/auth")
            #expect(google.issuerRule == .oneOf(GoogleSignInSettings.googleIssuers))
        }
    }
}
