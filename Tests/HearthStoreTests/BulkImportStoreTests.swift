import Foundation
import HearthCore
import HearthStore
import HearthTesting
import Testing

/// Issue 41 (H1): the stores' bulk path of imports, `AdminUserStore.importUsers`, on every engine.
@Suite struct BulkImportStoreTests {
    /// A user with a federated identity and, for every third, a phone number (the `phone` identity).
    static func imported(_ i: Int, email: String? = nil, federatedId: String? = nil, phone: String? = nil) -> UserRecord {
        var user = makeUser("bulk-\(i)", email: email ?? "bulk\(i)@example.com",
                            identities: [ProviderIdentity(providerId: "google.com", federatedId: federatedId ?? "g-\(i)", email: "bulk\(i)@gmail.com",
                                                          displayName: "Bulk \(i)")])
        user.phoneNumber = phone ?? (i % 3 == 0 ? "+1555\(String(10_000_000 + i).dropFirst())" : nil)
        return user
    }

    /// Issue 41, H1 (store bulk path): 1 200 users (three statements of ≤ 500 rows) go in with their federated
    /// identities and phone numbers, in the store's tenant; each reads back equal to what was written, and is found
    /// by identity and by phone number; `tenantsOfUsers` names the tenant of each uid it holds.
    @Test(arguments: StoreKind.allCases)
    func bulkImportWritesUsersWithTheirIdentities(_ kind: StoreKind) async throws {
        try await kind.with { root in
            let users = (0..<1_200).map { Self.imported($0) }
            try await root.importUsers(users)
            #expect(try await root.userCount() == 1_200)
            for i in [0, 499, 500, 1_199] {
                #expect(try await root.user(localId: "bulk-\(i)") == users[i])
            }
            #expect(try await root.user(providerId: "google.com", federatedId: "g-777")?.localId == "bulk-777")
            #expect(try await root.user(providerId: ProviderIdentity.phoneProviderId, federatedId: "+15550000300")?.localId == "bulk-300")
            #expect(try await root.user(email: "bulk1199@example.com")?.identities.count == 1)
            // In a tenant: stamped with it, invisible to the project.
            let acme = root.bound(toTenant: "acme-aaaaa")
            try await acme.importUsers([Self.imported(5_000, email: "bulk5@example.com", federatedId: "g-5")])
            #expect(try await acme.user(localId: "bulk-5000")?.tenantId == "acme-aaaaa")
            #expect(try await acme.user(providerId: "google.com", federatedId: "g-5")?.localId == "bulk-5000")
            #expect(try await root.user(localId: "bulk-5000") == nil)
            let tenants = try await root.tenantsOfUsers(localIds: ["bulk-1", "bulk-5000", "nobody"])
            #expect(tenants == ["bulk-1": "", "bulk-5000": "acme-aaaaa"])
            #expect(try await acme.tenantsOfUsers(localIds: []) == [:])
        }
    }

    /// Issue 41, H1 (store bulk path): a unique conflict anywhere in a batch — a uid held (in any tenant), an email
    /// held in the tenant, a federated identity or a phone number held in the tenant, or the same twice within the
    /// batch, even in its last statement — throws the typed `StoreError` and writes nothing of the batch.
    @Test(arguments: StoreKind.allCases)
    func aConflictThrowsTypedAndWritesNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.importUsers((0..<10).map { Self.imported($0) })
            func batch(_ last: UserRecord) -> [UserRecord] { (100..<700).map { Self.imported($0) } + [last] }
            let cases: [(String, [UserRecord], (StoreError) -> Bool)] = [
                ("stored uid", batch(Self.imported(3, email: "other@example.com", federatedId: "g-x")), { $0 == .duplicateLocalId }),
                ("uid twice", batch(Self.imported(100, email: "other@example.com", federatedId: "g-x")), { $0 == .duplicateLocalId }),
                ("stored email", batch(Self.imported(900, email: "bulk4@example.com")), { $0 == .emailExists }),
                ("email twice", batch(Self.imported(900, email: "bulk101@example.com")), { $0 == .emailExists }),
                ("stored identity", batch(Self.imported(900, federatedId: "g-2")), {
                    if case .federatedIdTaken = $0 { true } else { false }
                }),
                ("stored phone", batch(Self.imported(901, phone: "+15550000003")), {
                    if case .federatedIdTaken = $0 { true } else { false }
                }),
            ]
            for (name, users, expected) in cases {
                do {
                    try await store.importUsers(users)
                    Issue.record("\(name): no error")
                } catch let error as StoreError {
                    #expect(expected(error), "\(name): \(error)")
                }
                #expect(try await store.userCount() == 10, "\(name)")
                #expect(try await store.user(localId: "bulk-100") == nil, "\(name)")
                #expect(try await store.user(providerId: "google.com", federatedId: "g-150") == nil, "\(name)")
            }
            // The same email in another tenant is no conflict.
            try await store.bound(toTenant: "beta-bbbbb").importUsers([Self.imported(2_000, email: "bulk4@example.com", federatedId: "g-4")])
            #expect(try await store.bound(toTenant: "beta-bbbbb").userCount() == 1)
        }
    }
}
