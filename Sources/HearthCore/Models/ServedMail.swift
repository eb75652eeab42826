import Foundation

/// How a server sends email, as it records it at start in its project's settings (``ProjectConfig/servedMail``), so
/// that a command run on the same data can queue a notice in the outbox for it to deliver (issue 35, item 14).
public struct ServedMail: Sendable, Equatable, Codable {
    /// The sender of its messages (`mail.from`).
    public var from: String
    /// It delivers the outbox through an SMTP relay.
    public var relay: Bool
    /// It keeps messages in its in-memory dev mailbox (`/__dev/mail`), and puts queued ones there too.
    public var devMailbox: Bool

    public init(from: String, relay: Bool, devMailbox: Bool) {
        self.from = from
        self.relay = relay
        self.devMailbox = devMailbox
    }

    /// Whether a queued message reaches anyone (a relay or the dev mailbox).
    public var delivers: Bool { relay || devMailbox }

    /// Where queued mail goes, in words: "the SMTP relay", "the dev mailbox (/__dev/mail)".
    public var destination: String {
        switch (relay, devMailbox) {
        case (true, _): "the SMTP relay"
        case (false, true): "the dev mailbox (/__dev/mail)"
        case (false, false): "nowhere (no SMTP relay)"
        }
    }
}
