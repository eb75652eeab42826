import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTesting
import HearthWire
import Testing

/// `hearth signin email-link`: sends the link, signs in with it, and says plainly what is wrong with a bad one.
@Suite struct EmailLinkCLITests {
    /// The newest sign-in code for `email` in a `--dev` server's mailbox, other than `previous`.
    static func signInLink(_ server: RunningServer, to email: String, after previous: String? = nil) async throws -> String {
        let url = URL(string: server.url + WirePaths.emulatorOobCodes.replacingOccurrences(of: "{project}", with: "demo-hearth"))!
        for _ in 0..<100 {
            let (data, _) = try await URLSession.shared.data(from: url)
            let codes = try JSONDecoder().decode(EmulatorOobCodesResponse.self, from: data).oobCodes
            if let found = codes.last(where: { $0.email == email && $0.requestType == OobRequestType.emailSignIn.rawValue }),
               found.oobLink != previous {
                return found.oobLink
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLIFailure("no sign-in link for \(email) in the dev mailbox")
    }

    @Test func emailLinkSignInSendsThenSignsInAndRefusesBadLinks() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let home = CLI.temporaryDirectory()
        // Without a terminal and without --link: the link is sent, and the way to finish is told.
        let sent = try CLI.run(["signin", "email-link", "--email", "cli-link@example.com", "--server", server.url], configHome: home)
        #expect(sent.status == 0, "\(sent.output)")
        #expect(sent.stdout.contains("Sent a sign-in link to cli-link@example.com"), "\(sent.output)")
        #expect(sent.stderr.contains("hearth signin email-link --email cli-link@example.com --link"), "\(sent.output)")
        let link = try await Self.signInLink(server, to: "cli-link@example.com")
        // The continue URL is the server itself.
        let continueUrl = URLComponents(string: link)?.queryItems?.first { $0.name == "continueUrl" }?.value
        #expect(continueUrl == server.url + "/", "\(link)")
        // With --link: signed in, with the summary the other signin commands print.
        let signedIn = try CLI.run(["signin", "email-link", "--email", "cli-link@example.com", "--link", link, "--server", server.url], configHome: home)
        #expect(signedIn.status == 0, "\(signedIn.output)")
        #expect(signedIn.stdout.contains("Signed in as "), "\(signedIn.output)")
        #expect(signedIn.stdout.contains("provider:  password"), "\(signedIn.output)")
        #expect(signedIn.stdout.contains("cli-link@example.com (verified)"), "\(signedIn.output)")
        let whoami = try CLI.run(["whoami"], configHome: home)
        #expect(whoami.stdout.contains("cli-link@example.com"), "\(whoami.output)")

        // The same link again: used.
        let used = try CLI.run(["signin", "email-link", "--email", "cli-link@example.com", "--link", link, "--server", server.url])
        #expect(used.status != 0)
        #expect(used.stderr.contains("this sign-in link is not valid"), "\(used.output)")
        #expect(used.stderr.contains("hearth signin email-link --email cli-link@example.com"), "\(used.output)")
        // Not a sign-in link at all.
        let bad = try CLI.run(["signin", "email-link", "--email", "cli-link@example.com", "--link", "https://example.com/?mode=resetPassword&oobCode=X",
                               "--server", server.url])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("not an email sign-in link"), "\(bad.output)")
        // A bad address, no address.
        let badEmail = try CLI.run(["signin", "email-link", "--email", "not an address", "--server", server.url])
        #expect(badEmail.status != 0)
        #expect(badEmail.stderr.contains("not a valid email address"), "\(badEmail.output)")
        let noEmail = try CLI.run(["signin", "email-link", "--server", server.url])
        #expect(noEmail.status != 0)
        #expect(noEmail.stderr.contains("email-link sign-in needs --email"), "\(noEmail.output)")
        #expect(try CLI.run(["signin", "yahoo.com", "--link", link]).stderr.contains("--link belongs to email-link sign-in"))
        for result in [used, bad, badEmail] {
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(!rawErrorMarkers.contains { result.output.contains($0) }, "\(result.output)")
        }
    }

    /// On a terminal, the command sends the link, asks for it, and signs in with what is pasted.
    @Test func emailLinkSignInAsksForTheLinkOnATerminal() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let home = CLI.temporaryDirectory()
        let terminal = try TerminalRun("signin email-link --email tty@example.com --server \(server.url)", configHome: home)
        // Only a guard against a hang: in the parallel CLI suite the prompt alone can take ~30 s to come.
        let deadline = Date().addingTimeInterval(120)
        #expect(try await terminal.wait(for: "Paste the link", until: deadline))
        let text = terminal.text
        #expect(text.value.contains("Sent a sign-in link to tty@example.com. Paste the link from the email here"), "\(text.value)")
        let link = try await Self.signInLink(server, to: "tty@example.com")
        terminal.type(link)
        let status = try await terminal.finish(by: deadline)
        #expect(status == 0, "\(text.value)")
        #expect(text.value.contains("Signed in as "), "\(text.value)")
        #expect(text.value.contains("tty@example.com (verified)"), "\(text.value)")
    }
}
