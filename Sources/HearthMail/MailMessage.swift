import Foundation

/// One email: sender, one recipient, subject, a plain-text body and optionally an HTML alternative.
public struct MailMessage: Sendable, Equatable {
    /// The `From` header and the envelope sender (`MAIL FROM`).
    public var from: MailAddress
    /// The `To` header and the envelope recipient (`RCPT TO`).
    public var to: MailAddress
    /// The `Reply-To` header, when replies should go elsewhere than `from`.
    public var replyTo: MailAddress?
    /// The subject, unencoded; line breaks and control characters become spaces.
    public var subject: String
    /// The plain-text body (any line endings).
    public var text: String
    /// The HTML body; when set the message is `multipart/alternative` with the text first.
    public var html: String?

    /// A message from its parts.
    public init(from: MailAddress, to: MailAddress, replyTo: MailAddress? = nil, subject: String, text: String, html: String? = nil) {
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The RFC 5322 message: Date, Message-ID (random @ the from domain), MIME-Version, From/To/Reply-To/Subject with
    /// RFC 2047 encoded-words for non-ASCII, multipart/alternative (text/plain then text/html) when html is set,
    /// UTF-8 bodies in quoted-printable or base64 with lines <= 76 chars, CRLF line endings, no bare LF.
    ///
    /// `messageID` is used when it is a plain `left@right` (angle brackets optional); otherwise, or when nil, the
    /// Message-ID is random at the sender's domain. Header values have control characters replaced, so no field
    /// can add a header.
    public func rendered(date: Date = Date(), messageID: String? = nil) -> String {
        var lines: [String] = [
            "Date: " + MIMEEncoding.rfc5322Date(date),
            "From: " + MIMEEncoding.addressHeaderValue(from),
            "To: " + MIMEEncoding.addressHeaderValue(to),
        ]
        if let replyTo { lines.append("Reply-To: " + MIMEEncoding.addressHeaderValue(replyTo)) }
        lines.append(MIMEEncoding.unstructuredHeader("Subject", subject))
        lines.append("Message-ID: <" + MIMEEncoding.messageIDValue(messageID, domain: from.domain) + ">")
        lines.append("MIME-Version: 1.0")
        if let html {
            let boundary = "=_hearth_" + MIMEEncoding.randomHex(bytes: 12)
            lines.append("Content-Type: multipart/alternative;")
            lines.append(" boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("This is a multi-part message in MIME format.")
            for (type, body) in [("text/plain", text), ("text/html", html)] {
                lines.append("--" + boundary)
                lines.append(contentsOf: MIMEEncoding.bodyPart(type: type, body))
            }
            lines.append("--" + boundary + "--")
        } else {
            lines.append(contentsOf: MIMEEncoding.bodyPart(type: "text/plain", text))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// RFC 2045/2047/5322 encoders: header values, encoded words, quoted-printable, base64, dates.
package enum MIMEEncoding {
    /// The longest encoded line (RFC 2045: 76 characters, not counting CRLF).
    package static let maxEncodedLine = 76

    /// `Name <addr>` with the name as atoms, a quoted string, or encoded words; control characters are dropped.
    package static func addressHeaderValue(_ mailbox: MailAddress) -> String {
        let address = sanitizedAddress(mailbox.address)
        let name = sanitizedText(mailbox.name ?? "").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return address }
        let phrase = phrase(name)
        // Fold before the address when the name's last line and the address would pass 78 characters.
        let lastLine = phrase.components(separatedBy: "\r\n").last ?? phrase
        return phrase + (lastLine.utf8.count + address.utf8.count + 13 > 78 ? "\r\n <" : " <") + address + ">"
    }

    /// A display name as RFC 5322 `phrase`: atoms as they are, printable ASCII quoted, anything else (and anything
    /// long) encoded words on folded lines.
    static func phrase(_ name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count <= 60 else { return encodedWords(name).joined(separator: "\r\n ") }
        if bytes.allSatisfy({ MailAddressParser.isAtext($0) || $0 == UInt8(ascii: " ") }), !name.contains("=?") { return name }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) {
            return "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return encodedWords(name).joined(separator: "\r\n ")
    }

    /// An unstructured header (`Subject`): as is when it is short printable ASCII, otherwise RFC 2047 encoded words,
    /// one per folded line.
    package static func unstructuredHeader(_ field: String, _ value: String) -> String {
        let text = sanitizedText(value)
        let bytes = Array(text.utf8)
        let plain = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7f } && !text.contains("=?") && !text.hasPrefix(" ")
        if plain, field.utf8.count + 2 + bytes.count <= 78 { return field + ": " + text }
        return field + ": " + encodedWords(text).joined(separator: "\r\n ")
    }

    /// `=?UTF-8?B?...?=` words of at most 64 characters (RFC 2047 allows 75; shorter words leave room for the field
    /// name on the first line), never splitting a character.
    package static func encodedWords(_ text: String) -> [String] {
        // 39 bytes of UTF-8 are 52 base64 characters: 64 with "=?UTF-8?B?" and "?=".
        let maxBytes = 39
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
            chunk = []
        }
        for character in text {
            let encoded = Array(String(character).utf8)
            if chunk.count + encoded.count > maxBytes, !chunk.isEmpty { flush() }
            if encoded.count <= maxBytes {
                chunk += encoded
                continue
            }
            // A single grapheme longer than a word (a long combining sequence) is split between its scalars.
            for scalar in character.unicodeScalars {
                let bytes = Array(String(scalar).utf8)
                if chunk.count + bytes.count > maxBytes { flush() }
                chunk += bytes
            }
        }
        if !chunk.isEmpty || words.isEmpty { flush() }
        return words
    }

    /// The headers and encoded body of one `text/*` part (UTF-8): quoted-printable for mostly-ASCII text, base64
    /// otherwise.
    static func bodyPart(type: String, _ body: String) -> [String] {
        let bytes = Array(normalizedLineEndings(body).utf8)
        let nonASCII = bytes.count(where: { $0 >= 0x80 })
        let base64 = nonASCII * 3 > bytes.count
        var lines = [
            "Content-Type: \(type); charset=utf-8",
            "Content-Transfer-Encoding: " + (base64 ? "base64" : "quoted-printable"),
            "",
        ]
        var body = base64 ? base64Lines(bytes) : quotedPrintableLines(bytes)
        // Text that ends with a line break: that break is the message's (or the delimiter's) own CRLF.
        if !base64, body.count > 1, body.last == "" { body.removeLast() }
        lines.append(contentsOf: body)
        return lines
    }

    /// Base64 in lines of 76 characters.
    package static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let encoded = Array(Data(bytes).base64EncodedString().utf8)
        guard !encoded.isEmpty else { return [""] }
        return stride(from: 0, to: encoded.count, by: maxEncodedLine).map {
            String(decoding: encoded[$0..<min($0 + maxEncodedLine, encoded.count)], as: UTF8.self)
        }
    }

    /// Quoted-printable (RFC 2045 §6.7) of CRLF-separated text: lines of at most 76 characters, soft breaks (`=`)
    /// where a line is longer, `=XX` for `=`, controls, non-ASCII, and whitespace at the end of a line. A `.` that
    /// starts an encoded line is encoded too, so the body never depends on SMTP dot-stuffing.
    package static func quotedPrintableLines(_ bytes: [UInt8]) -> [String] {
        let hex = Array("0123456789ABCDEF".utf8)
        var sourceLines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
                sourceLines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        sourceLines.append(bytes[start..<bytes.count])
        var output: [String] = []
        for line in sourceLines {
            var current: [UInt8] = []
            for position in line.indices {
                let byte = line[position]
                let atEnd = position == line.endIndex - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 32 || byte == 9) && !atEnd)
                func encoded() -> [UInt8] { [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
                var token = literal && !(byte == UInt8(ascii: ".") && current.isEmpty) ? [byte] : encoded()
                // Leave room for the soft break's "=".
                if current.count + token.count > maxEncodedLine - 1 {
                    current.append(UInt8(ascii: "="))
                    output.append(String(decoding: current, as: UTF8.self))
                    current = []
                    if byte == UInt8(ascii: ".") { token = encoded() }
                }
                current.append(contentsOf: token)
            }
            output.append(String(decoding: current, as: UTF8.self))
        }
        return output
    }

    /// CRLF for every line break (CRLF, bare LF, bare CR).
    package static func normalizedLineEndings(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previousCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                out += "\r\n"
                previousCR = true
                continue
            case "\n":
                if !previousCR { out += "\r\n" }
            default:
                out.unicodeScalars.append(scalar)
            }
            previousCR = false
        }
        return out
    }

    /// Header text: control characters (line breaks included) become spaces.
    static func sanitizedText(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(MailAddressParser.isControl(scalar) ? " " : scalar) }
        return String(out)
    }

    /// An address for a header: anything but printable ASCII is dropped (``SMTPClient`` refuses such addresses).
    static func sanitizedAddress(_ address: String) -> String {
        String(decoding: address.utf8.filter { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }, as: UTF8.self)
    }

    /// The Message-ID's content: the given one when it is a safe `left@right`, otherwise random hex at `domain`.
    static func messageIDValue(_ given: String?, domain: String) -> String {
        if let given {
            let trimmed = given.hasPrefix("<") && given.hasSuffix(">") ? String(given.dropFirst().dropLast()) : given
            let bytes = Array(trimmed.utf8)
            if bytes.count <= 200, bytes.contains(UInt8(ascii: "@")),
               bytes.allSatisfy({ MailAddressParser.isAtext($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "@") }) {
                return trimmed
            }
        }
        let host = MailAddressParser.isDomain(ArraySlice(domain.utf8)) ? domain : "hearth.invalid"
        return randomHex(bytes: 16) + "@" + host
    }

    /// `bytes` random bytes as lowercase hex.
    package static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `Mon, 24 Nov 2025 01:44:00 +0000` (RFC 5322 §3.3, in UTC).
    package static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}
