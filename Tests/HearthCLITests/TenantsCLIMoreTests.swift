import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// `hearth tenants create|update|delete` through the admin service, `--tenant` on the link, second-factor, passkey
/// and provider-test commands, and an import of another tenant's uids (issue 38, item 4).
@Suite struct TenantsCLIMoreTests {
    static func audit(_ dataDir: String, tenant: String? = nil) async throws -> [AuditEntry] {
        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let entries = try await store.bound(toTenant: tenant).auditEntries(before: nil, limit: 100)
        try await store.close()
        return entries
    }

    static func notFound(_ id: String) -> String { "Error: no tenant \"\(id)\": hearth tenants list shows the tenants' ids\n" }

    /// Issue 38, item 1: `hearth tenants create`, `update` and `delete` go through the admin service (its checks,
    /// defaults and audit entries, by `cli:<login>`); `update` changes the display name and each sign-in switch;
    /// `delete` says how many users go and asks unless `--yes`; wrong input is refused in one line.
    @Test func tenantsCreateUpdateDeleteThroughTheAdminService() async throws {
        let dataDir = try await TenantsCLITests.dataDirectory()
        let id = try TenantsCLITests.createTenant(dataDir, "Acme", ["--allow-password-signup"])
        // The service's audit entry: the fields the create set (the old direct write recorded the display name).
        let created = try #require(try await Self.audit(dataDir).first { $0.action == "tenants.create" && $0.target == id })
        #expect(created.detail == "displayName,allowPasswordSignup" && created.actor.hasPrefix("cli:"), "\(created)")

        let updated = try CLI.run(["tenants", "update", id, "--display-name", "Acme-Two", "--no-allow-password-signup",
                                   "--enable-email-link-signin", "--enable-anonymous", "--data-dir", dataDir])
        #expect(updated.status == 0, "\(updated.output)")
        for line in ["id                   \(id)", "display name         Acme-Two", "password sign-up     off", "email-link sign-in   on",
                     "anonymous sign-in    on", "sign-in disabled     no"] {
            #expect(updated.stdout.contains(line), "\(line): \(updated.stdout)")
        }
        let change = try #require(try await Self.audit(dataDir).first { $0.action == "tenants.update" && $0.target == id })
        #expect(change.detail == "displayName,allowPasswordSignup,enableEmailLinkSignin,enableAnonymousUser" && change.actor.hasPrefix("cli:"), "\(change)")
        // What is not named stays; --allow-password-signup back on, email link off.
        let partly = try CLI.run(["tenants", "update", id, "--allow-password-signup", "--disable-email-link-signin", "--data-dir", dataDir])
        #expect(partly.stdout.contains("password sign-up     on") && partly.stdout.contains("email-link sign-in   off")
                && partly.stdout.contains("anonymous sign-in    on") && partly.stdout.contains("display name         Acme-Two"), "\(partly.output)")

        // --disable-auth: the tenant's users cannot be managed until --enable-auth, and the refusal says so.
        let off = try CLI.run(["tenants", "update", id, "--disable-auth", "--data-dir", dataDir])
        #expect(off.status == 0 && off.stdout.contains("sign-in disabled     yes"), "\(off.output)")
        #expect(try CLI.run(["tenants", "list", "--data-dir", dataDir]).stdout.contains("\(id)\tAcme-Two\tpassword,anonymous\tdisabled"))
        let refused = try CLI.run(["users", "list", "--tenant", id, "--data-dir", dataDir])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.stderr == "Error: tenant \(id) has sign-in and user management turned off (disableAuth): hearth tenants update \(id) --enable-auth turns them back on\n",
                "\(refused.stderr)")
        let on = try CLI.run(["tenants", "update", id, "--enable-auth", "--data-dir", dataDir])
        #expect(on.status == 0 && on.stdout.contains("sign-in disabled     no"), "\(on.output)")
        #expect(try CLI.run(["users", "list", "--tenant", id, "--data-dir", dataDir]).status == 0)

        // Wrong input: nothing to change, an unknown or malformed id, a bad name, no id, two contradicting switches.
        let nothing = try CLI.run(["tenants", "update", id, "--data-dir", dataDir])
        #expect(nothing.status == 64 && nothing.stderr.hasPrefix("Error: nothing to change: pass --display-name"), "\(nothing.output)")
        for unknown in ["nope-12345", "Bad_Id"] {
            let missing = try CLI.run(["tenants", "update", unknown, "--enable-anonymous", "--data-dir", dataDir])
            #expect(missing.status == 1 && missing.stderr == Self.notFound(unknown), "\(missing.output)")
            let gone = try CLI.run(["tenants", "delete", unknown, "--yes", "--data-dir", dataDir])
            #expect(gone.status == 1 && gone.stderr == Self.notFound(unknown), "\(gone.output)")
        }
        let badName = try CLI.run(["tenants", "update", id, "--display-name", "9lives", "--data-dir", dataDir])
        #expect(badName.status == 64, "\(badName.output)")
        #expect(badName.stderr.hasPrefix("Error: \"9lives\" is not a valid name: a tenant's displayName starts with a letter and has 4 to 20 letters"), "\(badName.stderr)")
        let noId = try CLI.run(["tenants", "update", "--enable-anonymous", "--data-dir", dataDir])
        #expect(noId.status == 64 && noId.stderr.hasPrefix("Error: Missing expected argument '<id>'"), "\(noId.output)")
        let both = try CLI.run(["tenants", "update", id, "--disable-auth", "--enable-auth", "--data-dir", dataDir])
        #expect(both.status == 64 && both.stderr.contains("--disable-auth") && both.stderr.contains("--enable-auth"), "\(both.output)")
        #expect(try CLI.run(["tenants", "get", id, "--data-dir", dataDir]).stdout.contains("display name         Acme-Two"))
        #expect(try await Self.audit(dataDir).filter { $0.action == "tenants.update" }.count == 4)

        // Delete: the question names the users that go with it; "no" on a terminal deletes nothing; --yes deletes.
        for email in ["one@example.com", "two@example.com"] {
            #expect(try CLI.run(["users", "create", "--tenant", id, "--email", email, "--password", "secret123", "--data-dir", dataDir]).status == 0)
        }
        let unasked = try CLI.run(["tenants", "delete", id, "--data-dir", dataDir])
        #expect(unasked.status == 64, "\(unasked.output)")
        #expect(unasked.stderr.hasPrefix("Error: Delete tenant \(id) (Acme-Two) with its 2 users and its providers? This cannot be undone.\nNo terminal to ask on: pass --yes to confirm."),
                "\(unasked.stderr)")
        let terminal = try TerminalRun("tenants delete \(id) --data-dir \(dataDir)", configHome: CLI.temporaryDirectory())
        let deadline = Date().addingTimeInterval(30)
        #expect(try await terminal.wait(for: "[y/N]", until: deadline), "\(terminal.text.value)")
        terminal.type("n")
        #expect(try await terminal.finish(by: deadline) == 1)
        #expect(terminal.text.value.contains("Error: Nothing deleted."), "\(terminal.text.value)")
        #expect(try CLI.run(["tenants", "get", id, "--data-dir", dataDir]).stdout.contains("users                2"))

        let deleted = try CLI.run(["tenants", "delete", id, "--yes", "--data-dir", dataDir])
        #expect(deleted.status == 0 && deleted.stdout == "Deleted tenant \(id). Its 2 users went with it.\n", "\(deleted.output)")
        #expect(try CLI.run(["tenants", "get", id, "--data-dir", dataDir]).stderr == Self.notFound(id))
        let removal = try #require(try await Self.audit(dataDir).first { $0.action == "tenants.delete" && $0.target == id })
        #expect(removal.actor.hasPrefix("cli:"))
    }

    /// Issue 38, item 2: `--tenant` on `hearth users reset-link|verify-link|signin-link`: the user is found in the
    /// tenant, the link carries `tenantId` and its code belongs to the tenant; the project's lookup does not see the
    /// tenant's user; an unknown tenant is one line naming `hearth tenants list`.
    @Test func tenantFlagOnActionLinks() async throws {
        let dataDir = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: dataDir)
        let id = try TenantsCLITests.createTenant(dataDir, "Acme", ["--allow-password-signup", "--enable-email-link-signin"])
        let created = try CLI.run(["users", "create", "--tenant", id, "--email", "link@example.com", "--password", "secret123", "--data-dir", dataDir])
        #expect(created.status == 0, "\(created.output)")
        for command in ["reset-link", "verify-link", "signin-link"] {
            let link = try CLI.run(["users", command, "link@example.com", "--tenant", id, "--data-dir", dataDir])
            #expect(link.status == 0, "\(command): \(link.output)")
            let url = try #require(URLComponents(string: link.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(command): \(link.stdout)")
            #expect(url.queryItems?.first { $0.name == "tenantId" }?.value == id, "\(command): \(link.stdout)")
            #expect(url.queryItems?.first { $0.name == "oobCode" }?.value?.isEmpty == false, "\(command): \(link.stdout)")
            let unknown = try CLI.run(["users", command, "link@example.com", "--tenant", "nope-12345", "--data-dir", dataDir])
            #expect(unknown.status == 1 && unknown.stderr == Self.notFound("nope-12345"), "\(command): \(unknown.output)")
        }
        let inProject = try CLI.run(["users", "reset-link", "link@example.com", "--data-dir", dataDir])
        #expect(inProject.status == 1 && inProject.stderr == "Error: no user with email link@example.com\n", "\(inProject.output)")
        let elsewhere = try CLI.run(["users", "reset-link", "nobody@example.com", "--tenant", id, "--data-dir", dataDir])
        #expect(elsewhere.status == 1 && elsewhere.stderr == "Error: no user with email nobody@example.com in tenant \(id)\n", "\(elsewhere.output)")

        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let codes = try await store.oobCodes(after: nil, limit: 10)
        let audit = try await store.bound(toTenant: id).auditEntries(before: nil, limit: 20).filter { $0.action == "user.oobLink" }
        try await store.close()
        #expect(codes.count == 3 && codes.allSatisfy { $0.tenantId == id }, "\(codes.map(\.tenantId))")
        #expect(audit.count == 3, "\(audit)")
    }

    /// Issue 38, item 2: `--tenant` on `hearth users mfa list|remove`, `hearth users passkeys list|remove` (the
    /// tenant's user only; removals audited in the tenant) and on `hearth providers test` (the tenant's own
    /// configuration); `users mfa remove-unopenable` reaches a tenant's users too.
    @Test func tenantFlagOnFactorsPasskeysAndProviderTest() async throws {
        let dataDir = try await TenantsCLITests.dataDirectory()
        let id = try TenantsCLITests.createTenant(dataDir, "Acme", ["--allow-password-signup"])
        #expect(try CLI.run(["users", "create", "--tenant", id, "--uid", "t-user", "--email", "t@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
        #expect(try CLI.run(["users", "create", "--tenant", id, "--uid", "t-lost", "--email", "lost@example.com", "--password", "secret123", "--data-dir", dataDir]).status == 0)
        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let tenantStore = store.bound(toTenant: id)
        var user = try #require(try await tenantStore.user(localId: "t-user"))
        user.mfa = UserMultiFactor(factors: [
            MultiFactorEnrollment(enrollmentId: "enr-phone", displayName: "Work phone", enrolledAt: Date(timeIntervalSince1970: 1_790_000_000), secret: "JBSWY3DPEHPK3PXP"),
            MultiFactorEnrollment(enrollmentId: "enr-tablet", displayName: nil, enrolledAt: Date(timeIntervalSince1970: 1_790_000_100), secret: "JBSWY3DPEHPK3PXQ"),
        ])
        _ = try await tenantStore.updateUser(user)
        var lost = try #require(try await tenantStore.user(localId: "t-lost"))
        lost.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "enr-lost", displayName: "Old phone", enrolledAt: Date(timeIntervalSince1970: 1_790_000_000),
                                                                   secret: ProviderTokenKeys.sealedSecretPrefix + "gone-key:AAAA")])
        _ = try await tenantStore.updateUser(lost)
        let credential = PasskeyBytes.url(Array("tenant-laptop-credential".utf8))
        #expect(try await store.insertPasskey(PasskeyCredential(credentialId: credential, localId: "t-user", userHandle: PasskeyBytes.url(Array("t-user".utf8)),
                                                                publicKey: "cHVibGljLWtleQ", algorithm: -7, signCount: 0, name: "Laptop",
                                                                createdAt: Date(timeIntervalSince1970: 1_790_000_000))))
        try await store.close()

        // Second factors.
        let projectList = try CLI.run(["users", "mfa", "list", "t-user", "--data-dir", dataDir])
        #expect(projectList.status == 1 && projectList.stderr == "Error: no user with uid or email t-user\n", "\(projectList.output)")
        let list = try CLI.run(["users", "mfa", "list", "t@example.com", "--tenant", id, "--data-dir", dataDir])
        #expect(list.status == 0 && list.stdout.contains("enr-phone\ttotp\tWork phone\t") && list.stdout.contains("enr-tablet\ttotp\t-\t"), "\(list.output)")
        #expect(try CLI.run(["users", "mfa", "remove", "t-user", "--factor", "enr-phone", "--yes", "--data-dir", dataDir]).status == 1)
        let one = try CLI.run(["users", "mfa", "remove", "t-user", "--factor", "enr-phone", "--yes", "--tenant", id, "--data-dir", dataDir])
        #expect(one.status == 0 && one.stdout.contains("Removed the second factor enr-phone (Work phone) of t-user"), "\(one.output)")
        let unknownMFA = try CLI.run(["users", "mfa", "list", "t-user", "--tenant", "nope-12345", "--data-dir", dataDir])
        #expect(unknownMFA.status == 1 && unknownMFA.stderr == Self.notFound("nope-12345"), "\(unknownMFA.output)")

        // Passkeys.
        let projectPasskeys = try CLI.run(["users", "passkeys", "list", "t-user", "--data-dir", dataDir])
        #expect(projectPasskeys.status == 1 && projectPasskeys.stderr == "Error: no user with uid or email t-user\n", "\(projectPasskeys.output)")
        let passkeys = try CLI.run(["users", "passkeys", "list", "t@example.com", "--tenant", id, "--data-dir", dataDir])
        #expect(passkeys.status == 0 && passkeys.stdout.contains("\(credential)\tLaptop\t"), "\(passkeys.output)")
        let removed = try CLI.run(["users", "passkeys", "remove", "t-user", credential, "--yes", "--tenant", id, "--data-dir", dataDir])
        #expect(removed.status == 0 && removed.stdout.contains("Removed the passkey \(credential) (Laptop) of t-user."), "\(removed.output)")
        #expect(try CLI.run(["users", "passkeys", "list", "t-user", "--tenant", id, "--data-dir", dataDir]).stdout.contains("t-user has no passkey."))
        let unknownPasskeys = try CLI.run(["users", "passkeys", "remove", "t-user", credential, "--yes", "--tenant", "Bad_Id", "--data-dir", dataDir])
        #expect(unknownPasskeys.status == 1 && unknownPasskeys.stderr == Self.notFound("Bad_Id"), "\(unknownPasskeys.output)")

        // A factor sealed with a lost key, held by a tenant's user, is found and removed in its tenant.
        let unopenable = try CLI.run(["users", "mfa", "remove-unopenable", "--yes", "--data-dir", dataDir])
        #expect(unopenable.status == 0, "\(unopenable.output)")
        #expect(unopenable.stdout.contains("Removed 1 second factor(s) of 1 user(s) sealed with key gone-key"), "\(unopenable.stdout)")

        let after = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let kept = try await after.bound(toTenant: id).user(localId: "t-user")
        let cleared = try await after.bound(toTenant: id).user(localId: "t-lost")
        let audit = try await after.bound(toTenant: id).auditEntries(before: nil, limit: 50).map(\.action)
        try await after.close()
        #expect(kept?.mfa.factors.map(\.enrollmentId) == ["enr-tablet"])
        #expect(cleared?.mfa.factors.isEmpty == true)
        #expect(audit.filter { $0 == "mfa.remove" }.count == 2 && audit.contains("passkey.remove"), "\(audit)")

        // providers test: the tenant's own configuration (its endpoint is the one checked); the project has none.
        let enabled = try CLI.run(["providers", "enable", "microsoft.com", "--tenant", id, "--client-id", "11111111-2222-3333-4444-555555555555",
                                   "--client-secret", "acme-secret", "--endpoint-base", "http://127.0.0.1:9248/acme-nothing", "--data-dir", dataDir])
        #expect(enabled.status == 0, "\(enabled.output)")
        let tested = try CLI.run(["providers", "test", "microsoft.com", "--tenant", id, "--data-dir", dataDir])
        #expect(tested.status == 1 && tested.stdout.contains("FAILED  discovery") && tested.stdout.contains("http://127.0.0.1:9248/acme-nothing/"), "\(tested.output)")
        let projectTest = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", dataDir])
        #expect(projectTest.status == 64 && projectTest.stderr.contains("Error: microsoft.com is not configured: hearth providers enable microsoft.com --client-id"),
                "\(projectTest.output)")
        let otherTenant = try TenantsCLITests.createTenant(dataDir, "Globex")
        let notThere = try CLI.run(["providers", "test", "microsoft.com", "--tenant", otherTenant, "--data-dir", dataDir])
        #expect(notThere.status == 64 && notThere.stderr.contains("Error: microsoft.com is not configured in tenant \(otherTenant): hearth providers enable microsoft.com --tenant \(otherTenant) --client-id"),
                "\(notThere.output)")
        let unknownTest = try CLI.run(["providers", "test", "microsoft.com", "--tenant", "nope-12345", "--data-dir", dataDir])
        #expect(unknownTest.status == 1 && unknownTest.stderr == Self.notFound("nope-12345"), "\(unknownTest.output)")
    }

    /// Issue 38, item 3: `hearth users import --tenant B` of a file exported from tenant A of the same store refuses
    /// each uid A holds in words (uids are unique across a Hearth server's tenants), with and without
    /// `--allow-overwrite`, and leaves A's users as they were; a uid of B itself still says it exists.
    @Test func importOfAnotherTenantsUidsIsRefusedInWords() async throws {
        let dataDir = try await TenantsCLITests.dataDirectory()
        let acme = try TenantsCLITests.createTenant(dataDir, "Acme")
        let beta = try TenantsCLITests.createTenant(dataDir, "Beta")
        #expect(try CLI.run(["users", "create", "--tenant", acme, "--uid", "shared-1", "--email", "a@example.com", "--display-name", "Acme person",
                             "--no-password", "--data-dir", dataDir]).status == 0)
        let file = CLI.temporaryDirectory() + "/acme.json"
        #expect(try CLI.run(["users", "export", file, "--tenant", acme, "--data-dir", dataDir]).status == 0)
        for overwrite in [[], ["--allow-overwrite"]] {
            let imported = try CLI.run(["users", "import", file, "--tenant", beta, "--data-dir", dataDir] + overwrite)
            #expect(imported.status == 1, "\(overwrite) \(imported.output)")
            #expect(imported.stdout.contains("user 0 (shared-1): DUPLICATE_LOCAL_ID : uid shared-1 belongs to a user outside tenant \(beta) (another tenant's or the project's): uids are unique across a Hearth server's tenants"),
                    "\(overwrite) \(imported.stdout)")
            #expect(imported.stdout.contains("import these users into another Hearth server"), "\(imported.stdout)")
            #expect(imported.stdout.contains("Imported 0 of 1 users; 1 failed."), "\(imported.stdout)")
            #expect(!imported.output.contains("--allow-overwrite to replace"), "\(imported.stdout)")
        }
        let same = try CLI.run(["users", "import", file, "--tenant", acme, "--data-dir", dataDir])
        #expect(same.stdout.contains("user 0 (shared-1): uid exists (use --allow-overwrite to replace it)"), "\(same.stdout)")
        #expect(TenantsCLITests.userLines(try CLI.run(["users", "list", "--tenant", beta, "--data-dir", dataDir])).isEmpty)
        // `users create` with the uid in another tenant says why, not only that the uid exists.
        let created = try CLI.run(["users", "create", "--tenant", beta, "--uid", "shared-1", "--no-password", "--data-dir", dataDir])
        #expect(created.status != 0 && created.output.contains("uids are unique across a Hearth server's tenants")
                && created.output.contains("choose another uid"), "\(created.output)")
        let kept = try CLI.run(["users", "get", "shared-1", "--tenant", acme, "--data-dir", dataDir])
        #expect(kept.stdout.contains("Acme person") && kept.stdout.contains("a@example.com"), "\(kept.stdout)")
    }
}
