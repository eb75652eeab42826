import Foundation
import HearthMail

/// The `smtp` target: untrusted bytes as a mail server's replies (HearthMail's reply parser) and as an email address
/// (``MailAddress/init(parsing:)``), whose acceptance then has to render safely into a message.
public enum MailFuzz {
    /// Nil when every invariant held, else what broke: the reply parser returns replies within its bounds or throws
    /// `MailError.protocolError`; the address parser returns an address or throws `MailError.invalidAddress`; an
    /// accepted address renders as a header without a line break (other than folding), parses back to itself, and a
    /// message to it (with the input as subject and body) has only well-formed header lines and CRLF line ends.
    public static func check(_ input: [UInt8]) -> String? {
        do {
            for reply in try SMTPReplyParser.parse(input) {
                guard (200...599).contains(reply.code), (1...SMTPReplyParser.maxLines).contains(reply.lines.count),
                      // Invalid UTF-8 decodes to U+FFFD (3 bytes a byte): a line's text stays within 3 × the limit.
                      reply.lines.allSatisfy({ $0.utf8.count <= 3 * SMTPReplyParser.maxLineLength })
                else { return "reply out of bounds: \(reply)" }
            }
        } catch {
            guard case .protocolError = error else { return "reply parser threw \(error)" }
        }
        let text = String(decoding: input, as: UTF8.self)
        let address: MailAddress
        do {
            address = try MailAddress(parsing: text)
        } catch let error as MailError {
            guard case .invalidAddress = error else { return "address parser threw \(error)" }
            return nil
        } catch {
            return "address parser threw \(error)"
        }
        let header = address.description
        // Unfolded (folding is CRLF before a space), the header has no line break left.
        let unfolded = header.replacingOccurrences(of: "\r\n ", with: " ")
        if unfolded.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            return "a line break in the rendered address \(header.debugDescription)"
        }
        if !header.contains("=?UTF-8?B?") {
            guard let again = try? MailAddress(parsing: unfolded), again == address else { return "no round trip: \(header.debugDescription)" }
        }
        let message = MailMessage(from: address, to: address, replyTo: address, subject: text, text: text, html: text).rendered()
        let bytes = Array(message.utf8)
        for (index, byte) in bytes.enumerated() where byte == 10 || byte == 13 {
            let crlf = byte == 10 ? index > 0 && bytes[index - 1] == 13 : index + 1 < bytes.count && bytes[index + 1] == 10
            if !crlf { return "a bare CR or LF in the rendered message at \(index)" }
        }
        let lines = message.components(separatedBy: "\r\n")
        guard let end = lines.firstIndex(of: "") else { return "no blank line after the headers" }
        let names: Set<String> = ["Date", "From", "To", "Reply-To", "Subject", "Message-ID", "MIME-Version", "Content-Type"]
        for line in lines[..<end] {
            guard line.utf8.count <= 998 else { return "a header line over 998 bytes" }
            if line.hasPrefix(" ") { continue }
            guard let colon = line.firstIndex(of: ":"), names.contains(String(line[..<colon])) else { return "an unexpected header line \(line.debugDescription)" }
        }
        if lines.contains(where: { $0.utf8.count > 998 }) { return "a line over 998 bytes" }
        return nil
    }
}
