import Foundation
import HTTPTypes
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Issue 38: a tenant's provider configurations answered under the tenant's own resource names.
@Suite struct TenantProviderConfigTests {
    /// Issue 38, item 2: `…/v2/projects/{p}/tenants/{t}/defaultSupportedIdpConfigs` and `…/oauthIdpConfigs` answer
    /// (create, get, list, patch) with Identity Platform's names, `projects/{p}/tenants/{t}/…`; the project's own
    /// stay `projects/{p}/…`, and neither sees the other's. (Found by Tests/e2e/web_sdk.py's tenant scenario: the
    /// tenant's configuration was named as the project's.)
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantsProviderConfigsAreNamedInTheTenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            let project = "\(WirePaths.identityToolkitV2)/projects/demo-hearth"
            let tenant = "\(project)/tenants/acme-aaaaa"
            /// An admin call with the emulator's owner credential.
            func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> HearthHarness.Reply {
                try await h.send(method, path, body: body, headers: TenantTests.owner)
            }
            let microsoft = #"{"enabled":true,"clientId":"acme-client","clientSecret":"acme-secret"}"#
            let oidc = #"{"enabled":true,"clientId":"acme-oidc","clientSecret":"s","issuer":"https://idp.acme.example","responseType":{"code":true}}"#
            let created = try await send(.post, "\(tenant)/defaultSupportedIdpConfigs?idpId=microsoft.com", microsoft)
            #expect(created.status == 200, "\(created.text)")
            #expect(created.json?["name"] as? String == "projects/demo-hearth/tenants/acme-aaaaa/defaultSupportedIdpConfigs/microsoft.com")
            let createdOIDC = try await send(.post, "\(tenant)/oauthIdpConfigs?oauthIdpConfigId=oidc.corp", oidc)
            #expect(createdOIDC.status == 200, "\(createdOIDC.text)")
            #expect(createdOIDC.json?["name"] as? String == "projects/demo-hearth/tenants/acme-aaaaa/oauthIdpConfigs/oidc.corp")
            for (path, name) in [("defaultSupportedIdpConfigs/microsoft.com", "projects/demo-hearth/tenants/acme-aaaaa/defaultSupportedIdpConfigs/microsoft.com"),
                                 ("oauthIdpConfigs/oidc.corp", "projects/demo-hearth/tenants/acme-aaaaa/oauthIdpConfigs/oidc.corp")] {
                let got = try await send(.get, "\(tenant)/\(path)")
                #expect(got.json?["name"] as? String == name, "\(got.text)")
                let patched = try await send(.patch, "\(tenant)/\(path)?updateMask=enabled", #"{"enabled":false}"#)
                #expect(patched.json?["name"] as? String == name && patched.json?["enabled"] as? Bool == false, "\(patched.text)")
                // The project has no such configuration.
                #expect(try await send(.get, "\(project)/\(path)").errorCode == "CONFIGURATION_NOT_FOUND")
            }
            let listed = try await send(.get, "\(tenant)/defaultSupportedIdpConfigs")
            #expect((listed.json?["defaultSupportedIdpConfigs"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == ["projects/demo-hearth/tenants/acme-aaaaa/defaultSupportedIdpConfigs/microsoft.com"])
            let listedOIDC = try await send(.get, "\(tenant)/oauthIdpConfigs")
            #expect((listedOIDC.json?["oauthIdpConfigs"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == ["projects/demo-hearth/tenants/acme-aaaaa/oauthIdpConfigs/oidc.corp"])

            // The project's own configuration keeps the project's name, and the tenant does not list it.
            let projectCreated = try await send(.post, "\(project)/defaultSupportedIdpConfigs?idpId=yahoo.com", #"{"enabled":true,"clientId":"p","clientSecret":"s"}"#)
            #expect(projectCreated.json?["name"] as? String == "projects/demo-hearth/defaultSupportedIdpConfigs/yahoo.com", "\(projectCreated.text)")
            let projectList = try await send(.get, "\(project)/defaultSupportedIdpConfigs")
            #expect((projectList.json?["defaultSupportedIdpConfigs"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                == ["projects/demo-hearth/defaultSupportedIdpConfigs/yahoo.com"])
            #expect(try await send(.get, "\(tenant)/defaultSupportedIdpConfigs/yahoo.com").errorCode == "CONFIGURATION_NOT_FOUND")
        }
    }
}
