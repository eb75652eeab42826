import Foundation
import HearthCore
import HearthTesting
import Testing

/// The console's Microsoft dialog: the tenant allow-list field and the "Test configuration" button.
@Suite struct ConsoleProviderCheckTests {
    @Test func microsoftDialogSetsTenantsAndTestsTheConfiguration() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let console = ConsoleTests()
            let session = try await console.signIn(h)
            try await h.storeDevProviderConfig("microsoft.com")
            let clientId = h.devIdPs!.microsoftClient.id
            let dialog = try await h.send(.get, "/console/provider?id=microsoft.com", headers: session.headers)
            #expect(dialog.text.contains("Allowed tenants"))
            #expect(dialog.text.contains("Test configuration"))
            #expect(!(try await h.send(.get, "/console/provider?id=yahoo.com", headers: session.headers)).text.contains("Allowed tenants"))

            let saved = try await console.post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"),
                                                                                 ("clientId", clientId), ("clientSecret", ""), ("enabled", "true"),
                                                                                 ("allowedTenants", "Contoso.com, consumers")])
            #expect(saved.status == 303, "\(saved.text)")
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.allowedEntraTenants == ["contoso.com", "consumers"])
            #expect(try await h.send(.get, "/console/provider?id=microsoft.com", headers: session.headers).text.contains("value=\"contoso.com, consumers\""))
            let refused = try await console.post(h, "/console/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"),
                                                                                   ("clientId", clientId), ("clientSecret", ""), ("enabled", "true"),
                                                                                   ("allowedTenants", "common")])
            #expect(refused.status == 400)
            #expect(refused.text.contains("is not a Microsoft tenant"))
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.allowedEntraTenants == ["contoso.com", "consumers"], "a refused form changes nothing")

            let good = try await console.post(h, "/console/provider/test", session, [("csrf", session.csrf), ("provider", "microsoft.com")])
            #expect(good.status == 200)
            #expect(good.text.contains("the configuration looks right"), "\(good.text)")
            #expect(good.text.contains(h.baseURL + "/__/auth/handler"))

            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.clientSecret = "Console-Wrong-Secret-77"
            try await h.store.saveIdPConfig(config)
            let bad = try await console.post(h, "/console/provider/test", session, [("csrf", session.csrf), ("provider", "microsoft.com")])
            #expect(bad.text.contains("the client secret is wrong"))
            #expect(bad.text.contains("Fix:"))
            #expect(!bad.text.contains("Console-Wrong-Secret-77"))
            // A form without the session's CSRF token tests nothing.
            #expect(try await console.post(h, "/console/provider/test", session, [("provider", "microsoft.com")]).status == 403)
        }
    }
}
