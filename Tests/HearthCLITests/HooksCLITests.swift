import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthTesting
import HearthWire
import Testing

/// `hearth project hooks` (issue 39, item 1): the project's blocking functions shown, set, removed and tested by the
/// real binary, through the admin service (the URL policy, `updateTime`, the audit entry), on SQLite and PostgreSQL.
@Suite struct HooksCLITests {
    /// The store options of a run: a data directory, or a PostgreSQL database (with a data directory for the rest).
    struct Place: Sendable {
        var arguments: [String]
        var description: String
    }

    /// Runs `body` with a server's data (its project and signing keys made by a first start) on `store`.
    static func withPlace(_ store: String, _ body: @Sendable (Place) async throws -> Void) async throws {
        let dataDir = CLI.temporaryDirectory() + "/data"
        if store == "postgres" {
            try await PostgresTestDatabase.withDatabase { configuration in
                let place = Place(arguments: ["--database-url", ReplicaTests.url(configuration), "--data-dir", dataDir], description: "postgres")
                try await body(place)
            }
        } else {
            try await body(Place(arguments: ["--data-dir", dataDir], description: "sqlite"))
        }
    }

    static var stores: [String] { PostgresTestDatabase.url == nil ? ["sqlite"] : ["sqlite", "postgres"] }

    static func hooks(_ place: Place, _ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["project", "hooks"] + arguments + place.arguments)
    }

    /// `hooks` off the concurrency pool: `CLI.run` blocks its thread while the command runs, and the in-process hook
    /// endpoint needs a pool thread to answer the command's call (two such tests at once would starve it on 2 cores).
    static func hooksAsync(_ place: Place, _ arguments: [String]) async throws -> CLI.Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.hooks(place, arguments) })
            }
        }
    }

    /// Issue 39, item 1: `hearth project hooks` shows every event and the forwarding flags; `set` saves URLs and flags
    /// through the admin service (updateTime stamped, audited as config.update by cli:<login>) and keeps what it does
    /// not name; wrong input gets one clear line — nothing to set, an empty URL, an http URL to another host, a
    /// private address (accepted with --hooks-allow-private-networks, as the server's setting), not a URL, an unknown
    /// event, removing or testing what is not set; `remove` (any spelling of the event, or all) removes only those.
    @Test(arguments: HooksCLITests.stores)
    func hooksAreShownSetAndRemovedThroughTheAdminService(store: String) async throws {
        try await Self.withPlace(store) { place in
            let server = try RunningServer.start(Array(place.arguments.prefix(place.arguments.count - 2)),
                                                 dataDir: place.arguments.last ?? CLI.temporaryDirectory())
            server.stop()
            let shown = try Self.hooks(place, [])
            #expect(shown.status == 0, "\(shown.output)")
            for line in ["beforeCreate             -", "beforeSignIn             -", "beforeSendEmail          -", "beforeSendSms            -",
                         "forward ID token         off", "forward access token     off", "forward refresh token    off"] {
                #expect(shown.stdout.contains(line), "\(line): \(shown.stdout)")
            }
            #expect(try Self.hooks(place, ["show"]).stdout == shown.stdout)

            let set = try Self.hooks(place, ["set", "--before-create", "https://hooks.example.com/before-create", "--before-sign-in",
                                             "https://hooks.example.com/before-sign-in", "--forward-id-token", "on", "--forward-refresh-token", "on"])
            #expect(set.status == 0, "\(set.output)")
            #expect(set.stdout.contains("beforeCreate             https://hooks.example.com/before-create  (set 20"), "\(set.stdout)")
            #expect(set.stdout.contains("beforeSignIn             https://hooks.example.com/before-sign-in  (set 20"))
            #expect(set.stdout.contains("forward ID token         on") && set.stdout.contains("forward access token     off")
                    && set.stdout.contains("forward refresh token    on"), "\(set.stdout)")
            let audit = try CLI.run(["users", "list"] + place.arguments) // the store still opens after the writes
            #expect(audit.status == 0, "\(audit.output)")
            if store == "sqlite" {
                let sqlite = try await SQLiteStore.open(path: (place.arguments.last ?? "") + "/hearth.sqlite")
                let entry = try await sqlite.auditEntries(before: nil, limit: 5).first { $0.action == "config.update" }
                try await sqlite.close()
                #expect(entry?.actor.hasPrefix("cli:") == true)
                #expect(entry?.detail == "blockingFunctions.triggers.beforeCreate,blockingFunctions.triggers.beforeSignIn,blockingFunctions.forwardInboundCredentials.idToken,blockingFunctions.forwardInboundCredentials.refreshToken",
                        "\(String(describing: entry))")
            }
            // What is not named stays.
            let partly = try Self.hooks(place, ["set", "--forward-refresh-token", "off"])
            #expect(partly.status == 0 && partly.stdout.contains("beforeCreate             https://hooks.example.com/before-create")
                    && partly.stdout.contains("forward ID token         on") && partly.stdout.contains("forward refresh token    off"), "\(partly.output)")

            // Wrong input: one line each, nothing changed.
            let nothing = try Self.hooks(place, ["set"])
            #expect(nothing.status == 64 && nothing.messages.hasPrefix("Error: nothing to set: pass --before-create"), "\(nothing.output)")
            let misspelt = try Self.hooks(place, ["set", "--before-sign-up", "https://hooks.example.com/x"])
            #expect(misspelt.status == 64 && misspelt.messages.hasPrefix("Error: Unknown option '--before-sign-up'"), "\(misspelt.output)")
            let blank = try Self.hooks(place, ["set", "--before-sign-in", " "])
            #expect(blank.status == 64 && blank.messages.hasPrefix("Error: --before-sign-in needs a URL (https://…); to call no function at beforeSignIn: hearth project hooks remove beforeSignIn"),
                    "\(blank.output)")
            for (url, words) in [("http://hooks.example.com/x", "https"), ("https://10.0.0.7/hook", "private"), ("not a url", "spaces")] {
                let refused = try Self.hooks(place, ["set", "--before-create", url])
                #expect(refused.status == 64, "\(url): \(refused.output)")
                #expect(refused.messages.hasPrefix("Error: INVALID_CONFIG : blockingFunctions.triggers.beforeCreate: "), "\(url): \(refused.stderr)")
                #expect(refused.stderr.lowercased().contains(words), "\(url): \(refused.stderr)")
                #expect(!rawErrorMarkers.contains { refused.output.contains($0) })
            }
            let privateAllowed = try Self.hooks(place, ["set", "--before-send-email", "https://10.0.0.7/hook", "--hooks-allow-private-networks"])
            #expect(privateAllowed.status == 0 && privateAllowed.stdout.contains("beforeSendEmail          https://10.0.0.7/hook"), "\(privateAllowed.output)")
            #expect(try Self.hooks(place, []).stdout.contains("beforeCreate             https://hooks.example.com/before-create  (set 20"), "unchanged by the refusals")

            let unknown = try Self.hooks(place, ["remove", "afterLunch"])
            #expect(unknown.status == 64 && unknown.messages.hasPrefix(#"Error: unknown event "afterLunch": use beforeCreate, beforeSignIn, beforeSendEmail or beforeSendSms"#),
                    "\(unknown.output)")
            let none = try Self.hooks(place, ["remove"])
            #expect(none.status == 64 && none.messages.hasPrefix("Error: name the event whose function goes"), "\(none.output)")
            let notSet = try Self.hooks(place, ["remove", "beforeSendSms"])
            #expect(notSet.status == 1 && notSet.stderr == "Error: no function is set for beforeSendSms: nothing to remove (hearth project hooks shows them)\n",
                    "\(notSet.output)")
            let untested = try Self.hooks(place, ["test", "before-send-sms"])
            #expect(untested.status == 1 && untested.stderr == "Error: no function is set for beforeSendSms: set one with hearth project hooks set --before-send-sms https://…\n",
                    "\(untested.output)")

            let removed = try Self.hooks(place, ["remove", "before-create", "BEFORESENDEMAIL"])
            #expect(removed.status == 0, "\(removed.output)")
            #expect(removed.stdout.contains("beforeCreate             -") && removed.stdout.contains("beforeSendEmail          -")
                    && removed.stdout.contains("beforeSignIn             https://hooks.example.com/before-sign-in"), "\(removed.stdout)")
            let all = try Self.hooks(place, ["remove", "all"])
            #expect(all.status == 0 && all.stdout.contains("beforeSignIn             -"), "\(all.output)")
            #expect(all.stdout.contains("forward ID token         on"), "remove takes functions, not the forwarding flags")
        }
    }

    /// Issue 39, item 1: `hearth project hooks test <event>` signs a test event with the server's keys (the strict
    /// endpoint verifies it against the running server's published keys), prints the status, the time, what the
    /// function decided and its answer (never the JWT), exits 0 when the function answered and 1 when it failed
    /// (500); http to loopback needs --dev, as the server's policy; nothing is stored.
    @Test(arguments: HooksCLITests.stores)
    func hooksTestSendsASignedEventAndPrintsTheAnswer(store: String) async throws {
        try await Self.withPlace(store) { place in
            let server = try RunningServer.start(Array(place.arguments.prefix(place.arguments.count - 2)),
                                                 dataDir: place.arguments.last ?? CLI.temporaryDirectory())
            defer { server.stop() }
            try await HookEndpoint.run(projectId: "demo-hearth", serverURL: server.url, now: { Date() }) { hooks in
                let url = hooks.url(for: .beforeSignIn)
                let withoutDev = try await Self.hooksAsync(place, ["set", "--before-sign-in", url])
                #expect(withoutDev.status == 64 && withoutDev.stderr.contains("--dev"), "\(withoutDev.output)")
                let set = try await Self.hooksAsync(place, ["set", "--before-sign-in", url, "--dev"])
                #expect(set.status == 0, "\(set.output)")

                hooks.answer(.beforeSignIn, with: .customClaims(["plan": .string("gold")]))
                let tested = try await Self.hooksAsync(place, ["test", "beforeSignIn", "--dev"])
                #expect(tested.status == 0, "\(tested.output)")
                #expect(tested.stdout.contains("event       beforeSignIn\nfunction    \(url)\nanswer      HTTP 200 in "), "\(tested.stdout)")
                #expect(tested.stdout.contains("outcome     The function allowed the event and would set customClaims."), "\(tested.stdout)")
                #expect(tested.stdout.contains(#"body        {"userRecord":"#) && tested.stdout.contains("gold"), "\(tested.stdout)")
                #expect(!tested.output.contains("eyJ"), "no JWT printed")
                #expect(hooks.rejections.isEmpty, "signed with the server's keys: \(hooks.rejections)")
                #expect(hooks.events(.beforeSignIn).map { $0.user?.uid } == ["hearth-test-event"])

                hooks.answer(.beforeSignIn, with: .serverError)
                let failed = try await Self.hooksAsync(place, ["test", "beforeSignIn", "--dev"])
                #expect(failed.status == 1, "\(failed.output)")
                #expect(failed.stdout.contains("answer      HTTP 500 in ") && failed.stdout.contains("outcome     Failed: HTTP Cloud Function returned an error"),
                        "\(failed.stdout)")
                hooks.answer(.beforeSignIn, with: .refuse("only staff"))
                let refused = try await Self.hooksAsync(place, ["test", "beforeSignIn", "--dev"])
                #expect(refused.status == 0 && refused.stdout.contains("outcome     The function refused the event") && refused.stdout.contains("only staff"),
                        "\(refused.output)")
                // Without --dev the call-time policy refuses http to loopback: no call.
                let calls = hooks.calls.count
                let refusedPolicy = try await Self.hooksAsync(place, ["test", "beforeSignIn"])
                #expect(refusedPolicy.status == 1 && refusedPolicy.stdout.contains("outcome     Failed: the beforeSignIn function at \(url) is not called"),
                        "\(refusedPolicy.output)")
                #expect(hooks.calls.count == calls)
                let users = try CLI.run(["users", "list"] + place.arguments)
                #expect(!users.stdout.contains("hearth-test-event"), "nothing stored: \(users.stdout)")
            }
        }
    }
}
