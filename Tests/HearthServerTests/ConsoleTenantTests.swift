import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's tenants (issue 38, item 4): the Tenants page (create, edit, delete through the admin service),
/// the scope picker (`/console/t/<tenant>/…`) that scopes Users and Sign-in method, isolation between tenants'
/// pages, CSRF on every tenant form, and unknown or turned-off tenants. Both stores.
@Suite struct ConsoleTenantTests {
    let console = ConsoleTests()

    func get(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session) async throws -> HearthHarness.Reply {
        try await h.send(.get, path, headers: session.headers)
    }

    func post(_ h: HearthHarness, _ path: String, _ session: ConsoleTests.Session, _ pairs: [(String, String)]) async throws -> HearthHarness.Reply {
        try await console.post(h, path, session, pairs)
    }

    /// The tenant id a create's redirect names (`/console/tenant?id=<id>&ok=tenant-created`).
    static func createdId(_ reply: HearthHarness.Reply) -> String? {
        guard let location = reply.headers[.location], let range = location.range(of: "?id=") else { return nil }
        return String(location[range.upperBound...].prefix { $0 != "&" })
    }

    /// Issue 38, item 4: the Tenants page creates a tenant (a new tenant's flags off unless checked; a bad display
    /// name comes back beside its field, nothing created), lists it with its id and sign-in methods, edits it (only
    /// the changed fields, audited as `tenants.update` in the project) and deletes it after a confirmation page that
    /// says its users go with it — and they do.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func tenantsAreCreatedEditedAndDeletedInTheConsole(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let session = try await console.signIn(h)
            let empty = try await get(h, "/console/tenants", session)
            #expect(empty.status == 200)
            #expect(empty.text.contains("No tenants yet"))
            #expect(empty.text.contains(#"<a href="/console/tenants" aria-current="page">Tenants</a>"#))

            let refused = try await post(h, "/console/tenants", session, [("csrf", session.csrf), ("displayName", "9-lives"), ("allowPasswordSignup", "true")])
            #expect(refused.status == 400)
            #expect(refused.text.contains(#"id="display-name-error""#), "the refusal is beside the display name")
            #expect(refused.text.contains("is not a valid name: a display name starts with a letter"), "in the form's words")
            #expect(refused.text.contains(#"value="9-lives""#), "the form comes back as typed")
            #expect(try await h.store.tenants(after: nil, limit: 10).isEmpty)

            let created = try await post(h, "/console/tenants", session, [("csrf", session.csrf), ("displayName", "Acme-Corp"), ("allowPasswordSignup", "true")])
            #expect(created.status == 303, "\(created.text.prefix(300))")
            let id = try #require(Self.createdId(created))
            #expect(id.hasPrefix("acme-corp-") && TenantRecord.isValidId(id))
            let stored = try #require(try await h.store.tenant(id: id))
            #expect(stored.displayName == "Acme-Corp")
            #expect(stored.settings == TenantSettings(allowPasswordSignup: true))

            let list = try await get(h, "/console/tenants", session)
            #expect(list.text.contains(#"value="\#(id)""#) && list.text.contains("Acme-Corp") && list.text.contains("Email/password"))
            #expect(list.text.contains(#"href="/console/t/\#(id)/users""#) && list.text.contains(#"href="/console/t/\#(id)/providers""#))
            let page = try await get(h, "/console/tenant?id=\(id)&ok=tenant-created", session)
            #expect(page.status == 200)
            #expect(page.text.contains("Tenant created."))
            #expect(page.text.contains(#"name="allowPasswordSignup" value="true" checked"#))

            let edited = try await post(h, "/console/tenant", session, [("csrf", session.csrf), ("id", id), ("displayName", "Acme-Two"),
                                                                          ("enableAnonymousUser", "true")])
            #expect(edited.status == 303, "\(edited.text.prefix(300))")
            let after = try #require(try await h.store.tenant(id: id))
            #expect(after.displayName == "Acme-Two")
            #expect(after.settings == TenantSettings(enableAnonymousUser: true))
            let badEdit = try await post(h, "/console/tenant", session, [("csrf", session.csrf), ("id", id), ("displayName", "x")])
            #expect(badEdit.status == 400)
            #expect(badEdit.text.contains(#"id="display-name-error""#))
            #expect(try await h.store.tenant(id: id)?.displayName == "Acme-Two")

            let audit = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.actor == "console:owner" }
            #expect(audit.contains { $0.action == "tenants.create" && $0.target == id })
            #expect(audit.contains { $0.action == "tenants.update" && $0.target == id
                && $0.detail == "displayName,allowPasswordSignup,enableAnonymousUser" })

            // A user in the tenant, then the delete confirmation names the users that go with it.
            let user = try await post(h, "/console/t/\(id)/users", session, [("csrf", session.csrf), ("email", "ada@acme.example"), ("password", "correct horse")])
            #expect(user.status == 303, "\(user.text.prefix(300))")
            let tenantStore = h.store.bound(toTenant: id)
            let ada = try #require(try await tenantStore.user(email: "ada@acme.example"))
            let confirm = try await get(h, "/console/tenant/delete?id=\(id)", session)
            #expect(confirm.status == 200)
            #expect(confirm.text.contains("Its 1 user and their\ndata go with it"))
            #expect(confirm.text.contains(#"action="/console/tenant/delete""#))
            let deleted = try await post(h, "/console/tenant/delete", session, [("csrf", session.csrf), ("id", id)])
            #expect(deleted.status == 303)
            #expect(deleted.headers[.location] == "/console/tenants?ok=tenant-deleted")
            #expect(try await h.store.tenant(id: id) == nil)
            #expect(try await h.store.bound(toTenant: id).user(localId: ada.localId) == nil, "the tenant's users go with it")
            #expect(try await h.store.auditEntries(before: nil, limit: 20).contains { $0.action == "tenants.delete" && $0.target == id })
            let gone = try await get(h, "/console/tenant?id=\(id)", session)
            #expect(gone.status == 400 && gone.text.contains("TENANT_NOT_FOUND"))
            #expect(try await get(h, "/console/t/\(id)/users", session).status == 404)
        }
    }

    /// Issue 38, item 4: every tenant form is refused without the session's CSRF token (403) and changes nothing:
    /// create, edit, delete, and the scoped Users and Sign-in method forms of a tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func tenantFormsNeedTheCSRFToken(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            let session = try await console.signIn(h)
            let wrong = (session.csrf.first == "x" ? "y" : "x") + session.csrf.dropFirst()
            for csrf in [nil, wrong] {
                func form(_ pairs: [(String, String)]) -> [(String, String)] { (csrf.map { [("csrf", $0)] } ?? []) + pairs }
                #expect(try await post(h, "/console/tenants", session, form([("displayName", "Sneaky")])).status == 403)
                #expect(try await post(h, "/console/tenant", session, form([("id", "acme-aaaaa"), ("displayName", "Sneaky")])).status == 403)
                #expect(try await post(h, "/console/tenant/delete", session, form([("id", "acme-aaaaa")])).status == 403)
                #expect(try await post(h, "/console/t/acme-aaaaa/users", session, form([("email", "csrf@example.com"), ("password", "correct horse")])).status == 403)
                #expect(try await post(h, "/console/t/acme-aaaaa/providers/builtin", session, form([("provider", "password"), ("enabled", "false")])).status == 403)
                #expect(try await post(h, "/console/t/acme-aaaaa/provider", session, form([("provider", "microsoft.com"), ("clientId", "x"),
                                                                                            ("clientSecret", "y"), ("enabled", "true")])).status == 403)
            }
            let tenants = try await h.store.tenants(after: nil, limit: 10)
            #expect(tenants.map(\.id) == ["acme-aaaaa"])
            #expect(tenants.first?.displayName == "Tenant acme-aaaaa" && tenants.first?.settings.allowPasswordSignup == true)
            let acme = h.store.bound(toTenant: "acme-aaaaa")
            #expect(try await acme.user(email: "csrf@example.com") == nil)
            #expect(try await acme.idpConfig(providerId: "microsoft.com") == nil)
        }
    }

    /// Issue 38, items 3 and 4: the picker scopes Users and Sign-in method. A user added with tenant A picked is
    /// A's (listed there only, audited in A); a provider configured in A is A's own client (B and the project
    /// keep theirs); Email/Password in a tenant is the tenant's flag, not the project's; the project's pages say
    /// they are the project's; the picker's GET form goes to the chosen scope.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func thePickerScopesUsersAndSignInMethod(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            try await TenantTests.addTenant(h, "beta-bbbbb")
            _ = try await h.signUp(email: "project@example.com")
            let session = try await console.signIn(h)

            let added = try await post(h, "/console/t/acme-aaaaa/users", session, [("csrf", session.csrf), ("email", "ada@acme.example"), ("password", "correct horse")])
            #expect(added.status == 303)
            #expect(added.headers[.location]?.hasPrefix("/console/t/acme-aaaaa/user?uid=") == true)
            let acmeStore = h.store.bound(toTenant: "acme-aaaaa")
            let ada = try #require(try await acmeStore.user(email: "ada@acme.example"))
            #expect(ada.tenantId == "acme-aaaaa")
            #expect(try await h.store.user(email: "ada@acme.example") == nil, "not the project's")
            let acmeAudit = try await acmeStore.auditEntries(before: nil, limit: 10)
            #expect(acmeAudit.contains { $0.actor == "console:owner" && $0.action == "accounts.create" && $0.target == ada.localId })
            #expect(!(try await h.store.auditEntries(before: nil, limit: 50)).contains { $0.target == ada.localId }, "audited in the tenant, not the project")

            let acmeUsers = try await get(h, "/console/t/acme-aaaaa/users", session)
            #expect(acmeUsers.status == 200)
            #expect(acmeUsers.text.contains("ada@acme.example") && !acmeUsers.text.contains("project@example.com"))
            #expect(acmeUsers.text.contains(#"<option value="acme-aaaaa" selected>"#))
            #expect(acmeUsers.text.contains(#"href="/console/t/acme-aaaaa/user?uid=\#(ada.localId)""#))
            #expect(acmeUsers.text.contains(#"action="/console/t/acme-aaaaa/users""#))
            #expect(acmeUsers.text.contains(#"<a href="/console/t/acme-aaaaa/users" aria-current="page">Users</a>"#))
            #expect(acmeUsers.text.contains(#"<a href="/console/settings">Settings</a>"#), "the project's sections stay the project's")
            #expect(acmeUsers.text.contains("Tenant Tenant acme-aaaaa · acme-aaaaa"))
            let projectUsers = try await get(h, "/console/users", session)
            #expect(projectUsers.text.contains("project@example.com") && !projectUsers.text.contains("ada@acme.example"))
            #expect(projectUsers.text.contains(#"<option value="" selected>"#))
            let betaUsers = try await get(h, "/console/t/beta-bbbbb/users", session)
            #expect(betaUsers.text.contains("No users in this tenant yet.") && !betaUsers.text.contains("ada@acme.example"))
            let userPage = try await get(h, "/console/t/acme-aaaaa/user?uid=\(ada.localId)", session)
            #expect(userPage.status == 200)
            #expect(userPage.text.contains(#"action="/console/t/acme-aaaaa/user/disable""#))
            #expect(userPage.text.contains(#"href="/console/t/acme-aaaaa/user/delete?uid=\#(ada.localId)""#))

            // Sign-in method: acme's own Microsoft client.
            let saved = try await post(h, "/console/t/acme-aaaaa/provider", session, [("csrf", session.csrf), ("provider", "microsoft.com"),
                                                                                      ("clientId", "acme-client"), ("clientSecret", "acme-secret"),
                                                                                      ("allowedTenants", "acme.onmicrosoft.com"), ("enabled", "true")])
            #expect(saved.status == 303, "\(saved.text.prefix(300))")
            #expect(saved.headers[.location] == "/console/t/acme-aaaaa/providers?ok=provider")
            let microsoft = try #require(try await acmeStore.idpConfig(providerId: "microsoft.com"))
            #expect(microsoft.clientId == "acme-client" && microsoft.allowedEntraTenants == ["acme.onmicrosoft.com"])
            #expect(try await h.store.idpConfig(providerId: "microsoft.com") == nil)
            #expect(try await h.store.bound(toTenant: "beta-bbbbb").idpConfig(providerId: "microsoft.com") == nil)
            #expect(try await acmeStore.auditEntries(before: nil, limit: 10).contains { $0.action == "defaultSupportedIdpConfigs.create" })
            let acmeProviders = try await get(h, "/console/t/acme-aaaaa/providers", session)
            #expect(acmeProviders.text.contains(#"href="/console/t/acme-aaaaa/provider?id=microsoft.com""#))
            #expect(acmeProviders.text.contains(#"action="/console/t/acme-aaaaa/providers/builtin""#))
            let betaProviders = try await get(h, "/console/t/beta-bbbbb/providers", session)
            #expect(betaProviders.text.contains("Not configured") && !betaProviders.text.contains("acme-client"))
            let betaMicrosoft = try await get(h, "/console/t/beta-bbbbb/provider?id=microsoft.com", session)
            #expect(betaMicrosoft.status == 200 && !betaMicrosoft.text.contains("acme-client"))
            #expect(betaMicrosoft.text.contains(#"action="/console/t/beta-bbbbb/provider""#))

            // Email/Password in beta is beta's allowPasswordSignup; the project's stays on.
            let toggled = try await post(h, "/console/t/beta-bbbbb/providers/builtin", session, [("csrf", session.csrf), ("provider", "password"), ("enabled", "false")])
            #expect(toggled.headers[.location] == "/console/t/beta-bbbbb/providers?ok=toggled")
            #expect(try await h.store.tenant(id: "beta-bbbbb")?.settings.allowPasswordSignup == false)
            #expect(try await h.store.tenant(id: "acme-aaaaa")?.settings.allowPasswordSignup == true)
            #expect(try await h.signUp(email: "still@example.com").idToken != nil, "the project's Email/Password stays on")
            #expect(try await h.store.auditEntries(before: nil, limit: 20).contains { $0.action == "tenants.update" && $0.target == "beta-bbbbb" })

            // The picker and the project's pages.
            let switched = try await get(h, "/console/switch?tenant=acme-aaaaa&to=providers", session)
            #expect(switched.status == 303 && switched.headers[.location] == "/console/t/acme-aaaaa/providers")
            #expect(try await get(h, "/console/switch?tenant=&to=users", session).headers[.location] == "/console/users")
            let settings = try await get(h, "/console/settings", session)
            #expect(settings.text.contains("This page is the project&#39;s, shared by every tenant") || settings.text.contains("This page is the project's, shared by every tenant"))
            #expect(settings.text.contains(#"<option value="beta-bbbbb">"#))
        }
    }

    /// Issue 38, items 3 and 4: a user opened from tenant A's list is not reachable with tenant B (or the project)
    /// picked: its page, its delete confirmation and every user form answer USER_NOT_FOUND and change nothing.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func anotherTenantsUserIsNotReachable(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            try await TenantTests.addTenant(h, "beta-bbbbb")
            let ada = try await TenantTests.signUp(h, "ada@acme.example", tenant: "acme-aaaaa")
            let uid = ada.localId
            let session = try await console.signIn(h)
            #expect(try await get(h, "/console/t/acme-aaaaa/user?uid=\(uid)", session).status == 200)
            for base in ["/console/t/beta-bbbbb", "/console"] {
                for path in ["/user?uid=\(uid)", "/user/delete?uid=\(uid)"] {
                    let reply = try await get(h, base + path, session)
                    #expect(reply.status == 400 && reply.text.contains("USER_NOT_FOUND"), "\(base)\(path)")
                    #expect(!reply.text.contains("ada@acme.example"), "\(base)\(path)")
                }
                for (path, extra) in [("/user/disable", []), ("/user/claims", [("claims", #"{"role":"admin"}"#)]), ("/user/revoke", []),
                                      ("/user/mfa/remove", []), ("/user/delete", [])] as [(String, [(String, String)])] {
                    let reply = try await post(h, base + path, session, [("csrf", session.csrf), ("uid", uid)] + extra)
                    #expect(reply.status == 400 && reply.text.contains("USER_NOT_FOUND"), "\(base)\(path): \(reply.status) \(reply.text.prefix(200))")
                }
            }
            let acme = h.store.bound(toTenant: "acme-aaaaa")
            let stored = try #require(try await acme.user(localId: uid))
            #expect(!stored.disabled && stored.customClaims.isEmpty, "nothing changed")
            #expect(try await post(h, "/console/t/acme-aaaaa/user/disable", session, [("csrf", session.csrf), ("uid", uid)]).status == 303)
            #expect(try await acme.user(localId: uid)?.disabled == true, "with its own tenant picked, the same form works")
        }
    }

    /// Issue 38, item 4: an unknown or malformed tenant in the address is a 404 page saying so (never a 500, the
    /// id escaped), for pages, forms and the picker; a turned-off tenant (disableAuth) a 403 saying how to turn it
    /// on; without a session, the login page.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func unknownAndTurnedOffTenantsShowAClearPage(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "off-ddddd", settings: TenantSettings(allowPasswordSignup: true, disableAuth: true))
            #expect(try await h.send(.get, "/console/t/off-ddddd/users").headers[.location] == "/console/login")
            let session = try await console.signIn(h)
            for path in ["/console/t/nope-zzzzz/users", "/console/t/NOPE/providers", "/console/t/%3Cb%3Ebold%3C%2Fb%3E/users",
                         "/console/t/nope-zzzzz/user?uid=abc", "/console/switch?tenant=%3Cb%3E&to=users"] {
                let reply = try await get(h, path, session)
                #expect(reply.status == 404, "\(path): \(reply.status)")
                #expect(reply.text.contains("TENANT_NOT_FOUND") && reply.text.contains("has no tenant"), "\(path)")
                #expect(!reply.text.contains("<b>bold"), "\(path): the id is escaped")
            }
            let lost = try await post(h, "/console/t/nope-zzzzz/users", session, [("csrf", session.csrf), ("email", "lost@example.com"), ("password", "correct horse")])
            #expect(lost.status == 404)
            #expect(try await h.store.user(email: "lost@example.com") == nil)
            let off = try await get(h, "/console/t/off-ddddd/users", session)
            #expect(off.status == 403)
            #expect(off.text.contains("turned off (disableAuth)") && off.text.contains("uncheck Turn the tenant off"))
            let offPost = try await post(h, "/console/t/off-ddddd/users", session, [("csrf", session.csrf), ("email", "off@example.com"), ("password", "correct horse")])
            #expect(offPost.status == 403)
            #expect(try await h.store.bound(toTenant: "off-ddddd").user(email: "off@example.com") == nil)
            // The Tenants page still shows it, and turns it back on (the display name unchanged is not checked again).
            #expect(try await get(h, "/console/tenants", session).text.contains("auth disabled"))
            let fixed = try await post(h, "/console/tenant", session, [("csrf", session.csrf), ("id", "off-ddddd"), ("displayName", "Tenant off-ddddd"),
                                                                         ("allowPasswordSignup", "true")])
            #expect(fixed.status == 303)
            #expect(try await get(h, "/console/t/off-ddddd/users", session).status == 200)
        }
    }

    /// Issue 38, item 4: "Test configuration" with a tenant picked checks that tenant's own provider settings (a
    /// wrong secret there is found while the project's same provider passes), and its page links back into the tenant.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func testConfigurationChecksTheTenantsOwnProvider(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, devIdPs: true) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            try await h.storeDevProviderConfig("microsoft.com")
            var tenantConfig = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            tenantConfig.clientSecret = "Tenant-Wrong-Secret-31"
            let acme = h.store.bound(toTenant: "acme-aaaaa")
            try await acme.saveIdPConfig(tenantConfig)
            let session = try await console.signIn(h)
            let project = try await post(h, "/console/provider/test", session, [("csrf", session.csrf), ("provider", "microsoft.com")])
            #expect(project.text.contains("the configuration looks right"), "\(project.text.prefix(400))")
            let tenant = try await post(h, "/console/t/acme-aaaaa/provider/test", session, [("csrf", session.csrf), ("provider", "microsoft.com")])
            #expect(tenant.status == 200)
            #expect(tenant.text.contains("the client secret is wrong"), "the tenant's own secret is checked")
            #expect(!tenant.text.contains("Tenant-Wrong-Secret-31"))
            #expect(tenant.text.contains(#"href="/console/t/acme-aaaaa/provider?id=microsoft.com""#))
            #expect(tenant.text.contains(#"<option value="acme-aaaaa" selected>"#))
        }
    }
}
