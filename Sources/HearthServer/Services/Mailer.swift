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

/// A failed delivery to the relay (``DeliveryError``: transient or not, a description without secrets).
public typealias MailTransportError = DeliveryError

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

    private let entries = RecentEntries<Entry>()

    public init() {}

    func add(kind: String, mail: OutgoingMail, code: EmulatorOobCode?, at: Date) {
        entries.append { Entry(id: $0, at: at, kind: kind, mail: mail, code: code) }
    }

    /// The messages, newest first.
    public var messages: [Entry] { entries.list.reversed() }

    /// Empties the mailbox.
    public func clear() { entries.clear() }
}

/// The last ``capacity`` entries of a dev sink (the dev mailbox, the dev SMS sink), numbered from 1, in memory only.
final class RecentEntries<Entry: Sendable>: Sendable {
    private let state = Mutex<(next: Int, list: [Entry])>((1, []))
    static var capacity: Int { 200 }

    /// Appends the entry `make` builds with its number; the oldest beyond the capacity go.
    func append(_ make: (Int) -> Entry) {
        state.withLock { state in
            state.list.append(make(state.next))
            state.next += 1
            if state.list.count > Self.capacity { state.list.removeFirst(state.list.count - Self.capacity) }
        }
    }

    /// The entries, oldest first.
    var list: [Entry] { state.withLock { $0.list } }

    func clear() { state.withLock { $0.list.removeAll() } }
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
    let wake: OutboxWake?

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

    /// The notice that a second factor (`factor`, as the user would recognise it) was added to `user`'s account at
    /// `moment`; from now on signing in `asks` for it. Best effort, as ``sendNotice(to:subject:paragraphs:kind:)``.
    func sendFactorAdded(to user: UserRecord, factor: String, asks: String, at moment: Date, config: ProjectConfig) async {
        guard let email = user.email else { return }
        let app = Mailer.appName(config)
        await sendNotice(to: user, subject: "Two-step verification was turned on for your \(app) account", paragraphs: [
            "A second factor (\(factor)) was added to your account \(email) on \(moment.formatted(.iso8601)). From now on, signing in asks for \(asks).",
            "If this was not you, reset your password and contact the administrators of \(app): someone else may control your account.",
        ], kind: "mfaAdded")
    }

    /// The project's name in mail and authenticator apps: `notification.sendEmail.appName`, else the project id.
    static func appName(_ config: ProjectConfig) -> String {
        config.sendEmail?.appName.flatMap { $0.isEmpty ? nil : $0 } ?? config.projectId
    }

    static let notConfiguredMessage = "this server has no SMTP relay to send email with: set smtp.url (--smtp-url or HEARTH_SMTP_URL) and mail.from (docs/email.md)"
}

/// Delivers the mail outbox to the relay (``OutboxService``): retried with backoff, given up after
/// ``MailConfiguration/maxAttempts`` or on a permanent refusal; a message whose link expired is dropped unsent.
public typealias MailOutboxService = OutboxService<MailOutbox>

/// The store's mail outbox and the relay it drains to.
public struct MailOutbox: OutboxChannel {
    let transport: any MailTransport
    let store: any HearthStore

    public var noun: String { "email" }
    public var metric: MetricName { .mail }
    public var expiredReason: String { "its link expired before the relay took it" }

    public func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try await store.claimDueMail(now: now, leaseUntil: leaseUntil, limit: limit)
    }

    public func deliver(_ message: OutboxMail) async throws { try await transport.deliver(message.message) }

    public func reschedule(_ message: OutboxMail, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await store.rescheduleMail(id: message.id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
    }

    public func delete(_ message: OutboxMail) async throws { try await store.deleteMail(id: message.id) }
}

extension OutboxMail: OutboxMessage {}
