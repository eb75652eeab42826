import Foundation
import HTTPTypes
import HearthCore
import HearthServer
@testable import HearthOIDC
import HearthTesting
import HearthWire
import Testing

/// Issue 13 item 3: the administrator's Microsoft tenant allow-list, enforced on the validated token's `tid` on
/// every path, and never widened by the app's `tenant` parameter. The dev Microsoft IdP has one tenant per email
/// domain (and the consumer tenant for outlook.com, hotmail.com, live.com), each with its own discovery document.
@Suite struct EntraTenantAllowListTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// The dev IdP's tenant id of a domain, read from the domain's discovery document as a person would.
    static func tenantId(_ h: HearthHarness, domain: String) async throws -> String {
        let page = try await Browser.get("\(h.devIdPs!.microsoftBase)/\(domain)/v2.0/.well-known/openid-configuration")
        let issuer = try #require((try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])?["issuer"] as? String)
        return try #require(issuer.split(separator: "/").dropLast().last.map(String.init))
    }

    static func allow(_ h: HearthHarness, _ tenants: [String]) async throws {
        try await h.storeDevProviderConfig("microsoft.com")
        var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
        config.allowedEntraTenants = tenants
        try await h.store.saveIdPConfig(config)
    }

    /// Where the auth handler sends the browser for a sign-in (the provider's authorize URL).
    static func authorizeURL(_ h: HearthHarness, tenant: String? = nil) async throws -> String {
        let start = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "SESSIONABCDEF",
                                                       customParameters: tenant.map { ["tenant": $0] }))
        return try #require(start.location)
    }

    func expectTenantRefused(_ reply: HearthHarness.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 400, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "INVALID_IDP_RESPONSE", sourceLocation: sourceLocation)
        #expect(reply.envelope?.error.message.contains("are not allowed to sign in to this app") == true, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.envelope?.providerErrorMetadata?["reason"] == "tenant_not_allowed", "\(reply.text)", sourceLocation: sourceLocation)
    }

    @Test func oneAllowedDomainIsTheAuthorityAndOtherTenantsAreRefused() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await Self.allow(h, ["contoso.com"])
            let contoso = try await Self.tenantId(h, domain: "contoso.com")
            // One tenant allowed: Microsoft is asked for that tenant only (its tenant id, resolved from the domain).
            #expect(try await Self.authorizeURL(h).contains("/microsoft/\(contoso)/oauth2/v2.0/authorize"))
            let ok = try await h.federatedSignIn(providerId: "microsoft.com", email: "alice@contoso.com")
            #expect(ok.status == 200, "\(ok.text)")
            // Another tenant's user is turned away by the provider itself (the authority is contoso's).
            let other = try await h.browserSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com")
            #expect(other.link == nil)
            #expect(other.webError?.providerErrorCode == "AADSTS50020")
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test func tokenOfATenantNotAllowedIsRefusedOnSignInLinkAndReauthentication() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // Personal accounts and one work tenant: the authority must be `common`, so Microsoft issues tokens
            // for any tenant and only the tid check stands between them and the app.
            try await Self.allow(h, ["consumers", "contoso.com"])
            #expect(try await Self.authorizeURL(h).contains("/microsoft/common/oauth2/v2.0/authorize"))

            // Sign-in.
            expectTenantRefused(try await h.federatedSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com"))
            #expect(try await h.store.userCount() == 0)

            // Link to a signed-in password user.
            let ada = try await h.signUp(email: "ada@example.com")
            expectTenantRefused(try await h.federatedSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com", idToken: ada.idToken))
            #expect(try await h.store.user(localId: ada.localId)?.identities.isEmpty == true)

            // Reauthentication (autoCreate=false) of an account linked before the allow-list was narrowed.
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.allowedEntraTenants = nil
            try await h.store.saveIdPConfig(config)
            let linked = try await h.federatedSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com", idToken: ada.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            config.allowedEntraTenants = ["consumers", "contoso.com"]
            try await h.store.saveIdPConfig(config)
            expectTenantRefused(try await h.federatedSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com", autoCreate: false))
            // …and a plain sign-in of that linked account is refused as well.
            expectTenantRefused(try await h.federatedSignIn(providerId: "microsoft.com", email: "mallory@fabrikam.com"))

            // The allowed tenants still sign in.
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "eve@outlook.com").status == 200)
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "bob@contoso.com").status == 200)
            #expect(try await h.store.userCount() == 3)
        }
    }

    /// A natively obtained Microsoft ID token (MSAL) goes through the same tenant check: a token of a tenant not on
    /// the list is refused and creates nothing; the app's `tenant` in postBody cannot widen the list either.
    @Test func nativeIDTokenOfATenantNotAllowedIsRefused() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await Self.allow(h, ["contoso.com"])
            func native(_ email: String, extra: [(String, String)] = []) async throws -> HearthHarness.Reply {
                let tokens = try await h.nativeProviderTokens(.microsoft, email: email, nonce: nil)
                return try await NativeIDTokenTests.signIn(h, providerId: "microsoft.com", postBody: [("id_token", tokens.idToken)] + extra)
            }
            let allowed = try await native("alice@contoso.com")
            #expect(allowed.status == 200, "\(allowed.text)")
            expectTenantRefused(try await native("mallory@fabrikam.com"))
            let widened = try await native("mallory@fabrikam.com", extra: [("tenant", "fabrikam.com")])
            #expect(widened.status == 400 && widened.text.contains("fabrikam.com"), "\(widened.text)")
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test func appTenantParameterNarrowsButNeverWidens() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let contoso = try await Self.tenantId(h, domain: "contoso.com")
            try await Self.allow(h, [contoso.uppercased(), "fabrikam.com"])
            // Two work tenants: `organizations`, whatever the app asks for within the list.
            #expect(try await Self.authorizeURL(h).contains("/microsoft/organizations/oauth2/v2.0/authorize"))
            #expect(try await Self.authorizeURL(h, tenant: "common").contains("/microsoft/organizations/oauth2/"))

            // Widening attempts are refused before the browser ever reaches Microsoft.
            for tenant in ["evil.com", "consumers", try await Self.tenantId(h, domain: "evil.com"), "9188040d-6c67-4c5b-b112-36a304b66dad"] {
                let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "x@evil.com", customParameters: ["tenant": tenant])
                #expect(flow.link == nil, "tenant \(tenant)")
                #expect(flow.webError?.webCode == .operationNotAllowed, "tenant \(tenant): \(String(describing: flow.webError))")
                #expect(flow.appURL?.hasPrefix("http://127.0.0.1:65000/") == true, "delivered to the app, not sent to the provider")
            }
            // `common` (within the list) still gets a token for a stranger from the provider; the tid check refuses it.
            expectTenantRefused(try await h.federatedSignIn(providerId: "microsoft.com", email: "x@evil.com", customParameters: ["tenant": "common"]))
            let refusals = h.server.configuration.metrics.counterValue(.providerErrors, ["microsoft.com", "tenant_not_allowed"])
            #expect(refusals == 5, "four widening attempts and one token of another tenant")

            // Narrowing to one allowed tenant: that tenant is the authority, the other allowed tenant is turned away.
            #expect(try await Self.authorizeURL(h, tenant: "fabrikam.com").contains("/microsoft/fabrikam.com/oauth2/"))
            let narrowed = try await h.browserSignIn(providerId: "microsoft.com", email: "alice@contoso.com", customParameters: ["tenant": "fabrikam.com"])
            #expect(narrowed.webError?.providerErrorCode == "AADSTS50020")
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "bob@fabrikam.com", customParameters: ["tenant": "fabrikam.com"]).status == 200)
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "alice@contoso.com", customParameters: ["tenant": contoso]).status == 200)
            #expect(try await h.store.userCount() == 2)
        }
    }

    @Test func adminAPISetsShowsAndChecksTheList() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            let path = "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/defaultSupportedIdpConfigs/microsoft.com"
            let set = try await h.send(.patch, path + "?updateMask=allowedTenants", body: #"{"allowedTenants":["Contoso.com","consumers","contoso.com"]}"#,
                                       headers: Self.owner)
            #expect(set.status == 200, "\(set.text)")
            #expect(try set.decode(DefaultSupportedIdpConfig.self).allowedTenants == ["contoso.com", "consumers"])
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.allowedEntraTenants == ["contoso.com", "consumers"])
            let shown = try await h.send(.get, path, headers: Self.owner)
            #expect(try shown.decode(DefaultSupportedIdpConfig.self).allowedTenants == ["contoso.com", "consumers"])
            // It works at once: a fabrikam account is refused.
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "m@fabrikam.com").errorCode == "INVALID_IDP_RESPONSE")

            for bad in [#"["common"]"#, #"["not a tenant"]"#, #"["-x.com"]"#, #"["localhost"]"#] {
                let refused = try await h.send(.patch, path + "?updateMask=allowedTenants", body: #"{"allowedTenants":\#(bad)}"#, headers: Self.owner)
                #expect(refused.status == 400, "\(bad): \(refused.text)")
                #expect(refused.errorCode == "INVALID_CONFIG", "\(bad)")
            }
            // Yahoo has no tenants.
            try await h.storeDevProviderConfig("yahoo.com")
            let yahoo = try await h.send(.patch, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/defaultSupportedIdpConfigs/yahoo.com?updateMask=allowedTenants",
                                         body: #"{"allowedTenants":["consumers"]}"#, headers: Self.owner)
            #expect(yahoo.errorCode == "INVALID_CONFIG")
            // An empty list allows every tenant again.
            let cleared = try await h.send(.patch, path + "?updateMask=allowedTenants", body: #"{"allowedTenants":[]}"#, headers: Self.owner)
            #expect(cleared.status == 200)
            #expect(try cleared.decode(DefaultSupportedIdpConfig.self).allowedTenants == nil, "absent: every tenant")
            #expect(try await h.federatedSignIn(providerId: "microsoft.com", email: "m@fabrikam.com").status == 200)
        }
    }

    @Test func unresolvableDomainFailsClosed() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            // The domain's discovery cannot be fetched (nothing listens on this port): nobody from it can sign in,
            // and with nothing else on the list the sign-in is refused before the provider.
            config.allowedEntraTenants = ["contoso.com"]
            config.endpointBase = "http://127.0.0.1:9249/__dev/microsoft"
            try await h.store.saveIdPConfig(config)
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "alice@contoso.com")
            #expect(flow.link == nil)
            #expect(flow.webError?.webCode == .operationNotAllowed, "\(String(describing: flow.webError))")
            #expect(flow.webError?.message.contains("contoso.com") == true)
        }
    }
}

/// The allow-list lives in the issuer rule of every resolved Microsoft provider, so any path that validates an ID
/// token with the resolved provider (code exchange, link, reauthentication, a natively obtained ID token) checks it.
@Suite struct EntraTenantAllowListRuleTests {
    static let contoso = "6f1d1c4e-0000-4000-8000-00000000c0de"
    static let consumer = "9188040d-6c67-4c5b-b112-36a304b66dad"

    @Test func ruleChecksTheTidBeforeTheIssuer() throws {
        let template = IssuerRule.microsoftTemplate("https://login.example/{tenantid}/v2.0", excludedEntraTenant: nil)
        let rule = IssuerRule.entraTenantAllowList(template, EntraTenantAllowList(entraTenantIds: [Self.contoso], consumers: true))
        #expect(try rule.expectedIssuer(claims: ["tid": .string(Self.contoso.uppercased())]) == "https://login.example/\(Self.contoso.uppercased())/v2.0")
        #expect(try rule.expectedIssuer(claims: ["tid": .string(Self.consumer)]) == "https://login.example/\(Self.consumer)/v2.0")
        #expect(throws: RelyingPartyError.self) { try rule.expectedIssuer(claims: ["tid": .string(UUID().uuidString)]) }
        #expect(throws: RelyingPartyError.self) { try rule.expectedIssuer(claims: [:]) }
        #expect(throws: RelyingPartyError.self) { try rule.expectedIssuer(claims: ["tid": .string("contoso.com")]) }
        let work = IssuerRule.entraTenantAllowList(template, EntraTenantAllowList(organizations: true))
        #expect(try work.expectedIssuer(claims: ["tid": .string(Self.contoso)]).contains(Self.contoso))
        do {
            _ = try work.expectedIssuer(claims: ["tid": .string(Self.consumer)])
            Issue.record("organizations admitted a personal account")
        } catch let error as RelyingPartyError {
            #expect(error.kind == .entraTenantNotAllowed)
            #expect(error.reason == "tenant_not_allowed")
        }
    }

    @Test func everyResolvedMicrosoftProviderCarriesTheList() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            let party = RelyingParty()
            guard case .microsoftTemplate = try await party.resolve(config, entraTenantOrHostedDomain: nil).issuerRule else {
                Issue.record("without a list, the plain template")
                return
            }
            config.allowedEntraTenants = ["contoso.com", "organizations"]
            for tenant in [nil, "common", "organizations", "contoso.com"] {
                let resolved = try await party.resolve(config, entraTenantOrHostedDomain: tenant)
                guard case .entraTenantAllowList(_, let list) = resolved.issuerRule else {
                    Issue.record("tenant \(tenant ?? "-"): \(resolved.issuerRule)")
                    continue
                }
                #expect(list.organizations)
                #expect(list.entraTenantIds.count == 1, "the domain resolved to its tenant id")
            }
            await #expect(throws: RelyingPartyError.self) { try await party.resolve(config, entraTenantOrHostedDomain: "consumers") }
            // Normalizing what administrators type.
            #expect(try RelyingParty.normalizedEntraTenantAllowList([" Contoso.COM ", "consumers", "contoso.com", ""]) == ["contoso.com", "consumers"])
            #expect(throws: RelyingPartyError.self) { try RelyingParty.normalizedEntraTenantAllowList(["common"]) }
        }
    }
}
