import AsyncHTTPClient
import Foundation
import HearthCore
import HearthTesting
import HearthWire
import NIOCore
import Testing

/// The provider token vault against a provider nobody here wrote: oidc-provider-mock (PyPI), started by
/// `scripts/test` (HEARTH_TEST_OIDC_ISSUER). It issues refresh tokens (without advertising offline_access, so
/// Hearth does not ask for it) and answers the refresh_token grant without rotating the refresh token.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] != nil, "needs the Python OpenID provider that scripts/test starts"))
struct GenericOIDCVaultTests {
    let issuer = ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] ?? ""

    func userInfoStatus(_ accessToken: String) async throws -> Int {
        var request = HTTPClientRequest(url: issuer + "/userinfo")
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code)
    }

    @Test func thirdPartyProvidersAccessTokenIsRenewed() async throws {
        let keyLine = ProviderTokenKeys.generate(id: "oidc")
        let keys = try ProviderTokenKeys.parse(keyLine)
        try await HearthHarness.run(configure: HearthHarness.vault(keyLine)) { h in
            let generic = GenericOIDCTests()
            let client = try await generic.registerClient(redirectUri: h.baseURL + "/__/auth/handler")
            let sub = "vault-\(RandomID.alphanumeric(count: 6).lowercased())"
            try await generic.setUser(sub, claims: ["email": "\(sub)@example.com", "email_verified": true, "name": "Vault User"])
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.mock", kind: .oidc, clientId: client.id, clientSecret: client.secret,
                                                      issuer: issuer, trustEmailVerified: true))
            var project = try await h.scope.config()
            project.chooseAcceptAnyApp(true)
            try await h.store.saveProjectConfig(project)

            let reply = try await h.federatedSignIn(providerId: "oidc.mock", email: sub)
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            let localId = try #require(body.localId)
            let firstAccessToken = try #require(body.oauthAccessToken)
            let record = try #require(try await h.store.providerTokens(localId: localId, providerId: "oidc.mock"),
                                      "oidc-provider-mock gave no refresh token")
            let kept = try keys.open(sealed: record.sealed, keyId: record.keyId, localId: localId, providerId: "oidc.mock")
            #expect(kept.refreshToken?.isEmpty == false)

            // Hearth's clock passes the token's hour; the vault renews it at the provider's token endpoint.
            h.clock.advance(by: 3601)
            let path = WirePaths.providerAccessToken + "?key=test-key"
            let renewed = try await h.send(.post, path, body: #"{"providerId":"oidc.mock"}"#, headers: [.authorization: "Bearer \(try #require(body.idToken))"])
            #expect(renewed.status == 200, "\(renewed.text)")
            let token = try renewed.decode(ProviderAccessTokenResponse.self).accessToken
            #expect(token != firstAccessToken)
            #expect(try await userInfoStatus(token) == 200)
            // No rotation: the same refresh token stays kept.
            let after = try #require(try await h.store.providerTokens(localId: localId, providerId: "oidc.mock"))
            #expect(try keys.open(sealed: after.sealed, keyId: after.keyId, localId: localId, providerId: "oidc.mock").refreshToken == kept.refreshToken)
        }
    }
}
