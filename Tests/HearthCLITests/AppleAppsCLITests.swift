import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Testing

/// Issue 23.3 through the `hearth` binary: `apps add-apple --team-id` checks the team id, `apps list` shows it, and the
/// served `/.well-known/apple-app-site-association` lists the app.
@Suite(.serialized) struct AppleAppsCLITests {
    @Test func addAppleWithTeamIdIsCheckedListedAndServed() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        for bad in ["abcde12345", "ABCDE1234", "ABCDE_1234"] {
            let refused = try CLI.run(["apps", "add-apple", "--data-dir", data, "--bundle-id", "com.example.notes", "--app-id", "1:1234:ios:abcd",
                                       "--team-id", bad])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--team-id \(bad) is not a team id"), "\(refused.stderr)")
            #expect(refused.stderr.contains("10 upper-case letters and digits"))
        }
        #expect(try CLI.run(["apps", "list", "--data-dir", data]).stdout.contains("No apps registered."))

        let added = try CLI.run(["apps", "add-apple", "--data-dir", data, "--bundle-id", "com.example.notes", "--app-id", "1:1234:ios:abcd",
                                 "--team-id", "ABCDE12345"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Listed as ABCDE12345.com.example.notes in \(WirePaths.appleAppSiteAssociation)"), "\(added.stdout)")
        // Adding a team id to a registered app needs --replace, like any other change.
        let other = try CLI.run(["apps", "add-apple", "--data-dir", data, "--bundle-id", "com.example.notes", "--app-id", "1:1234:ios:abcd",
                                 "--team-id", "FGHIJ67890"])
        #expect(other.status != 0)
        #expect(other.stderr.contains("team id ABCDE12345"), "\(other.stderr)")
        let list = try CLI.run(["apps", "list", "--data-dir", data])
        #expect(list.stdout.contains("apple:com.example.notes\tapple\tcom.example.notes\t1:1234:ios:abcd\tABCDE12345"), "\(list.stdout)")

        let server = try RunningServer.start([], dataDir: data)
        defer { server.stop() }
        let (body, response) = try await URLSession.shared.data(from: URL(string: server.url + WirePaths.appleAppSiteAssociation)!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: body, as: UTF8.self) == #"{"webcredentials":{"apps":["ABCDE12345.com.example.notes"]}}"#)
    }
}
