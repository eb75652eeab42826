import Foundation
import HearthMail
import Testing

/// Delivery through a real SMTP server: aiosmtpd started by `scripts/test-smtp start PORT_BASE` (docs/testing.md),
/// found through HEARTH_TEST_SMTP_BASE, HEARTH_TEST_SMTP_CA and HEARTH_TEST_SMTP_MAILDIR. Skipped without them.
enum TestSMTPServer {
    static let environment = ProcessInfo.processInfo.environment
    /// PORT_BASE of scripts/test-smtp's server, when one runs.
    static let base = environment["HEARTH_TEST_SMTP_BASE"].flatMap(Int.init)
}

@Suite(.enabled(if: TestSMTPServer.base != nil, "needs scripts/test-smtp (HEARTH_TEST_SMTP_BASE)"))
struct SMTPDeliveryTests {
    static let base = TestSMTPServer.base
    static var ca: String { TestSMTPServer.environment["HEARTH_TEST_SMTP_CA"] ?? "" }
    static var maildir: String { TestSMTPServer.environment["HEARTH_TEST_SMTP_MAILDIR"] ?? "" }
    static let link = "https://auth.example.com/__/auth/action?mode=resetPassword&oobCode=Zx9-_abc&apiKey=k&lang=en"

    static func config(_ url: String, ca: String? = SMTPDeliveryTests.ca) throws -> SMTPConfiguration {
        var config = try SMTPConfiguration(url: url, trustedCAFile: ca)
        config.timeout = .seconds(10)
        return config
    }

    static func message(to recipient: String = "ada@example.com", token: String) -> MailMessage {
        MailMessage(from: MailAddress(address: "noreply@hearth.example.com", name: "Hearth Démo"),
                    to: MailAddress(address: recipient, name: "Ada Lovelace"),
                    subject: "Reset your password \(token)",
                    text: "Hello Ada,\n\nReset your password:\n\(link)\n\n.\nIf you didn't ask, ignore this.\n",
                    html: "<p>Hello Ada,</p><p><a href=\"\(link)\">Reset your password</a></p>")
    }

    /// The .eml whose content contains `token` (waits up to 5 s for it to appear).
    static func delivered(_ token: String) async throws -> String {
        for _ in 0..<50 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: maildir)) ?? []
            for name in names where name.hasSuffix(".eml") {
                if let text = try? String(contentsOfFile: maildir + "/" + name, encoding: .utf8), text.contains(token) { return text }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw MailError.protocolError("no message with \(token) in \(maildir)")
    }

    static func token() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }

    /// STARTTLS, then AUTH, then the message: it arrives, parses as MIME, and carries the subject, body and link.
    @Test func startTLSWithAuthDelivers() async throws {
        let token = Self.token()
        try await SMTPClient(configuration: try Self.config("smtp://hearth:s3cret@127.0.0.1:\(Self.base!)")).send(Self.message(token: token))
        let raw = try await Self.delivered(token)
        #expect(raw.hasPrefix("X-Test-SMTP-Listener: starttls\r\nX-Test-SMTP-TLS: yes\r\nX-Test-SMTP-Auth: hearth\r\n"))
        #expect(raw.contains("Return-Path: <noreply@hearth.example.com>\r\nDelivered-To: ada@example.com\r\n"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.subject == "Reset your password \(token)")
        #expect(parsed.fromName == "Hearth Démo")
        #expect(parsed.to == "Ada Lovelace <ada@example.com>")
        #expect(parsed.parts.map(\.type) == ["text/plain", "text/html"])
        #expect(parsed.parts[0].content.contains("Reset your password:\n\(Self.link)\n\n.\nIf you didn't"))
        #expect(parsed.parts[1].content.contains("href=\"\(Self.link)\""))
    }

    /// Implicit TLS to `localhost` (the certificate's DNS name, checked) with AUTH.
    @Test func implicitTLSWithAuthDelivers() async throws {
        let token = Self.token()
        try await SMTPClient(configuration: try Self.config("smtps://hearth:s3cret@localhost:\(Self.base! + 1)")).send(Self.message(token: token))
        let raw = try await Self.delivered(token)
        #expect(raw.hasPrefix("X-Test-SMTP-Listener: implicit\r\nX-Test-SMTP-TLS: yes\r\nX-Test-SMTP-Auth: hearth\r\n"))
        #expect(try PythonEmail.parse(raw).parts.first?.content.contains(Self.link) == true)
    }

    @Test func loopbackRelayWithoutTLS() async throws {
        let token = Self.token()
        try await SMTPClient(configuration: try Self.config("smtp://127.0.0.1:\(Self.base! + 2)?starttls=off", ca: nil)).send(Self.message(token: token))
        let raw = try await Self.delivered(token)
        #expect(raw.hasPrefix("X-Test-SMTP-Listener: plain\r\nX-Test-SMTP-TLS: no\r\nX-Test-SMTP-Auth: none\r\n"))
    }

    @Test func wrongPasswordIsAuthenticationFailed() async throws {
        for url in ["smtp://hearth:wrong@127.0.0.1:\(Self.base!)", "smtps://hearth:wrong@127.0.0.1:\(Self.base! + 1)"] {
            let error = try await #require(throws: MailError.self) {
                try await SMTPClient(configuration: try Self.config(url)).send(Self.message(token: Self.token()))
            }
            guard case .authenticationFailed(let code, let reply) = error else { Issue.record("\(error)"); continue }
            #expect(code == 535 && reply.contains("5.7.8"))
            #expect(!error.isTransient)
            #expect(!error.description.contains("wrong"))
        }
    }

    /// Without --smtp-ca-file the test CA is not trusted: a TLS error that says what to do.
    @Test func untrustedCertificateIsTLSError() async throws {
        for url in ["smtp://hearth:s3cret@127.0.0.1:\(Self.base!)", "smtps://hearth:s3cret@127.0.0.1:\(Self.base! + 1)"] {
            let error = try await #require(throws: MailError.self) {
                try await SMTPClient(configuration: try Self.config(url, ca: nil)).send(Self.message(token: Self.token()))
            }
            guard case .tls(let detail) = error else { Issue.record("\(url): \(error)"); continue }
            #expect(detail.contains("not trusted"), "\(detail)")
            #expect(error.description.contains("--smtp-ca-file"))
            #expect(!error.isTransient)
            #expect(!error.description.contains("s3cret"))
        }
    }

    /// smtp:// (STARTTLS) to the loopback relay that offers none: STARTTLS is not required on loopback.
    @Test func loopbackRelayWithoutSTARTTLS() async throws {
        let token = Self.token()
        try await SMTPClient(configuration: try Self.config("smtp://127.0.0.1:\(Self.base! + 2)")).send(Self.message(token: token))
        #expect(try await Self.delivered(token).hasPrefix("X-Test-SMTP-Listener: plain\r\n"))
    }

    @Test func rejectedRecipientIsPermanent() async throws {
        let error = try await #require(throws: MailError.self) {
            try await SMTPClient(configuration: try Self.config("smtp://hearth:s3cret@127.0.0.1:\(Self.base!)"))
                .send(Self.message(to: "nobody@reject.test", token: Self.token()))
        }
        guard case .recipientRejected(let address, let code, let reply) = error else { Issue.record("\(error)"); return }
        #expect(address == "nobody@reject.test" && code == 550 && reply.hasPrefix("5.1.1"))
        #expect(!error.isTransient)
    }

    @Test func temporaryFailureIsTransient() async throws {
        let error = try await #require(throws: MailError.self) {
            try await SMTPClient(configuration: try Self.config("smtps://hearth:s3cret@127.0.0.1:\(Self.base! + 1)"))
                .send(Self.message(to: "later@tempfail.test", token: Self.token()))
        }
        guard case .recipientRejected(_, let code, _) = error else { Issue.record("\(error)"); return }
        #expect(code == 451)
        #expect(error.isTransient)
    }

    /// Several sends at once, each its own connection: all arrive.
    @Test func concurrentSends() async throws {
        let client = SMTPClient(configuration: try Self.config("smtp://hearth:s3cret@127.0.0.1:\(Self.base!)"))
        let tokens = (0..<8).map { _ in Self.token() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for token in tokens { group.addTask { try await client.send(Self.message(token: token)) } }
            try await group.waitForAll()
        }
        for token in tokens { _ = try await Self.delivered(token) }
    }
}
