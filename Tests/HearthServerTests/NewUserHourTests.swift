import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Testing

/// Issue 35's "new user's first hour" findings on the server side: TOTP factors sealed with a key the server lacks
/// (item 11), `/__dev/try` under a localhost public URL (item 13), a command's notice reaching the dev mailbox
/// (item 14), `# HELP` in `/metrics`.
@Suite struct NewUserHourTests {
    static func sealed(_ keys: ProviderTokenKeys, enrollmentId: String) throws -> String {
        try keys.sealSecret("JBSWY3DPEHPK3PXP", context: MultiFactorEnrollment.sealingContext(enrollmentId: enrollmentId))
    }

    /// Issue 35, item 11: a factor sealed with a key this server does not have (a database restored without its key
    /// file, a vault key dropped) makes `/readyz` answer 503 with the reason and the way out, on both engines; a
    /// factor sealed with a key it has does not; removing the stranded factor clears it at the next count.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func factorsSealedWithAMissingKeyMakeTheServerNotReady(store choice: HearthHarness.StoreChoice) async throws {
        let local = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "local-here"))
        let gone = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "local-gone"))
        try await HearthHarness.run(store: choice, configure: { $0.localSecretKeys = local }) { h in
            #expect(try await h.send(.get, "/readyz").status == 200)
            let signedUp = try await h.signUp(email: "restored@example.com")
            var user = try #require(try await h.store.user(localId: signedUp.localId))
            user.mfa = UserMultiFactor(factors: [
                MultiFactorEnrollment(enrollmentId: "enr-kept", displayName: "Phone", enrolledAt: h.clock.now, secret: try Self.sealed(local, enrollmentId: "enr-kept")),
                MultiFactorEnrollment(enrollmentId: "enr-lost", displayName: "Tablet", enrolledAt: h.clock.now, secret: try Self.sealed(gone, enrollmentId: "enr-lost")),
            ])
            user = try await h.store.updateUser(user)
            // What a restart on this data does.
            try await h.server.start()
            let unopenable = try #require(h.server.multiFactorKeys.unopenable)
            #expect(unopenable.keyIds == ["local-gone"])
            #expect(unopenable.users == [signedUp.localId])
            let notReady = try await h.send(.get, "/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.text.contains("1 TOTP second factor(s) of 1 user(s) sealed with key local-gone, which this server does not have"), "\(notReady.text)")
            #expect(notReady.text.contains("totp-secrets.key") && notReady.text.contains("hearth users mfa remove-unopenable"), "\(notReady.text)")
            #expect(!notReady.text.contains("local-here") && !notReady.text.contains("JBSWY3DP"))

            // The stranded factor removed (as remove-unopenable does): ready again at the probe's next count.
            user.mfa.factors.removeAll { $0.enrollmentId == "enr-lost" }
            _ = try await h.store.updateUser(user)
            #expect(try await h.send(.get, "/readyz").status == 503, "counted again only after the recheck interval")
            h.clock.advance(by: 31)
            let ready = try await h.send(.get, "/readyz")
            #expect(ready.status == 200, "\(ready.text)")
        }
    }

    /// Issue 35, item 11: the count of a store reads every page (more users than one page of the census).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theCensusCountsEveryPage(store choice: HearthHarness.StoreChoice) async throws {
        let gone = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "k-gone"))
        try await HearthHarness.run(store: choice) { h in
            let census = try #require(h.store as? any SealedSecretCensus)
            let count = SealedFactorCensus.pageSize + 3
            for index in 0..<count {
                var user = UserRecord(localId: String(format: "user-%04d", index), createdAt: h.clock.now, validSince: h.clock.now)
                let id = "enr-\(index)"
                user.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: id, displayName: nil, enrolledAt: h.clock.now, secret: try Self.sealed(gone, enrollmentId: id))])
                try await h.store.createUser(user)
            }
            // An unsealed secret is not counted.
            var plain = UserRecord(localId: "user-plain", createdAt: h.clock.now, validSince: h.clock.now)
            plain.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "enr-plain", displayName: nil, enrolledAt: h.clock.now, secret: "JBSWY3DPEHPK3PXP")])
            try await h.store.createUser(plain)
            let counted = try await census.sealedTOTPFactors()
            #expect(counted.byKey["k-gone"]?.factors == count)
            #expect(counted.users.count == count)
            #expect(counted.missing(from: ["k-gone"]).isEmpty)
        }
    }

    /// Issue 35, item 13: `/__dev/try` under `--public-url http://localhost:PORT` (what docs/passkeys.md recommends)
    /// completes a sign-in: its return address is this server at 127.0.0.1, which the auth handler accepts (it
    /// answered "Redirect not allowed" for `http://localhost:PORT/__dev/try/done`).
    @Test func devTryWorksUnderALocalhostPublicURL() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let port = try #require(URLComponents(string: h.baseURL)?.port)
            h.server.configuration.publicURL.set("http://localhost:\(port)")
            let start = try await Browser.get("http://localhost:\(port)/__dev/try?provider=microsoft.com")
            #expect(start.status == 302)
            let location = try #require(start.location)
            #expect(location.hasPrefix("http://localhost:\(port)/__/auth/handler?"), "\(location)")
            #expect(location.contains(FormEncoding.encode([("redirectUrl", "http://127.0.0.1:\(port)/__dev/try/done")])), "\(location)")
            let page = try await AppleGoogleServerTests.tryPage(h, provider: "microsoft.com", email: "localhost@example.com")
            #expect(page.body.contains("Signed in with microsoft.com"), "\(page.body.prefix(800))")
            #expect(!page.body.contains("Redirect not allowed"))
        }
    }

    /// Issue 35, item 14: the server records how it sends mail, and a notice a command queued in the outbox (the CLI's
    /// admin service, which has no mailbox of its own) reaches the dev mailbox of a server without a relay.
    @Test func aCommandsNoticeReachesTheDevMailbox() async throws {
        try await HearthHarness.run { h in
            let project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            let mail = try #require(project.servedMail)
            #expect(mail == ServedMail(from: "Hearth <noreply@localhost>", relay: false, devMailbox: true))
            let signedUp = try await h.signUp(email: "told@example.com")
            var user = try #require(try await h.store.user(localId: signedUp.localId))
            user.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "enr-1", displayName: "Phone", enrolledAt: h.clock.now, secret: "JBSWY3DPEHPK3PXP")])
            _ = try await h.store.updateUser(user)

            let command = AdminService.commandLine(store: h.store, projectId: h.projectId, mail: mail)
            try await command.removeSecondFactors(localId: signedUp.localId, enrollmentIds: nil, by: .commandLine(login: "tester"), in: h.scope)
            let mailbox = try #require(h.server.emailActions.mailer.devMailbox)
            #expect(mailbox.messages.isEmpty, "queued for the server, not sent by the command")
            let outbox = try #require(h.server.outboxService)
            // The command stamps the message with the system clock; the server's test clock catches up with it (on a
            // busy machine the test may have run well past the clock's start).
            h.clock.advance(by: max(60, Date().timeIntervalSince(h.clock.now) + 60))
            #expect(await outbox.deliverDue() == 1)
            let notice = try #require(mailbox.messages.first)
            #expect(notice.mail.to == "told@example.com")
            #expect(notice.mail.subject.contains("Two-step verification was removed"), "\(notice.mail.subject)")
            #expect(notice.mail.from == "Hearth <noreply@localhost>")
        }
    }

    /// Issue 35 (smaller): every metric family in `/metrics` has a `# HELP` line.
    @Test func metricsCarryHelpText() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "metrics@example.com")
            _ = try await h.send(.get, "/readyz")
            let metrics = try await h.send(.get, "/metrics")
            #expect(metrics.status == 200)
            let lines = metrics.text.split(separator: "\n")
            let families = lines.filter { $0.hasPrefix("# TYPE ") }.compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) }
            #expect(families.contains("hearth_http_requests_total"), "\(metrics.text.prefix(400))")
            #expect(families.contains("hearth_store_operation_duration_seconds"))
            for family in families {
                #expect(lines.contains { $0.hasPrefix("# HELP \(family) ") }, "no # HELP for \(family)")
            }
            #expect(metrics.text.contains("# HELP hearth_http_requests_total HTTP requests answered"))
            // The figures are as before: counted per route.
            #expect(h.server.configuration.metrics.counterValue(.httpRequests, ["/readyz", "GET", "200"]) == 1)
        }
    }
}
