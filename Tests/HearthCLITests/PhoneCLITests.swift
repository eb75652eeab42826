import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthWire
import Testing

/// `hearth signin phone +1…` with the real binary against a real `hearth serve --dev`, the code read from the
/// server's Firebase-emulator `verificationCodes` endpoint (the dev SMS sink): on a terminal it asks for the code;
/// without one it prints the verification id and the command that finishes; bad input says what to do.
@Suite struct PhoneCLITests {
    /// The newest code sent to `number`, from `GET /emulator/v1/projects/demo-hearth/verificationCodes`.
    static func code(_ server: RunningServer, to number: String, after previous: String? = nil) async throws -> EmulatorVerificationCode {
        let url = URL(string: server.url + WirePaths.emulatorVerificationCodes.replacingOccurrences(of: "{project}", with: "demo-hearth"))!
        for _ in 0..<100 {
            let (data, _) = try await URLSession.shared.data(from: url)
            let codes = try JSONDecoder().decode(EmulatorVerificationCodesResponse.self, from: data).verificationCodes
            if let found = codes.last(where: { $0.phoneNumber == number }), found.sessionInfo != previous { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLIFailure("no SMS to \(number) in the dev sink")
    }

    /// Issue 40, item 6: on a terminal, `hearth signin phone` sends the code, asks for it (a wrong one is asked
    /// again), signs up the number and prints the user with its phone number; `whoami` then shows it.
    @Test func phoneSignInAsksForTheCodeOnATerminal() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let home = CLI.temporaryDirectory()
        let terminal = try TerminalRun("signin phone '+1 555 555 0100' --server \(server.url)", configHome: home)
        let deadline = Date().addingTimeInterval(120)
        #expect(try await terminal.wait(for: "Code from the SMS", until: deadline), "\(terminal.text.value)")
        #expect(terminal.text.value.contains("Sent a code by SMS to +1 555 555 0100."), "\(terminal.text.value)")
        let sent = try await Self.code(server, to: "+15555550100")
        terminal.type(sent.code == "000000" ? "111111" : "000000")
        #expect(try await terminal.wait(for: "That code was not accepted", until: deadline), "\(terminal.text.value)")
        terminal.type(sent.code)
        let status = try await terminal.finish(by: deadline)
        #expect(status == 0, "\(terminal.text.value)")
        #expect(terminal.text.value.contains("Signed in as "), "\(terminal.text.value)")
        #expect(terminal.text.value.contains("provider:  phone"), "\(terminal.text.value)")
        #expect(terminal.text.value.contains("phone:     +15555550100"), "\(terminal.text.value)")
        let whoami = try CLI.run(["whoami"], configHome: home)
        #expect(whoami.status == 0 && whoami.stdout.contains("phone:     +15555550100"), "\(whoami.output)")
    }

    /// Issue 40, item 6: without a terminal the command sends the code and prints how to finish; `--verification-id`
    /// with `--code` finishes it (no second SMS); a used code, a bad number and misplaced options are explained in one
    /// line each.
    @Test func phoneSignInWithoutATerminalAndBadInput() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let home = CLI.temporaryDirectory()
        let first = try CLI.run(["signin", "phone", "+15555550123", "--server", server.url], configHome: home)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.stdout.contains("Sent a code by SMS to +15555550123."), "\(first.output)")
        let sent = try await Self.code(server, to: "+15555550123")
        #expect(first.stderr.contains("--verification-id \(sent.sessionInfo) --code <the 6 digits>"), "\(first.output)")
        let finished = try CLI.run(["signin", "phone", "+15555550123", "--verification-id", sent.sessionInfo, "--code", sent.code,
                                    "--server", server.url], configHome: home)
        #expect(finished.status == 0 && finished.stdout.contains("phone:     +15555550123"), "\(finished.output)")
        #expect(!finished.stderr.contains("Sent a code"), "no second SMS: \(finished.output)")
        // The code was used.
        let used = try CLI.run(["signin", "phone", "+15555550123", "--verification-id", sent.sessionInfo, "--code", sent.code,
                                "--server", server.url], configHome: home)
        #expect(used.status != 0 && used.stderr.contains("run hearth signin phone again"), "\(used.output)")
        let badNumber = try CLI.run(["signin", "phone", "555-0100", "--server", server.url], configHome: home)
        #expect(badNumber.status != 0 && badNumber.stderr.contains("E.164"), "\(badNumber.output)")
        let noNumber = try CLI.run(["signin", "phone", "--server", server.url], configHome: home)
        #expect(noNumber.status != 0 && noNumber.stderr.contains("phone sign-in needs the number"), "\(noNumber.output)")
        let badCode = try CLI.run(["signin", "phone", "+15555550123", "--code", "12ab"], configHome: home)
        #expect(badCode.status != 0 && badCode.stderr.contains("--code takes the 6 digits"), "\(badCode.output)")
        let misplaced = try CLI.run(["signin", "password", "--email", "a@example.com", "--code", "123456"], configHome: home)
        #expect(misplaced.status != 0 && misplaced.stderr.contains("belong to hearth signin phone"), "\(misplaced.output)")
        for result in [used, badNumber] {
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(!rawErrorMarkers.contains { result.output.contains($0) }, "\(result.output)")
        }
    }
}
