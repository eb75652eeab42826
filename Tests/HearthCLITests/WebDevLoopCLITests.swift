import Foundation
import Testing

/// Issue 36: web apps on Hearth, as an operator meets them in the `hearth` binary — `hearth project domains` and the
/// `--dev` banner's lines for a web app.
@Suite struct WebDevLoopCLITests {
    /// Issue 36, item 5 (the CLI part): `hearth project domains` shows, adds and removes the project's authorized
    /// domains through the same command as `hearth apps domains` (one list, either name), refuses a URL for a domain,
    /// says when a removed domain was not there, and `hearth project` shows the result.
    @Test func projectDomainsShowsAddsAndRemoves() throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)

        let shown = try CLI.run(["project", "domains", "--data-dir", data])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.stdout == "localhost\n127.0.0.1\n", "\(shown.output)")

        let added = try CLI.run(["project", "domains", "--data-dir", data, "--add", "App.Example.com", "--add", "staging.example.org"])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.stdout == "localhost\n127.0.0.1\napp.example.com\nstaging.example.org\n", "\(added.output)")
        // The same list under `hearth apps domains`.
        let apps = try CLI.run(["apps", "domains", "--data-dir", data])
        #expect(apps.stdout == added.stdout, "\(apps.output)")

        let removed = try CLI.run(["project", "domains", "--data-dir", data, "--remove", "127.0.0.1", "--remove", "nowhere.example"])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(removed.stdout == "localhost\napp.example.com\nstaging.example.org\n", "\(removed.output)")
        #expect(removed.stderr.contains("nowhere.example was not an authorized domain"), "\(removed.stderr)")

        let url = try CLI.run(["project", "domains", "--data-dir", data, "--add", "https://app.example.com:8443"])
        #expect(url.status != 0)
        #expect(url.stderr.contains("is not a domain name: give a host name such as app.example.com (no scheme, port or path)"), "\(url.stderr)")

        let project = try CLI.run(["project", "--data-dir", data])
        #expect(project.stdout.contains("authorized domains             localhost, app.example.com, staging.example.org"), "\(project.stdout)")
        let help = try CLI.run(["project", "domains", "--help"])
        #expect(help.stdout.contains("Firebase JS SDK"), "\(help.stdout)")
    }

    /// Issue 36, item 9: `hearth serve --dev` prints how to point a web app at it — `connectAuthEmulator` with its
    /// public URL and `{disableWarnings: true}`, the `authDomain`, the authorized domains as stored (one added with
    /// `hearth project domains` shows), the `/__dev/try/web` page and docs/web.md; a server without `--dev` does not.
    @Test func devBannerSaysHowToPointAWebAppAtIt() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let plain = try RunningServer.start([], dataDir: data)
        plain.stop()
        #expect(!plain.banner.contains("connectAuthEmulator"), "\(plain.banner)")
        #expect(try CLI.run(["project", "domains", "--data-dir", data, "--add", "app.example.com"]).status == 0)

        let dev = try RunningServer.start(["--dev", "--no-console-link"], dataDir: data)
        dev.stop()
        let base = "http://127.0.0.1:\(dev.port)"
        #expect(dev.banner.contains("  web apps:      connectAuthEmulator(auth, '\(base)', {disableWarnings: true}) with authDomain: '127.0.0.1:\(dev.port)' in the app's config (docs/web.md)"), "\(dev.banner)")
        #expect(dev.banner.contains("pages on localhost, 127.0.0.1, app.example.com (a name's subdomains too, any port) may sign in; more with hearth project domains --add <domain>"), "\(dev.banner)")
        #expect(dev.banner.contains("try it: open \(base)/__dev/try/web"), "\(dev.banner)")
        // The block sits with the other --dev lines, before the last line.
        let lines = dev.banner.split(separator: "\n")
        let web = try #require(lines.firstIndex { $0.contains("web apps:") })
        let tryIt = try #require(lines.firstIndex { $0.contains("  try it:        open") })
        #expect(web == tryIt + 1, "\(dev.banner)")
        #expect(lines.contains("Press Ctrl-C to stop."))
    }
}
