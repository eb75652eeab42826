import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging
import ServiceLifecycle
import Synchronization

/// Email settings of a server: the relay, the sender, the dev mailbox and the action codes' lifetimes.
public struct MailConfiguration: Sendable {
    /// The SMTP relay (``SMTPMailTransport``); nil: no relay (production projects then refuse to send).
    public var transport: (any MailTransport)?
    /// The sender, `Name <address>` (`mail.from`).
    public var from: String
    /// Keep messages in the in-memory dev mailbox (`/__dev/mail`, the emulator's `oobCodes`): `--dev` and `demo-*`.
    public var devMailbox: Bool
    public var lifetimes: OobCodeLifetimes
    /// Delivery attempts before a message is given up.
    public var maxAttempts: Int

    public init(transport: (any MailTransport)? = nil, from: String = "Hearth <noreply@localhost>", devMailbox: Bool = false,
                lifetimes: OobCodeLifetimes = OobCodeLifetimes(), maxAttempts: Int = 8) {
        self.transport = transport
        self.from = from
        self.devMailbox = devMailbox
        self.lifetimes = lifetimes
        self.maxAttempts = maxAttempts
    }
}

/// Where messages are delivered: an SMTP relay, or a test's recorder.
public protocol MailTransport: Sendable {
    /// Delivers one message, or throws ``MailTransportError``.
    func deliver(_ mail: OutgoingMail) async throws
    /// Where it delivers, without secrets (`smtp://user:***@host:587`).
    var summary: String { get }
}

/// A failed delivery: whether trying later may succeed, and what happened (no secrets).
public struct MailTransportError: Error, Sendable, CustomStringConvertible {
    public var transient: Bool
    public var description: String

    public init(transient: Bool, _ description: String) {
        self.transient = transient
        self.description = description
    }
}

/// The dev mailbox: the last 200 messages of a `--dev` or `demo-*` server, in memory only.
public final class DevMailbox: Sendable {
    /// One message, with its action code when it carries one.
    public struct Entry: Sendable, Equatable {
        public var id: Int
        public var at: Date
        public var kind: String
        public var mail: OutgoingMail
        public var code: EmulatorOobCode?
    }

    private let entries = Mutex<(next: Int, list: [Entry])>((1, []))
    static let capacity = 200

    public init() {}

    func add(kind: String, mail: OutgoingMail, code: EmulatorOobCode?, at: Date) {
        entries.withLock { state in
            state.list.append(Entry(id: state.next, at: at, kind: kind, mail: mail, code: code))
            state.next += 1
            if state.list.count > Self.capacity { state.list.removeFirst(state.list.count - Self.capacity) }
        }
    }

    /// The messages, newest first.
    public var messages: [Entry] { entries.withLock { $0.list.reversed() } }

    /// Empties the mailbox.
    public func clear() { entries.withLock { $0.list.removeAll() } }
}

/// Sends the project's email: into the dev mailbox, and through the store's outbox to the relay (delivered off the
/// request path by ``MailOutboxService``, retried, surviving restarts).
public struct Mailer: Sendable {
    let configuration: MailConfiguration
    let store: any HearthStore
    public let devMailbox: DevMailbox?
    let clock: WallClock
    let metrics: HearthMetrics
    let logger: Logger
    /// Wakes the outbox service when a message is queued.
    let wake: AsyncStream<Void>.Continuation?

    /// Whether a message can go anywhere.
    public var canSend: Bool { configuration.transport != nil || devMailbox != nil }

    /// Sends `mail` (of a template kind); `code` is listed in the dev mailbox. The message is in the outbox when
    /// this returns; `expiresAt`: when its link stops working (it is not sent after).
    func send(_ mail: OutgoingMail, kind: String, code: EmulatorOobCode?, expiresAt: Date) async throws {
        let now = clock.now()
        if let devMailbox {
            devMailbox.add(kind: kind, mail: mail, code: code, at: now)
            metrics.count(.mail, [kind, "dev"])
        }
        guard configuration.transport != nil else {
            if devMailbox == nil { throw HearthAPIError(.emailNotConfigured, Mailer.notConfiguredMessage) }
            return
        }
        try await store.enqueueMail(OutboxMail(recipient: mail.to, message: mail, createdAt: now, expiresAt: expiresAt))
        metrics.count(.mail, [kind, "queued"])
        wake?.yield()
    }

    /// A plain notice about the user's account (no link), best effort: a failure is logged, never thrown, and a
    /// user without an email or a server that cannot send gets none.
    func sendNotice(to user: UserRecord, subject: String, paragraphs: [String], kind: String) async {
        guard canSend, let email = user.email else { return }
        let all = ["Hello,"] + paragraphs
        let mail = OutgoingMail(from: configuration.from, to: email, toName: EmailActionService.greetingName(user, recipient: email), subject: subject,
                                text: all.joined(separator: "\n\n") + "\n",
                                html: all.map { "<p>\(EmailTemplates.htmlEscape($0))</p>" }.joined())
        do {
            try await send(mail, kind: kind, code: nil, expiresAt: clock.now().addingTimeInterval(86_400))
        } catch {
            logger.error("could not send an account notice", metadata: ["uid": "\(user.localId)", "kind": "\(kind)", "error.type": "\(type(of: error))"])
        }
    }

    /// The project's name in mail and authenticator apps: `notification.sendEmail.appName`, else the project id.
    static func appName(_ config: ProjectConfig) -> String {
        config.sendEmail?.appName.flatMap { $0.isEmpty ? nil : $0 } ?? config.projectId
    }

    static let notConfiguredMessage = "this server has no SMTP relay to send email with: set smtp.url (--smtp-url or HEARTH_SMTP_URL) and mail.from (docs/email.md)"
}

/// Delivers the outbox: leases due messages (one replica each), sends them through the relay, deletes what was
/// delivered, retries temporary failures with backoff (30 s doubling, at most an hour apart) and gives up after
/// ``MailConfiguration/maxAttempts`` or on a permanent refusal. A message whose link expired is dropped unsent.
public struct MailOutboxService: Service {
    let transport: any MailTransport
    let store: any HearthStore
    let clock: WallClock
    let metrics: HearthMetrics
    let logger: Logger
    let maxAttempts: Int
    let signals: AsyncStream<Void>
    /// Feeds ``signals`` (the retry round's timer).
    let tick: AsyncStream<Void>.Continuation
    /// How long a leased message is reserved for this process.
    static let lease: TimeInterval = 120

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                // A round when a message is queued, and every 5 seconds for retries (signals coalesce).
                group.addTask { [tick] in
                    tick.yield()
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(5))
                        tick.yield()
                    }
                }
                group.addTask {
                    for await _ in signals {
                        if Task.isCancelled { break }
                        await deliverDue()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One round: every message due now. Returns how many were delivered.
    @discardableResult
    public func deliverDue() async -> Int {
        var delivered = 0
        while !Task.isCancelled {
            let now = clock.now()
            let batch: [OutboxMail]
            do {
                batch = try await store.claimDueMail(now: now, leaseUntil: now.addingTimeInterval(Self.lease), limit: 10)
            } catch {
                logger.error("mail outbox unavailable", metadata: ["error.type": "\(type(of: error))"])
                return delivered
            }
            if batch.isEmpty { return delivered }
            for mail in batch where await deliver(mail) { delivered += 1 }
        }
        return delivered
    }

    func deliver(_ mail: OutboxMail) async -> Bool {
        let kind = "outbox"
        if mail.expiresAt <= clock.now() {
            logger.warning("email dropped: its link expired before the relay took it", metadata: ["mail.id": "\(mail.id)", "attempts": "\(mail.attempts)"])
            metrics.count(.mail, [kind, "expired"])
            try? await store.deleteMail(id: mail.id)
            return false
        }
        do {
            try await transport.deliver(mail.message)
            try? await store.deleteMail(id: mail.id)
            metrics.count(.mail, [kind, "sent"])
            logger.info("email delivered", metadata: ["mail.id": "\(mail.id)", "attempts": "\(mail.attempts + 1)"])
            return true
        } catch {
            let failure = error as? MailTransportError ?? MailTransportError(transient: true, "\(type(of: error))")
            let attempts = mail.attempts + 1
            if failure.transient, attempts < maxAttempts {
                let delay = min(3600, 30 * pow(2, Double(attempts - 1)))
                try? await store.rescheduleMail(id: mail.id, attempts: attempts, nextAttemptAt: clock.now().addingTimeInterval(delay),
                                                lastError: failure.description)
                metrics.count(.mail, [kind, "retry"])
                logger.warning("email delivery failed; will retry", metadata: [
                    "mail.id": "\(mail.id)", "attempts": "\(attempts)", "retry.in.seconds": "\(Int(delay))", "error": "\(failure.description)"])
            } else {
                try? await store.deleteMail(id: mail.id)
                metrics.count(.mail, [kind, "failed"])
                logger.error("email not delivered; given up", metadata: [
                    "mail.id": "\(mail.id)", "attempts": "\(attempts)", "error": "\(failure.description)"])
            }
            return false
        }
    }
}
