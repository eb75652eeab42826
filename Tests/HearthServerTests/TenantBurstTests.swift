import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// The tenant burst runs with the flood suites (`scripts/test` runs `SignUpTests` on its own, not beside the
/// in-process suites, whose load made 50 concurrent scrypt sign-ups time out).
extension SignUpTests {
    /// Issue 38, item 3: 50 concurrent sign-ups of one email spread over two tenants and the project make exactly one
    /// user in each — three different uids — and every other attempt is `EMAIL_EXISTS`; never a 500.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aBurstOfSignUpsMakesOneUserPerTenant(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantAttackTests.addTenants(h)
            let tenants: [String?] = [TenantAttackTests.acme, TenantAttackTests.beta, nil]
            let replies = try await withThrowingTaskGroup(of: (String?, HearthHarness.Reply).self) { group in
                for index in 0..<50 {
                    let tenant = tenants[index % 3]
                    group.addTask {
                        var request = SignUpRequest(email: "ada@example.com", password: "correct horse")
                        request.tenantId = tenant
                        return (tenant, try await h.post(WirePaths.accounts("signUp"), request))
                    }
                }
                var all: [(String?, HearthHarness.Reply)] = []
                for try await reply in group { all.append(reply) }
                return all
            }
            #expect(replies.count == 50)
            var uids: [String] = []
            for tenant in tenants {
                let mine = replies.filter { $0.0 == tenant }.map(\.1)
                let created = mine.filter { $0.status == 200 }
                #expect(created.count == 1, "\(tenant ?? "project"): \(mine.map(\.status))")
                #expect(mine.allSatisfy { $0.status == 200 || ($0.status == 400 && $0.errorCode == "EMAIL_EXISTS") },
                        "\(tenant ?? "project"): \(mine.filter { $0.status != 200 }.map { "\($0.status) \($0.text.prefix(120))" })")
                let uid = try #require(created.first?.json?["localId"] as? String)
                #expect(TenantTests.tenantClaim(created.first?.json?["idToken"] as? String) == tenant)
                #expect(try await h.store.bound(toTenant: tenant).user(email: "ada@example.com")?.localId == uid)
                #expect(try await h.store.bound(toTenant: tenant).userCount() == 1)
                uids.append(uid)
            }
            #expect(Set(uids).count == 3)
        }
    }
}
