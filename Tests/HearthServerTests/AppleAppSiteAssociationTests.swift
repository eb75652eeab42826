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
