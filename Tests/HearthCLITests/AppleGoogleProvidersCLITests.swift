import Foundation
import HearthCore
import HearthDevIdP
import HearthStoreSQLite
import Testing

/// Issue 21: `hearth providers enable apple.com|google.com` with the Apple key file and the Google hosted domains.
@Suite struct AppleGoogleProvidersCLITests {
    @Test func enableAppleWithTheKeyFileAndGoogleWithHostedDomains() async throws {
        let server = try RunningServer.start(["--project-id", "demo-cli-apple"])
        server.stop()
        let data = server.dataDir
        let credentials = DevAppleProvider.Credentials.random()
        let keyFile = CLI.temporaryDirectory() + "/AuthKey.p8"
        try credentials.privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let secretRefused = try CLI.run(["providers", "enable", "apple.com", "--data-dir", data, "--services-id", credentials.servicesId,
                                         "--client-secret", "x"])
        #expect(secretRefused.status != 0)
        #expect(secretRefused.stderr.contains("no client secret"))
        let apple = try CLI.run(["providers", "enable", "apple.com", "--data-dir", data, "--services-id", credentials.servicesId,
                                 "--team-id", credentials.teamId, "--key-id", credentials.keyId, "--private-key-file", keyFile,
                                 "--bundle-id", "com.example.app"])
        #expect(apple.status == 0, "\(apple.output)")
        #expect(!apple.output.contains("PRIVATE KEY"))
        let badKey = CLI.temporaryDirectory() + "/bad.p8"
        try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".write(toFile: badKey, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["providers", "enable", "apple.com", "--data-dir", data, "--private-key-file", badKey])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("privateKey"))
        let google = try CLI.run(["providers", "enable", "google.com", "--data-dir", data, "--client-id", "1-web.apps.googleusercontent.com",
                                  "--client-secret", "GOCSPX-x", "--allowed-hosted-domain", "Example.com"])
        #expect(google.status == 0, "\(google.output)")
        let list = try CLI.run(["providers", "list", "--data-dir", data])
        #expect(list.stdout.contains("apple.com"))
        #expect(!list.stdout.contains("PRIVATE KEY"))
        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let storedApple = try #require(try await store.idpConfig(providerId: "apple.com"))
        let storedGoogle = try #require(try await store.idpConfig(providerId: "google.com"))
        try await store.close()
        #expect(storedApple.clientId == credentials.servicesId)
        #expect(storedApple.clientSecret == credentials.privateKeyPEM)
        #expect(storedApple.appleTeamId == credentials.teamId)
        #expect(storedApple.appleBundleIds == ["com.example.app"])
        #expect(storedGoogle.allowedHostedDomains == ["example.com"])
    }
}
