import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// `hearth signin` of a user with a TOTP second factor: `--totp-code`, `--recovery-code`, a plain message without a
/// terminal, and the prompt on a terminal.
@Suite struct MultiFactorCLITests {
    /// POSTs JSON to the server (`Bearer owner` for the admin API of the demo project) and decodes the answer.
    static func call<Answer: Decodable>(_ server: String, _ path: String, _ body: some Encodable, method: String = "POST", admin: Bool = false,
                                        as: Answer.Type) async throws -> Answer {
        var request = URLRequest(url: URL(string: server + path + (path.contains("?") ? "&" : "?") + "key=k")!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if admin { request.setValue("Bearer owner", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw CLIFailure("\(path) answered \((response as? HTTPURLResponse)?.statusCode ?? 0): \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    /// A verified user with TOTP enrolled over the REST API, on a server with TOTP on (±2 steps); the secret and the
    /// recovery codes.
    static func enrolledUser(_ server: String, email: String) async throws -> (totp: TOTP, recoveryCodes: [String]) {
        let config = MultiFactorAuthConfig(state: .enabled, providerConfigs: [.init(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 2))])
        _ = try await call(server, WirePaths.identityToolkitV2 + "/projects/demo-hearth/config?updateMask=mfa", ["mfa": config], method: "PATCH",
                           admin: true, as: JSONValue.self)
        let created = try await call(server, WirePaths.accounts("signUp"), SignUpRequest(email: email, password: "correct horse"), as: SignUpResponse.self)
        _ = try await call(server, WirePaths.adminAccounts(projectId: "demo-hearth", "update"), ["localId": JSONValue.string(created.localId),
                                                                                                 "emailVerified": .bool(true)],
                           admin: true, as: JSONValue.self)
        let started = try await call(server, WirePaths.mfaEnrollmentStart, StartMFAEnrollmentRequest(idToken: created.idToken),
                                     as: StartMFAEnrollmentResponse.self)
        let info = try #require(started.totpSessionInfo)
        let secret = try #require(Base32.decode(info.sharedSecretKey))
        let totp = try #require(TOTP(secret: secret))
        let finalized = try await call(server, WirePaths.mfaEnrollmentFinalize, FinalizeMFAEnrollmentRequest(
            idToken: created.idToken, displayName: "Work phone",
            totpVerificationInfo: .init(sessionInfo: info.sessionInfo, verificationCode: totp.code(at: Date())),
            generateRecoveryCodes: true), as: FinalizeMFAEnrollmentResponse.self)
        return (totp, try #require(finalized.recoveryCodes))
    }

    @Test func signInAsksForTheSecondFactorOrTakesItAsAnOption() async throws {
        let server = try RunningServer.start(["--dev"])
        defer { server.stop() }
        let (totp, recoveryCodes) = try await Self.enrolledUser(server.url, email: "mfa-cli@example.com")
        let password = ["HEARTH_PASSWORD": "correct horse"]
        let home = CLI.temporaryDirectory()
        let base = ["signin", "password", "--email", "mfa-cli@example.com", "--server", server.url]

        // No terminal, no option: one line naming the options.
        let bare = try CLI.run(base, environment: password, configHome: home)
        #expect(bare.status != 0)
        #expect(bare.stderr.contains("--totp-code") && bare.stderr.contains("--recovery-code"), "\(bare.output)")
        #expect(bare.stderr.split(separator: "\n").count == 1, "\(bare.stderr)")
        #expect(!bare.output.contains("17078") && !bare.output.contains("secondFactorRequired"), "\(bare.output)")
        // A wrong code.
        let wrongCode = totp.code(at: Date().addingTimeInterval(3600))
        let wrong = try CLI.run(base + ["--totp-code", wrongCode], environment: password, configHome: home)
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("code was not accepted"), "\(wrong.output)")
        // Not a code at all, both options: usage errors before any request.
        #expect(try CLI.run(base + ["--totp-code", "12ab56"], environment: password).stderr.contains("--totp-code takes the 6 to 8 digits"))
        #expect(try CLI.run(base + ["--totp-code", "123456", "--recovery-code", "x"], environment: password).stderr.contains("not both"))
        // The next step's code (the enrollment used the current one).
        let signedIn = try CLI.run(base + ["--totp-code", totp.code(at: Date().addingTimeInterval(30))], environment: password, configHome: home)
        #expect(signedIn.status == 0, "\(signedIn.output)")
        #expect(signedIn.stdout.contains("Signed in as "), "\(signedIn.output)")
        #expect(signedIn.stdout.contains("provider:  password + second factor totp"), "\(signedIn.output)")
        // A recovery code, once.
        let recovered = try CLI.run(base + ["--recovery-code", recoveryCodes[0]], environment: password, configHome: home)
        #expect(recovered.status == 0, "\(recovered.output)")
        let reused = try CLI.run(base + ["--recovery-code", recoveryCodes[0]], environment: password, configHome: home)
        #expect(reused.status != 0)
        #expect(reused.stderr.contains("code was not accepted"), "\(reused.output)")
        // An unknown --factor lists the factors.
        let unknown = try CLI.run(base + ["--totp-code", "123456", "--factor", "Home phone"], environment: password, configHome: home)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no second factor named Home phone") && unknown.stderr.contains("Work phone"), "\(unknown.output)")

        // On a terminal: the factors are listed and the code is asked for (here a recovery code is typed).
        let terminal = try TerminalRun("signin password --email mfa-cli@example.com --server \(server.url)", environment: password, configHome: home)
        // Only a guard against a hang: in the parallel CLI suite the prompt alone can take ~30 s to come.
        let deadline = Date().addingTimeInterval(120)
        #expect(try await terminal.wait(for: "Code from your authenticator app", until: deadline))
        let text = terminal.text
        #expect(text.value.contains("This account has a second factor:"), "\(text.value)")
        #expect(text.value.contains("1. Work phone (totp, enrolled "), "\(text.value)")
        terminal.type(recoveryCodes[1])
        let status = try await terminal.finish(by: deadline)
        #expect(status == 0, "\(text.value)")
        #expect(text.value.contains("provider:  password + second factor totp"), "\(text.value)")
    }
}
