import Foundation
import HearthCore

/// Delivers the outbox into the dev mailbox, for a server without an SMTP relay: its own messages go to the mailbox
/// directly, so only what commands run on the same data queued comes this way (`hearth users mfa remove`'s notice;
/// issue 35, item 14).
struct DevMailboxTransport: MailTransport {
    let mailbox: DevMailbox
    let clock: WallClock

    func deliver(_ mail: OutgoingMail) async throws {
        mailbox.add(kind: "notice", mail: mail, code: nil, at: clock.now())
    }

    var summary: String { "the dev mailbox" }
}
