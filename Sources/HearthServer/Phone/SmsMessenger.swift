import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// Sends the project's text messages (`accounts.sms`): into the dev sink, and through the store's SMS outbox to the
/// gateway (delivered off the request path by ``SmsOutboxService``, retried, surviving restarts, on any replica).
/// Queued messages hold a code: they are sealed at rest with the server's keys (the vault keys, else the embedded
/// store's key file), as TOTP secrets are. The callers (phone sign-in, SMS second factor) made every check before.
public struct SmsMessenger: Sendable {
    let sender: (any SmsSender)?
    let store: any HearthStore
    /// The dev sink (`--dev`, `demo-*`): `/__dev/sms` and the emulator's `verificationCodes`.
    public let devSink: DevSmsSink?
    let sealing: SmsSealing
    let clock: WallClock
    let metrics: HearthMetrics
    let logger: Logger
    /// Starts the outbox service's round when a message is queued.
    let wake: OutboxWake

    /// The messenger of a server with `configuration`, logging (never a number or a code) to `logger`.
    init(configuration: HearthServerConfiguration, store: any HearthStore, logger: Logger) {
        sender = configuration.sms.sender
        self.store = store
        devSink = configuration.sms.devSink ? DevSmsSink() : nil
        sealing = SmsSealing(sealingKeys: configuration.secondFactorSealingKeys,
                             openingKeys: [configuration.providerTokenKeys, configuration.localSecretKeys].compactMap { $0 })
        clock = configuration.clock
        metrics = configuration.metrics
        self.logger = logger
        wake = OutboxWake()
    }

    /// Whether a message can go anywhere (a gateway or the dev sink).
    public var canSend: Bool { sender != nil || devSink != nil }

    /// Whether messages leave this machine (`sms.url` is set).
    public var hasGateway: Bool { sender != nil }

    /// Where messages go, for the banner and the dev page (no secrets).
    public var deliverySummary: String {
        switch (sender, devSink) {
        case (let sender?, nil): sender.summary
        case (let sender?, .some): "\(sender.summary) (copies in the dev sink)"
        case (nil, .some): "the dev sink only (no sms.url: nothing leaves this machine)"
        case (nil, nil): "nowhere (no sms.url)"
        }
    }

    /// Sends `text` (which holds `code`) to `phoneNumber` (E.164): a dev sink entry with `code` and `sessionInfo`
    /// when the sink is on, then, when the server has a gateway, the sealed message into the outbox (delivered
    /// before `expiresAt`, when the code stops working, or not at all). Throws `OPERATION_NOT_ALLOWED` when the
    /// server has neither; a store failure is thrown as it is (nothing was queued).
    public func send(to phoneNumber: String, text: String, code: String, sessionInfo: String, purpose: PhoneCodePurpose,
                     expiresAt: Date, in scope: Scope) async throws {
        let now = clock.now()
        if let devSink {
            devSink.add(phoneNumber: phoneNumber, sessionInfo: sessionInfo, code: code, text: text, purpose: purpose, tenantId: scope.tenantId, at: now)
            metrics.count(.sms, [purpose.rawValue, "dev"])
        }
        guard sender != nil else {
            if devSink == nil { throw Self.notConfigured }
            return
        }
        let sms = OutgoingSms(to: phoneNumber, text: text, kind: purpose.rawValue, projectId: scope.projectId, tenantId: scope.tenantId)
        let id = RandomID.alphanumeric(count: 24)
        try await store.enqueueSms(OutboxSms(id: id, body: try sealing.seal(sms, id: id), createdAt: now, expiresAt: expiresAt))
        metrics.count(.sms, [purpose.rawValue, "queued"])
        logger.debug("SMS queued", metadata: ["sms.id": "\(id)", "to": "\(SmsRedaction.hint(phoneNumber))", "kind": "\(purpose.rawValue)"])
        wake.yield()
    }

    /// The outbox's delivery service, when the server has a gateway.
    func outboxService(maxAttempts: Int) -> SmsOutboxService? {
        sender.map {
            SmsOutboxService(channel: SmsOutbox(sender: $0, store: store, sealing: sealing), clock: clock, metrics: metrics,
                             logger: logger, maxAttempts: maxAttempts, wake: wake)
        }
    }

    /// The answer to a send on a server without a gateway (a production project without `sms.url`).
    static let notConfigured = HearthAPIError(.operationNotAllowed, notConfiguredMessage)
    static let notConfiguredMessage = "this server has no SMS gateway: set sms.url (--sms-url or HEARTH_SMS_URL) to a Twilio account or a webhook (docs/phone.md)"
}

/// The queued messages' form at rest: JSON of ``OutgoingSms``, sealed (AES-GCM, bound to the message's id) when the
/// server has keys. A message sealed with a key the server lacks cannot be sent (given up, logged).
struct SmsSealing: Sendable {
    let sealingKeys: ProviderTokenKeys?
    let openingKeys: [ProviderTokenKeys]

    static func context(id: String) -> String { "hearth.sms-outbox.v1\u{0}\(id)" }

    func seal(_ sms: OutgoingSms, id: String) throws -> String {
        let json = String(decoding: try JSONEncoder().encode(sms), as: UTF8.self)
        guard let sealingKeys else { return json }
        return try sealingKeys.sealSecret(json, context: Self.context(id: id))
    }

    func open(_ body: String, id: String) throws(SmsSendError) -> OutgoingSms {
        var json = body
        if ProviderTokenKeys.isSealedSecret(body) {
            guard let opened = openingKeys.lazy.compactMap({ try? $0.openSecret(body, context: Self.context(id: id)) }).first else {
                throw SmsSendError(transient: false, "the queued message is sealed with a key this server does not have (\(ProviderTokenKeys.sealingKeyId(body) ?? "?"))")
            }
            json = opened
        }
        guard let sms = try? JSONDecoder().decode(OutgoingSms.self, from: Data(json.utf8)) else {
            throw SmsSendError(transient: false, "the queued message is damaged")
        }
        return sms
    }
}

/// Delivers the SMS outbox to the gateway (``OutboxService``): retried with backoff (30 s doubling, at most an hour
/// apart), given up after ``SmsConfiguration/maxAttempts`` or on a permanent refusal; a message whose code expired is
/// dropped unsent.
public typealias SmsOutboxService = OutboxService<SmsOutbox>

/// The store's SMS outbox and the gateway it drains to.
public struct SmsOutbox: OutboxChannel {
    let sender: any SmsSender
    let store: any HearthStore
    let sealing: SmsSealing

    public var noun: String { "SMS" }
    public var metric: MetricName { .sms }
    public var expiredReason: String { "its code expired before the gateway took it" }

    public func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxSms] {
        try await store.claimDueSms(now: now, leaseUntil: leaseUntil, limit: limit)
    }

    public func deliver(_ message: OutboxSms) async throws {
        try await sender.deliver(try sealing.open(message.body, id: message.id))
    }

    public func reschedule(_ message: OutboxSms, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await store.rescheduleSms(id: message.id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
    }

    public func delete(_ message: OutboxSms) async throws { try await store.deleteSms(id: message.id) }
}

extension OutboxSms: OutboxMessage {}
