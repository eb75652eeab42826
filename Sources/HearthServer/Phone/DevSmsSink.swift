import Foundation
import HearthCore

/// The dev SMS sink: the last 200 text messages of a `--dev` server or a `demo-*` project, in memory only — the
/// `/__dev/sms` page and the emulator's `verificationCodes` list them.
public final class DevSmsSink: Sendable {
    /// One message with its code and session.
    public struct Entry: Sendable, Equatable {
        public var id: Int
        public var at: Date
        /// The number, E.164.
        public var phoneNumber: String
        public var sessionInfo: String
        public var code: String
        public var text: String
        public var purpose: PhoneCodePurpose
        /// nil: the project's own users.
        public var tenantId: String?
    }

    private let entries = RecentEntries<Entry>()

    public init() {}

    func add(phoneNumber: String, sessionInfo: String, code: String, text: String, purpose: PhoneCodePurpose, tenantId: String?, at: Date) {
        entries.append { Entry(id: $0, at: at, phoneNumber: phoneNumber, sessionInfo: sessionInfo, code: code, text: text, purpose: purpose, tenantId: tenantId) }
    }

    /// The messages, oldest first.
    public var messages: [Entry] { entries.list }

    /// The newest message to `phoneNumber`, if any (tests and `hearth signin phone` read codes this way).
    public func latest(to phoneNumber: String) -> Entry? { entries.list.last { $0.phoneNumber == phoneNumber } }

    /// Empties the sink.
    public func clear() { entries.clear() }
}
