import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// Issue 38, item 1: Identity Platform's tenant resource (`…/v2/projects/{p}/tenants`) as the Admin SDKs drive it —
/// create, get, list with paging, patch with `updateMask`, delete — on both stores.
@Suite struct TenantResourceTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let tenants = "\(WirePaths.identityToolkitV2)/projects/demo-hearth/tenants"

    static func call(_ h: HearthHarness, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil,
                     headers: HTTPFields = owner) async throws -> HearthHarness.Reply {
        try await h.send(method, path, body: body, headers: headers)
    }

    static func create(_ h: HearthHarness, _ body: String) async throws -> [String: Any] {
        let reply = try await call(h, .post, tenants, body)
        guard reply.status == 200, let json = reply.json else { throw HarnessError("create failed: \(reply.text)") }
        return json
    }

    static func id(of tenant: [String: Any]) -> String {
        String((tenant["name"] as? String ?? "").split(separator: "/").last ?? "")
    }

    static func message(_ reply: HearthHarness.Reply) -> String {
        reply.envelope?.error.message ?? ""
    }

    /// Issue 38, item 1: a tenant is created with an id in Identity Platform's form, read back, patched through an
    /// `updateMask` (only the named fields change; a named field the body lacks is reset) and deleted (a `{}` body
    /// tolerated, `{}` answered); each write is audited in the project.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func createGetPatchDelete(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let created = try await Self.create(h, #"{"displayName":"Acme-Corp","allowPasswordSignup":true}"#)
            let id = Self.id(of: created)
            #expect(id.wholeMatch(of: /acme-corp-[a-z0-9]{5}/) != nil, "\(id)")
            #expect(created["name"] as? String == "projects/demo-hearth/tenants/\(id)")
            #expect(created["displayName"] as? String == "Acme-Corp")
            #expect(created["allowPasswordSignup"] as? Bool == true)
            #expect(created["tenantId"] == nil)
            #expect(try await h.store.tenant(id: id)?.settings.allowPasswordSignup == true)

            let fetched = try await Self.call(h, .get, "\(Self.tenants)/\(id)")
            #expect(fetched.status == 200)
            #expect(try fetched.decode(Tenant.self) == (try JSONDecoder().decode(Tenant.self, from: JSONSerialization.data(withJSONObject: created))))

            let patched = try await Self.call(h, .patch, "\(Self.tenants)/\(id)?updateMask=displayName,enableEmailLinkSignin",
                                              #"{"displayName":"acme-two","enableEmailLinkSignin":true,"allowPasswordSignup":false}"#)
            #expect(patched.status == 200, "\(patched.text)")
            #expect(patched.json?["displayName"] as? String == "acme-two")
            #expect(patched.json?["enableEmailLinkSignin"] as? Bool == true)
            #expect(patched.json?["allowPasswordSignup"] as? Bool == true, "not in the mask: kept")

            let reset = try await Self.call(h, .patch, "\(Self.tenants)/\(id)?updateMask=allowPasswordSignup,mfaConfig.state",
                                            #"{"mfaConfig":{"state":"ENABLED"}}"#)
            #expect(reset.status == 200, "\(reset.text)")
            #expect(reset.json?["allowPasswordSignup"] as? Bool == false)
            #expect((reset.json?["mfaConfig"] as? [String: Any])?["state"] as? String == "ENABLED")
            #expect(try await h.store.tenant(id: id)?.settings.mfa?.state == .enabled)

            let deleted = try await Self.call(h, .delete, "\(Self.tenants)/\(id)", "{}")
            #expect(deleted.status == 200 && deleted.text.trimmingCharacters(in: .whitespacesAndNewlines) == "{}", "\(deleted.text)")
            #expect(try await h.store.tenant(id: id) == nil)
            #expect(try await Self.call(h, .get, "\(Self.tenants)/\(id)").errorCode == "TENANT_NOT_FOUND")
            #expect(try await Self.call(h, .delete, "\(Self.tenants)/\(id)").errorCode == "TENANT_NOT_FOUND")

            let audit = try await h.store.auditEntries(before: nil, limit: 50).filter { $0.action.hasPrefix("tenants.") }
            #expect(audit.map(\.action).sorted() == ["tenants.create", "tenants.delete", "tenants.update", "tenants.update"])
            #expect(audit.allSatisfy { $0.target == id })
            #expect(audit.first { $0.action == "tenants.create" }?.detail == "displayName,allowPasswordSignup")
        }
    }

    /// Issue 38, item 1: a list pages by id (`pageSize`, default 20, at most 1000; `pageToken` the last id of the page),
    /// `nextPageToken` only when there is more, `tenants` absent when there are none; a bad page selection is refused.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func listPages(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let empty = try await Self.call(h, .get, Self.tenants)
            #expect(empty.status == 200 && empty.json?["tenants"] == nil && empty.json?["nextPageToken"] == nil, "\(empty.text)")

            let ids = (0..<23).map { String(format: "page-%05d", $0) }
            for id in ids { try await TenantTests.addTenant(h, id) }
            let first = try await Self.call(h, .get, Self.tenants)
            let firstPage = try first.decode(ListTenantsResponse.self)
            #expect(firstPage.tenants?.count == 20)
            #expect(firstPage.nextPageToken == "page-00019")

            var seen: [String] = []
            var token: String?
            repeat {
                let reply = try await Self.call(h, .get, "\(Self.tenants)?pageSize=7" + (token.map { "&pageToken=\($0)" } ?? ""))
                let page = try reply.decode(ListTenantsResponse.self)
                seen += (page.tenants ?? []).map { Self.id(of: ["name": $0.name ?? ""]) }
                token = page.nextPageToken
            } while token != nil
            #expect(seen == ids)

            let all = try await Self.call(h, .get, "\(Self.tenants)?pageSize=1000").decode(ListTenantsResponse.self)
            #expect(all.tenants?.count == 23 && all.nextPageToken == nil)
            for bad in ["pageSize=0", "pageSize=1001", "pageSize=x", "pageToken=NOT_AN_ID", "pageToken=\(String(repeating: "t", count: 300))"] {
                #expect(try await Self.call(h, .get, "\(Self.tenants)?\(bad)").errorCode == "INVALID_PAGE_SELECTION", "\(bad)")
            }
            // A NUL is refused before any route reads it.
            #expect(try await Self.call(h, .get, "\(Self.tenants)?pageToken=%00").errorCode == "INVALID_ARGUMENT")
        }
    }

    /// Issue 38, item 1: fields Hearth cannot honour, the emulator's `tenantId` and typos are refused by name (never
    /// dropped), a create needs a valid display name, a mask path Hearth cannot change is `INVALID_UPDATE_MASK`; nothing
    /// is created or changed.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func unknownFieldsAreRefusedByName(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let cases: [(String, String, String)] = [
                (#"{"displayName":"okname","testPhoneNumbers":{"+15555550100":"123456"}}"#, "INVALID_ARGUMENT", "testPhoneNumbers"),
                (#"{"displayName":"okname","tenantId":"chosen-id"}"#, "INVALID_ARGUMENT", "tenantId"),
                (#"{"displayName":"okname","allowPasswordSignUp":true}"#, "INVALID_ARGUMENT", "allowPasswordSignUp"),
                (#"{"displayName":"okname","mfaConfig":{"state":"ENABLED","bogus":1}}"#, "INVALID_ARGUMENT", "mfaConfig.bogus"),
                (#"{"displayName":"okname","disableAuth":"yes"}"#, "INVALID_ARGUMENT", "disableAuth"),
                (#"{"allowPasswordSignup":true}"#, "INVALID_DISPLAY_NAME", "displayName"),
                (#"{"displayName":"1bad"}"#, "INVALID_DISPLAY_NAME", "starts with a letter"),
                (#"[1]"#, "INVALID_JSON_PAYLOAD", "tenant object"),
            ]
            for (body, code, named) in cases {
                let reply = try await Self.call(h, .post, Self.tenants, body)
                #expect(reply.status == 400 && reply.errorCode == code && Self.message(reply).contains(named), "\(body): \(reply.text)")
            }
            #expect(try await h.store.tenants(after: nil, limit: 10).isEmpty)

            let id = Self.id(of: try await Self.create(h, #"{"displayName":"keeper"}"#))
            let mask = try await Self.call(h, .patch, "\(Self.tenants)/\(id)?updateMask=smsRegionConfig", #"{"smsRegionConfig":{}}"#)
            #expect(mask.errorCode == "INVALID_UPDATE_MASK" && Self.message(mask).contains("smsRegionConfig"), "\(mask.text)")
            let field = try await Self.call(h, .patch, "\(Self.tenants)/\(id)", #"{"displayName":"renamed","monitoring":{}}"#)
            #expect(field.errorCode == "INVALID_ARGUMENT" && Self.message(field).contains("monitoring"), "\(field.text)")
            let name = try await Self.call(h, .patch, "\(Self.tenants)/\(id)?updateMask=displayName", #"{}"#)
            #expect(name.errorCode == "INVALID_DISPLAY_NAME", "\(name.text)")
            #expect(try await h.store.tenant(id: id)?.displayName == "keeper")
        }
    }

    /// Issue 38, item 1: a new tenant's sign-in methods are off (Identity Platform's default) until a patch turns
    /// password sign-up on; once the tenant is deleted through the API its users cannot sign in, their refresh
    /// tokens are dead and the users are gone.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func newTenantIsClosedAndADeletedTenantsUsersCannotSignIn(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let created = try await Self.create(h, #"{"displayName":"closed-shop"}"#)
            for flag in ["allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth"] {
                #expect(created[flag] as? Bool == false, "\(flag)")
            }
            #expect(created["mfaConfig"] == nil)
            let id = Self.id(of: created)
            var signUp = SignUpRequest(email: "ada@example.com", password: "correct horse")
            signUp.tenantId = id
            #expect(try await h.post(WirePaths.accounts("signUp"), signUp).errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await h.post(WirePaths.accounts("signUp"), raw: #"{"returnSecureToken":true,"tenantId":"\#(id)"}"#).errorCode == "OPERATION_NOT_ALLOWED")

            let opened = try await Self.call(h, .patch, "\(Self.tenants)/\(id)?updateMask=allowPasswordSignup", #"{"allowPasswordSignup":true}"#)
            #expect(opened.status == 200, "\(opened.text)")
            let user = try await TenantTests.signUp(h, "ada@example.com", tenant: id)
            #expect(TenantTests.tenantClaim(user.idToken) == id)

            #expect(try await Self.call(h, .delete, "\(Self.tenants)/\(id)").status == 200)
            var signIn = SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse")
            signIn.tenantId = id
            #expect(try await h.post(WirePaths.accounts("signInWithPassword"), signIn).errorCode == "TENANT_NOT_FOUND")
            #expect(try await h.refresh(user.refreshToken ?? "").errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await h.store.bound(toTenant: id).user(localId: user.localId) == nil)
        }
    }

    /// Issue 38, item 1: every tenant route needs an admin credential (none, or a wrong one, is 401) and nothing is
    /// created, changed or deleted without one.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func wrongAdminCredentialsAre401(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            for headers: HTTPFields in [[:], [.authorization: "Bearer nonsense"]] {
                let routes: [(HTTPRequest.Method, String, String?)] = [
                    (.post, Self.tenants, #"{"displayName":"sneaky"}"#), (.get, Self.tenants, nil), (.get, "\(Self.tenants)/acme-aaaaa", nil),
                    (.patch, "\(Self.tenants)/acme-aaaaa", #"{"disableAuth":true}"#), (.delete, "\(Self.tenants)/acme-aaaaa", nil),
                ]
                for (method, path, body) in routes {
                    let reply = try await Self.call(h, method, path, body, headers: headers)
                    #expect(reply.status == 401, "\(method) \(path) \(headers): \(reply.text)")
                }
            }
            let tenants = try await h.store.tenants(after: nil, limit: 10)
            #expect(tenants.map(\.id) == ["acme-aaaaa"] && tenants.first?.settings.disableAuth == false)
        }
    }

    /// Issue 38, item 1: a NUL in the id is refused (`INVALID_ARGUMENT`) and touches nothing; oversized, upper-case
    /// or unknown ids name no tenant (`TENANT_NOT_FOUND`, the id quoted shortened), also for a PATCH whose body and
    /// mask are bad too — the missing tenant is answered first.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func malformedAndMissingIdsAreTenantNotFound(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let long = String(repeating: "t", count: 300)
            try await TenantTests.addTenant(h, "abcdef-ghijk")
            // A NUL in the path is refused before routing (INVALID_ARGUMENT, as everywhere); the tenant it resembles is untouched.
            for (method, body) in [(HTTPRequest.Method.get, nil), (.delete, nil), (.patch, #"{"disableAuth":true}"#)] as [(HTTPRequest.Method, String?)] {
                let reply = try await Self.call(h, method, "\(Self.tenants)/abcdef-ghijk%00", body)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_ARGUMENT", "\(method): \(reply.text.prefix(200))")
            }
            let kept = try await h.store.tenant(id: "abcdef-ghijk")
            #expect(kept != nil && kept?.settings.disableAuth == false)
            for id in [long, "Not_A_Tenant", "ghost-abcde", "abc-", "abcdef-ghijk%20"] {
                let path = "\(Self.tenants)/\(id)"
                for (method, body) in [(HTTPRequest.Method.get, nil), (.delete, nil), (.patch, #"{"displayName":"ghost"}"#)] as [(HTTPRequest.Method, String?)] {
                    let reply = try await Self.call(h, method, path, body)
                    #expect(reply.errorCode == "TENANT_NOT_FOUND", "\(method) \(id.prefix(20)): \(reply.text.prefix(200))")
                    #expect(!Self.message(reply).contains("\u{0}") && Self.message(reply).count < 400)
                }
            }
            let patch = try await Self.call(h, .patch, "\(Self.tenants)/ghost-abcde?updateMask=testPhoneNumbers", #"{"bogus":1}"#)
            #expect(patch.errorCode == "TENANT_NOT_FOUND", "\(patch.text)")
            #expect(try await h.store.tenants(after: nil, limit: 10).map(\.id) == ["abcdef-ghijk"])
        }
    }

    /// Issue 38, item 1 (firebase-admin's `auth_for_tenant(t).import_users`): a tenant path's `batchCreate` imports
    /// users that carry no `tenantId` (the SDK sends none) into that tenant; one naming another tenant is refused.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTenantPathImportsUsersWithoutTenantIdIntoTheTenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            let path = "\(WirePaths.identityToolkitV1)/projects/demo-hearth/tenants/acme-aaaaa/accounts:batchCreate"
            let imported = try await Self.call(h, .post, path, #"{"users":[{"localId":"imp1","email":"imp@example.com"}]}"#)
            #expect(imported.status == 200 && imported.json?["error"] == nil, "\(imported.text)")
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: "imp1")?.tenantId == "acme-aaaaa")
            #expect(try await h.store.user(localId: "imp1") == nil)
            let other = try await Self.call(h, .post, path, #"{"users":[{"localId":"imp2","tenantId":"beta-bbbbb"}]}"#)
            #expect(other.errorCode == "TENANT_ID_MISMATCH", "\(other.text)")
        }
    }

    /// Issue 38, item 1: the OpenAPI document's tenant operations carry request examples that Hearth's own reading of a
    /// tenant body accepts, and a Tenant schema naming exactly the fields Hearth honours.
    @Test func theOpenAPIDocumentsTenantExamplesDecode() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        let base = "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants"
        for (path, method) in [(base, "post"), ("\(base)/{tenant}", "patch")] {
            let operation = try #require(paths[path]?[method] as? [String: Any], "\(method) \(path)")
            let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
            let example = try #require((content?["application/json"] as? [String: Any])?["example"], "\(method) \(path)")
            let value = try JSONDecoder().decode(JSONValue.self, from: JSONSerialization.data(withJSONObject: example))
            let tenant = try Tenant.decodeBody(value)
            if method == "post" { #expect(try TenantRecord.creating(tenant, at: Date()).displayName == "acme-corp") }
        }
        #expect(paths["\(base)/{tenant}"]?["get"] != nil && paths["\(base)/{tenant}"]?["delete"] != nil && paths[base]?["get"] != nil)
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas["Tenant"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(["name"] + Tenant.settableFields))
    }
}
