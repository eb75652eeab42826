import Foundation
import HearthCore
import HearthStore
import Testing

/// `AdminUserStore` and `AuditLogStore`, for every store implementation.
@Suite struct AdminStoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func listUsersPagesByUid(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for id in ["c", "a", "e", "b", "d"] { try await store.createUser(makeUser(id, email: "\(id)@example.com")) }
            let first = try await store.listUsers(after: nil, limit: 2)
            #expect(first.map(\.localId) == ["a", "b"])
            #expect(first.first?.customClaims["role"] == .string("reader"), "users are loaded whole")
            #expect(try await store.listUsers(after: "b", limit: 2).map(\.localId) == ["c", "d"])
            #expect(try await store.listUsers(after: "d", limit: 2).map(\.localId) == ["e"])
            #expect(try await store.listUsers(after: "e", limit: 2).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func queryFiltersSortsAndCounts(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for (index, id) in ["u1", "u2", "u3", "u4"].enumerated() {
                var user = makeUser(id, email: "\(id)@example.com")
                user.createdAt = t0.addingTimeInterval(Double(10 - index))
                if id == "u3" { user.phoneNumber = "+15555550103" }
                try await store.createUser(user)
            }
            let all = try await store.queryUsers(UserQuery(sortBy: .createdAt, ascending: true, offset: 1, limit: 2))
            #expect(all.total == 4)
            #expect(all.users.map(\.localId) == ["u3", "u2"])
            let matched = try await store.queryUsers(UserQuery(emails: ["u1@example.com"], phoneNumbers: ["+15555550103"], localIds: ["u4", "nobody"],
                                                               sortBy: .userId, ascending: false))
            #expect(matched.total == 3)
            #expect(matched.users.map(\.localId) == ["u4", "u3", "u1"])
            #expect(matched.users.first { $0.localId == "u3" }?.phoneNumber == "+15555550103")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func phoneNumbersAreUniqueLikeIdentities(_ kind: StoreKind) async throws {
        try await kind.with { store in
            var first = makeUser("p1")
            first.phoneNumber = "+15555550100"
            try await store.createUser(first)
            var second = makeUser("p2")
            second.phoneNumber = "+15555550100"
            await #expect(throws: StoreError.federatedIdTaken(providerId: "phone")) { try await store.createUser(second) }
            #expect(try await store.user(providerId: "phone", federatedId: "+15555550100")?.localId == "p1")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteAllUsersLeavesConfiguration(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.createUser(makeUser("x1", email: "x1@example.com", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "y1")]))
            try await store.createUser(makeUser("x2"))
            try await store.saveProjectConfig(ProjectConfig(projectId: "demo-x", allowDuplicateEmails: true))
            #expect(try await store.deleteAllUsers() == 2)
            #expect(try await store.userCount() == 0)
            #expect(try await store.user(providerId: "yahoo.com", federatedId: "y1") == nil)
            #expect(try await store.projectConfig(projectId: "demo-x")?.allowDuplicateEmails == true)
            // The email and identity are free again.
            try await store.createUser(makeUser("x3", email: "x1@example.com", identities: [ProviderIdentity(providerId: "yahoo.com", federatedId: "y1")]))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func auditLogIsNewestFirstAndPages(_ kind: StoreKind) async throws {
        try await kind.with { store in
            for index in 0..<5 {
                try await store.appendAuditEntry(AuditEntry(time: t0.addingTimeInterval(Double(index)), actor: "emulator:owner",
                                                            action: "accounts.update", target: "u\(index)", detail: index == 0 ? nil : "disableUser"))
            }
            let page = try await store.auditEntries(before: nil, limit: 3)
            #expect(page.map(\.target) == ["u4", "u3", "u2"])
            #expect(page[0].time == t0.addingTimeInterval(4))
            #expect(page[0].id > page[1].id)
            let rest = try await store.auditEntries(before: page.last!.id, limit: 3)
            #expect(rest.map(\.target) == ["u1", "u0"])
            #expect(rest.last?.detail == nil)
            #expect(rest.last?.actor == "emulator:owner")
        }
    }
}
