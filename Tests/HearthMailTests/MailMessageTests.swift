import Foundation
@testable import HearthMail
import Testing

/// What Python's `email` package (policy.default) makes of a rendered message.
struct ParsedMessage: Decodable {
    struct Part: Decodable {
        var type: String
        var charset: String?
        var encoding: String?
        var content: String
        var defects: [String]
    }
    var defects: [String]
    var subject: String
    var from: String
    var fromAddress: String
    var fromName: String
    var to: String
    var replyTo: String?
    var messageID: String
    var date: String
    var contentType: String
    var headerNames: [String]
    var parts: [Part]
}

enum PythonEmail {
    static let script = #"""
    import email, json, sys
    from email import policy
    raw = sys.stdin.buffer.read()
    msg = email.message_from_bytes(raw, policy=policy.default)
    parts = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        parts.append({"type": part.get_content_type(), "charset": part.get_content_charset(),
                      "encoding": part.get("Content-Transfer-Encoding"), "content": part.get_content().replace("\r\n", "\n"),
                      "defects": [type(d).__name__ for d in part.defects]})
    frm = msg["from"]
    print(json.dumps({
        "defects": [type(d).__name__ for d in msg.defects],
        "subject": str(msg["subject"]), "from": str(frm), "fromAddress": frm.addresses[0].addr_spec,
        "fromName": frm.addresses[0].display_name, "to": str(msg["to"]),
        "replyTo": str(msg["reply-to"]) if msg["reply-to"] else None, "messageID": str(msg["message-id"]),
        "date": str(msg["date"]), "contentType": msg.get_content_type(), "headerNames": list(msg.keys()), "parts": parts,
    }))
    """#

    /// Parses `raw` with Python's `email` module (python3 from PATH).
    static func parse(_ raw: String) throws -> ParsedMessage {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(raw.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MailError.protocolError("python3 failed") }
        return try JSONDecoder().decode(ParsedMessage.self, from: data)
    }
}

@Suite struct MailMessageTests {
    static let from = MailAddress(address: "noreply@hearth.example.com", name: "Hearth Demo")
    static let link = "https://auth.example.com/__/auth/action?mode=resetPassword&oobCode=AbC-123_x=y&apiKey=key&lang=en"

    static func sample(html: Bool, subject: String = "Reset your password for Hearth Demo") -> MailMessage {
        MailMessage(
            from: from, to: MailAddress(address: "ada@example.com", name: "Ada Lovelace"),
            replyTo: MailAddress(address: "support@example.com"),
            subject: subject,
            text: "Hello Ada,\n\nFollow this link to reset your password:\n\n\(link)\n\n.\n..leading dots\nThanks,\nThe team \n",
            html: html ? "<p>Hello Ada,</p>\n<p><a href=\"\(link)\">Reset</a> — 👋</p>\n" : nil)
    }

    /// Every line ends in CRLF, no bare CR or LF, body lines within 76 characters, headers within 78.
    static func checkLines(_ raw: String) {
        let bytes = Array(raw.utf8)
        for (index, byte) in bytes.enumerated() {
            if byte == 10 { #expect(index > 0 && bytes[index - 1] == 13, "bare LF at \(index)") }
            if byte == 13 { #expect(index + 1 < bytes.count && bytes[index + 1] == 10, "bare CR at \(index)") }
        }
        #expect(raw.hasSuffix("\r\n"))
        #expect(bytes.allSatisfy { $0 < 0x80 }, "the rendered message is 7-bit")
        let lines = raw.components(separatedBy: "\r\n")
        let headerEnd = lines.firstIndex(of: "")!
        for line in lines[..<headerEnd] { #expect(line.utf8.count <= 78, "header line too long: \(line)") }
        for line in lines[headerEnd...] { #expect(line.utf8.count <= 76, "body line too long: \(line)") }
    }

    @Test func plainTextMessage() throws {
        let date = Date(timeIntervalSince1970: 1_764_000_000)
        let raw = Self.sample(html: false).rendered(date: date, messageID: "fixed.id@hearth.example.com")
        Self.checkLines(raw)
        #expect(raw.hasPrefix("Date: Mon, 24 Nov 2025 16:00:00 +0000\r\nFrom: Hearth Demo <noreply@hearth.example.com>\r\n"))
        #expect(raw.contains("\r\nMessage-ID: <fixed.id@hearth.example.com>\r\n"))
        #expect(raw.contains("\r\nMIME-Version: 1.0\r\n"))
        #expect(raw.contains("\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.subject == "Reset your password for Hearth Demo")
        #expect(parsed.fromAddress == "noreply@hearth.example.com" && parsed.fromName == "Hearth Demo")
        #expect(parsed.to == "Ada Lovelace <ada@example.com>")
        #expect(parsed.replyTo == "support@example.com")
        #expect(parsed.contentType == "text/plain")
        #expect(parsed.headerNames == ["Date", "From", "To", "Reply-To", "Subject", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding"])
        let part = try #require(parsed.parts.first)
        #expect(part.defects.isEmpty)
        // The decoded body is the text exactly (LF line endings after Python's decoding), link and dots intact.
        #expect(part.content == Self.sample(html: false).text)
        #expect(part.content.contains(Self.link))
    }

    @Test func multipartAlternative() throws {
        let raw = Self.sample(html: true).rendered()
        Self.checkLines(raw)
        #expect(raw.contains("\r\nContent-Type: multipart/alternative;\r\n boundary=\"=_hearth_"))
        let boundaryLine = try #require(raw.components(separatedBy: "\r\n").first { $0.hasPrefix(" boundary=") })
        let boundary = String(boundaryLine.split(separator: "\"")[1])
        #expect(raw.components(separatedBy: "\r\n--" + boundary + "\r\n").count == 3)
        #expect(raw.hasSuffix("\r\n--" + boundary + "--\r\n"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.contentType == "multipart/alternative")
        #expect(parsed.parts.map(\.type) == ["text/plain", "text/html"])
        #expect(parsed.parts.allSatisfy { $0.charset == "utf-8" && $0.defects.isEmpty })
        #expect(parsed.parts[1].content.contains("href=\"\(Self.link)\""))
        #expect(parsed.parts[1].content.contains("— 👋"))
        // Random Message-ID at the sender's domain, different each time.
        #expect(parsed.messageID.hasSuffix("@hearth.example.com>"))
        #expect(parsed.messageID != (try PythonEmail.parse(Self.sample(html: true).rendered())).messageID)
    }

    @Test(arguments: [
        "Réinitialisez votre mot de passe",
        "パスワードの再設定 — " + String(repeating: "長い件名", count: 20),
        String(repeating: "A long ASCII subject ", count: 10),
        "Looks like =?UTF-8?B?encoded?= but is not",
        "Line\r\nBcc: injected@example.com",
        "😀👩‍👩‍👧‍👦 family",
    ])
    func subjectsSurviveEncoding(_ subject: String) throws {
        let raw = Self.sample(html: false, subject: subject).rendered()
        Self.checkLines(raw)
        #expect(!raw.contains("\r\nBcc:"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.defects.isEmpty)
        let expected = subject.replacingOccurrences(of: "\r\n", with: "  ")
        #expect(parsed.subject == expected, "\(raw.prefix(600))")
    }

    @Test func unicodeNamesAreEncodedWords() throws {
        let message = MailMessage(from: MailAddress(address: "noreply@example.com", name: "Équipe Hearth"),
                                  to: MailAddress(address: "zoe@example.org", name: "Zoë, \"Z\" Ñúñez"),
                                  subject: "Hi", text: "x")
        let raw = message.rendered()
        Self.checkLines(raw)
        #expect(raw.contains("From: =?UTF-8?B?"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.fromName == "Équipe Hearth")
        #expect(parsed.to.contains("zoe@example.org"))
        #expect(parsed.to.contains("Ñúñez"))
    }

    @Test func mostlyNonASCIIBodiesUseBase64() throws {
        let text = String(repeating: "Привет, мир! Это длинное письмо. ", count: 20)
        let raw = MailMessage(from: Self.from, to: MailAddress(address: "a@example.com"), subject: "x", text: text).rendered()
        Self.checkLines(raw)
        #expect(raw.contains("Content-Transfer-Encoding: base64\r\n"))
        let parsed = try PythonEmail.parse(raw)
        #expect(parsed.parts.first?.content == text)
    }

    @Test func quotedPrintableLines() {
        // Soft breaks keep lines within 76; "=", trailing spaces, controls and non-ASCII are encoded.
        let long = String(repeating: "abcdefghij", count: 20) + "=end "
        let lines = MIMEEncoding.quotedPrintableLines(Array(long.utf8))
        #expect(lines.count > 2)
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix("=") })
        #expect(lines.last!.hasSuffix("=3Dend=20"))
        #expect(MIMEEncoding.quotedPrintableLines(Array(".dot\r\nx\u{1}é".utf8)) == ["=2Edot", "x=01=C3=A9"])
        // A long line of encoded bytes never splits an =XX triplet.
        let encoded = MIMEEncoding.quotedPrintableLines(Array(String(repeating: "é", count: 100).utf8))
        #expect(encoded.allSatisfy { $0.utf8.count <= 76 && ($0.utf8.count - ($0.hasSuffix("=") ? 1 : 0)) % 3 == 0 })
    }

    @Test func lineEndingsAreNormalized() {
        #expect(MIMEEncoding.normalizedLineEndings("a\nb\r\nc\rd\n\n") == "a\r\nb\r\nc\r\nd\r\n\r\n")
    }

    @Test func dotStuffing() {
        let data = String(decoding: SMTPClient.dotStuffed(".start\r\nmiddle\r\n.\r\n..two\r\nend"), as: UTF8.self)
        #expect(data == "..start\r\nmiddle\r\n..\r\n...two\r\nend\r\n.\r\n")
        #expect(String(decoding: SMTPClient.dotStuffed("a\nb\n"), as: UTF8.self) == "a\r\nb\r\n.\r\n")
    }

    @Test func encodedWordsNeverSplitCharacters() {
        for text in ["é", String(repeating: "é", count: 40), String(repeating: "👩‍👩‍👧‍👦", count: 5), "a" + String(repeating: "\u{301}", count: 40)] {
            let words = MIMEEncoding.encodedWords(text)
            var decoded = Data()
            for word in words {
                #expect(word.count <= 75)
                let payload = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
                let bytes = Data(base64Encoded: String(payload))!
                #expect(String(data: bytes, encoding: .utf8) != nil, "a word splits a character")
                decoded.append(bytes)
            }
            #expect(String(decoding: decoded, as: UTF8.self) == text)
        }
    }
}
