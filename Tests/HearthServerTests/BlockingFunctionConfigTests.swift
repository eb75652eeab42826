import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 39, items 1 (server side) and 2: blocking functions in the project's configuration, Identity Platform's
/// `blockingFunctions` on `/v2/projects/{p}/config`, and the URL policy (no SSRF through a hook URL).
@Suite struct BlockingFunctionConfigTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    static func configPath(_ h: HearthHarness, mask: String? = nil) -> String {
        WirePaths.v2Project(h.projectId, "config") + (mask.map { "?updateMask=\($0)" } ?? "")
    }

    static func shown(_ h: HearthHarness) async throws -> BlockingFunctionsConfig? {
        try await h.send(.get, configPath(h), headers: owner).decode(AdminProjectConfig.self).blockingFunctions
    }

    /// Issue 39, item 1: PATCH and GET round trip with each update mask — one trigger, the forwarding flags, the
    /// whole object (which replaces it), a mask-less body — with `updateTime` stamped by the server, the stored
    /// config updated, each change audited by path, and a tenant's scope seeing the project's functions.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func configRoundTripsThroughTheAdminAPIWithMasks(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            #expect(try await Self.shown(h) == BlockingFunctionsConfig())
            let one = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.triggers.beforeCreate"),
                                       body: #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"https://hooks.example.com/before-create"},"beforeSignIn":{"functionUri":"https://hooks.example.com/ignored"}}}}"#,
                                       headers: Self.owner)
            #expect(one.status == 200, "\(one.text)")
            var shown = try #require(try await Self.shown(h))
            #expect(shown.triggers.keys.sorted() == ["beforeCreate"])
            #expect(shown.triggers["beforeCreate"]?.functionUri == "https://hooks.example.com/before-create")
            let stamp = try #require(shown.triggers["beforeCreate"]?.updateTime)
            #expect(try Date(stamp, strategy: .iso8601) == Date(timeIntervalSince1970: h.clock.now.timeIntervalSince1970.rounded(.down)))
            #expect(shown.forwardInboundCredentials == nil)

            let forward = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.forwardInboundCredentials"),
                                           body: #"{"blockingFunctions":{"forwardInboundCredentials":{"idToken":true,"refreshToken":true}}}"#,
                                           headers: Self.owner)
            #expect(forward.status == 200, "\(forward.text)")
            shown = try #require(try await Self.shown(h))
            #expect(shown.forwardInboundCredentials == .init(idToken: true, accessToken: nil, refreshToken: true))
            #expect(shown.triggers["beforeCreate"] != nil)

            // The stored settings hold the same; a tenant's users go through the project's functions.
            let stored = try await h.store.projectConfig(projectId: h.projectId)?.blockingFunctions
            #expect(stored == shown)
            let tenant = try await h.server.admin.createTenant(Tenant(displayName: "Acme"), by: .emulatorOwner)
            let tenantId = try #require(tenant.name?.split(separator: "/").last.map(String.init))
            let tenantScope = try await h.server.admin.scope(tenantId: tenantId, in: "the test")
            #expect(try await tenantScope.config().blockingFunctions == shown)

            // The whole object: what the body leaves out is removed.
            let whole = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions"),
                                         body: #"{"blockingFunctions":{"triggers":{"beforeSignIn":{"functionUri":"https://hooks.example.com/before-sign-in"}}}}"#,
                                         headers: Self.owner)
            #expect(whole.status == 200, "\(whole.text)")
            shown = try #require(try await Self.shown(h))
            #expect(shown.triggers.keys.sorted() == ["beforeSignIn"])
            #expect(shown.forwardInboundCredentials == nil)

            // No mask: the leaves present.
            let maskless = try await h.send(.patch, Self.configPath(h),
                                            body: #"{"blockingFunctions":{"triggers":{"beforeSendEmail":{"functionUri":"https://mail-hook.example.com/x"}}}}"#,
                                            headers: Self.owner)
            #expect(maskless.status == 200, "\(maskless.text)")
            shown = try #require(try await Self.shown(h))
            #expect(shown.triggers.keys.sorted() == ["beforeSendEmail", "beforeSignIn"])

            // An empty functionUri or a missing trigger removes it.
            let removed = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.triggers.beforeSignIn,blockingFunctions.triggers.beforeSendEmail"),
                                           body: #"{"blockingFunctions":{"triggers":{"beforeSignIn":{"functionUri":""}}}}"#, headers: Self.owner)
            #expect(removed.status == 200, "\(removed.text)")
            #expect(try await Self.shown(h) == BlockingFunctionsConfig())
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.blockingFunctions == nil)

            // A value of the wrong type, an unknown event.
            let wrongType = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.triggers.beforeCreate"),
                                             body: #"{"blockingFunctions":{"triggers":{"beforeCreate":"https://hooks.example.com"}}}"#, headers: Self.owner)
            #expect(wrongType.status == 400 && wrongType.errorCode == "INVALID_CONFIG")
            let unknown = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.triggers.afterCreate"),
                                           body: #"{"blockingFunctions":{}}"#, headers: Self.owner)
            #expect(unknown.status == 400 && unknown.errorCode == "INVALID_UPDATE_MASK")

            let details = try await h.store.auditEntries(before: nil, limit: 100).filter { $0.action == "config.update" }.map(\.detail)
            #expect(details.contains("blockingFunctions.triggers.beforeCreate"))
            #expect(details.contains("blockingFunctions.forwardInboundCredentials.idToken,blockingFunctions.forwardInboundCredentials.accessToken,blockingFunctions.forwardInboundCredentials.refreshToken"))
        }
    }

    /// Issue 39, item 1: Firebase's Functions emulator registers its blocking functions with the Auth emulator as
    /// firebase-tools does it (`PATCH …/config?updateMask=blockingFunctions`, `Bearer owner`, loopback http URLs,
    /// every forwarding flag sent as a boolean): accepted by a `--dev` server, refused (INVALID_CONFIG) otherwise.
    @Test func theFunctionsEmulatorsRegistrationIsAcceptedUnderDev() async throws {
        let body = #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"http://127.0.0.1:5001/demo-hearth/us-central1/beforecreated"},"beforeSignIn":{"functionUri":"http://127.0.0.1:5001/demo-hearth/us-central1/beforesignedin"}},"forwardInboundCredentials":{"accessToken":false,"idToken":true,"refreshToken":false}}}"#
        try await HearthHarness.run(configure: { $0.blockingFunctions.development = true }) { h in
            let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                                         body: body, headers: Self.owner)
            #expect(reply.status == 200, "\(reply.text)")
            let shown = try #require(try await Self.shown(h))
            #expect(shown.trigger(for: .beforeCreate)?.functionUri == "http://127.0.0.1:5001/demo-hearth/us-central1/beforecreated")
            #expect(shown.trigger(for: .beforeSignIn)?.functionUri == "http://127.0.0.1:5001/demo-hearth/us-central1/beforesignedin")
            #expect(shown.forwardInboundCredentials == .init(idToken: true))
        }
        try await HearthHarness.run { h in
            let reply = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                                         body: body, headers: Self.owner)
            #expect(reply.status == 400 && reply.errorCode == "INVALID_CONFIG")
            #expect(reply.envelope?.error.message.contains("--dev") == true)
        }
    }

    /// URLs every configuration refuses, with words the message must hold.
    static let refusedURLs: [(String, String)] = [
        ("http://hooks.example.com/hook", "must use https"),
        ("http://127.0.0.1:8080/hook", "only for a loopback host when the server runs with --dev"),
        ("ftp://hooks.example.com/hook", "must use https"),
        ("https://10.1.2.3/hook", "private-network address"),
        ("https://192.168.0.10/hook", "private-network address"),
        ("https://172.20.0.1/hook", "private-network address"),
        ("https://100.64.0.1/hook", "carrier-grade NAT"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://localhost/hook", "loopback"),
        ("https://[::1]/hook", "loopback"),
        ("https://[fe80::1]/hook", "link-local"),
        ("https://[fd00::1]/hook", "private-network address"),
        ("https://[::ffff:10.0.0.1]/hook", "private-network address"),
        ("https://[::ffff:a00:1]/hook", "private-network address"),
        ("https://[::ffff:127.0.0.1]/hook", "loopback"),
        ("https://[::ffff:169.254.169.254]/hook", "link-local"),
        ("https://[64:ff9b::a9fe:a9fe]/hook", "link-local"),
        ("https://[::]/hook", "never"),
        ("https://0.0.0.0/hook", "never"),
        ("https://224.0.0.1/hook", "never"),
        ("https://2130706433/hook", "non-standard form"),
        ("https://0x7f000001/hook", "non-standard form"),
        ("https://0x7f.0.0.1/hook", "non-standard form"),
        ("https://017700000001/hook", "non-standard form"),
        ("https://127.1/hook", "non-standard form"),
        ("https://user:secret@hooks.example.com/hook", "user name or password"),
        ("https://hooks.example.com@10.0.0.1/hook", "user name or password"),
        ("https://hooks.example.com/hook#part", "fragment"),
        ("https://hooks.example.com/ hook", "control characters"),
        ("https://hooks.example.com/" + String(repeating: "a", count: 2100), "longer than 2048"),
        ("https://[fe80::1%25eth0]/hook", "zone"),
        ("https://hooks..example.com/hook", "not a valid host name"),
        ("/relative/hook", "not an absolute URL"),
    ]

    /// Issue 39, item 1: the admin API refuses each bad function URL with `INVALID_CONFIG`, naming the trigger and
    /// what is wrong, and saves nothing — private, loopback, link-local, mapped and odd-form IPv4 addresses included.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func badFunctionURLsAreRefusedWithAClearMessage(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            for (url, words) in Self.refusedURLs {
                let body = try JSONEncoder().encode(AdminProjectConfig(blockingFunctions: .init(triggers: ["beforeCreate": .init(functionUri: url)])))
                let reply = try await h.send(.patch, Self.configPath(h, mask: "blockingFunctions.triggers.beforeCreate"),
                                             body: String(decoding: body, as: UTF8.self), headers: Self.owner)
                #expect(reply.status == 400, "\(url.prefix(80)): \(reply.text)")
                #expect(reply.errorCode == "INVALID_CONFIG", "\(url.prefix(80))")
                let message = reply.envelope?.error.message ?? ""
                #expect(message.contains("blockingFunctions.triggers.beforeCreate"), "\(url.prefix(80)): \(message)")
                #expect(message.contains(words), "\(url.prefix(80)): \(message)")
            }
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.blockingFunctions == nil)
        }
    }

    /// Issue 39, item 1: `--dev` admits http and addresses on loopback only; `hooks.allow.private.networks` admits
    /// private, loopback and link-local addresses; neither admits the unspecified or multicast addresses, http to
    /// another host, user info or odd IPv4 forms.
    @Test func theSettingsWidenThePolicyExactlyAsDocumented() {
        let strict = BlockingFunctionSettings()
        let dev = BlockingFunctionSettings(development: true)
        let open = BlockingFunctionSettings(allowPrivateNetworks: true)
        func allowed(_ url: String, _ settings: BlockingFunctionSettings) -> Bool {
            if case .success = BlockingFunctionURLPolicy.check(url, settings: settings) { return true }
            return false
        }
        #expect(allowed("https://hooks.example.com/a", strict))
        #expect(allowed("https://8.8.8.8/a", strict))
        #expect(allowed("https://[2001:4860::8888]/a", strict))
        for url in ["http://127.0.0.1:8080/a", "http://localhost:8080/a", "http://[::1]:8080/a", "https://127.0.0.1/a"] {
            #expect(!allowed(url, strict), "\(url)")
            #expect(allowed(url, dev), "\(url)")
        }
        #expect(!allowed("http://127.0.0.1:8080/a", open), "http stays a --dev matter")
        for url in ["https://10.0.0.1/a", "https://169.254.169.254/a", "https://[fd00::1]/a", "https://[::ffff:10.0.0.1]/a"] {
            #expect(!allowed(url, dev), "\(url)")
            #expect(allowed(url, open), "\(url)")
        }
        let both = BlockingFunctionSettings(allowPrivateNetworks: true, development: true)
        for url in ["https://0.0.0.0/a", "https://[::]/a", "https://239.1.1.1/a", "https://255.255.255.255/a", "http://10.0.0.1/a",
                    "https://2130706433/a", "https://u@10.0.0.1/a"] {
            #expect(!allowed(url, both), "\(url)")
        }
        // A NUL (the API's middleware refuses it in any request first; the console and CLI reach the policy).
        #expect(!allowed("https://hooks.example.com/\u{0}a", both))
        #expect(!allowed("https://hooks.example.com/\u{7f}a", both))
        // The console / CLI message for a refusal says what to do.
        if case .failure(let refusal) = BlockingFunctionURLPolicy.check("https://10.0.0.1/a", settings: strict) {
            #expect(refusal.message.contains("hooks.allow.private.networks"))
        } else {
            Issue.record("10.0.0.1 was accepted")
        }
    }

    /// Issue 39, item 1: the typed change refuses the same URLs for the console and the CLI, and accepts a loopback
    /// http URL when the server runs with `--dev`.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func typedChangesFollowTheServersDevSetting(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions.development = true }) { h in
            let admin = h.server.admin
            let saved = try await admin.updateProjectSettings([.blockingFunctionTrigger(.beforeSignIn, "http://127.0.0.1:9/hook"),
                                                               .blockingFunctionsForwardAccessToken(true)], by: .emulatorOwner, in: h.scope)
            #expect(saved.blockingFunctions?.trigger(for: .beforeSignIn)?.functionUri == "http://127.0.0.1:9/hook")
            #expect(saved.blockingFunctions?.forwardInboundCredentials?.accessToken == true)
            do {
                try await admin.updateProjectSettings([.blockingFunctionTrigger(.beforeCreate, "https://10.0.0.8/hook")], by: .emulatorOwner, in: h.scope)
                Issue.record("a private address was accepted")
            } catch let error as HearthAPIError {
                #expect(error.code == .invalidConfig)
                #expect(error.detail?.contains("blockingFunctions.triggers.beforeCreate") == true)
            }
            let after = try await h.store.projectConfig(projectId: h.projectId)?.blockingFunctions
            #expect(after?.trigger(for: .beforeCreate) == nil)
            #expect(after?.trigger(for: .beforeSignIn) != nil)
            // Removing the last trigger and flag leaves no blockingFunctions at all.
            try await admin.updateProjectSettings([.blockingFunctionTrigger(.beforeSignIn, nil), .blockingFunctionsForwardAccessToken(false)],
                                                  by: .emulatorOwner, in: h.scope)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.blockingFunctions == nil)
        }
    }
}
