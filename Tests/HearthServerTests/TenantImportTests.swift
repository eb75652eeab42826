import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// Issue 38, item 4 (import per tenant): uids are unique across a Hearth server's tenants (Identity Platform's are per
/// tenant), so importing a uid another tenant holds is refused with a message that says so — never an overwrite of
/// the other tenant's user.
@Suite struct TenantImportTests {
    static func batchCreate(_ h: HearthHarness, tenant: String?, _ body: String) async throws -> HearthHarness.Reply {
        let path = "\(WirePaths.identityToolkitV1)/projects/demo-hearth/\(tenant.map { "tenants/\($0)/" } ?? "")accounts:batchCreate"
        return try await TenantResourceTests.call(h, .post, path, body)
    }

    /// The `error[]` messages of a batchCreate answer.
    static func messages(_ reply: HearthHarness.Reply) -> [String] {
        ((reply.json?["error"] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
    }

    /// Issue 38, item 3: importing into tenant B a uid that tenant A (or the project) holds answers, per user,
    /// DUPLICATE_LOCAL_ID naming the uid and saying uids are unique across the server's tenants — with and without
    /// allowOverwrite — and leaves A's user as it was; a new uid imports, and a uid of B itself still says it exists.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aUidOfAnotherTenantIsRefusedInWords(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa")
            try await TenantTests.addTenant(h, "beta-bbbbb")
            let first = try await Self.batchCreate(h, tenant: "acme-aaaaa", #"{"users":[{"localId":"shared-uid","email":"a@example.com","displayName":"Acme's"}]}"#)
            #expect(first.status == 200 && Self.messages(first).isEmpty, "\(first.text)")
            let projects = try await Self.batchCreate(h, tenant: nil, #"{"users":[{"localId":"project-uid","email":"p@example.com"}]}"#)
            #expect(projects.status == 200 && Self.messages(projects).isEmpty, "\(projects.text)")

            for overwrite in [false, true] {
                let body = #"{"allowOverwrite":\#(overwrite),"users":[{"localId":"shared-uid","email":"b@example.com","displayName":"Beta's"},"#
                    + #"{"localId":"project-uid","email":"q@example.com"},{"localId":"new-uid","email":"n\#(overwrite)@example.com"}]}"#
                let reply = try await Self.batchCreate(h, tenant: "beta-bbbbb", body)
                #expect(reply.status == 200, "\(reply.text)")
                let errors = (reply.json?["error"] as? [[String: Any]]) ?? []
                #expect(errors.compactMap { $0["index"] as? Int } == [0, 1], "\(reply.text)")
                let messages = Self.messages(reply)
                #expect(messages.count == 2, "\(reply.text)")
                for (message, uid) in zip(messages, ["shared-uid", "project-uid"]) {
                    #expect(message.hasPrefix("DUPLICATE_LOCAL_ID : uid \(uid) belongs to a user outside tenant beta-bbbbb"), "\(message)")
                    #expect(message.contains("uids are unique across a Hearth server's tenants"), "\(message)")
                    #expect(message.contains("import these users into another Hearth server"), "\(message)")
                }
            }
            // Nothing of tenant A's or the project's user changed; the new uid is B's (replaced by the second import).
            let acmes = try #require(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: "shared-uid"))
            #expect(acmes.email == "a@example.com" && acmes.displayName == "Acme's" && acmes.tenantId == "acme-aaaaa")
            #expect(try await h.store.user(localId: "project-uid")?.email == "p@example.com")
            #expect(try await h.store.bound(toTenant: "beta-bbbbb").user(localId: "shared-uid") == nil)
            #expect(try await h.store.bound(toTenant: "beta-bbbbb").user(localId: "new-uid")?.email == "ntrue@example.com")

            // A uid of B itself: the ordinary answer (it exists; allowOverwrite replaces it).
            let again = try await Self.batchCreate(h, tenant: "beta-bbbbb", #"{"users":[{"localId":"new-uid","email":"ntrue@example.com"}]}"#)
            #expect(Self.messages(again) == ["DUPLICATE_LOCAL_ID : localId belongs to an existing account - can not overwrite"], "\(again.text)")
            // And the project importing tenant A's uid is refused the same way, naming the project.
            let intoProject = try await Self.batchCreate(h, tenant: nil, #"{"users":[{"localId":"shared-uid"}]}"#)
            #expect(Self.messages(intoProject).first?.hasPrefix("DUPLICATE_LOCAL_ID : uid shared-uid belongs to a user outside the project") == true,
                    "\(intoProject.text)")

            // An administrator creating a user in B with A's uid is told the same, and A's user is untouched.
            let created = try await TenantResourceTests.call(h, .post, "\(WirePaths.identityToolkitV1)/projects/demo-hearth/tenants/beta-bbbbb/accounts",
                                                             #"{"localId":"shared-uid","email":"c@example.com"}"#)
            #expect(created.status == 400 && created.errorCode == "DUPLICATE_LOCAL_ID", "\(created.text)")
            #expect(created.text.contains("uid shared-uid belongs to a user outside tenant beta-bbbbb") && created.text.contains("choose another uid"),
                    "\(created.text)")
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: "shared-uid")?.email == "a@example.com")
            // Its own uid in B: the ordinary answer.
            let own = try await TenantResourceTests.call(h, .post, "\(WirePaths.identityToolkitV1)/projects/demo-hearth/tenants/beta-bbbbb/accounts",
                                                         #"{"localId":"new-uid"}"#)
            #expect(own.errorCode == "DUPLICATE_LOCAL_ID" && !own.text.contains("outside"), "\(own.text)")
        }
    }
}
