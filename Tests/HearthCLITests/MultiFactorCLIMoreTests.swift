import Foundation
import HearthCore
import HearthStoreSQLite
import HearthTesting
import Testing

/// `hearth project mfa` and `hearth users mfa`, run as a user runs them against a data directory.
@Suite struct MultiFactorCLIMoreTests {
    @Test func projectMFAShowsEnablesAndDisablesTOTP() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let shown = try CLI.run(["project", "mfa", "show", "--data-dir", data])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.stdout.contains("TOTP second factor    off"), "\(shown.stdout)")
        #expect(shown.stdout.contains("adjacent intervals    5 (codes accepted ±150 s"))

        let enabled = try CLI.run(["project", "mfa", "enable", "--adjacent-intervals", "2", "--data-dir", data])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(enabled.stdout.contains("TOTP second factor    on"))
        #expect(enabled.stdout.contains("adjacent intervals    2 (codes accepted ±60 s"))
        for bad in [["--adjacent-intervals", "11"], ["--adjacent-intervals=-1"]] {
            let refused = try CLI.run(["project", "mfa", "enable"] + bad + ["--data-dir", data])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--adjacent-intervals must be between 0 and 10"), "\(refused.stderr)")
        }
        let notANumber = try CLI.run(["project", "mfa", "enable", "--adjacent-intervals", "two", "--data-dir", data])
        #expect(notANumber.status != 0)
        // Enable without the option keeps the intervals; disable keeps them too.
        #expect(try CLI.run(["project", "mfa", "enable", "--data-dir", data]).stdout.contains("adjacent intervals    2 "))
        let disabled = try CLI.run(["project", "mfa", "disable", "--data-dir", data])
        #expect(disabled.status == 0, "\(disabled.output)")
        #expect(disabled.stdout.contains("TOTP second factor    off"))
        #expect(disabled.stdout.contains("adjacent intervals    2 "))
        // `hearth project` itself still runs with its own options beside the new subcommand.
        let project = try CLI.run(["project", "--email-enumeration-protection", "on", "--data-dir", data])
        #expect(project.status == 0, "\(project.output)")
        #expect(project.stdout.contains("email enumeration protection   on"))
        let wrongProject = try CLI.run(["project", "mfa", "show", "--data-dir", data, "--project-id", "demo-nope"])
        #expect(wrongProject.status != 0)
        #expect(wrongProject.stderr.contains("no project demo-nope"))

        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let config = try #require(try await store.projectConfig(projectId: "demo-hearth"))
        let audit = try await store.auditEntries(before: nil, limit: 20).filter { $0.action == "config.update" && $0.actor.hasPrefix("cli:") }
        try await store.close()
        #expect(!config.totpEnabled)
        #expect(config.totpAdjacentIntervals == 2)
        #expect(audit.count == 4, "enable, enable, disable, and the enumeration switch")
    }

    @Test func usersMFAListsAndRemovesFactors() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let created = try CLI.run(["users", "create", "--email", "grace@example.com", "--password", "correct horse", "--data-dir", data])
        #expect(created.status == 0, "\(created.output)")
        var store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        var user = try #require(try await store.user(email: "grace@example.com"))
        user.mfa = UserMultiFactor(
            factors: [MultiFactorEnrollment(enrollmentId: "enr-phone", displayName: "Work phone", enrolledAt: Date(timeIntervalSince1970: 1_790_000_000),
                                secret: "JBSWY3DPEHPK3PXP"),
                      MultiFactorEnrollment(enrollmentId: "enr-tablet", displayName: nil, enrolledAt: Date(timeIntervalSince1970: 1_790_000_100),
                                secret: "JBSWY3DPEHPK3PXQ")],
            recoveryCodeHashes: RecoveryCodes.generate(count: 7).compactMap(RecoveryCodes.hash), recoveryCodesUsed: 3)
        user.validSince = Date(timeIntervalSince1970: 1_700_000_000)
        user = try await store.updateUser(user)
        try await store.close()
        let uid = user.localId

        let list = try CLI.run(["users", "mfa", "list", "grace@example.com", "--data-dir", data])
        #expect(list.status == 0, "\(list.output)")
        #expect(list.stdout.contains("enr-phone\ttotp\tWork phone\t2026-09-21T"), "\(list.stdout)")
        #expect(list.stdout.contains("enr-tablet\ttotp\t-\t"))
        #expect(list.stdout.contains("recovery codes left: 7 (3 used)"))
        #expect(!list.stdout.contains("JBSWY3DPEHPK3PXP"), "never the secret")
        let nobody = try CLI.run(["users", "mfa", "list", "nobody", "--data-dir", data])
        #expect(nobody.status != 0)
        #expect(nobody.stderr.contains("no user with uid or email nobody"))

        let unknownFactor = try CLI.run(["users", "mfa", "remove", uid, "--factor", "enr-nope", "--yes", "--data-dir", data])
        #expect(unknownFactor.status != 0)
        #expect(unknownFactor.stderr.contains("\(uid) has no second factor enr-nope; its factors: enr-phone, enr-tablet"), "\(unknownFactor.stderr)")
        // No terminal to confirm on and no --yes: nothing happens.
        let unconfirmed = try CLI.run(["users", "mfa", "remove", uid, "--factor", "enr-phone", "--data-dir", data])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.stderr.contains("pass --yes to confirm"), "\(unconfirmed.stderr)")
        #expect(try CLI.run(["users", "mfa", "list", uid, "--data-dir", data]).stdout.contains("enr-phone"))

        let one = try CLI.run(["users", "mfa", "remove", uid, "--factor", "enr-phone", "--yes", "--data-dir", data])
        #expect(one.status == 0, "\(one.output)")
        #expect(one.stdout.contains("Removed the second factor enr-phone (Work phone) of \(uid)"))
        let left = try CLI.run(["users", "mfa", "list", uid, "--data-dir", data])
        #expect(!left.stdout.contains("enr-phone") && left.stdout.contains("enr-tablet"))

        let all = try CLI.run(["users", "mfa", "remove", "grace@example.com", "--yes", "--data-dir", data])
        #expect(all.status == 0, "\(all.output)")
        #expect(all.stdout.contains("Removed all 1 second factor and the recovery codes of \(uid)"), "\(all.stdout)")
        #expect(try CLI.run(["users", "mfa", "list", uid, "--data-dir", data]).stdout.contains("\(uid) has no second factor."))
        let nothing = try CLI.run(["users", "mfa", "remove", uid, "--yes", "--data-dir", data])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("has no second factor; nothing to remove"))

        store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let stored = try #require(try await store.user(localId: uid))
        let audit = try await store.auditEntries(before: nil, limit: 20).filter { $0.action == "mfa.remove" }
        try await store.close()
        #expect(stored.mfa.factors.isEmpty && stored.mfa.recoveryCodeHashes.isEmpty)
        #expect(stored.validSince > user.validSince, "sessions revoked")
        #expect(audit.count == 2 && audit.allSatisfy { $0.actor.hasPrefix("cli:") }, "\(audit)")
    }
}
