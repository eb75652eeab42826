import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOIDC
import HearthTesting
import HearthWire
import NIOCore
import Testing

/// The configuration check against an OpenID provider nobody here wrote (oidc-provider-mock, started by
/// `scripts/test`, HEARTH_TEST_OIDC_ISSUER): its token endpoint must tell a wrong client secret from a made-up code.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] != nil, "needs the Python OpenID provider that scripts/test starts"))
struct GenericOIDCCheckTests {
    let issuer = ProcessInfo.processInfo.environment["HEARTH_TEST_OIDC_ISSUER"] ?? ""

    @Test func checkTellsAWrongSecretFromARightOne() async throws {
        try await HearthHarness.run { h in
            let client = try await GenericOIDCTests().registerClient(redirectUri: h.baseURL + "/__/auth/handler")
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.mock", kind: .oidc, clientId: client.id, clientSecret: client.secret, issuer: issuer))
            let good = try await h.server.federation.checkProvider("oidc.mock", in: h.scope)
            #expect(good.ok, "\(good.text)")
            #expect(good.checks.first { $0.name == "client" }?.status == .ok, "\(good.text)")

            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.mock", kind: .oidc, clientId: client.id, clientSecret: "not-the-secret", issuer: issuer))
            let wrong = try await h.server.federation.checkProvider("oidc.mock", in: h.scope)
            #expect(!wrong.ok, "\(wrong.text)")
            #expect(wrong.checks.first { $0.name == "client" }?.detail.contains("the client secret is wrong") == true, "\(wrong.text)")
        }
    }
}
