import Foundation
import HearthCore
import HearthWire

/// What ``EmailActionStore/consumeOobCode(hash:now:)`` found.
public enum OobCodeConsumeOutcome: Sendable, Equatable {
    /// Marked used by this call: the action may proceed.
    case consumed(OobCodeRecord)
    /// No such code.
    case unknown
    /// Used already (by this or another replica).
    case used
    /// Its lifetime is over.
    case expired
}

/// Email action codes (stored hashed, single-use across replicas) and the outbox of messages for the SMTP relay.
public protocol EmailActionStore: Sendable {
    func insertOobCode(_ record: OobCodeRecord) async throws
    /// The code's record, used or not, until it is pruned.
    func oobCode(hash: String) async throws -> OobCodeRecord?
    /// Marks the code used, once: the first caller gets ``OobCodeConsumeOutcome/consumed(_:)``, every later one
    /// ``OobCodeConsumeOutcome/used`` — atomic across replicas.
    func consumeOobCode(hash: String, now: Date) async throws -> OobCodeConsumeOutcome
    /// Takes a use back: the action it was consumed for could not be done (the database failed half-way).
    func releaseOobCode(hash: String) async throws
    /// Marks every unused code of `localId` of these types used (a password reset ends the other reset links);
    /// with `createdSince`, only the codes made at or after that moment (an undone email change ends the undo
    /// links of the changes after it, not those of earlier ones).
    func revokeOobCodes(localId: String, types: [OobRequestType], createdSince: Date?, now: Date) async throws
    /// Deletes codes that expired before `cutoff`; returns how many.
    @discardableResult
    func pruneOobCodes(before cutoff: Date) async throws -> Int

    /// Adds a message to the outbox.
    func enqueueMail(_ mail: OutboxMail) async throws
    /// Leases up to `limit` messages that are due (`nextAttemptAt <= now`, not leased by another replica) until
    /// `leaseUntil`, oldest first; nobody else gets them until then.
    func claimDueMail(now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail]
    /// Delivered (or given up): the message leaves the outbox.
    func deleteMail(id: String) async throws
    /// A failed attempt: tried again at `nextAttemptAt`.
    func rescheduleMail(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    /// Messages waiting (for the console and `/metrics`).
    func outboxCount() async throws -> Int
}

extension EmailActionStore {
    /// Marks every unused code of `localId` of these types used, whenever it was made.
    public func revokeOobCodes(localId: String, types: [OobRequestType], now: Date) async throws {
        try await revokeOobCodes(localId: localId, types: types, createdSince: nil, now: now)
    }
}
