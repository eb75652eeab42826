import Foundation
import HearthCore
import HearthDevIdP
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 21, item 3: `accounts:revokeToken` (Firebase's `Auth.revokeToken(withAuthorizationCode:)`) exchanges the
/// app's authorization code at the Apple-shaped dev provider with a minted client secret and revokes the grant,
/// only for the signed-in user's own Apple account; deleting a user whose Apple refresh token is in the vault
/// revokes it too.
@Suite struct AppleRevokeTokenTests {
    static let path = WirePaths.identityToolkitV2 + "/accounts:revokeToken?key=test-key"

    /// A server with vault keys and the dev IdPs (their apple.com settings serve: services id, bundle id, key).
    static func run(_ body: @Sendable (HearthHarness, AppleGoogleServerTests.Env) async throws -> Void) async throws {
        try await HearthHarness.run(configure: ProviderTokenVaultTests.vault(ProviderTokenVaultTests.key().line), devIdPs: true) { h in
            let dev = try #require(h.devIdPs)
            try await body(h, AppleGoogleServerTests.Env(h: h, apple: dev.apple, google: dev.google, credentials: dev.appleCredentials))
        }
    }

    /// Signs `email` in through the web flow; returns the answer (uid, ID token).
    static func signIn(_ env: AppleGoogleServerTests.Env, email: String) async throws -> SignInWithIdpResponse {
        let flow = try await AppleGoogleServerTests.appleBrowser(env, email: email, name: "Test Person")
        let reply = try await env.h.signInWithIdp(flow.flow, providerId: "apple.com")
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(SignInWithIdpResponse.self)
    }

    /// What the native Sign in with Apple sheet gives the app: an authorization code issued to the bundle id.
    static func nativeCode(_ env: AppleGoogleServerTests.Env, email: String) async throws -> String {
        let authorize = env.apple.base + "/auth/authorize?" + FormEncoding.encode([
            ("client_id", env.credentials.bundleIds[0]), ("redirect_uri", env.h.baseURL + AuthHandlerProtocol.handlerPath), ("response_type", "code"),
            ("response_mode", "query"), ("scope", ""), ("state", "native"), ("nonce", "app-nonce"),
        ])
        let page = try await DevAppleGoogleProviderTests.login(authorize, email: email, name: "")
        let location = try #require(page.location, "\(page.body.prefix(300))")
        return try #require(Browser.query(location, "code"))
    }

    static func revoke(_ h: HearthHarness, token: String?, idToken: String?, tokenType: Any? = "3", providerId: String = "apple.com",
                       bundleId: String? = nil, extra: [String: Any] = [:]) async throws -> HearthHarness.Reply {
        var body: [String: Any] = ["providerId": providerId]
        if let token { body["token"] = token }
        if let idToken { body["idToken"] = idToken }
        if let tokenType { body["tokenType"] = tokenType }
        body.merge(extra) { _, new in new }
        var headers: HTTPFields = [:]
        if let bundleId { headers[HTTPField.Name("X-Ios-Bundle-Identifier")!] = bundleId }
        return try await h.send(.post, path, body: AppleGoogleServerTests.json(body), headers: headers)
    }

    static func errorMessage(_ reply: HearthHarness.Reply) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(reply.text.utf8))) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }.flatMap { $0["message"] as? String } ?? reply.text
    }

    @Test func aNativeCodeIsExchangedAndItsGrantRevoked() async throws {
        try await Self.run { h, env in
            let ada = try await Self.signIn(env, email: "ada@example.com")
            let idToken = try #require(ada.idToken)
            let before = env.apple.revokedTokenCount
            // The Apple SDK's shape: tokenType "3" (the enum's number, as a string), the bundle id in a header.
            let code = try await Self.nativeCode(env, email: "ada@example.com")
            let revoked = try await Self.revoke(h, token: code, idToken: idToken, bundleId: env.credentials.bundleIds[0])
            #expect(revoked.status == 200, "\(revoked.text)")
            #expect(revoked.text.trimmingCharacters(in: .whitespacesAndNewlines) == "{}")
            #expect(env.apple.revokedTokenCount == before + 1)
            // The same code again: Apple refuses it (single use), nothing more is revoked.
            let replay = try await Self.revoke(h, token: code, idToken: idToken, bundleId: env.credentials.bundleIds[0])
            #expect(replay.status == 400)
            #expect(Self.errorMessage(replay).hasPrefix("INVALID_IDP_RESPONSE"), "\(replay.text)")
            #expect(env.apple.revokedTokenCount == before + 1)
            // The REST reference's shape: tokenType by name, on the v1 path, without the header (one bundle id).
            let second = try await Self.nativeCode(env, email: "ada@example.com")
            let body = AppleGoogleServerTests.json(["providerId": "apple.com", "tokenType": "CODE", "token": second, "idToken": idToken])
            let v1 = try await h.send(.post, WirePaths.accounts("revokeToken") + "?key=test-key", body: body)
            #expect(v1.status == 200, "\(v1.text)")
            #expect(env.apple.revokedTokenCount == before + 2)
            // A number in JSON works as well.
            let third = try await Self.nativeCode(env, email: "ada@example.com")
            let numeric = try await Self.revoke(h, token: third, idToken: idToken, tokenType: 3)
            #expect(numeric.status == 200, "\(numeric.text)")
        }
    }

    @Test func anotherUsersCodeAndBadInputAreRefused() async throws {
        try await Self.run { h, env in
            let ada = try await Self.signIn(env, email: "ada@example.com")
            let idToken = try #require(ada.idToken)
            let before = env.apple.revokedTokenCount
            // Bob's code with Ada's session: exchanged, but the grant is not Ada's — never revoked.
            _ = try await Self.signIn(env, email: "bob@example.com")
            let bobsCode = try await Self.nativeCode(env, email: "bob@example.com")
            let other = try await Self.revoke(h, token: bobsCode, idToken: idToken)
            #expect(other.status == 400)
            #expect(Self.errorMessage(other).contains("another Apple account"), "\(other.text)")
            #expect(env.apple.revokedTokenCount == before)

            let code = try await Self.nativeCode(env, email: "ada@example.com")
            let cases: [(HearthHarness.Reply, String, String)] = [
                (try await Self.revoke(h, token: code, idToken: nil), "MISSING_ID_TOKEN", "no ID token"),
                (try await Self.revoke(h, token: code, idToken: "not.a.token"), "INVALID_ID_TOKEN", "forged ID token"),
                (try await Self.revoke(h, token: code, idToken: idToken, providerId: "google.com"), "INVALID_PROVIDER_ID", "another provider"),
                (try await Self.revoke(h, token: code, idToken: idToken, tokenType: nil), "INVALID_ARGUMENT", "no token type"),
                (try await Self.revoke(h, token: code, idToken: idToken, tokenType: "7"), "INVALID_ARGUMENT", "unknown token type"),
                (try await Self.revoke(h, token: code, idToken: idToken, tokenType: "TOKEN_TYPE_UNSPECIFIED"), "INVALID_ARGUMENT", "unspecified"),
                (try await Self.revoke(h, token: nil, idToken: idToken), "INVALID_ARGUMENT", "no token"),
                (try await Self.revoke(h, token: String(repeating: "a", count: 5000), idToken: idToken), "INVALID_ARGUMENT", "oversized token"),
                (try await Self.revoke(h, token: "abc\u{0}def", idToken: idToken), "INVALID_ARGUMENT", "NUL in the token"),
                (try await Self.revoke(h, token: "c\u{00E9}d\u{00E9}", idToken: idToken), "INVALID_ARGUMENT", "non-ASCII token"),
                (try await Self.revoke(h, token: code, idToken: idToken, bundleId: "com.attacker.app"), "INVALID_ARGUMENT", "unregistered bundle id"),
                (try await Self.revoke(h, token: code, idToken: idToken, extra: ["redirectUri": "http://localhost/x"]), "INVALID_ARGUMENT", "non-https redirect"),
                (try await Self.revoke(h, token: code, idToken: idToken, extra: ["tenantId": "t1"]), "TENANT_NOT_FOUND", "a tenant"),
            ]
            for (reply, code, what) in cases {
                #expect(reply.status == 400, "\(what): \(reply.text)")
                #expect(Self.errorMessage(reply).hasPrefix(code), "\(what): \(reply.text)")
            }
            // A password user has no Apple grant to revoke.
            let password = try await h.signUp(email: "carol@example.com")
            let noApple = try await Self.revoke(h, token: code, idToken: password.idToken)
            #expect(Self.errorMessage(noApple).hasPrefix("INVALID_PROVIDER_ID"), "\(noApple.text)")
            #expect(env.apple.revokedTokenCount == before)
            // The unused code still works for its owner after all the refusals.
            let fine = try await Self.revoke(h, token: code, idToken: idToken)
            #expect(fine.status == 200, "\(fine.text)")
            #expect(env.apple.revokedTokenCount == before + 1)
        }
    }

    @Test func deletingAUserRevokesTheVaultsAppleGrant() async throws {
        try await Self.run { h, env in
            // The user deletes their own account.
            let ada = try await Self.signIn(env, email: "ada@example.com")
            let adaId = try #require(ada.localId)
            #expect(try await h.store.providerTokens(localId: adaId, providerId: "apple.com") != nil)
            let before = env.apple.revokedTokenCount
            let deleted = try await h.send(.post, WirePaths.accounts("delete") + "?key=test-key",
                                           body: AppleGoogleServerTests.json(["idToken": try #require(ada.idToken)]))
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(env.apple.revokedTokenCount == before + 1)
            #expect(try await h.store.user(localId: adaId) == nil)

            // An administrator deletes one, then a batch (one of them refused: not disabled, no force).
            let bob = try await Self.signIn(env, email: "bob@example.com")
            let admin = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:delete",
                                         body: AppleGoogleServerTests.json(["localId": try #require(bob.localId)]), headers: AppleGoogleServerTests.owner)
            #expect(admin.status == 200, "\(admin.text)")
            #expect(env.apple.revokedTokenCount == before + 2)

            let carol = try await Self.signIn(env, email: "carol@example.com")
            let dave = try await Self.signIn(env, email: "dave@example.com")
            let carolId = try #require(carol.localId), daveId = try #require(dave.localId)
            let disable = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:update",
                                           body: AppleGoogleServerTests.json(["localId": carolId, "disableUser": true]), headers: AppleGoogleServerTests.owner)
            #expect(disable.status == 200, "\(disable.text)")
            let batch = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:batchDelete",
                                         body: AppleGoogleServerTests.json(["localIds": [carolId, daveId]]), headers: AppleGoogleServerTests.owner)
            #expect(batch.status == 200, "\(batch.text)")
            #expect(batch.text.contains("NOT_DISABLED"))
            // Carol (disabled) was deleted and revoked; Dave (enabled, refused) keeps his grant.
            #expect(env.apple.revokedTokenCount == before + 3)
            #expect(try await h.store.user(localId: daveId) != nil)
            #expect(try await h.store.providerTokens(localId: daveId, providerId: "apple.com") != nil)
        }
    }

    @Test func tokenTypeReadsNamesAndNumbers() throws {
        let decoder = JSONDecoder()
        func decode(_ json: String) throws -> RevokeTokenType? {
            try decoder.decode(RevokeTokenRequest.self, from: Data(json.utf8)).tokenType
        }
        #expect(try decode(#"{"tokenType":"3"}"#) == .code)
        #expect(try decode(#"{"tokenType":3}"#) == .code)
        #expect(try decode(#"{"tokenType":"CODE"}"#) == .code)
        #expect(try decode(#"{"tokenType":"refresh_token"}"#) == .refreshToken)
        #expect(try decode(#"{"tokenType":"2"}"#) == .accessToken)
        #expect(try decode(#"{"tokenType":"9"}"#) == .unknown("9"))
        #expect(try decode(#"{}"#) == nil)
        let encoded = String(decoding: try JSONEncoder().encode(RevokeTokenRequest(providerId: "apple.com", tokenType: .code, token: "c", idToken: "i")), as: UTF8.self)
        #expect(encoded.contains(#""tokenType":"CODE""#))
    }
}
