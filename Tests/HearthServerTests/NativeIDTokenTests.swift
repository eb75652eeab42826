import Crypto
import Foundation
import HearthCore
import HearthDevIdP
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Item 13.2: `signInWithIdp` with a provider ID token the app obtained natively (as MSAL or Yahoo's SDK do),
/// against the dev IdPs: accepted only when every check passes, and the attacks refused.
@Suite struct NativeIDTokenTests {
    static func sha256Hex(_ text: String) -> String { Data(SHA256.hash(data: Data(text.utf8))).hexString }

    static func nativeTokens(_ h: HearthHarness, _ provider: DevIdentityProviders.Provider, email: String, nonce: String?,
                             tenant: String = "common") async throws -> (idToken: String, accessToken: String) {
        try await h.nativeProviderTokens(provider, email: email, nonce: nonce, tenant: tenant)
    }

    static func signIn(_ h: HearthHarness, providerId: String, postBody: [(String, String)], idToken: String? = nil,
                       autoCreate: Bool? = nil) async throws -> HearthHarness.Reply {
        try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
            requestUri: "http://localhost", postBody: FormEncoding.encode(postBody + [("providerId", providerId)]), sessionId: nil,
            idToken: idToken, returnSecureToken: true, returnIdpCredential: true, autoCreate: autoCreate))
    }

    @Test func microsoftTokenWithTheHashedNonceSignsIn() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let raw = RandomID.token(byteCount: 16)
            let tokens = try await Self.nativeTokens(h, .microsoft, email: "nat@contoso.com", nonce: Self.sha256Hex(raw))
            let reply = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.idToken), ("nonce", raw)])
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "microsoft.com")
            #expect(body.isNewUser == true)
            #expect(body.email == "nat@contoso.com")
            #expect(body.idToken != nil && body.refreshToken != nil)
            #expect(body.oauthAccessToken == nil)
            let sessionToken = try #require(body.idToken)
            let claims = try #require(jwtPayload(sessionToken))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "microsoft.com")
            // The same person through the web flow is the same account.
            let web = try await h.federatedSignIn(providerId: "microsoft.com", email: "nat@contoso.com").decode(SignInWithIdpResponse.self)
            #expect(web.localId == body.localId)
            #expect(web.federatedId == body.federatedId)

            // A token requested without a nonce (as MSAL's can be) signs in without one; a token whose nonce the app
            // cannot name the raw value of is refused (issue 17: a provider ID token is not a bearer credential).
            let msal = try await Self.nativeTokens(h, .microsoft, email: "nat@contoso.com", nonce: nil)
            let again = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", msal.idToken)])
            #expect(again.status == 200, "\(again.text)")
            #expect(try again.decode(SignInWithIdpResponse.self).isNewUser == false)
            let chosen = try await Self.nativeTokens(h, .microsoft, email: "nat@contoso.com", nonce: "chosen-by-msal")
            let refused = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", chosen.idToken)])
            #expect(refused.errorCode == "MISSING_OR_INVALID_NONCE", "\(refused.text)")
        }
    }

    @Test func yahooAndGenericOpenIDProviders() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let raw = "yahoo-raw-nonce"
            let yahoo = try await Self.nativeTokens(h, .yahoo, email: "yan@yahoo.com", nonce: Self.sha256Hex(raw))
            let reply = try await Self.signIn(h, providerId: "yahoo.com", postBody: [("id_token", yahoo.idToken), ("nonce", raw)])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.decode(SignInWithIdpResponse.self).email == "yan@yahoo.com")

            // The Yahoo-shaped dev provider as a generic oidc.* issuer.
            let dev = try #require(h.devIdPs)
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.devyahoo", kind: .oidc, clientId: dev.yahooClient.id,
                                                      clientSecret: dev.yahooClient.secret, issuer: dev.yahooBase))
            // Yahoo requires a nonce: the app sends the raw one with the token.
            let genericRaw = "generic-raw-nonce"
            let generic = try await Self.nativeTokens(h, .yahoo, email: "gen@yahoo.com", nonce: Self.sha256Hex(genericRaw))
            let oidc = try await Self.signIn(h, providerId: "oidc.devyahoo", postBody: [("id_token", generic.idToken), ("nonce", genericRaw)])
            #expect(oidc.status == 200, "\(oidc.text)")
            #expect(try oidc.decode(SignInWithIdpResponse.self).providerId == "oidc.devyahoo")
        }
    }

    @Test func linkAndReauthenticateWithANativeToken() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let user = try await h.signUp(email: "owner@example.com")
            let tokens = try await Self.nativeTokens(h, .microsoft, email: "owner@contoso.com", nonce: nil)
            let linked = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.idToken)], idToken: user.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(try linked.decode(SignInWithIdpResponse.self).localId == user.localId)
            // Reauthentication with an unknown account creates nothing.
            let stranger = try await Self.nativeTokens(h, .microsoft, email: "stranger@contoso.com", nonce: nil)
            let count = try await h.store.userCount()
            let reauth = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", stranger.idToken)], autoCreate: false)
            #expect(reauth.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.userCount() == count)
        }
    }

    @Test func anAllowedNativeClientIDIsAcceptedOnlyOnceConfigured() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            try await h.storeDevProviderConfig("microsoft.com")
            var m = DevMisbehavior()
            m.mutateClaims = { $0["aud"] = .string("11111111-2222-3333-4444-555555555555") }
            await h.devIdPs!.setMisbehavior(.microsoft, m)
            let tokens = try await Self.nativeTokens(h, .microsoft, email: "app@contoso.com", nonce: nil)
            await h.devIdPs!.setMisbehavior(.microsoft, DevMisbehavior())
            let refused = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.idToken)])
            #expect(refused.errorCode == "INVALID_IDP_RESPONSE")
            #expect(refused.envelope?.error.message.contains("issued to another client") == true)

            let path = WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs/microsoft.com") + "?updateMask=nativeClientIds"
            let patch = try await h.send(.patch, path, body: #"{"nativeClientIds":["11111111-2222-3333-4444-555555555555"]}"#,
                                         headers: [.authorization: "Bearer owner"])
            #expect(patch.status == 200, "\(patch.text)")
            #expect(patch.json?["nativeClientIds"] as? [String] == ["11111111-2222-3333-4444-555555555555"])
            let accepted = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.idToken)])
            #expect(accepted.status == 200, "\(accepted.text)")
            // A malformed list is refused with the rule.
            let bad = try await h.send(.patch, path, body: #"{"nativeClientIds":["has space"]}"#, headers: [.authorization: "Bearer owner"])
            #expect(bad.errorCode == "INVALID_CONFIG")
        }
    }

    // MARK: Attacks

    /// A token the dev Microsoft provider signs with `misbehavior`, sent as a native ID token.
    func attack(_ misbehavior: DevMisbehavior = DevMisbehavior(), provider: DevIdentityProviders.Provider = .microsoft,
                email: String = "victim@contoso.com", nonce: String? = nil, sentNonce: String? = nil,
                extra: [(String, String)] = []) async throws -> HearthHarness.Reply {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            await h.devIdPs!.setMisbehavior(provider, misbehavior)
            let tokens = try await Self.nativeTokens(h, provider, email: email, nonce: nonce)
            var body = [("id_token", tokens.idToken)] + extra
            if let sentNonce { body.append(("nonce", sentNonce)) }
            let reply = try await Self.signIn(h, providerId: provider == .microsoft ? "microsoft.com" : "yahoo.com", postBody: body)
            #expect(try await h.store.userCount() == 0, "an attack created an account")
            return reply
        }
    }

    func expectRefused(_ reply: HearthHarness.Reply, _ code: String = "INVALID_IDP_RESPONSE", containing text: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 400, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.envelope?.error.message.contains(text) == true, "\(reply.text)", sourceLocation: sourceLocation)
    }

    @Test func anotherAppsToken() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { $0["aud"] = .string("another-app-client-id") }
        expectRefused(try await attack(m), containing: "issued to another client")
    }

    @Test func anotherAppsTokenAmongSeveralAudiences() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { claims in
            claims["aud"] = .array([claims["aud"]!, .string("another-app-client-id")])
            claims["azp"] = .string("another-app-client-id")
        }
        expectRefused(try await attack(m), containing: "authorized party")
    }

    @Test func anotherTenant() async throws {
        // The app narrowed sign-in to contoso.com; a fabrikam.com account's token is refused.
        expectRefused(try await attack(email: "mallory@fabrikam.com", extra: [("tenant", "contoso.com")]), containing: "issuer")
    }

    @Test func expiredToken() async throws {
        var m = DevMisbehavior()
        m.mutateClaims = { claims in
            claims["iat"] = .number(Date().timeIntervalSince1970 - 7200)
            claims["nbf"] = .number(Date().timeIntervalSince1970 - 7200)
            claims["exp"] = .number(Date().timeIntervalSince1970 - 3600)
        }
        expectRefused(try await attack(m), containing: "expired")
    }

    @Test func algNoneAndNoSignature() async throws {
        var m = DevMisbehavior()
        m.unsignedTokens = true
        expectRefused(try await attack(m), containing: "algorithm none is not accepted")
        // A signed token with its signature cut off.
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let tokens = try await Self.nativeTokens(h, .microsoft, email: "victim@contoso.com", nonce: nil)
            let parts = tokens.idToken.split(separator: ".")
            let stripped = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", "\(parts[0]).\(parts[1]).")])
            expectRefused(stripped, containing: "ID token")
            let twoParts = try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", "\(parts[0]).\(parts[1])")])
            expectRefused(twoParts, containing: "not a JWT")
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func forgedSignatureAndUnpublishedKey() async throws {
        var corrupt = DevMisbehavior()
        corrupt.corruptSignature = true
        expectRefused(try await attack(corrupt), containing: "signature")
        var unpublished = DevMisbehavior()
        unpublished.signWithUnpublishedKey = true
        expectRefused(try await attack(unpublished), containing: "does not publish")
    }

    @Test func accessTokenInTheIDTokenFieldAndBareAccessTokens() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let tokens = try await Self.nativeTokens(h, .microsoft, email: "victim@contoso.com", nonce: nil)
            expectRefused(try await Self.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.accessToken)]), containing: "not a JWT")
            expectRefused(try await Self.signIn(h, providerId: "microsoft.com", postBody: [("access_token", tokens.accessToken)]),
                          containing: "bare access_token is not accepted")
            // A Microsoft token presented as Yahoo's: Yahoo's keys and issuer refuse it.
            expectRefused(try await Self.signIn(h, providerId: "yahoo.com", postBody: [("id_token", tokens.idToken)]), containing: "ID token")
            // Providers Hearth does not federate.
            let facebook = try await Self.signIn(h, providerId: "facebook.com", postBody: [("id_token", tokens.idToken)])
            #expect(facebook.errorCode == "INVALID_PROVIDER_ID")
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func wrongNonce() async throws {
        // The token carries the hash of another nonce than the one the app sends.
        expectRefused(try await attack(nonce: Self.sha256Hex("the-real-nonce"), sentNonce: "another-nonce"), "MISSING_OR_INVALID_NONCE",
                      containing: "SHA-256")
        // The raw nonce itself in the token is not its hash (Firebase's rule).
        expectRefused(try await attack(nonce: "raw-nonce", sentNonce: "raw-nonce"), "MISSING_OR_INVALID_NONCE", containing: "SHA-256")
    }
}
