import Foundation
import HearthCore
import Logging
import ServiceLifecycle

/// A failed delivery of a queued message (an email to the SMTP relay, an SMS to the gateway): whether trying later
/// may succeed, and what happened (no secrets).
public struct DeliveryError: Error, Sendable, CustomStringConvertible {
    public var transient: Bool
    public var description: String

    public init(transient: Bool, _ description: String) {
        self.transient = transient
        self.description = description
    }
}

/// What starts an outbox round: a message queued (by this process) and the service's own timer. Signals coalesce.
public final class OutboxWake: Sendable {
    let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.signals = signals
        self.continuation = continuation
    }

    /// Asks for a round.
    func yield() { continuation.yield() }
}

/// A message waiting in one of the store's outboxes.
public protocol OutboxMessage: Sendable {
    var id: String { get }
    /// Delivery attempts made so far.
    var attempts: Int { get }
    /// When what it carries (a link, a code) stops working: it is not sent after.
    var expiresAt: Date { get }
}

/// One outbox of the store and where its messages go: the mail outbox and the SMTP relay, the SMS outbox and the
/// gateway. ``OutboxService`` drains it.
public protocol OutboxChannel: Sendable {
    associatedtype Message: OutboxMessage
    /// The message's name in logs: `email`, `SMS`.
    var noun: String { get }
    /// The counter of this channel's messages (labels: `outbox` and the outcome).
    var metric: MetricName { get }
    /// Why an expired message is dropped, for the log.
    var expiredReason: String { get }
    /// Leases up to `limit` due messages to this process until `leaseUntil`.
    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [Message]
    /// Delivers one message, or throws ``DeliveryError``.
    func deliver(_ message: Message) async throws
    func reschedule(_ message: Message, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    func delete(_ message: Message) async throws
}

/// Delivers an outbox: leases due messages (one replica each), delivers them, deletes what was delivered, retries
/// temporary failures with backoff (30 s doubling, at most an hour apart) and gives up after `maxAttempts` or on a
/// permanent refusal. A message whose link or code expired is dropped unsent.
public struct OutboxService<Channel: OutboxChannel>: Service {
    let channel: Channel
    let clock: WallClock
    let metrics: HearthMetrics
    let logger: Logger
    let maxAttempts: Int
    /// Rounds: when a message is queued, and every 5 seconds for retries.
    let wake: OutboxWake
    /// How long a leased message is reserved for this process.
    static var lease: TimeInterval { 120 }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                // A round when a message is queued, and every 5 seconds for retries (signals coalesce).
                group.addTask { [wake] in
                    wake.yield()
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(5))
                        wake.yield()
                    }
                }
                group.addTask {
                    for await _ in wake.signals {
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
            let batch: [Channel.Message]
            do {
                batch = try await channel.claimDue(now: now, leaseUntil: now.addingTimeInterval(Self.lease), limit: 10)
            } catch {
                logger.error("\(channel.noun) outbox unavailable", metadata: ["error.type": "\(type(of: error))"])
                return delivered
            }
            if batch.isEmpty { return delivered }
            for message in batch where await deliver(message) { delivered += 1 }
        }
        return delivered
    }

    func deliver(_ message: Channel.Message) async -> Bool {
        let kind = "outbox"
        let noun = channel.noun
        let id: Logger.MetadataValue = "\(message.id)"
        if message.expiresAt <= clock.now() {
            logger.warning("\(noun) dropped: \(channel.expiredReason)", metadata: ["message.id": id, "attempts": "\(message.attempts)"])
            metrics.count(channel.metric, [kind, "expired"])
            try? await channel.delete(message)
            return false
        }
        do {
            try await channel.deliver(message)
            try? await channel.delete(message)
            metrics.count(channel.metric, [kind, "sent"])
            logger.info("\(noun) delivered", metadata: ["message.id": id, "attempts": "\(message.attempts + 1)"])
            return true
        } catch {
            let failure = error as? DeliveryError ?? DeliveryError(transient: true, "\(type(of: error))")
            let attempts = message.attempts + 1
            if failure.transient, attempts < maxAttempts {
                let delay = min(3600, 30 * pow(2, Double(attempts - 1)))
                try? await channel.reschedule(message, attempts: attempts, nextAttemptAt: clock.now().addingTimeInterval(delay),
                                              lastError: failure.description)
                metrics.count(channel.metric, [kind, "retry"])
                logger.warning("\(noun) delivery failed; will retry", metadata: [
                    "message.id": id, "attempts": "\(attempts)", "retry.in.seconds": "\(Int(delay))", "error": "\(failure.description)"])
            } else {
                try? await channel.delete(message)
                metrics.count(channel.metric, [kind, "failed"])
                logger.error("\(noun) not delivered; given up", metadata: [
                    "message.id": id, "attempts": "\(attempts)", "error": "\(failure.description)"])
            }
            return false
        }
    }
}
