import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 37, item 3: typed project settings. The service takes typed changes (``ProjectSettingChange``,
/// ``ProviderSettingChange``); the admin API's update masks are read at the HTTP edge and answer as they always did.
@Suite struct ProjectSettingsTests {
    static let owner = AdminPrincipal.emulatorOwner
    static let ownerHeaders: HTTPFields = [.authorization: "Bearer owner"]

    static func audit(_ h: HearthHarness) async throws -> [AuditEntry] {
        try await h.store.auditEntries(before: nil, limit: 100)
    }

    static func refusal(_ body: () async throws -> Void) async -> HearthAPIError? {
        do {
            try await body()
            return nil
        } catch let error as HearthAPIError {
            return error
        } catch {
            Issue.record("not a HearthAPIError: \(error)")
            return nil
        }
    }

    /// Issue 37, item 3: a list of typed changes is applied in its order, saved, seen by the scope that made it, and
    /// audited as one `config.update` whose detail lists the changes' admin-API paths — on both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func typedChangesAreAppliedSavedAndAuditedAsOneUpdate(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let scope = h.scope
            let before = try await scope.config()
            #expect(before.passwordSignInEnabled && !before.totpEnabled && !before.passkeysEnabled)
            let changes: [ProjectSettingChange] = [
                .passwordSignIn(false), .emailLinkSignIn(true), .authorizedDomains(["localhost", "app.example.com"]),
                .userSignupDisabled(true), .emailAppName("Notes"),
            ] + ProjectSettingChange.totp(enabled: true, adjacentIntervals: 2)
                + ProjectSettingChange.passkeys(enabled: true, userVerification: "preferred")
            let saved = try await h.server.admin.updateProjectSettings(changes, by: Self.owner, in: scope)
            #expect(!saved.passwordSignInEnabled && saved.emailLinkSignInEnabled && saved.userSignupDisabled)
            #expect(saved.authorizedDomains == ["localhost", "app.example.com"])
            #expect(saved.sendEmail?.appName == "Notes")
            #expect(saved.totpEnabled && saved.totpAdjacentIntervals == 2)
            #expect(saved.passkeysEnabled && saved.passkeys?.userVerification == "PREFERRED")
            // The scope that made the change sees it; the store holds it.
            #expect(try await scope.config() == saved)
            #expect(try await h.store.projectConfig(projectId: h.projectId) == saved)
            // Fields no change named are kept.
            #expect(saved.anonymousSignInEnabled == before.anonymousSignInEnabled)
            let entries = try await Self.audit(h).filter { $0.action == "config.update" }
            #expect(entries.count == 1)
            #expect(entries.first?.actor == "emulator:owner")
            #expect(entries.first?.detail == "signIn.email.enabled,signIn.email.passwordRequired,authorizedDomains,client.permissions.disabledUserSignup,notification.sendEmail.appName,mfa.state,mfa.enabledProviders,mfa.providerConfigs,passkeys.enabled,passkeys.userVerification")
            // The admin API shows the same settings.
            let shown = try await h.send(.get, WirePaths.v2Project(h.projectId, "config"), headers: Self.ownerHeaders).decode(AdminProjectConfig.self)
            #expect(shown.signIn?.email?.passwordRequired == false)
            #expect(shown.mfa?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 2)
            #expect(shown.notification?.sendEmail?.appName == "Notes")
        }
    }

    /// Issue 38, item 2: a tenant's scope reads the project's settings with the tenant's flags laid over them, so
    /// saving project settings in it would hand the project the tenant's flags: refused, nothing saved or audited.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func projectSettingsAreNotChangedInATenantsScope(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let admin = h.server.admin
            let tenant = try await admin.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: false), by: Self.owner)
            let tenantId = try #require(tenant.name?.split(separator: "/").last.map(String.init))
            let scope = try await admin.scope(tenantId: tenantId, in: "the test")
            let before = try await h.store.projectConfig(projectId: h.projectId)
            let auditBefore = try await Self.audit(h).count
            let error = await Self.refusal { _ = try await admin.updateProjectSettings([.anonymousSignIn(false)], by: Self.owner, in: scope) }
            #expect(error?.code == .operationNotAllowed)
            #expect(error?.detail?.contains("tenants update") == true, "\(error?.detail ?? "accepted")")
            #expect(try await h.store.projectConfig(projectId: h.projectId) == before)
            #expect(try await Self.audit(h).count == auditBefore)
        }
    }

    /// Issue 37, item 3: each typed value is checked by the service whoever asks, with the admin API's messages; a
    /// refused list saves nothing and writes no audit entry, even when its earlier changes were good — on both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aRefusedChangeSavesNothing(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let admin = h.server.admin
            let before = try await h.store.projectConfig(projectId: h.projectId)
            let auditBefore = try await Self.audit(h).count
            let cases: [([ProjectSettingChange], String)] = [
                ([.anonymousSignIn(false), .multiFactorProviderConfigs([.init(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 11))])],
                 "totpProviderConfig.adjacentIntervals must be between 0 and 10"),
                ([.multiFactorState(.mandatory)], "mfa.state MANDATORY is not supported"),
                ([.multiFactorEnabledProviders(["EMAIL_OTP"])], "mfa.enabledProviders takes PHONE_SMS only (SMS as a second factor); EMAIL_OTP is not one"),
                ([.authorizedDomains(["app.example.com", "not a domain"])], "authorizedDomains must be host names"),
                ([.emailAppName(String(repeating: "n", count: 101))], "appName must be one line of at most 100 characters"),
                ([.emailCallbackURI("ftp://example.com/handler")], "callbackUri must be an http(s) URL of your own action handler"),
                ([.passkeyRpId("example.com")], "passkeys.rpId example.com must be this server's host (127.0.0.1) or a parent domain of it"),
                ([.passkeyUserVerification("sometimes")], "passkeys.userVerification is REQUIRED"),
                ([.passkeyAllowedOrigins(["https://app.example.com/path"])], "is not an origin"),
                ([.emailTemplate(.resetPassword, .init(subject: "Reset", body: "no link here"))], "notification.sendEmail.resetPasswordTemplate: "),
            ]
            for (changes, message) in cases {
                let error = await Self.refusal { try await admin.updateProjectSettings(changes, by: Self.owner, in: h.scope) }
                #expect(error?.code == .invalidConfig, "\(changes)")
                #expect(error?.detail?.contains(message) == true, "\(changes): \(error?.detail ?? "accepted")")
            }
            #expect(try await h.store.projectConfig(projectId: h.projectId) == before)
            #expect(try await Self.audit(h).count == auditBefore)
        }
    }

    /// Issue 37, item 3: the admin API's update mask stays at the HTTP edge and answers as before — a path Hearth
    /// cannot change is `INVALID_UPDATE_MASK` listing the leaves, a value of the wrong JSON type is `INVALID_CONFIG`
    /// naming the leaf, a parent path sets all its leaves (absent ones to their defaults), and a mask-less body
    /// updates the leaves it holds.
    @Test func theAdminAPIsMaskErrorsAndLeavesAreUnchanged() async throws {
        try await HearthHarness.run { h in
            let path = WirePaths.v2Project(h.projectId, "config")
            func patch(_ query: String, _ body: String) async throws -> HearthHarness.Reply {
                try await h.send(.patch, path + query, body: body, headers: Self.ownerHeaders)
            }
            let cases: [(String, String, String, String)] = [
                ("?updateMask=recaptchaConfig", "{}", "INVALID_UPDATE_MASK",
                 "Hearth cannot change 'recaptchaConfig'; it supports signIn.email.enabled, signIn.email.passwordRequired,"),
                ("?updateMask=signIn.anonymous.enabled", #"{"signIn":{"anonymous":{"enabled":"yes"}}}"#, "INVALID_CONFIG",
                 "'signIn.anonymous.enabled' must be a boolean"),
                ("?updateMask=mfa.state", #"{"mfa":{"state":"SOMETIMES"}}"#, "INVALID_CONFIG", "'mfa.state' must be ENABLED or DISABLED"),
                ("?updateMask=authorizedDomains", #"{"authorizedDomains":"localhost"}"#, "INVALID_CONFIG",
                 "authorizedDomains must be an array of host names"),
                ("?updateMask=authorizedDomains", #"{"authorizedDomains":[1]}"#, "INVALID_CONFIG", "authorizedDomains must be host names"),
                ("?updateMask=passkeys.allowedOrigins", #"{"passkeys":{"allowedOrigins":[true]}}"#, "INVALID_CONFIG",
                 "passkeys.allowedOrigins must be an array of at most 50 origins"),
                ("?updateMask=passkeys.allowedOrigins", #"{"passkeys":{"allowedOrigins":"https://a.example"}}"#, "INVALID_CONFIG",
                 "'passkeys.allowedOrigins' must be an array of origins"),
                ("?updateMask=passkeys.userVerification", #"{"passkeys":{"userVerification":1}}"#, "INVALID_CONFIG",
                 "passkeys.userVerification is REQUIRED (biometrics or a PIN each time) or PREFERRED"),
                ("?updateMask=notification.sendEmail.appName", #"{"notification":{"sendEmail":{"appName":5}}}"#, "INVALID_CONFIG",
                 "'notification.sendEmail.appName' must be a string"),
                ("?updateMask=notification.sendEmail.resetPasswordTemplate", #"{"notification":{"sendEmail":{"resetPasswordTemplate":"x"}}}"#,
                 "INVALID_CONFIG", "'notification.sendEmail.resetPasswordTemplate' must be an email template object"),
                ("?updateMask=mfa.providerConfigs", #"{"mfa":{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":99}}]}}"#,
                 "INVALID_CONFIG", "totpProviderConfig.adjacentIntervals must be between 0 and 10"),
                ("", "[]", "INVALID_JSON_PAYLOAD", "the body must be a config object"),
            ]
            let auditBefore = try await Self.audit(h).count
            for (query, body, code, message) in cases {
                let reply = try await patch(query, body)
                #expect(reply.status == 400, "\(query) \(body): \(reply.text.prefix(300))")
                #expect(reply.errorCode == code, "\(query) \(body): \(reply.text.prefix(300))")
                #expect(reply.envelope?.error.message.contains(message) == true, "\(query) \(body): \(reply.text.prefix(300))")
            }
            #expect(try await Self.audit(h).count == auditBefore, "refusals write nothing")

            // A parent path names its leaves, in the order Hearth lists them; absent leaves return to their defaults.
            let mfa = try await patch("?updateMask=mfa", #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":3}}]}}"#)
            #expect(mfa.status == 200, "\(mfa.text)")
            #expect(try await h.scope.config().totpAdjacentIntervals == 3)
            // Without a mask: the body's leaves, sorted.
            let maskless = try await patch("", #"{"signIn":{"anonymous":{"enabled":false}},"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#)
            #expect(maskless.status == 200, "\(maskless.text)")
            let config = try await h.scope.config()
            #expect(!config.anonymousSignInEnabled && config.emailEnumerationProtection)
            let details = try await Self.audit(h).filter { $0.action == "config.update" }.map(\.detail)
            #expect(details.prefix(2) == ["emailPrivacyConfig.enableImprovedEmailPrivacy,signIn.anonymous.enabled",
                                          "mfa.state,mfa.enabledProviders,mfa.providerConfigs"])
        }
    }

    /// Issue 37, item 3: provider settings take typed changes too — applied and audited with their paths, a change
    /// the provider kind does not have refused as the admin API's mask refuses it, the secret asked for again when an
    /// endpoint moves — on both stores; over HTTP an unconfigured provider is still answered before a bad mask.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func providerSettingsTakeTypedChanges(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let admin = h.server.admin
            _ = try await admin.createDefaultIdpConfig(idpId: "microsoft.com", DefaultSupportedIdpConfig(clientId: "ms-client", clientSecret: "ms-secret"),
                                                       by: Self.owner, in: h.scope)
            _ = try await admin.createOAuthIdpConfig(id: "oidc.corp", OAuthIdpConfig(clientId: "corp-client", clientSecret: "corp-secret",
                                                                                       issuer: "https://idp.example.com"), by: Self.owner, in: h.scope)
            let microsoft = try await admin.updateDefaultIdpConfig("microsoft.com", [.enabled(false), .allowedEntraTenants(["contoso.com"])],
                                                                   by: Self.owner, in: h.scope)
            #expect(microsoft.enabled == false && microsoft.allowedTenants == ["contoso.com"])
            #expect(try await h.store.idpConfig(providerId: "microsoft.com")?.enabled == false)
            let corp = try await admin.updateOAuthIdpConfig("oidc.corp", [.displayName("Corp"), .tokenVault(false)], by: Self.owner, in: h.scope)
            #expect(corp.displayName == "Corp" && corp.tokenVault == false)
            let entries = try await Self.audit(h)
            #expect(entries.contains { $0.action == "defaultSupportedIdpConfigs.update" && $0.target == "microsoft.com" && $0.detail == "enabled,allowedTenants" })
            #expect(entries.contains { $0.action == "oauthIdpConfigs.update" && $0.target == "oidc.corp" && $0.detail == "displayName,tokenVault" })

            let auditBefore = entries.count
            let notBuiltIn = await Self.refusal { try await admin.updateDefaultIdpConfig("microsoft.com", [.issuer("https://x.example")], by: Self.owner, in: h.scope) }
            #expect(notBuiltIn?.code == .invalidUpdateMask)
            #expect(notBuiltIn?.detail?.hasPrefix("'issuer' cannot be updated; the fields are ") == true, "\(notBuiltIn?.detail ?? "accepted")")
            let moved = await Self.refusal { try await admin.updateOAuthIdpConfig("oidc.corp", [.issuer("https://evil.example")], by: Self.owner, in: h.scope) }
            #expect(moved?.code == .invalidConfig)
            #expect(moved?.detail == "changing issuer changes where Hearth sends the client secret: give clientSecret in the same update")
            let codeFlow = await Self.refusal { try await admin.updateOAuthIdpConfig("oidc.corp", [.responseType(code: false, field: .code)], by: Self.owner, in: h.scope) }
            #expect(codeFlow?.detail == "Hearth signs in with the authorization code flow: responseType.code stays true")
            let appleOnly = await Self.refusal { try await admin.updateDefaultIdpConfig("microsoft.com", [.appleBundleIds(["com.example.app"])], by: Self.owner, in: h.scope) }
            #expect(appleOnly?.detail == "appleSignInConfig applies to apple.com only")
            let missing = await Self.refusal { try await admin.updateOAuthIdpConfig("oidc.nothing", [.enabled(true)], by: Self.owner, in: h.scope) }
            #expect(missing?.code == .configurationNotFound)
            #expect(try await h.store.idpConfig(providerId: "oidc.corp")?.issuer == "https://idp.example.com")
            #expect(try await Self.audit(h).count == auditBefore, "refusals write nothing")

            // Over HTTP: a bad mask on a configured provider, then on an unconfigured one (not found comes first).
            let idps = WirePaths.v2Project(h.projectId, "oauthIdpConfigs")
            let badMask = try await h.send(.patch, idps + "/oidc.corp?updateMask=graphBase", body: "{}", headers: Self.ownerHeaders)
            #expect(badMask.errorCode == "INVALID_UPDATE_MASK", "\(badMask.text)")
            let unconfigured = try await h.send(.patch, idps + "/oidc.nothing?updateMask=graphBase", body: "{}", headers: Self.ownerHeaders)
            #expect(unconfigured.errorCode == "CONFIGURATION_NOT_FOUND", "\(unconfigured.text)")
        }
    }
}
