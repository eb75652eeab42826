import Foundation
import HearthMail
import Testing

@Suite struct SMTPConfigurationTests {
    @Test func submissionWithSTARTTLS() throws {
        let config = try SMTPConfiguration(url: "smtp://apikey:p%40ss%3Aw%2Frd@smtp.example.com")
        #expect(config.host == "smtp.example.com" && config.port == 587 && config.security == .startTLS)
        #expect(config.username == "apikey" && config.password == "p@ss:w/rd")
        #expect(config.timeout == .seconds(30))
        #expect(!config.heloName.isEmpty)
        #expect(config.redactedURL == "smtp://apikey:***@smtp.example.com:587")
    }

    @Test func implicitTLSAndPorts() throws {
        let config = try SMTPConfiguration(url: "smtps://user%40example.com:secret@mail.example.com", trustedCAFile: "/etc/ca.pem")
        #expect(config.security == .implicitTLS && config.port == 465)
        #expect(config.username == "user@example.com")
        #expect(config.trustedCAFile == "/etc/ca.pem")
        #expect(config.redactedURL == "smtps://user%40example.com:***@mail.example.com:465")
        #expect(try SMTPConfiguration(url: "SMTP://relay.example.com:2525").port == 2525)
        // Decoded exactly once: %2540 is a literal "%40".
        #expect(try SMTPConfiguration(url: "smtp://u:a%2540b%20c@relay.example.com").password == "a%40b c")
        #expect(try SMTPConfiguration(url: "smtp://relay.example.com:2525").redactedURL == "smtp://relay.example.com:2525")
        #expect(try SMTPConfiguration(url: "smtp://relay.example.com?starttls=on").security == .startTLS)
    }

    @Test func startTLSOffOnlyForLoopback() throws {
        for host in ["127.0.0.1", "localhost", "[::1]", "127.0.0.53"] {
            let config = try SMTPConfiguration(url: "smtp://\(host):25?starttls=off")
            #expect(config.security == SMTPSecurity.none, "\(host)")
            #expect(config.isLoopback)
            #expect(config.redactedURL.hasSuffix(":25?starttls=off"))
        }
        #expect(try SMTPConfiguration(url: "smtp://[::1]:25?starttls=off").host == "::1")
        for url in ["smtp://mail.example.com:25?starttls=off", "smtp://10.0.0.1?starttls=off", "smtp://127.0.0.1.example.com?starttls=off",
                    "smtps://127.0.0.1?starttls=off"] {
            let error = try #require(throws: MailError.self) { try SMTPConfiguration(url: url) }
            #expect(error.description.contains("smtp.url"), "\(url)")
        }
    }

    @Test(arguments: [
        ("", "is empty"), ("mail.example.com", "not a valid URL"), ("http://mail.example.com", "scheme \"http\""),
        ("smtp://", "no host"), ("smtp://mail.example.com:0", "outside 1-65535"), ("smtp://mail.example.com:99999", "outside 1-65535"),
        ("smtp://mail.example.com/path", "has a path"), ("smtp://mail.example.com?tls=1", "unknown parameter"),
        ("smtp://:secret@mail.example.com", "no user name"), ("smtp://u:a%0Db@mail.example.com", "line break"),
        ("smtp://mail.example.com\r\n", "control"),
    ])
    func clearErrors(_ url: String, _ expected: String) throws {
        let error = try #require(throws: MailError.self) { try SMTPConfiguration(url: url) }
        guard case .invalidConfiguration(let message) = error else { Issue.record("\(error)"); return }
        #expect(message.hasPrefix("smtp.url"))
        #expect(message.contains(expected), "\(message)")
    }

    /// The password appears nowhere: description, debug description, dump, interpolation, errors.
    @Test func passwordNeverShown() throws {
        let password = "Very$ecret-Pa55"
        let config = try SMTPConfiguration(url: "smtp://hearth:\(password)@mail.example.com")
        var dumped = ""
        dump(config, to: &dumped)
        for text in [config.redactedURL, config.description, config.debugDescription, "\(config)", String(reflecting: config), dumped] {
            #expect(!text.contains(password), "\(text)")
            #expect(!text.contains("Very"), "\(text)")
        }
        #expect(config.description.contains("***"))
        // Errors about a URL with a password do not repeat it.
        for bad in ["smtp://hearth:\(password)@mail.example.com:0", "smtp://hearth:\(password)@mail.example.com?x=1",
                    "smtp://hearth:\(password)@mail.example.com:25?starttls=off", "ftp://hearth:\(password)@mail.example.com"] {
            let error = try #require(throws: MailError.self) { try SMTPConfiguration(url: bad) }
            #expect(!error.description.contains(password) && !"\(error)".contains(password), "\(error)")
        }
    }

    @Test func transientErrors() {
        #expect(MailError.connect(host: "h", port: 25, reason: "refused").isTransient)
        #expect(MailError.dns(host: "h").isTransient)
        #expect(MailError.timeout(stage: "greeting").isTransient)
        #expect(MailError.recipientRejected(address: "a@b.c", code: 451, reply: "later").isTransient)
        #expect(MailError.senderRejected(code: 421, reply: "busy").isTransient)
        #expect(!MailError.recipientRejected(address: "a@b.c", code: 550, reply: "no").isTransient)
        #expect(!MailError.authenticationFailed(code: 535, reply: "no").isTransient)
        #expect(MailError.authenticationFailed(code: 454, reply: "temporary").isTransient)
        #expect(!MailError.tls("bad certificate").isTransient)
        #expect(!MailError.startTLSUnavailable(host: "h").isTransient)
        #expect(!MailError.invalidAddress("x").isTransient)
        #expect(MailError.tls("x").description.contains("--smtp-ca-file"))
    }
}
