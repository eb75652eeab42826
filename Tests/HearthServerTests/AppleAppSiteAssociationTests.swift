import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 23.3: Apple apps' team ids through the admin service and the console, and
/// `/.well-known/apple-app-site-association` built from them, over loopback HTTP.
@Suite struct AppleAppSiteAssociationTests {
    static let owner = AdminPrincipal.emulatorOwner

    static func apple(_ bundleId: String, teamId: String?, id: String? = nil) -> AppRegistration {
        AppRegistration(id: id ?? "apple:\(bundleId)", kind: .apple, bundleId: bundleId, appId: "1:1234:ios:abcd", teamId: teamId)
    }

    @Test func teamIdsAreCheckedByTheAdminService() async throws {
        try await HearthHarness.run { h in
            for bad in ["abcde12345", "ABCDE1234", "ABCDE123456", "ABCDE-1234", "ABCDÉ12345", " ABCDE1234", ""] {
                await #expect(throws: HearthAPIError.self, "team id \(bad)") {
                    try await h.server.admin.registerApp(Self.apple("com.example.notes", teamId: bad), by: Self.owner)
                }
            }
            await #expect(throws: HearthAPIError.self, "a desktop app has no team id") {
                try await h.server.admin.registerApp(AppRegistration(id: "cli", kind: .desktop, teamId: "ABCDE12345"), by: Self.owner)
            }
            #expect(try await h.store.apps().isEmpty)
            do {
                try await h.server.admin.registerApp(Self.apple("com.example.notes", teamId: "abcde12345"), by: Self.owner)
            } catch let error as HearthAPIError {
                #expect(error.code == .invalidArgument)
                #expect(error.description.contains("10 upper-case letters and digits"), "\(error)")
            }
            try await h.server.admin.registerApp(Self.apple("com.example.notes", teamId: "ABCDE12345"), by: Self.owner)
            #expect(try await h.store.apps().first?.teamId == "ABCDE12345", "the team id is stored with the app")
        }
    }

    @Test func theFileListsAppleAppsWithTeamIdsSortedWithoutRepeats() async throws {
        try await HearthHarness.run { h in
            // None yet: 404 with the envelope saying what to register.
            let none = try await h.send(.get, WirePaths.appleAppSiteAssociation)
            #expect(none.status == 404)
            #expect(none.errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(none.text.contains("--team-id"), "\(none.text)")
            #expect(none.headers[.cacheControl] == "no-store")

            let admin = h.server.admin
            try await admin.registerApp(Self.apple("com.example.zebra", teamId: "ZZZZZ99999"), by: Self.owner)
            try await admin.registerApp(Self.apple("com.example.notes", teamId: "ABCDE12345"), by: Self.owner)
            try await admin.registerApp(Self.apple("com.example.no-team", teamId: nil), by: Self.owner)
            try await admin.registerApp(AppRegistration(id: "hearth-cli", kind: .desktop, name: "hearth-cli"), by: Self.owner)
            // The same app under another registration id (the store allows it): listed once.
            try await h.store.saveApp(Self.apple("com.example.notes", teamId: "ABCDE12345", id: "apple:copy"))

            let reply = try await h.send(.get, WirePaths.appleAppSiteAssociation)
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "application/json")
            #expect(reply.headers[.cacheControl] == "public, max-age=300")
            #expect(reply.text == #"{"webcredentials":{"apps":["ABCDE12345.com.example.notes","ZZZZZ99999.com.example.zebra"]}}"#, "\(reply.text)")
            // No redirect for a trailing slash or an extension either: those are simply other paths.
            #expect(try await h.send(.get, WirePaths.appleAppSiteAssociation + ".json").status == 404)
        }
    }

    @Test func theConsoleRegistersAndShowsTheTeamId() async throws {
        try await HearthHarness.run { h in
            let console = ConsoleTests()
            let session = try await console.signIn(h)
            let bad = try await console.post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.notes"),
                                                                           ("appId", "1:1234:ios:abcd"), ("teamId", "abc")])
            #expect(bad.status == 400)
            #expect(bad.text.contains("is not a team id"), "\(bad.text)")
            #expect(try await h.store.apps().isEmpty)
            let added = try await console.post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.notes"),
                                                                             ("appId", "1:1234:ios:abcd"), ("teamId", "ABCDE12345")])
            #expect(added.status == 303, "\(added.text)")
            #expect(try await h.store.apps().first?.teamId == "ABCDE12345")
            let page = try await h.send(.get, "/console/apps", headers: session.headers)
            #expect(page.text.contains("<code>ABCDE12345.com.example.notes</code>"), "the list shows the webcredentials entry")
            #expect(page.text.contains(#"name="teamId""#))
            // Without a team id the form still registers (the field is optional) and the list says so.
            let plain = try await console.post(h, "/console/apps", session, [("csrf", session.csrf), ("kind", "apple"), ("bundleId", "com.example.plain"),
                                                                             ("appId", "1:1234:ios:abcd"), ("teamId", "")])
            #expect(plain.status == 303)
            #expect(try await h.store.apps().first { $0.bundleId == "com.example.plain" }?.teamId == nil)
            let file = try await h.send(.get, WirePaths.appleAppSiteAssociation)
            #expect(file.text == #"{"webcredentials":{"apps":["ABCDE12345.com.example.notes"]}}"#, "\(file.text)")
        }
    }
}

/// Issue 23.2: an administrator sees a user's passkeys on the console's user page and removes them (through the
/// admin API's `deletePasskey`, audited).
@Suite struct ConsolePasskeysTests {
    static func passkey(_ id: String, _ localId: String, name: String?, backedUp: Bool, at seconds: TimeInterval) -> PasskeyCredential {
        PasskeyCredential(credentialId: id, localId: localId, userHandle: "aGFuZGxl", publicKey: "pA", algorithm: -7, signCount: 0, name: name,
                          backupEligible: backedUp, backedUp: backedUp, createdAt: Date(timeIntervalSince1970: seconds))
    }

    @Test func theUserPageListsAndRemovesPasskeys() async throws {
        try await HearthHarness.run { h in
            let console = ConsoleTests()
            let session = try await console.signIn(h)
            let ada = try await h.signUp(email: "ada@example.com")
            let page = { try await h.send(.get, "/console/user?uid=\(ada.localId)", headers: session.headers) }
            #expect(try await page().text.contains(#"<h2 id="passkeys">Passkeys</h2>"#))
            #expect(try await page().text.contains(#"<p class="note">None.</p>"#))
            #expect(try await h.store.insertPasskey(Self.passkey("-_-_AQ", ada.localId, name: "MacBook", backedUp: true, at: 1_790_000_000)))
            #expect(try await h.store.insertPasskey(Self.passkey("AQID", ada.localId, name: nil, backedUp: false, at: 1_790_000_100)))
            #expect(try await h.store.insertPasskey(Self.passkey("BBBB", ada.localId, name: "Key", backedUp: false, at: 1_790_000_200)))
            let listed = try await page().text
            #expect(listed.contains("<td data-label=\"Name\">MacBook</td><td data-label=\"Kind\">synced</td>"), "\(listed)")
            #expect(listed.contains("<td data-label=\"Name\">Unnamed passkey</td><td data-label=\"Kind\">device-bound</td>"))
            #expect(listed.contains(#"<input type="hidden" name="passkey" value="AQID">"#))
            #expect(!listed.contains("aGFuZGxl"), "never the user handle")

            let noCSRF = try await console.post(h, "/console/user/passkeys/remove", session, [("uid", ada.localId), ("passkey", "AQID")])
            #expect(noCSRF.status == 403)
            let unknown = try await console.post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", ada.localId), ("passkey", "CCCC")])
            #expect(unknown.status == 400 && unknown.text.contains("PASSKEY_ENROLLMENT_NOT_FOUND"), "\(unknown.status) \(unknown.text)")
            let one = try await console.post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", ada.localId), ("passkey", "AQID")])
            #expect(one.status == 303)
            #expect(one.headers[.location]?.hasSuffix("&ok=passkey-removed#passkeys") == true, "\(one.headers)")
            #expect(try await h.store.passkeys(localId: ada.localId).map(\.credentialId).sorted() == ["-_-_AQ", "BBBB"])
            let all = try await console.post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", ada.localId)])
            #expect(all.status == 303 && all.headers[.location]?.contains("ok=passkeys-removed-all") == true)
            #expect(try await h.store.passkeys(localId: ada.localId).isEmpty)
            let removals = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.action == "passkey.remove" }
            #expect(removals.count == 2 && removals.allSatisfy { ($0.detail ?? "").hasPrefix("console:") }, "\(removals)")
        }
    }
}
