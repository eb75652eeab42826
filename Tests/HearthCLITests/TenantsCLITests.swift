import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import HearthTesting
import Testing

/// `hearth tenants …`, `--tenant` on the user and provider commands, and `hearth migrate` per tenant (issue 38).
@Suite struct TenantsCLITests {
    /// A data directory holding an empty store.
    static func dataDirectory() async throws -> String {
        let dataDir = CLI.temporaryDirectory() + "/data"
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        try await SQLiteStore.open(path: dataDir + "/hearth.sqlite").close()
        return dataDir
    }

    /// Creates a tenant through the command and returns its id.
    static func createTenant(_ dataDir: String, _ name: String, _ flags: [String] = []) throws -> String {
        let created = try CLI.run(["tenants", "create", "--display-name", name, "--data-dir", dataDir] + flags)
        #expect(created.status == 0, "\(created.output)")
        let line = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("Created tenant ") })
        return String(line.dropFirst("Created tenant ".count).prefix { $0 != " " })
    }

    static func userLines(_ result: CLI.Result) -> [Substring] {
        result.stdout.split(separator: "\n").filter { $0.contains("\t") }
    }

    /// Issue 38, item 4: `hearth tenants list | create | get | delete` on the data, audited; wrong input refused plainly.
    @Test func tenantsCommands() async throws {
        let dataDir = try await Self.dataDirectory()
        let empty = try CLI.run(["tenants", "list", "--data-dir", dataDir])
        #expect(empty.status == 0 && empty.stdout.contains("No tenants."), "\(empty.output)")

        let id = try Self.createTenant(dataDir, "Acme-Corp", ["--allow-password-signup", "--enable-anonymous"])
        #expect(id.hasPrefix("acme-corp-") && TenantRecord.isValidId(id), "\(id)")
        let list = try CLI.run(["tenants", "list", "--data-dir", dataDir])
        #expect(list.stdout.contains("\(id)\tAcme-Corp\tpassword,anonymous"), "\(list.output)")
        let shown = try CLI.run(["tenants", "get", id, "--data-dir", dataDir])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.stdout.contains("password sign-up     on"), "\(shown.output)")
        #expect(shown.stdout.contains("email-link sign-in   off"), "\(shown.output)")
        #expect(shown.stdout.contains("anonymous sign-in    on"), "\(shown.output)")

        // Wrong input: a bad display name, an unknown id, a control character, deleting without a terminal or --yes.
        for bad in ["1acme", "ab", "Acme Corp", "Acme\u{202E}Corp"] {
            let refused = try CLI.run(["tenants", "create", "--display-name", bad, "--data-dir", dataDir])
            #expect(refused.status != 0, "\(bad): \(refused.output)")
            #expect(refused.stderr.contains("4 to 20 letters"), "\(bad): \(refused.output)")
            #expect(!refused.output.contains("\u{202E}"))
        }
        for unknown in ["nope-12345", "ab\u{1}cd", "NOT_AN_ID"] {
            let missing = try CLI.run(["tenants", "get", unknown, "--data-dir", dataDir])
            #expect(missing.status != 0, "\(missing.output)")
            #expect(missing.stderr.contains("hearth tenants list"), "\(missing.output)")
            #expect(!missing.output.contains("\u{1}"))
        }
        let unasked = try CLI.run(["tenants", "delete", id, "--data-dir", dataDir])
        #expect(unasked.status != 0 && unasked.stderr.contains("--yes"), "\(unasked.output)")
        #expect(try CLI.run(["tenants", "get", id, "--data-dir", dataDir]).status == 0)

        // A tenant deleted takes its users; the project's user with the same email stays.
        #expect(try CLI.run(["users", "create", "--tenant", id, "--email", "same@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["users", "create", "--email", "same@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
        let deleted = try CLI.run(["tenants", "delete", id, "--yes", "--data-dir", dataDir])
        #expect(deleted.status == 0 && deleted.stdout.contains("Deleted tenant \(id)."), "\(deleted.output)")
        #expect(try CLI.run(["tenants", "list", "--data-dir", dataDir]).stdout.contains("No tenants."))
        #expect(try CLI.run(["tenants", "delete", id, "--yes", "--data-dir", dataDir]).stderr.contains("hearth tenants list"))
        #expect(Self.userLines(try CLI.run(["users", "list", "--data-dir", dataDir])).count == 1)

        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let actions = try await store.auditEntries(before: nil, limit: 100).filter { $0.target == id }.map(\.action)
        try await store.close()
        #expect(Set(actions) == ["tenants.create", "tenants.delete"], "\(actions)")
    }

    /// Issue 38, item 4: `--tenant ID` on `hearth users` (create, list, get, update, disable, enable, revoke, set-claims,
    /// delete, export, import) and
    /// `hearth providers` (enable, list, disable, remove) acts in that tenant only; an unknown tenant is refused.
    @Test func tenantFlagOnUsersAndProviders() async throws {
        let dataDir = try await Self.dataDirectory()
        let acme = try Self.createTenant(dataDir, "Acme")
        let globex = try Self.createTenant(dataDir, "Globex")
        let password = ["--password", "secret123", "--data-dir", dataDir]
        // The same email three times: the project and two tenants, three users.
        for tenant in [nil, acme, globex] {
            let created = try CLI.run(["users", "create", "--email", "same@example.com"] + (tenant.map { ["--tenant", $0] } ?? []) + password)
            #expect(created.status == 0, "\(created.output)")
        }
        #expect(try CLI.run(["users", "create", "--tenant", acme, "--email", "only-acme@example.com"] + password).status == 0)
        let inAcme = Self.userLines(try CLI.run(["users", "list", "--tenant", acme, "--data-dir", dataDir]))
        let inGlobex = Self.userLines(try CLI.run(["users", "list", "--tenant", globex, "--data-dir", dataDir]))
        let inProject = Self.userLines(try CLI.run(["users", "list", "--data-dir", dataDir]))
        #expect(inAcme.count == 2 && inGlobex.count == 1 && inProject.count == 1, "\(inAcme) \(inGlobex) \(inProject)")
        #expect(!inProject.contains { $0.contains("only-acme") })
        let acmeUid = try #require(inAcme.first { $0.contains("same@example.com") }?.split(separator: "\t").first.map(String.init))
        #expect(!inGlobex.contains { $0.hasPrefix(acmeUid) } && !inProject.contains { $0.hasPrefix(acmeUid) })

        // get and delete see the tenant's users only.
        #expect(try CLI.run(["users", "get", "only-acme@example.com", "--data-dir", dataDir]).status != 0)
        #expect(try CLI.run(["users", "get", "only-acme@example.com", "--tenant", acme, "--data-dir", dataDir]).stdout.contains("only-acme@example.com"))
        #expect(try CLI.run(["users", "delete", acmeUid, "--data-dir", dataDir]).status != 0)
        #expect(try CLI.run(["users", "delete", acmeUid, "--tenant", globex, "--data-dir", dataDir]).status != 0)

        // update, disable, set-claims and revoke too (the same email in the project is another user, left alone).
        #expect(try CLI.run(["users", "disable", "only-acme@example.com", "--data-dir", dataDir]).status != 0)
        #expect(try CLI.run(["users", "disable", "same@example.com", "--tenant", globex, "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["users", "set-claims", "same@example.com", #"{"org":"globex"}"#, "--tenant", globex, "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["users", "revoke", "same@example.com", "--tenant", globex, "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["users", "update", "same@example.com", "--display-name", "Globex Person", "--tenant", globex, "--data-dir", dataDir]).status == 0)
        let globexUser = try CLI.run(["users", "get", "same@example.com", "--tenant", globex, "--data-dir", dataDir]).stdout
        #expect(globexUser.contains("disabled         yes") && globexUser.contains("globex") && globexUser.contains("Globex Person"), "\(globexUser)")
        let projectUser = try CLI.run(["users", "get", "same@example.com", "--data-dir", dataDir]).stdout
        #expect(projectUser.contains("disabled         no") && !projectUser.contains("globex") && !projectUser.contains("Globex Person"), "\(projectUser)")
        #expect(try CLI.run(["users", "enable", "same@example.com", "--tenant", globex, "--data-dir", dataDir]).status == 0)

        // export of one tenant, import into another.
        let file = CLI.temporaryDirectory() + "/acme.json"
        let exported = try CLI.run(["users", "export", file, "--tenant", acme, "--data-dir", dataDir])
        #expect(exported.status == 0, "\(exported.output)")
        let json = try String(contentsOfFile: file, encoding: .utf8)
        #expect(json.contains(acmeUid) && json.contains("only-acme@example.com"), "\(json)")
        // (uids are unique across the whole store, so the tenant's users go into another Hearth's tenant.)
        let otherDir = try await Self.dataDirectory()
        let target = try Self.createTenant(otherDir, "Initech")
        let imported = try CLI.run(["users", "import", file, "--tenant", target, "--hash-algo", "STANDARD_SCRYPT", "--mem-cost", "16384",
                                    "--block-size", "8", "--parallelization", "1", "--dk-len", "32", "--data-dir", otherDir])
        #expect(imported.stdout.contains("Imported 2 of 2"), "\(imported.output)")
        let importedLines = Self.userLines(try CLI.run(["users", "list", "--tenant", target, "--data-dir", otherDir]))
        #expect(importedLines.count == 2 && importedLines.contains { $0.hasPrefix(acmeUid) }, "\(importedLines)")
        #expect(Self.userLines(try CLI.run(["users", "list", "--data-dir", otherDir])).isEmpty)
        #expect(try CLI.run(["users", "delete", acmeUid, "--tenant", acme, "--data-dir", dataDir]).status == 0)
        #expect(Self.userLines(try CLI.run(["users", "list", "--tenant", acme, "--data-dir", dataDir])).count == 1)

        // Providers: one tenant's configuration is not the project's nor the other tenant's.
        let enabled = try CLI.run(["providers", "enable", "microsoft.com", "--tenant", acme, "--client-id", "11111111-2222-3333-4444-555555555555",
                                   "--client-secret", "acme-secret", "--data-dir", dataDir])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(try CLI.run(["providers", "list", "--tenant", acme, "--data-dir", dataDir]).stdout.contains("microsoft.com\tenabled\tclient 11111111-2222-3333-4444-555555555555"))
        #expect(try CLI.run(["providers", "list", "--data-dir", dataDir]).stdout.contains("No providers."))
        #expect(try CLI.run(["providers", "list", "--tenant", globex, "--data-dir", dataDir]).stdout.contains("No providers."))
        #expect(try CLI.run(["providers", "disable", "microsoft.com", "--data-dir", dataDir]).status != 0)
        #expect(try CLI.run(["providers", "disable", "microsoft.com", "--tenant", acme, "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["providers", "list", "--tenant", acme, "--data-dir", dataDir]).stdout.contains("microsoft.com\tdisabled"))
        #expect(try CLI.run(["providers", "remove", "microsoft.com", "--tenant", acme, "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["providers", "list", "--tenant", acme, "--data-dir", dataDir]).stdout.contains("No providers."))

        // Wrong input: an unknown, malformed or control-character tenant id names `hearth tenants list`.
        for unknown in ["nope-12345", "Bad_Id", "ab\u{1}cd"] {
            for command in [["users", "list"], ["users", "create", "--email", "x@example.com", "--password", "secret123"], ["providers", "list"]] {
                let refused = try CLI.run(command + ["--tenant", unknown, "--data-dir", dataDir])
                #expect(refused.status != 0, "\(command) \(refused.output)")
                #expect(refused.stderr.contains("hearth tenants list"), "\(command) \(refused.output)")
                #expect(!refused.output.contains("\u{1}"))
            }
        }
        #expect(Self.userLines(try CLI.run(["users", "list", "--data-dir", dataDir])).count == 1)
    }

    /// Issue 38, item 4/5: `hearth migrate` copies every tenant with its users (the same email in two tenants and the
    /// project), provider configurations, refresh tokens and audit entries, each into its own tenant.
    @Test func migrateCopiesEveryTenant() async throws {
        let dataDir = try await Self.dataDirectory()
        let acme = try Self.createTenant(dataDir, "Acme", ["--allow-password-signup"])
        let globex = try Self.createTenant(dataDir, "Globex")
        for (tenant, client) in [(acme, "aaaaaaaa-2222-3333-4444-555555555555"), (globex, "bbbbbbbb-2222-3333-4444-555555555555")] {
            #expect(try CLI.run(["users", "create", "--tenant", tenant, "--email", "same@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
            #expect(try CLI.run(["providers", "enable", "microsoft.com", "--tenant", tenant, "--client-id", client, "--client-secret", "s-\(tenant)", "--data-dir", dataDir]).status == 0)
        }
        #expect(try CLI.run(["users", "create", "--email", "same@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
        // A refresh token in a tenant (read by the copy across tenants; written into its own).
        let source = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let acmeUser = try #require(try await source.bound(toTenant: acme).user(email: "same@example.com"))
        try await source.bound(toTenant: acme).insertRefreshToken(RefreshTokenRecord(
            tokenHash: String(repeating: "c", count: 64), familyId: "fam", localId: acmeUser.localId, authTime: Date(),
            signInProvider: "password", createdAt: Date()))
        let acmeAudit = try await source.bound(toTenant: acme).auditEntries(before: nil, limit: 100).count
        try await source.close()

        let copyDir = CLI.temporaryDirectory() + "/copy"
        let copy = try CLI.run(["migrate", "--from", dataDir, "--to", copyDir])
        #expect(copy.status == 0, "\(copy.output)")
        #expect(copy.stdout.contains("count check: ok"), "\(copy.output)")
        #expect(copy.stdout.contains("tenants                     2        2        2"), "\(copy.output)")
        #expect(copy.stdout.contains("users                       3        3        3"), "\(copy.output)")
        #expect(copy.stdout.contains("identity providers          2        2        2"), "\(copy.output)")

        let target = try await SQLiteStore.open(path: copyDir + "/hearth.sqlite")
        #expect(Set(try await target.tenants(after: nil, limit: 10).map(\.id)) == [acme, globex])
        #expect(try await target.tenant(id: acme)?.settings.allowPasswordSignup == true)
        for tenant in [nil, acme, globex] {
            let users = try await target.bound(toTenant: tenant).listUsers(after: nil, limit: 10)
            #expect(users.map(\.email) == ["same@example.com"], "\(tenant ?? "project")")
            #expect(users.first?.tenantId == tenant)
        }
        #expect(try await target.bound(toTenant: acme).user(localId: acmeUser.localId)?.passwordHash == acmeUser.passwordHash)
        #expect(try await target.bound(toTenant: acme).idpConfig(providerId: "microsoft.com")?.clientId == "aaaaaaaa-2222-3333-4444-555555555555")
        #expect(try await target.bound(toTenant: globex).idpConfig(providerId: "microsoft.com")?.clientId == "bbbbbbbb-2222-3333-4444-555555555555")
        #expect(try await target.idpConfigs().isEmpty)
        #expect(try await target.refreshToken(hash: String(repeating: "c", count: 64))?.tenantId == acme)
        #expect(try await target.bound(toTenant: acme).auditEntries(before: nil, limit: 100).count == acmeAudit)
        try await target.close()

        // The copy refuses a target that holds only tenants, unless told.
        let again = try CLI.run(["migrate", "--from", dataDir, "--to", copyDir])
        #expect(again.status != 0 && again.stderr.contains("--allow-non-empty"), "\(again.output)")
        let added = try CLI.run(["migrate", "--from", dataDir, "--to", copyDir, "--allow-non-empty"])
        #expect(added.status == 0 && added.stdout.contains("count check: ok"), "\(added.output)")
    }

    /// Issue 38, item 4/5: `hearth migrate` SQLite → PostgreSQL → SQLite keeps each tenant's users (the same email in
    /// two tenants and the project) and providers in their tenants.
    @Test(.enabled(if: PostgresTestDatabase.url != nil, Comment(rawValue: PostgresTestDatabase.skipNotice)))
    func migrateTenantsThroughPostgres() async throws {
        try await PostgresTestDatabase.withDatabase { configuration in
            let databaseURL = ReplicaTests.url(configuration)
            let dataDir = try await Self.dataDirectory()
            let acme = try Self.createTenant(dataDir, "Acme")
            let globex = try Self.createTenant(dataDir, "Globex")
            for tenant in [nil, acme, globex] {
                let flag = tenant.map { ["--tenant", $0] } ?? []
                #expect(try CLI.run(["users", "create", "--email", "same@example.com", "--password", "secret123", "--data-dir", dataDir] + flag).status == 0)
            }
            #expect(try CLI.run(["providers", "enable", "microsoft.com", "--tenant", globex, "--client-id", "bbbbbbbb-2222-3333-4444-555555555555",
                                 "--client-secret", "s", "--data-dir", dataDir]).status == 0)
            let copy = try CLI.run(["migrate", "--from", dataDir, "--to", databaseURL])
            #expect(copy.status == 0 && copy.stdout.contains("count check: ok"), "\(copy.output)")
            let postgres = try await PostgresStore.open(configuration)
            for tenant in [nil, acme, globex] {
                let users = try await postgres.bound(toTenant: tenant).listUsers(after: nil, limit: 10)
                #expect(users.map(\.email) == ["same@example.com"] && users.first?.tenantId == tenant, "\(tenant ?? "project")")
            }
            #expect(try await postgres.bound(toTenant: globex).idpConfig(providerId: "microsoft.com")?.clientId == "bbbbbbbb-2222-3333-4444-555555555555")
            #expect(try await postgres.idpConfigs().isEmpty)
            try await postgres.close()

            let back = CLI.temporaryDirectory() + "/back"
            let reverse = try CLI.run(["migrate", "--from", databaseURL, "--to", back])
            #expect(reverse.status == 0 && reverse.stdout.contains("count check: ok"), "\(reverse.output)")
            #expect(reverse.stdout.contains("tenants                     2        2        2"), "\(reverse.output)")
            for tenant in [acme, globex] {
                let list = try CLI.run(["users", "list", "--tenant", tenant, "--data-dir", back])
                #expect(Self.userLines(list).count == 1 && list.stdout.contains("same@example.com"), "\(list.output)")
            }
            #expect(try CLI.run(["providers", "list", "--tenant", globex, "--data-dir", back]).stdout.contains("client bbbbbbbb-2222-3333-4444-555555555555"))
        }
    }
}
