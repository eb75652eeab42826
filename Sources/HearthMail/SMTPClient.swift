import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Delivers messages to one SMTP server (RFC 5321), with STARTTLS (RFC 3207) or implicit TLS and AUTH PLAIN/LOGIN
/// (RFC 4954). Each ``send(_:)`` is one connection; retries and queueing are the caller's.
public struct SMTPClient: Sendable {
    let configuration: SMTPConfiguration
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// Built once: loading the system's roots and `--smtp-ca-file` is not free.
    let tlsContext: Result<NIOSSLContext, MailError>?

    /// A client for `configuration`. A `trustedCAFile` that cannot be loaded makes every ``send(_:)`` throw
    /// ``MailError/invalidConfiguration(_:)``.
    public init(configuration: SMTPConfiguration, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "hearth.smtp")) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        tlsContext = configuration.security == .none ? nil : Self.makeTLSContext(caFile: configuration.trustedCAFile)
    }

    /// One connection per send: connect, EHLO, STARTTLS + EHLO again when configured, AUTH (PLAIN, else LOGIN, only
    /// over TLS unless the host is loopback), MAIL FROM, RCPT TO, DATA with dot-stuffing, QUIT. 
    public func send(_ message: MailMessage) async throws {
        for (role, address) in [("sender", message.from.address), ("recipient", message.to.address)] {
            do { try MailAddressParser.validateAddress(address) } catch {
                throw MailError.invalidAddress("the \(role): \(MailAddressParser.quoted(address).dropFirst().dropLast()) — \(error.detail)")
            }
        }
        if configuration.security == .none, configuration.username != nil, !configuration.isLoopback {
            throw MailError.invalidConfiguration("smtp.url has a user name but no TLS for \(configuration.host), which is not this machine: Hearth does not send a password unencrypted. Use smtp:// (STARTTLS) or smtps://.")
        }
        let data = Self.dotStuffed(message.rendered())
        var logger = logger
        logger[metadataKey: "smtp.server"] = "\(configuration.host):\(configuration.port)"
        let session = try await SMTPSession.open(configuration, tls: try tlsContext?.get(), group: eventLoopGroup, logger: logger)
        do {
            try await session.deliver(from: message.from.address, to: message.to.address, data: data)
            logger.debug("smtp: message accepted", metadata: ["smtp.recipient": "\(message.to.address)"])
        } catch {
            await session.close()
            throw error
        }
        await session.quit()
    }

    /// The DATA payload: CRLF lines, a `.` doubled at the start of any line (RFC 5321 §4.5.2), then `.` CRLF.
    package static func dotStuffed(_ message: String) -> [UInt8] {
        let normalized = Array(MIMEEncoding.normalizedLineEndings(message).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(normalized.count + 8)
        var atLineStart = true
        for byte in normalized {
            if atLineStart, byte == UInt8(ascii: ".") { out.append(byte) }
            out.append(byte)
            atLineStart = byte == 10
        }
        if !atLineStart { out += [13, 10] }
        out += Array(".\r\n".utf8)
        return out
    }

    static func makeTLSContext(caFile: String?) -> Result<NIOSSLContext, MailError> {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                return .failure(.invalidConfiguration("--smtp-ca-file \(caFile) does not exist or is not readable"))
            }
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !certificates.isEmpty else { return .failure(.invalidConfiguration("--smtp-ca-file \(caFile) holds no PEM certificate")) }
                tls.additionalTrustRoots = [.certificates(certificates)]
            } catch {
                return .failure(.invalidConfiguration("--smtp-ca-file \(caFile) is not a PEM certificate file (\(error))"))
            }
        }
        do {
            return .success(try NIOSSLContext(configuration: tls))
        } catch {
            return .failure(.tls("could not set up TLS: \(error)"))
        }
    }
}

extension MailError {
    /// The payload of ``invalidAddress(_:)`` (the description of anything else).
    var detail: String {
        if case .invalidAddress(let detail) = self { return detail }
        return description
    }
}

/// One connection: the channel, the replies it has received, and the protocol steps.
final class SMTPSession: Sendable {
    let channel: any Channel
    let replies: ReplyQueue
    let configuration: SMTPConfiguration
    let tls: NIOSSLContext?
    let logger: Logger

    private init(channel: any Channel, replies: ReplyQueue, configuration: SMTPConfiguration, tls: NIOSSLContext?, logger: Logger) {
        self.channel = channel
        self.replies = replies
        self.configuration = configuration
        self.tls = tls
        self.logger = logger
    }

    /// Connects (with implicit TLS when configured) and reads the greeting.
    static func open(_ configuration: SMTPConfiguration, tls: NIOSSLContext?, group: any EventLoopGroup, logger: Logger) async throws -> SMTPSession {
        let replies = ReplyQueue()
        let implicitTLS = configuration.security == .implicitTLS ? tls : nil
        let serverName = SMTPConfiguration.isIPAddress(configuration.host) ? nil : configuration.host
        let host = configuration.host, port = configuration.port
        let connectTimeout = TimeAmount.nanoseconds(Int64(configuration.timeout.components.seconds) * 1_000_000_000
            + configuration.timeout.components.attoseconds / 1_000_000_000)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: implicitTLS, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyDecoder(replies: replies))
                }
            }
        logger.debug("smtp: connecting", metadata: ["smtp.security": "\(configuration.security.rawValue)"])
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            throw Self.mailError(error, stage: "connect", host: host, port: port)
        }
        let session = SMTPSession(channel: channel, replies: replies, configuration: configuration, tls: tls, logger: logger)
        do {
            let greeting = try await session.read(stage: "greeting")
            guard greeting.code == 220 else {
                throw MailError.connect(host: host, port: port, reason: "the server's greeting was \(greeting.code) \(greeting.text) instead of 220")
            }
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    /// EHLO, STARTTLS, AUTH, then the envelope and the data.
    func deliver(from sender: String, to recipient: String, data: [UInt8]) async throws {
        var extensions = try await hello()
        if configuration.security == .startTLS, !extensions.supports("STARTTLS") {
            // Required, except on loopback: a relay on this machine need not offer it.
            guard configuration.isLoopback else { throw MailError.startTLSUnavailable(host: configuration.host) }
            logger.debug("smtp: the loopback server offers no STARTTLS; continuing without TLS")
        } else if configuration.security == .startTLS {
            let reply = try await command("STARTTLS", stage: "STARTTLS")
            guard reply.code == 220 else { throw MailError.tls("the server refused STARTTLS (\(reply.code) \(reply.text))") }
            try await startTLS()
            extensions = try await hello()
        }
        if let username = configuration.username {
            try await authenticate(username: username, password: configuration.password ?? "", extensions: extensions)
        }
        let mail = try await command("MAIL FROM:<\(sender)>", stage: "MAIL FROM")
        guard mail.isPositive else { throw MailError.senderRejected(code: mail.code, reply: mail.text) }
        let rcpt = try await command("RCPT TO:<\(recipient)>", stage: "RCPT TO")
        guard rcpt.isPositive else { throw MailError.recipientRejected(address: recipient, code: rcpt.code, reply: rcpt.text) }
        let start = try await command("DATA", stage: "DATA")
        guard start.code == 354 else { throw MailError.messageRejected(code: start.code, reply: start.text) }
        try await write(data, stage: "sending the message")
        let end = try await read(stage: "end of DATA")
        guard end.isPositive else { throw MailError.messageRejected(code: end.code, reply: end.text) }
    }

    /// EHLO, or HELO when the server does not know EHLO (then without extensions).
    func hello() async throws -> SMTPExtensions {
        let ehlo = try await command("EHLO \(configuration.heloName)", stage: "EHLO")
        if ehlo.code == 250 { return SMTPExtensions(ehlo: ehlo) }
        if (500..<600).contains(ehlo.code) {
            let helo = try await command("HELO \(configuration.heloName)", stage: "HELO")
            if helo.code == 250 { return SMTPExtensions() }
        }
        throw MailError.connect(host: configuration.host, port: configuration.port,
                                reason: "the server refused EHLO (\(ehlo.code) \(ehlo.text))")
    }

    /// Adds TLS in front of the reply decoder, refusing anything the server sent after its 220 (plaintext that
    /// would otherwise be taken as if it had come over TLS: CVE-2011-0411).
    func startTLS() async throws {
        guard let tls else { throw MailError.tls("no TLS context") }
        let serverName = SMTPConfiguration.isIPAddress(configuration.host) ? nil : configuration.host
        let channel = self.channel, replies = self.replies
        try await withTimeout("TLS handshake") {
            try await channel.eventLoop.submit {
                let decoder = try channel.pipeline.syncOperations.handler(type: SMTPReplyDecoder.self)
                guard decoder.bufferedByteCount == 0, replies.pendingCount == 0 else {
                    throw MailError.protocolError("the server sent data after its STARTTLS reply, before TLS started")
                }
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName), position: .first)
            }.get()
        }
        logger.debug("smtp: STARTTLS")
    }

    /// AUTH PLAIN (RFC 4616) when offered, else AUTH LOGIN. The exchange is never logged.
    func authenticate(username: String, password: String, extensions: SMTPExtensions) async throws {
        let mechanisms = extensions.authMechanisms
        func failed(_ reply: SMTPReply) -> MailError { .authenticationFailed(code: reply.code, reply: reply.text) }
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            let reply = try await command("AUTH PLAIN " + base64("\0\(username)\0\(password)"), stage: "AUTH PLAIN")
            guard reply.code == 235 else { throw failed(reply) }
        } else if mechanisms.contains("LOGIN") {
            let start = try await command("AUTH LOGIN", stage: "AUTH LOGIN")
            guard start.code == 334 else { throw failed(start) }
            let user = try await command(base64(username), stage: "AUTH LOGIN")
            guard user.code == 334 else { throw failed(user) }
            let done = try await command(base64(password), stage: "AUTH LOGIN")
            guard done.code == 235 else { throw failed(done) }
        } else {
            throw MailError.authenticationUnavailable
        }
        logger.debug("smtp: authenticated")
    }

    /// Sends one command line and reads its reply.
    func command(_ line: String, stage: String) async throws -> SMTPReply {
        try await write(Array((line + "\r\n").utf8), stage: stage)
        return try await read(stage: stage)
    }

    func write(_ bytes: [UInt8], stage: String) async throws {
        let channel = self.channel
        try await withTimeout(stage) {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        }
    }

    func read(stage: String) async throws -> SMTPReply {
        let replies = self.replies
        return try await withTimeout(stage) { try await replies.next() }
    }

    /// Runs `body` for at most the configured timeout; on timeout the connection is closed (which ends any write
    /// still pending) and ``MailError/timeout(stage:)`` thrown. Other errors become ``MailError``s.
    func withTimeout<T: Sendable>(_ stage: String, limit: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = limit ?? configuration.timeout, channel = self.channel
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw MailError.timeout(stage: stage)
                }
                defer { group.cancelAll() }
                do {
                    return try await group.next()!
                } catch {
                    channel.close(promise: nil)
                    throw error
                }
            }
        } catch {
            if Task.isCancelled, !(error is MailError) { throw CancellationError() }
            // A write or read that failed because the connection ended: the reason it ended (a TLS failure, say)
            // is the better error.
            let cause = error is ChannelError ? (replies.failure ?? error) : error
            throw Self.mailError(cause, stage: stage, host: configuration.host, port: configuration.port)
        }
    }

    /// QUIT (its reply awaited at most 2 s: the message is already accepted), then close.
    func quit() async {
        let channel = self.channel, replies = self.replies
        _ = try? await withTimeout("QUIT", limit: min(configuration.timeout, .seconds(2))) {
            try await channel.writeAndFlush(ByteBuffer(string: "QUIT\r\n"))
            return try await replies.next()
        }
        await close()
    }

    func close() async {
        try? await channel.close()
    }

    /// Any error of the connection as a ``MailError``.
    static func mailError(_ error: any Error, stage: String, host: String, port: Int) -> MailError {
        switch error {
        case let error as MailError:
            return error
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil { return .dns(host: host) }
            let reasons = error.connectionErrors.map { describe($0.error) }
            return .connect(host: host, port: port, reason: reasons.first ?? "no address to connect to")
        case let error as NIOSSLError:
            return .tls(describeTLS(error))
        case let error as NIOSSLExtraError:
            return .tls(describeTLS(error))
        case let error as BoringSSLError:
            return .tls(describeTLS(error))
        case let error as ChannelError:
            if case .connectTimeout = error { return .timeout(stage: stage) }
            return .connect(host: host, port: port, reason: "the server closed the connection (\(stage))")
        case let error as IOError:
            return .connect(host: host, port: port, reason: "\(describe(error)) (\(stage))")
        case is CancellationError:
            return .timeout(stage: stage)
        default:
            return .connect(host: host, port: port, reason: "\(describe(error)) (\(stage))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (nothing listens on that port)"
            case ETIMEDOUT: return "the connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
            case ECONNRESET: return "the connection was reset"
            default: return error.description
            }
        }
        return String(describing: error)
    }

    static func describeTLS(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate is not trusted (certificate verify failed)"
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's certificate is not valid for the host name in smtp.url"
        }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error { return "the server closed the connection during the TLS handshake" }
        return "handshake failed: " + String(text.prefix(300))
    }
}

/// The replies the decoder has parsed, waiting to be read, and the connection's end (an error) once it comes.
final class ReplyQueue: Sendable {
    struct State {
        var replies: [SMTPReply] = []
        var failure: (any Error)?
        var waiter: CheckedContinuation<SMTPReply, any Error>?
    }

    private let state = Mutex(State())

    /// The error that ended the connection, once it has ended.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// Replies received and not yet read.
    var pendingCount: Int { state.withLock { $0.replies.count } }

    func push(_ reply: SMTPReply) {
        let waiter = state.withLock { state -> CheckedContinuation<SMTPReply, any Error>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.replies.append(reply)
            return nil
        }
        waiter?.resume(returning: reply)
    }

    /// Ends the queue: replies already received are still read (unless `discardingReplies`: after a protocol or
    /// TLS error nothing more from the server is believed), then `error` is thrown (the first error wins).
    func fail(_ error: any Error, discardingReplies: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<SMTPReply, any Error>? in
            if state.failure == nil { state.failure = error }
            if discardingReplies { state.replies.removeAll() }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: state.withLock { $0.failure } ?? error)
    }

    /// The next reply; throws the connection's error when it has ended, or CancellationError when cancelled.
    func next() async throws -> SMTPReply {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SMTPReply, any Error>) in
                let ready = state.withLock { state -> Result<SMTPReply, any Error>? in
                    if !state.replies.isEmpty { return .success(state.replies.removeFirst()) }
                    if let failure = state.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<SMTPReply, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Bytes → replies (``SMTPReplyParser``) into the ``ReplyQueue``; errors and the connection's end end the queue.
final class SMTPReplyDecoder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let maxUnreadReplies = 8
    private var parser = SMTPReplyParser()
    private let replies: ReplyQueue
    private var failed = false

    init(replies: ReplyQueue) {
        self.replies = replies
    }

    /// Bytes of an unfinished line.
    var bufferedByteCount: Int { parser.bufferedByteCount }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = Self.unwrapInboundIn(data)
        do {
            for reply in try parser.feed(buffer.readableBytesView) { replies.push(reply) }
            // The client sends one command at a time: more than a few unread replies is a server talking to itself.
            if replies.pendingCount > Self.maxUnreadReplies {
                throw MailError.protocolError("the server sent more than \(Self.maxUnreadReplies) replies nobody asked for")
            }
        } catch {
            failed = true
            replies.fail(error, discardingReplies: true)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        replies.fail(error, discardingReplies: true)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        replies.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
