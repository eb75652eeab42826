import Foundation
import HearthCore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// `hearth project passkeys` and `hearth users passkeys`, run as a user runs them against a data directory.
@Suite struct PasskeyAdminCLITests {
    @Test func projectPasskeysShowsAndChangesTheSetting() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        // The server records its public URL; the command reads it (the default rp id and the check of a new one).
        (try? RunningServer.start(["--public-url", "https://login.example.com"], dataDir: data))?.stop()
        let shown = try CLI.run(["project", "passkeys", "--data-dir", data])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.stdout.contains("passkeys              off"), "\(shown.stdout)")
        #expect(shown.stdout.contains("rp id                 login.example.com (default: the host of the server's public URL)"))
        #expect(shown.stdout.contains("origins (always)      https://login.example.com"))
        #expect(shown.stdout.contains("origins (added)       none added"))
        #expect(shown.stdout.contains("user verification     required"))
        #expect(!shown.stdout.contains("an IP address"))

        let enabled = try CLI.run(["project", "passkeys", "--enable", "--rp-id", "example.com", "--allowed-origin", "https://app.example.com",
                                   "--allowed-origin", "https://www.example.com", "--user-verification", "preferred", "--data-dir", data])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(enabled.stdout.contains("passkeys              on"))
        #expect(enabled.stdout.contains("rp id                 example.com (set; the server's host is login.example.com)"), "\(enabled.stdout)")
        #expect(enabled.stdout.contains("origins (always)      https://login.example.com, https://example.com"))
        #expect(enabled.stdout.contains("origins (added)       https://app.example.com, https://www.example.com"))
        #expect(enabled.stdout.contains("user verification     preferred"))
        #expect(enabled.stderr.contains("warning: the rp id changed from login.example.com to example.com: passkeys registered for login.example.com no longer sign in"),
                "\(enabled.stderr)")

        // The server's checks (INVALID_CONFIG) reach the user; nothing changes.
        for (arguments, message) in [(["--rp-id", "other.org"], "must be this server's host (login.example.com) or a parent domain of it"),
                                     (["--rp-id", "192.168.0.1"], "an IP address cannot be an rp id"),
                                     (["--allowed-origin", "https://evil.org"], "is not on the rp id example.com"),
                                     (["--allowed-origin", "http://app.example.com"], "is not an origin")] {
            let refused = try CLI.run(["project", "passkeys"] + arguments + ["--data-dir", data])
            #expect(refused.status != 0, "\(arguments)")
            #expect(refused.stderr.contains("INVALID_CONFIG") && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let both = try CLI.run(["project", "passkeys", "--enable", "--disable", "--data-dir", data])
        #expect(both.status != 0)
        #expect(both.stderr.contains("--enable and --disable contradict each other"))
        let badVerification = try CLI.run(["project", "passkeys", "--user-verification", "sometimes", "--data-dir", data])
        #expect(badVerification.status != 0)
        #expect(badVerification.stderr.contains("required") && badVerification.stderr.contains("preferred"), "\(badVerification.stderr)")
        let notAdded = try CLI.run(["project", "passkeys", "--remove-origin", "https://nope.example.com", "--data-dir", data])
        #expect(notAdded.status != 0)
        #expect(notAdded.stderr.contains("https://nope.example.com is not an added origin; the added ones: https://app.example.com, https://www.example.com"))

        // Origins are added to and removed from the list; --clear-origins empties it; '' returns to the default rp id.
        let removed = try CLI.run(["project", "passkeys", "--remove-origin", "https://www.example.com", "--allowed-origin", "https://id.example.com",
                                   "--data-dir", data])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(removed.stdout.contains("origins (added)       https://app.example.com, https://id.example.com"), "\(removed.stdout)")
        #expect(!removed.stderr.contains("warning"), "the rp id did not change")
        let reset = try CLI.run(["project", "passkeys", "--disable", "--clear-origins", "--rp-id", "", "--user-verification", "required", "--data-dir", data])
        #expect(reset.status == 0, "\(reset.output)")
        #expect(reset.stdout.contains("passkeys              off"))
        #expect(reset.stdout.contains("rp id                 login.example.com (default"))
        #expect(reset.stdout.contains("origins (added)       none added"))
        #expect(reset.stderr.contains("warning: the rp id changed from example.com to login.example.com"))
        let wrongProject = try CLI.run(["project", "passkeys", "--data-dir", data, "--project-id", "demo-nope"])
        #expect(wrongProject.status != 0)
        #expect(wrongProject.stderr.contains("no project demo-nope"))

        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let config = try #require(try await store.projectConfig(projectId: "demo-hearth"))
        let audit = try await store.auditEntries(before: nil, limit: 30).filter { $0.action == "config.update" && $0.actor.hasPrefix("cli:") }
        try await store.close()
        #expect(!config.passkeysEnabled)
        #expect(config.passkeys?.rpId == nil && config.passkeys?.allowedOrigins == nil && config.passkeys?.userVerification == "REQUIRED")
        #expect(audit.count == 3, "enable, origins, reset: refusals and shows write nothing")
    }

    @Test func usersPasskeysListsAndRemovesPasskeys() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        for email in ["grace@example.com", "other@example.com"] {
            let created = try CLI.run(["users", "create", "--email", email, "--password", "correct horse", "--data-dir", data])
            #expect(created.status == 0, "\(created.output)")
        }
        var store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let grace = try #require(try await store.user(email: "grace@example.com")).localId
        let other = try #require(try await store.user(email: "other@example.com")).localId
        let laptop = PasskeyBytes.url(Array("laptop-credential-id-32-bytes!!!".utf8))
        let key = PasskeyBytes.url(Array("security-key".utf8))
        let theirs = PasskeyBytes.url(Array("other-users-key".utf8))
        func passkey(_ id: String, of localId: String, name: String?, at seconds: TimeInterval, lastUsed: TimeInterval? = nil, synced: Bool = false) -> PasskeyCredential {
            PasskeyCredential(credentialId: id, localId: localId, userHandle: PasskeyBytes.url(Array(localId.utf8)), publicKey: "cHVibGljLWtleQ",
                              algorithm: -7, signCount: 0, name: name, backupEligible: synced, backedUp: synced,
                              createdAt: Date(timeIntervalSince1970: seconds), lastUsedAt: lastUsed.map { Date(timeIntervalSince1970: $0) })
        }
        #expect(try await store.insertPasskey(passkey(laptop, of: grace, name: "MacBook", at: 1_790_000_000, lastUsed: 1_790_000_600, synced: true)))
        #expect(try await store.insertPasskey(passkey(key, of: grace, name: nil, at: 1_790_000_100)))
        #expect(try await store.insertPasskey(passkey(theirs, of: other, name: "Theirs", at: 1_790_000_200)))
        try await store.close()

        let list = try CLI.run(["users", "passkeys", "list", "grace@example.com", "--data-dir", data])
        #expect(list.status == 0, "\(list.output)")
        // This server was reached by address: the default rp id is one, which the setting says.
        let onIP = try CLI.run(["project", "passkeys", "--data-dir", data])
        #expect(onIP.stdout.contains("rp id                 127.0.0.1 (default") && onIP.stdout.contains("an IP address: browsers refuse passkeys here"),
                "\(onIP.stdout)")
        #expect(list.stdout.contains("\(laptop)\tMacBook\t2026-09-21T"), "\(list.stdout)")
        #expect(list.stdout.contains("\tlast used 2026-09-21T") && list.stdout.contains("\tsynced"))
        #expect(list.stdout.contains("\(key)\t-\t") && list.stdout.contains("\tnever used\tdevice-bound"))
        #expect(!list.stdout.contains(theirs) && !list.stdout.contains("cHVibGljLWtleQ"), "not another user's, never the key")
        #expect(try CLI.run(["users", "passkeys", "list", "nobody", "--data-dir", data]).stderr.contains("no user with uid or email nobody"))

        // Another user's passkey: PASSKEY_ENROLLMENT_NOT_FOUND explained, the user's passkeys listed, nothing removed.
        let foreign = try CLI.run(["users", "passkeys", "remove", grace, key, theirs, "--yes", "--data-dir", data])
        #expect(foreign.status != 0)
        #expect(foreign.stderr.contains("\(grace) has no passkey \(theirs) (PASSKEY_ENROLLMENT_NOT_FOUND); nothing was removed. Its passkeys: \(laptop), \(key)"),
                "\(foreign.stderr)")
        // No terminal to confirm on and no --yes: nothing happens.
        let unconfirmed = try CLI.run(["users", "passkeys", "remove", grace, key, "--data-dir", data])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.stderr.contains("pass --yes to confirm"), "\(unconfirmed.stderr)")
        let noIds = try CLI.run(["users", "passkeys", "remove", grace, "--yes", "--data-dir", data])
        #expect(noIds.status != 0)
        #expect(try CLI.run(["users", "passkeys", "list", grace, "--data-dir", data]).stdout.contains(key))

        // The standard base64 alphabet names the same credential.
        let standard = Data("laptop-credential-id-32-bytes!!!".utf8).base64EncodedString()
        let one = try CLI.run(["users", "passkeys", "remove", "grace@example.com", standard, "--yes", "--data-dir", data])
        #expect(one.status == 0, "\(one.output)")
        #expect(one.stdout.contains("Removed the passkey \(laptop) (MacBook) of \(grace)."), "\(one.stdout)")
        let left = try CLI.run(["users", "passkeys", "list", grace, "--data-dir", data])
        #expect(!left.stdout.contains(laptop) && left.stdout.contains(key))
        #expect(try CLI.run(["users", "passkeys", "remove", grace, key, "--yes", "--data-dir", data]).status == 0)
        #expect(try CLI.run(["users", "passkeys", "list", grace, "--data-dir", data]).stdout.contains("\(grace) has no passkey."))
        let nothing = try CLI.run(["users", "passkeys", "remove", grace, key, "--yes", "--data-dir", data])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("has no passkey; nothing to remove"))

        store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let kept = try await store.passkeys(localId: other)
        let audit = try await store.auditEntries(before: nil, limit: 30).filter { $0.action == "passkey.remove" }
        try await store.close()
        #expect(kept.map(\.credentialId) == [theirs])
        #expect(audit.count == 2 && audit.allSatisfy { $0.actor.hasPrefix("cli:") && $0.target == grace }, "\(audit)")
    }
}
