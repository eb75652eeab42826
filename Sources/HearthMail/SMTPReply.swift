import Foundation

/// One server reply (RFC 5321 §4.2): a three-digit code and its text lines, with the RFC 3463 enhanced status code
/// when the server sends one (`250 2.1.0 Ok`).
package struct SMTPReply: Sendable, Equatable {
    /// The reply code, 200–599.
    package var code: Int
    /// The text of each line after the code and separator (and after the enhanced status code, when there is one).
    package var lines: [String]
    /// The enhanced status code of the first line (`5.7.8`), if any.
    package var enhancedStatus: String?

    package init(code: Int, lines: [String], enhancedStatus: String? = nil) {
        self.code = code
        self.lines = lines
        self.enhancedStatus = enhancedStatus
    }

    /// The reply for an error message: enhanced status and text on one line, control characters replaced, at most
    /// 300 characters.
    package var text: String {
        let joined = ([enhancedStatus].compactMap { $0 } + [lines.joined(separator: " ")]).joined(separator: " ")
        var out = String.UnicodeScalarView()
        for scalar in joined.unicodeScalars.prefix(300) { out.append(MailAddressParser.isControl(scalar) ? "?" : scalar) }
        return String(out).trimmingCharacters(in: .whitespaces)
    }

    /// 2xx.
    package var isPositive: Bool { (200..<300).contains(code) }
}

/// Splits the server's bytes into lines and lines into replies, within fixed bounds: a line longer than
/// ``maxLineLength`` or a reply of more than ``maxLines`` lines is a protocol error, so a hostile server cannot make
/// the client buffer without limit. Kept apart from the connection so it can be fuzzed.
package struct SMTPReplyParser: Sendable {
    /// The longest line accepted, without its line break (RFC 5321 allows 512 for replies; servers send longer).
    package static let maxLineLength = 1000
    /// The most lines one reply may have.
    package static let maxLines = 100

    private var pendingLine: [UInt8] = []
    private var code: Int?
    private var lines: [String] = []
    private var enhanced: String?

    package init() {}

    /// Bytes received but not yet a complete line.
    package var bufferedByteCount: Int { pendingLine.count }
    /// Whether a multi-line reply has started and not finished.
    package var isInsideReply: Bool { code != nil }

    /// Feeds received bytes; returns the replies they complete (in order). Lines end in LF (a CR before it is
    /// dropped). Throws ``MailError/protocolError(_:)`` at the first malformed or oversized line; the parser is then
    /// not to be used again.
    package mutating func feed(_ bytes: some Sequence<UInt8>) throws(MailError) -> [SMTPReply] {
        var replies: [SMTPReply] = []
        for byte in bytes {
            if byte == 10 {
                if pendingLine.last == 13 { pendingLine.removeLast() }
                let line = pendingLine
                pendingLine.removeAll(keepingCapacity: true)
                if let reply = try consume(line: line) { replies.append(reply) }
            } else {
                guard pendingLine.count < Self.maxLineLength + 1 else {
                    throw .protocolError("a reply line is longer than \(Self.maxLineLength) bytes")
                }
                pendingLine.append(byte)
            }
        }
        return replies
    }

    /// Parses every complete reply in `bytes` (a trailing partial line is ignored).
    package static func parse(_ bytes: some Sequence<UInt8>) throws(MailError) -> [SMTPReply] {
        var parser = SMTPReplyParser()
        return try parser.feed(bytes)
    }

    /// One line without its line break: `250-text` continues a reply, `250 text` or `250` ends it.
    package mutating func consume(line: [UInt8]) throws(MailError) -> SMTPReply? {
        guard line.count <= Self.maxLineLength else { throw .protocolError("a reply line is longer than \(Self.maxLineLength) bytes") }
        guard line.count >= 3,
              (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(line[0]),
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[1]),
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[2])
        else { throw .protocolError("a reply line does not start with a reply code: \(Self.excerpt(line))") }
        let lineCode = Int(line[0] - 48) * 100 + Int(line[1] - 48) * 10 + Int(line[2] - 48)
        let separator: UInt8? = line.count > 3 ? line[3] : nil
        guard separator == nil || separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw .protocolError("a reply line has no space or hyphen after its code: \(Self.excerpt(line))")
        }
        if let code, code != lineCode {
            throw .protocolError("a multi-line reply changes its code from \(code) to \(lineCode)")
        }
        guard lines.count < Self.maxLines else { throw .protocolError("a reply has more than \(Self.maxLines) lines") }
        var text = String(decoding: line.dropFirst(4), as: UTF8.self)
        if code == nil, let status = Self.enhancedStatus(text, replyClass: Int(line[0] - 48)) {
            enhanced = status
            text = String(text.dropFirst(status.utf8.count).drop(while: { $0 == " " }))
        }
        code = lineCode
        lines.append(text)
        guard separator != UInt8(ascii: "-") else { return nil }
        let reply = SMTPReply(code: lineCode, lines: lines, enhancedStatus: enhanced)
        code = nil
        lines = []
        enhanced = nil
        return reply
    }

    /// `class.subject.detail` (RFC 3463) at the start of `text`, followed by a space or the end, with the class
    /// matching the reply's first digit.
    static func enhancedStatus(_ text: String, replyClass: Int) -> String? {
        let token = text.prefix(while: { $0 != " " })
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "\(replyClass)",
              parts[1].count >= 1, parts[1].count <= 3, parts[2].count >= 1, parts[2].count <= 3,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return String(token)
    }

    static func excerpt(_ line: [UInt8]) -> String {
        SMTPReply(code: 0, lines: [String(decoding: line.prefix(60), as: UTF8.self)]).text
    }
}

/// What a server announced in its EHLO reply (RFC 5321 §4.1.1.1): keyword → parameters, keywords uppercased.
package struct SMTPExtensions: Sendable, Equatable {
    package var keywords: [String: [String]] = [:]

    package init(ehlo reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ").map(String.init)
            guard var keyword = words.first?.uppercased() else { continue }
            var parameters = Array(words.dropFirst())
            // Old servers announce `AUTH=LOGIN PLAIN`.
            if keyword.hasPrefix("AUTH=") {
                parameters.insert(String(keyword.dropFirst(5)), at: 0)
                keyword = "AUTH"
            }
            keywords[keyword, default: []].append(contentsOf: parameters.map { $0.uppercased() })
        }
    }

    package init() {}

    package func supports(_ keyword: String) -> Bool { keywords[keyword] != nil }

    /// The announced SASL mechanisms (uppercased).
    package var authMechanisms: Set<String> { Set(keywords["AUTH"] ?? []) }
}
