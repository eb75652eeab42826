import Foundation
import HearthTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 17, items 7 and 8, as an operator meets them: the console login link stays out of logs for a real project,
/// and every file holding secrets is readable by its owner only.
@Suite struct TrustCLITests {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
    }

    static func waitFor(_ text: String, in server: RunningServer, seconds: TimeInterval = 20) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var banner = server.banner
        while !banner.contains(text), Date() < deadline {
            usleep(50_000)
            banner = server.banner
        }
        return banner
    }

    /// The attack: the one-time console link (an administrator's session to whoever opens it) was printed on every
    /// start, into whatever collects the output. For a non-demo project whose output is not a terminal it is now
    /// written to an owner-only file whose path is printed; text and JSON logs alike.
    @Test(arguments: ["text", "json"])
    func theConsoleLinkOfARealProjectIsNeverPrintedIntoLogs(_ format: String) throws {
        let server = try RunningServer.start(["--project-id", "acme-prod", "--api-key", "key-1", "--log-format", format])
        let banner = Self.waitFor("Console:", in: server)
        server.stop()
        let path = server.dataDir + "/console-login-link"
        #expect(banner.contains("Console: a one-time login link"), "\(banner)")
        #expect(banner.contains(path))
        #expect(!banner.contains("login/link?token=") && !server.log.contains("login/link?token="), "\(banner)\n\(server.log)")
        #expect(Self.mode(path) == 0o600)
        let link = try String(contentsOfFile: path, encoding: .utf8)
        #expect(link.hasPrefix("http://127.0.0.1:\(server.port)/console/login/link?token="))
        // On request it is printed, as before.
        let fresh = try CLI.run(["console", "login-link", "--data-dir", server.dataDir])
        #expect(fresh.stdout.contains("/console/login/link?token="), "\(fresh.output)")
    }

    /// The attack: backups, the database and its -wal/-shm files were 0644, and an existing data directory stayed
    /// 0755: anyone on the machine could read password hashes, the signing key and provider secrets. Now every such
    /// file is 0600 (an existing database is tightened), and a group/world-readable data directory is warned about.
    @Test func filesHoldingSecretsAreOwnerOnly() throws {
        let directory = CLI.temporaryDirectory() + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var server = try RunningServer.start([], dataDir: directory)
        _ = Self.waitFor("Console:", in: server)
        #expect(server.log.contains("the data directory \(directory) can be read by other users (mode 755)"), "\(server.log)")
        #expect(server.log.contains("chmod 700"))
        for file in ["hearth.sqlite", "hearth.sqlite-wal", "hearth.sqlite-shm", "totp-secrets.key"] {
            #expect(Self.mode(directory + "/" + file) == 0o600, "\(file): \(String(Self.mode(directory + "/" + file) ?? 0, radix: 8))")
        }
        // (totp-secrets.key: TOTP secrets are sealed at rest by default with it.)
        let backup = CLI.temporaryDirectory() + "/backup.sqlite"
        let result = try CLI.run(["backup", "--data-dir", directory, "--to", backup])
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.mode(backup) == 0o600)
        let export = CLI.temporaryDirectory() + "/users.json"
        #expect(try CLI.run(["users", "export", export, "--data-dir", directory]).status == 0)
        #expect(Self.mode(export) == 0o600)
        server.stop()
        // A database left 0644 by an older version is tightened at the next start.
        chmod(directory + "/hearth.sqlite", 0o644)
        chmod(directory, 0o700)
        server = try RunningServer.start([], dataDir: directory)
        _ = Self.waitFor("Console:", in: server)
        server.stop()
        #expect(Self.mode(directory + "/hearth.sqlite") == 0o600)
        #expect(!server.log.contains("can be read by other users"))
    }
}
