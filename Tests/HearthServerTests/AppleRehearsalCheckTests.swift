import Foundation
import HearthCore
import HearthDevIdP
import HearthOIDC
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// The Apple rehearsal of docs/providers.md (the dev Apple provider's credentials stored as a real `apple.com`
/// configuration, `endpointBase` pointing at `/__dev/apple`) checked by `hearth providers test` / the admin API's `:test`.
@Suite struct AppleRehearsalCheckTests {
    /// Issue 35, smaller things: with the endpoint base on another host than the server's public URL (`localhost` for
    /// `127.0.0.1`), the provider's issuer — the client secret's audience — differs from the base. The check names
    /// that, with the base to set, and no longer blames the key, key id, team id or services id (the client check,
    /// refused as invalid_client whatever the key, is not run).
    @Test func anEndpointBaseOnAnotherHostIsNamedNotBlamedOnTheKey() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let configs = try #require(h.devIdPs).providerConfigs()
            var apple = try #require(configs.first { $0.providerId == "apple.com" })
            let issuer = try #require(h.devIdPs).apple.base
            #expect(issuer.hasPrefix("http://127.0.0.1:"))
            apple.endpointBase = issuer.replacingOccurrences(of: "http://127.0.0.1:", with: "http://localhost:")
            let redirectUri = h.baseURL + "/__/auth/handler"
            let report = await RelyingParty(clock: h.clock.wallClock).checkConfiguration(apple, redirectUri: redirectUri, probeTimeout: .seconds(60))
            let issuerCheck = try #require(report.checks.first { $0.name == "issuer" }, "\(report.text)")
            #expect(issuerCheck.status == .failed, "\(report.text)")
            #expect(issuerCheck.detail.contains("names its issuer \(issuer)"), "\(report.text)")
            #expect(issuerCheck.fix?.contains("--endpoint-base \(issuer)") == true, "\(report.text)")
            #expect(!report.text.contains("the key, its key id"), "\(report.text)")
            #expect(!report.checks.contains { $0.name == "client" }, "\(report.text)")
            #expect(!report.text.contains("PRIVATE KEY"))

            // The rehearsal as documented (the server's own host): every check passes, the client secret is accepted.
            apple.endpointBase = issuer
            let good = await RelyingParty(clock: h.clock.wallClock).checkConfiguration(apple, redirectUri: redirectUri, probeTimeout: .seconds(60))
            #expect(good.checks.first { $0.name == "issuer" }?.status == .ok, "\(good.text)")
            #expect(good.checks.first { $0.name == "client" }?.status == .ok, "\(good.text)")
        }
    }
}
