import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// `hearth project sms` (issue 40, item 5): phone sign-in, the SMS budget and limits, app verification, the region
/// policy and test numbers shown and changed by the real binary through the admin service (its checks, the
/// `config.update` audit entry), on SQLite and PostgreSQL.
@Suite struct SmsCLITests {
    static func sms(_ place: HooksCLITests.Place, _ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["project", "sms"] + arguments + place.arguments)
    }

    /// Issue 40, item 5: `show` of a fresh production project says phone sign-in is off and app verification is not
    /// configured; `set` changes the switches, the budget ('default' returns to it), the limits, the regions, the secret
    /// (read from a file, never printed; removed with --no-recaptcha-secret) and app verification, audited as
    /// config.update by cli:<login>; `test-numbers add|remove` normalise the number; wrong input gets one clear line and
    /// changes nothing; `hearth users create --phone` normalises a number and `hearth users get +…` finds its user.
    @Test(arguments: HooksCLITests.stores)
    func smsSettingsAreShownAndChangedThroughTheAdminService(store: String) async throws {
        try await HooksCLITests.withPlace(store) { place in
            let prodArguments = place.arguments + ["--project-id", "hearth-sms-cli"]
            let server = try RunningServer.start(Array(prodArguments.prefix(prodArguments.count - 4)) + ["--project-id", "hearth-sms-cli"],
                                                 dataDir: place.arguments.last ?? CLI.temporaryDirectory())
            server.stop()
            let prod = HooksCLITests.Place(arguments: prodArguments, description: place.description)
            let shown = try Self.sms(prod, [])
            #expect(shown.status == 0, "\(shown.output)")
            for line in ["phone sign-in            off", "SMS second factor        off", "sent today               0 of 1000 today (UTC)",
                         "daily budget             1000 (default)", "per number per hour      5 (default)", "per address per hour     10 (default)",
                         "app verification         not configured: every send is refused", "region policy            every region",
                         "test numbers             0 of 10"] {
                #expect(shown.stdout.contains(line), "\(line): \(shown.stdout)")
            }
            #expect(try Self.sms(prod, ["show"]).stdout == shown.stdout)

            let secretFile = CLI.temporaryDirectory() + "/recaptcha.txt"
            let secret = "rc-" + RandomID.token(byteCount: 10)
            try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
            let set = try Self.sms(prod, ["set", "--phone-sign-in", "on", "--second-factor", "on", "--daily-budget", "200", "--per-number-per-hour", "3",
                                          "--deny-regions", "kp,IR", "--recaptcha-secret-file", secretFile, "--recaptcha-min-score", "0.7"])
            #expect(set.status == 0, "\(set.output)")
            #expect(!set.output.contains(secret), "the secret was printed")
            for line in ["phone sign-in            on", "SMS second factor        on", "daily budget             200\n", "per number per hour      3\n",
                         "region policy            every region except KP, IR",
                         "app verification         reCAPTCHA (secret set; verified at https://www.google.com/recaptcha/api/siteverify, lowest score 0.7)"] {
                #expect(set.stdout.contains(line), "\(line): \(set.stdout)")
            }
            let added = try Self.sms(prod, ["test-numbers", "add", "+1 (555) 555-0100", "123456"])
            #expect(added.status == 0 && added.stdout.contains("test numbers             1 of 10\n  +15555550100  123456"), "\(added.output)")

            for (arguments, words) in [
                (["test-numbers", "add", "555-0100", "123456"], "is not a phone number"),
                (["test-numbers", "add", "+15555550101", "12ab56"], "the code must be 6 digits"),
                (["test-numbers", "remove", "+15555550199"], "+15555550199 is not a test number"),
                (["set", "--allow-regions", "USA"], "USA is not a region code"),
                (["set", "--daily-budget=-5"], "sms.dailyBudget must be between 0 and 10000000"),
                (["set", "--daily-budget", "lots"], "--daily-budget takes a whole number or 'default'"),
                (["set", "--recaptcha-verify-url", "http://recaptcha.example.com/v"], "must be https://"),
                (["set", "--recaptcha-secret-file", "/nonexistent/secret"], "cannot read /nonexistent/secret"),
                (["set", "--allow-regions", "US", "--all-regions"], "give one of --allow-regions, --deny-regions and --all-regions"),
                (["set"], "nothing to set"),
            ] {
                let refused = try Self.sms(prod, arguments)
                #expect(refused.status != 0 && refused.stderr.contains(words), "\(arguments): \(refused.output)")
            }

            let more = try Self.sms(prod, ["set", "--daily-budget", "default", "--no-recaptcha-secret", "--no-app-verification", "--all-regions",
                                           "--second-factor", "off"])
            #expect(more.status == 0, "\(more.output)")
            for line in ["daily budget             1000 (default)", "app verification         off (turned off explicitly", "region policy            every region\n",
                         "SMS second factor        off"] {
                #expect(more.stdout.contains(line), "\(line): \(more.stdout)")
            }
            let removed = try Self.sms(prod, ["test-numbers", "remove", "+1 555 555 0100"])
            #expect(removed.status == 0 && removed.stdout.contains("test numbers             0 of 10"), "\(removed.output)")

            // `hearth users … --phone`: a formatted number is normalised; `users get` finds a user by number.
            // (`hearth users` finds the data's one project itself.)
            let created = try CLI.run(["users", "create", "--phone", "+1 (202) 555-0123"] + place.arguments)
            #expect(created.status == 0, "\(created.output)")
            let found = try CLI.run(["users", "get", "+1 202 555 0123"] + place.arguments)
            #expect(found.status == 0 && found.stdout.contains("phone            +12025550123"), "\(found.output)")
            let missing = try CLI.run(["users", "get", "+12025550199"] + place.arguments)
            #expect(missing.status == 1 && missing.stderr.contains("no user with uid or phone number +12025550199"), "\(missing.output)")

            if store == "sqlite" {
                let sqlite = try await SQLiteStore.open(path: (place.arguments.last ?? "") + "/hearth.sqlite")
                let entries = try await sqlite.auditEntries(before: nil, limit: 20).filter { $0.action == "config.update" }
                let config = try await sqlite.projectConfig(projectId: "hearth-sms-cli")
                try await sqlite.close()
                #expect(entries.count == 4, "set, add, set, remove: \(entries.map(\.detail))")
                #expect(entries.allSatisfy { $0.actor.hasPrefix("cli:") && !($0.detail ?? "").contains(secret) })
                #expect(entries.last?.detail == "signIn.phoneNumber.enabled,sms.dailyBudget,sms.perNumberPerHour,sms.recaptcha.secretKey,sms.recaptcha.minScore,smsRegionConfig,mfa.state,mfa.enabledProviders",
                        "\(entries.map(\.detail))")
                #expect(config?.phoneSignInEnabled == true && config?.testPhoneNumbers.isEmpty == true && config?.sms?.appVerificationDisabled == true)
            }
        }
    }
}
