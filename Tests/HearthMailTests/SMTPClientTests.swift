import Foundation
@testable import HearthMail
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A scripted SMTP server on 127.0.0.1: an optional greeting, then for each line received the script's reply (nil:
/// say nothing). After a 354 reply the message's lines are collected until "."; the script then sees `<END>`.
final class ScriptedSMTPServer: Sendable {
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
    }

    let channel: any Channel
    let log: Log
    /// Every line received, in order (the message's lines included).
    var received: [String] { log.lines.withLock { $0 } }
    var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel, log: Log) {
        self.channel = channel
        self.log = log
    }

    static func start(host: String = "127.0.0.1", greeting: String?, script: @escaping @Sendable (String) -> String?) async throws -> ScriptedSMTPServer {
        let log = Log()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(greeting: greeting, script: script) { line in
                        log.lines.withLock { $0.append(line) }
                    })
                }
            }
            .bind(host: host, port: 0).get()
        return ScriptedSMTPServer(channel: channel, log: log)
    }

    func stop() async {
        try? await channel.close()
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let greeting: String?
        let script: @Sendable (String) -> String?
        let record: @Sendable (String) -> Void
        var buffer: [UInt8] = []
        var inData = false

        init(greeting: String?, script: @escaping @Sendable (String) -> String?, record: @escaping @Sendable (String) -> Void) {
            self.greeting = greeting
            self.script = script
            self.record = record
        }

        func channelActive(context: ChannelHandlerContext) {
            if let greeting { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: greeting + "\r\n")), promise: nil) }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            buffer += Array(unwrapInboundIn(data).readableBytesView)
            while let end = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                if line.last == 13 { line.removeLast() }
                let text = String(decoding: line, as: UTF8.self)
                record(text)
                if inData {
                    guard text == "." else { continue }
                    inData = false
                }
                guard let reply = script(inData ? text : (text == "." ? "<END>" : text)) else { continue }
                if reply.hasPrefix("354") { inData = true }
                if reply == "<CLOSE>" {
                    context.close(promise: nil)
                    return
                }
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply + "\r\n")), promise: nil)
            }
        }
    }
}

@Suite struct SMTPClientTests {
    static let message = MailMessage(from: MailAddress(address: "noreply@hearth.example.com", name: "Hearth"),
                                     to: MailAddress(address: "ada@example.com"), subject: "Hi",
                                     text: "Hello\n.hidden dot line\nbye")

    static func loopback(port: Int, user: String? = nil, timeout: Duration = .seconds(5)) throws -> SMTPConfiguration {
        var config = try SMTPConfiguration(url: "smtp://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(port)?starttls=off")
        config.timeout = timeout
        return config
    }

    /// A full conversation with AUTH LOGIN over a loopback relay: commands in order, the data dot-stuffed, QUIT.
    @Test func authLoginConversation() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 scripted ESMTP") { line in
            switch line {
            case let l where l.hasPrefix("EHLO"): "250-scripted\r\n250-SIZE 1000000\r\n250 AUTH LOGIN"
            case "AUTH LOGIN": "334 VXNlcm5hbWU6"
            case Data("hearth".utf8).base64EncodedString(): "334 UGFzc3dvcmQ6"
            case Data("p@ss word".utf8).base64EncodedString(): "235 2.7.0 Authentication successful"
            case let l where l.hasPrefix("MAIL FROM:"), let l where l.hasPrefix("RCPT TO:"): "250 2.1.0 Ok"
            case "DATA": "354 End data with <CR><LF>.<CR><LF>"
            case "<END>": "250 2.0.0 Ok: queued"
            case "QUIT": "221 2.0.0 Bye"
            default: "502 unexpected"
            }
        }
        var config = try Self.loopback(port: server.port, user: "hearth")
        config.password = "p@ss word"
        try await SMTPClient(configuration: config).send(Self.message)
        let lines = server.received
        let commands = lines.filter { $0.hasPrefix("EHLO") || $0.hasPrefix("AUTH") || $0.hasPrefix("MAIL") || $0.hasPrefix("RCPT") || $0 == "DATA" || $0 == "QUIT" }
        #expect(commands == ["EHLO \(config.heloName)", "AUTH LOGIN", "MAIL FROM:<noreply@hearth.example.com>", "RCPT TO:<ada@example.com>", "DATA", "QUIT"])
        // The body's leading dot is quoted-printable (=2E), so the message never relies on dot-stuffing; the data
        // ends with the lone dot.
        #expect(lines.contains("=2Ehidden dot line"))
        #expect(lines.suffix(2) == [".", "QUIT"])
        #expect(lines.contains("Subject: Hi"))
        await server.stop()
    }

    @Test func heloFallbackAndPlain() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 old") { line in
            if line.hasPrefix("EHLO") { return "500 5.5.1 what?" }
            if line.hasPrefix("HELO") || line.hasPrefix("MAIL") || line.hasPrefix("RCPT") || line == "<END>" { return "250 ok" }
            if line == "DATA" { return "354 go" }
            return line == "QUIT" ? "221 bye" : "502 no"
        }
        try await SMTPClient(configuration: try Self.loopback(port: server.port)).send(Self.message)
        #expect(server.received.contains { $0.hasPrefix("HELO ") })
        await server.stop()
    }

    @Test func authWithoutMechanism() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in
            line.hasPrefix("EHLO") ? "250-x\r\n250 AUTH CRAM-MD5 XOAUTH2" : "502 no"
        }
        var config = try Self.loopback(port: server.port, user: "u")
        config.password = "p"
        await #expect(throws: MailError.authenticationUnavailable) { try await SMTPClient(configuration: config).send(Self.message) }
        await server.stop()
    }

    /// This machine's first IPv4 address that is not loopback (a "remote" server for the STARTTLS rule), if any.
    static let externalAddress: String? = (try? System.enumerateDevices())?.lazy.compactMap { device -> String? in
        guard let address = device.address, case .v4 = address, let ip = address.ipAddress, !ip.hasPrefix("127.") else { return nil }
        return ip
    }.first

    /// smtp:// to a host that is not loopback: a server without STARTTLS is refused before anything is sent.
    @Test(.enabled(if: externalAddress != nil, "no non-loopback IPv4 address"))
    func startTLSNotOffered() async throws {
        let host = try #require(Self.externalAddress)
        let server = try await ScriptedSMTPServer.start(host: host, greeting: "220 x") { line in line.hasPrefix("EHLO") ? "250 x" : "502 no" }
        var config = try SMTPConfiguration(url: "smtp://u:p@\(host):\(server.port)")
        config.timeout = .seconds(5)
        await #expect(throws: MailError.startTLSUnavailable(host: host)) { try await SMTPClient(configuration: config).send(Self.message) }
        #expect(server.received.count == 1 && server.received[0].hasPrefix("EHLO "))
        await server.stop()
    }

    /// On loopback STARTTLS is used when offered and not required: a local relay without it still gets the mail.
    @Test func startTLSOptionalOnLoopback() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in
            if line.hasPrefix("EHLO") || line.hasPrefix("MAIL") || line.hasPrefix("RCPT") || line == "<END>" { return "250 ok" }
            return line == "DATA" ? "354 go" : (line == "QUIT" ? "221 bye" : "502 no")
        }
        var config = try SMTPConfiguration(url: "smtp://127.0.0.1:\(server.port)")
        config.timeout = .seconds(5)
        #expect(config.security == .startTLS)
        try await SMTPClient(configuration: config).send(Self.message)
        #expect(server.received.contains("DATA") && !server.received.contains("STARTTLS"))
        await server.stop()
    }

    /// A server that answers one command with a stream of replies is cut off (no unbounded queue).
    @Test func unaskedRepliesAreProtocolError() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x" + String(repeating: "\r\n250 spam", count: 50)) { _ in nil }
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: try Self.loopback(port: server.port)).send(Self.message) }
        guard case .protocolError(let detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.contains("nobody asked for"))
        await server.stop()
    }

    /// Plaintext the server sends after its 220 to STARTTLS is refused, not taken as if it came over TLS.
    @Test func startTLSInjectionRefused() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in
            if line.hasPrefix("EHLO") { return "250-x\r\n250 STARTTLS" }
            return line == "STARTTLS" ? "220 2.0.0 Ready\r\n250-injected\r\n250 AUTH PLAIN" : "502 no"
        }
        var config = try SMTPConfiguration(url: "smtp://127.0.0.1:\(server.port)")
        config.timeout = .seconds(5)
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: config).send(Self.message) }
        guard case .protocolError(let detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.contains("STARTTLS"))
        await server.stop()
    }

    @Test func oversizedReplyIsProtocolError() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 " + String(repeating: "x", count: 5000)) { _ in nil }
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: try Self.loopback(port: server.port)).send(Self.message) }
        guard case .protocolError = error else { Issue.record("\(error)"); return }
        await server.stop()
    }

    /// A server that accepts and never says anything: a timeout within the configured (short) time, transient.
    @Test func silentServerTimesOut() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: nil) { _ in nil }
        let started = ContinuousClock.now
        let error = try await #require(throws: MailError.self) {
            try await SMTPClient(configuration: try Self.loopback(port: server.port, timeout: .milliseconds(400))).send(Self.message)
        }
        #expect(error == .timeout(stage: "greeting"))
        #expect(error.isTransient)
        // Generous on a loaded machine; the point is that a silent server does not hold a send for long.
        #expect(ContinuousClock.now - started < .seconds(10))
        await server.stop()
    }

    /// A server that stops answering in the middle (after DATA's 354, it never confirms the message).
    @Test func stallAfterDataTimesOut() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in
            if line.hasPrefix("EHLO") || line.hasPrefix("MAIL") || line.hasPrefix("RCPT") { return "250 ok" }
            return line == "DATA" ? "354 go" : nil
        }
        let error = try await #require(throws: MailError.self) {
            try await SMTPClient(configuration: try Self.loopback(port: server.port, timeout: .milliseconds(400))).send(Self.message)
        }
        #expect(error == .timeout(stage: "end of DATA"))
        await server.stop()
    }

    /// The message is accepted; a server that never answers QUIT does not hold the send for the whole timeout.
    @Test func unansweredQuitDoesNotWait() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in
            if line.hasPrefix("EHLO") || line.hasPrefix("MAIL") || line.hasPrefix("RCPT") || line == "<END>" { return "250 ok" }
            return line == "DATA" ? "354 go" : nil
        }
        let started = ContinuousClock.now
        try await SMTPClient(configuration: try Self.loopback(port: server.port, timeout: .seconds(20))).send(Self.message)
        // Well under the 20 s step timeout (QUIT is waited for at most 2 s), with room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(server.received.last == "QUIT")
        await server.stop()
    }

    @Test func serverClosingIsTransient() async throws {
        let server = try await ScriptedSMTPServer.start(greeting: "220 x") { line in line.hasPrefix("EHLO") ? "<CLOSE>" : nil }
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: try Self.loopback(port: server.port)).send(Self.message) }
        guard case .connect = error else { Issue.record("\(error)"); return }
        #expect(error.isTransient)
        await server.stop()
    }

    @Test func closedPortIsConnectError() async throws {
        // A port that was just free: bind, note it, close.
        let probe = try await ScriptedSMTPServer.start(greeting: nil) { _ in nil }
        let port = probe.port
        await probe.stop()
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: try Self.loopback(port: port)).send(Self.message) }
        guard case .connect(let host, let errorPort, let reason) = error else { Issue.record("\(error)"); return }
        #expect(host == "127.0.0.1" && errorPort == port)
        #expect(reason.contains("refused"), "\(reason)")
        #expect(error.isTransient)
    }

    @Test func unresolvableHostIsDNSError() async throws {
        var config = try SMTPConfiguration(url: "smtps://u:p@nonexistent.invalid")
        config.timeout = .seconds(10)
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: config).send(Self.message) }
        #expect(error == .dns(host: "nonexistent.invalid"))
        #expect(error.isTransient)
        #expect(!error.description.contains(":p@"))
    }

    @Test func invalidEnvelopeAddressesAreRefusedBeforeConnecting() async throws {
        var message = Self.message
        message.to = MailAddress(address: "ada@example.com>\r\nRCPT TO:<evil@example.com")
        // Port 9 on loopback: nothing is contacted (the address check comes first).
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: try Self.loopback(port: 9)).send(message) }
        guard case .invalidAddress(let detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.contains("recipient") && !detail.contains("\r\n"))
    }

    @Test func passwordInPlaintextToRemoteHostRefused() async throws {
        var config = try SMTPConfiguration(url: "smtp://u:p@mail.example.com")
        config.security = .none
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: config).send(Self.message) }
        guard case .invalidConfiguration = error else { Issue.record("\(error)"); return }
    }

    @Test func unreadableCAFile() async throws {
        let config = try SMTPConfiguration(url: "smtps://u:p@127.0.0.1:9", trustedCAFile: "/nonexistent/ca.pem")
        let error = try await #require(throws: MailError.self) { try await SMTPClient(configuration: config).send(Self.message) }
        guard case .invalidConfiguration(let detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.contains("--smtp-ca-file"))
    }
}
