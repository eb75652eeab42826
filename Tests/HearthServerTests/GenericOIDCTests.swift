import AsyncHTTPClient
import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import NIOCore
import Testing

/// An `oidc.*` provider nobody here wrote: oidc-provider-mock from PyPI (authlib), started by `scripts/test`,
/// which exports its issuer URL as HEARTH_TEST_OIDC_ISSUER.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] != nil, "needs the Python OpenID provider that scripts/test starts"))
struct GenericOIDCTests {
    let issuer = ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] ?? ""

    /// Registers a confidential client whose only redirect URI is this Hearth's handler.
    func registerClient(redirectUri: String) async throws -> (id: String, secret: String) {
        try await OIDCProviderMock.registerClient(issuer: issuer, redirectUri: redirectUri)
    }

    func setUser(_ sub: String, claims: [String: Any]) async throws {
        var request = HTTPClientRequest(url: issuer + "/users/" + sub)
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: claims)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status.code == 204)
    }

    @Test func signInThroughAThirdPartyOpenIDProvider() async throws {
        try await HearthHarness.run { h in
            let client = try await registerClient(redirectUri: h.baseURL + "/__/auth/handler")
            let sub = "alice-\(RandomID.alphanumeric(count: 6).lowercased())"
            try await setUser(sub, claims: ["email": "\(sub)@example.com", "email_verified": true, "name": "Alice Example",
                                            "given_name": "Alice", "family_name": "Example"])
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.mock", kind: .oidc, clientId: client.id, clientSecret: client.secret,
                                                      issuer: issuer, trustEmailVerified: true))
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.untrusted", kind: .oidc, clientId: client.id, clientSecret: client.secret,
                                                      issuer: issuer, trustEmailVerified: false))
            var project = try await h.scope.config()
            project.chooseAcceptAnyApp(true)
            try await h.store.saveProjectConfig(project)

            let reply = try await h.federatedSignIn(providerId: "oidc.mock", email: sub)
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "oidc.mock")
            #expect(body.federatedId == sub)
            #expect(body.email == "\(sub)@example.com")
            #expect(body.emailVerified == true)
            #expect(body.displayName == "Alice Example")
            #expect(body.isNewUser == true)
            let idToken = try #require(body.idToken)
            #expect((jwtPayload(idToken)?["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "oidc.mock")

            // An untrusted provider's email_verified is not believed; with one account per email the existing
            // account asks for confirmation instead of merging.
            let untrusted = try await h.federatedSignIn(providerId: "oidc.untrusted", email: sub)
            let untrustedBody = try untrusted.decode(SignInWithIdpResponse.self)
            #expect(untrustedBody.needConfirmation == true)
            #expect(untrustedBody.verifiedProvider == ["oidc.mock"])

            // A code replayed against the third-party provider is refused by it.
            let flow = try await h.browserSignIn(providerId: "oidc.mock", email: sub)
            #expect(try await h.signInWithIdp(flow, providerId: "oidc.mock").status == 200)
            let second = try await h.browserSignIn(providerId: "oidc.mock", email: sub)
            var spliced = second
            spliced.link = h.baseURL + "/__/auth/handler?code=\(Browser.query(flow.link!, "code")!)&state=\(Browser.query(second.link!, "state")!)"
            let replay = try await h.signInWithIdp(spliced, providerId: "oidc.mock")
            #expect(replay.errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    /// Issue 39, item 2: a sign-in with an `oidc.*` provider tells the project's blocking functions the verified ID
    /// token's claims as `sign_in_attributes` (Identity Platform sends them for OIDC providers), beside `raw_user_info`.
    @Test func blockingFunctionsGetTheIDTokensClaimsAsSignInAttributes() async throws {
        try await HearthHarness.run(configure: { $0.blockingFunctions.development = true }) { h in
            try await h.withHookEndpoint { hooks in
                let client = try await registerClient(redirectUri: h.baseURL + "/__/auth/handler")
                let sub = "grace-\(RandomID.alphanumeric(count: 6).lowercased())"
                try await setUser(sub, claims: ["email": "\(sub)@example.com", "email_verified": true, "name": "Grace Example"])
                try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.mock", kind: .oidc, clientId: client.id, clientSecret: client.secret,
                                                          issuer: issuer, trustEmailVerified: true))
                var project = try await h.scope.config()
                project.chooseAcceptAnyApp(true)
                try await h.store.saveProjectConfig(project)
                let body = #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"\#(hooks.url(for: .beforeCreate))"}}}}"#
                let patched = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                                               body: body, headers: [.authorization: "Bearer owner"])
                #expect(patched.status == 200, "\(patched.text)")

                let reply = try await h.federatedSignIn(providerId: "oidc.mock", email: sub)
                #expect(reply.status == 200, "\(reply.text)")
                let event = try #require(hooks.events(.beforeCreate).first)
                #expect(event.signInMethod == "oidc.mock")
                guard case .object(let attributes)? = event.claims.signInAttributes else {
                    Issue.record("no sign_in_attributes object: \(String(describing: event.claims.signInAttributes))")
                    return
                }
                #expect(attributes["sub"] == .string(sub))
                #expect(attributes["iss"]?.stringValue.map { $0.hasPrefix(issuer) || issuer.hasPrefix($0) } == true)
                #expect(event.claims.rawUserInfo?.contains("Grace Example") == true)
                #expect(hooks.rejections.isEmpty, "\(hooks.rejections)")
            }
        }
    }
}
