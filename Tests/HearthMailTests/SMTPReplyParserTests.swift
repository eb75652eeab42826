import Foundation
import HearthFuzzing
@testable import HearthMail
import Testing

@Suite struct SMTPReplyParserTests {
    static func parse(_ text: String) throws -> [SMTPReply] {
        try SMTPReplyParser.parse(Array(text.utf8))
    }

    @Test func singleAndMultiLineReplies() throws {
        let replies = try Self.parse("220 mail.example.com ESMTP ready\r\n250-mail.example.com Hello\r\n250-SIZE 35882577\r\n250-STARTTLS\r\n250-AUTH=LOGIN\r\n250-auth PLAIN login\r\n250 8BITMIME\r\n")
        #expect(replies.count == 2)
        #expect(replies[0] == SMTPReply(code: 220, lines: ["mail.example.com ESMTP ready"]))
        #expect(replies[1].code == 250 && replies[1].lines.count == 6)
        let extensions = SMTPExtensions(ehlo: replies[1])
        #expect(extensions.supports("STARTTLS") && extensions.supports("8BITMIME") && extensions.supports("SIZE"))
        #expect(extensions.authMechanisms == ["LOGIN", "PLAIN"])
        #expect(!extensions.supports("HELLO"))
    }

    @Test func enhancedStatusCodes() throws {
        let replies = try Self.parse("550 5.1.1 <x@reject.test>: Recipient address rejected\r\n250 2.0.0\r\n451 4.3.0 try later\r\n250 5.1.1 class mismatch\r\n235 Authentication successful\r\n")
        #expect(replies[0].enhancedStatus == "5.1.1")
        #expect(replies[0].lines == ["<x@reject.test>: Recipient address rejected"])
        #expect(replies[0].text == "5.1.1 <x@reject.test>: Recipient address rejected")
        #expect(replies[1].enhancedStatus == "2.0.0" && replies[1].lines == [""])
        #expect(replies[2].enhancedStatus == "4.3.0")
        #expect(replies[3].enhancedStatus == nil, "the class must match the reply's first digit")
        #expect(replies[4].enhancedStatus == nil)
    }

    @Test func bareCodeAndLFOnlyLines() throws {
        let replies = try Self.parse("250\n354 go ahead\n")
        #expect(replies.map(\.code) == [250, 354])
    }

    @Test func partialInputWaitsForMore() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.feed(Array("250-first\r\n250 sec".utf8)).isEmpty)
        #expect(parser.isInsideReply && parser.bufferedByteCount == 7)
        let replies = try parser.feed(Array("ond\r\n".utf8))
        #expect(replies == [SMTPReply(code: 250, lines: ["first", "second"])])
        #expect(parser.bufferedByteCount == 0 && !parser.isInsideReply)
    }

    @Test(arguments: [
        "hello\r\n", "25\r\n", "2500 x\r\n", "250x\r\n", "650 nope\r\n", "199 low\r\n", "\r\n",
        "250-one\r\n251 two\r\n", "ABC def\r\n",
    ])
    func malformedRepliesAreProtocolErrors(_ text: String) {
        #expect(throws: MailError.self) { try Self.parse(text) }
    }

    /// Bounded: a line over 1000 bytes (even without a line break) and a reply over 100 lines are refused, so a
    /// hostile server cannot make the client buffer without limit.
    @Test func limits() throws {
        #expect(try Self.parse("250 " + String(repeating: "x", count: 996) + "\r\n").count == 1)
        #expect(throws: MailError.protocolError("a reply line is longer than 1000 bytes")) {
            try Self.parse("250 " + String(repeating: "x", count: 997) + "\r\n")
        }
        var parser = SMTPReplyParser()
        #expect(throws: MailError.self) { _ = try parser.feed(repeatElement(UInt8(ascii: "2"), count: 100_000)) }
        #expect(try Self.parse(String(repeating: "250-x\r\n", count: 99) + "250 end\r\n").first?.lines.count == 100)
        #expect(throws: MailError.protocolError("a reply has more than 100 lines")) {
            try Self.parse(String(repeating: "250-x\r\n", count: 100) + "250 end\r\n")
        }
    }

    @Test func textIsSafeForLogs() throws {
        let reply = try #require(try Self.parse("550 bad\u{1b}[31m\u{7f}red\r\n").first)
        #expect(reply.text == "bad?[31m?red")
        let long = try #require(try Self.parse("550 " + String(repeating: "y", count: 900) + "\r\n").first)
        #expect(long.text.count == 300)
    }

    /// Random bytes, and random mutations of real replies and addresses, never crash the reply or address parsers:
    /// each input parses (within the bounds) or throws the parser's MailError, and an accepted address renders
    /// safely (the `smtp` fuzz target's invariants, ``MailFuzz/check(_:)``).
    @Test func randomInputNeverCrashes() {
        var rng = SeededGenerator(seed: 20_261_124)
        let seeds = ["220 mail ESMTP\r\n", "250-a\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n", "550 5.1.1 no\r\n", "Ada <ada@example.com>",
                     "\"Q, N\" <q@example.com>", "x@[127.0.0.1]"].map { Array($0.utf8) }
        for round in 0..<20_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                input = seeds.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    let position = Int.random(in: 0...input.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: input.insert(UInt8.random(in: 0...255, using: &rng), at: position)
                    case 1 where !input.isEmpty: input.remove(at: min(position, input.count - 1))
                    case 2: input.insert(contentsOf: Array(["\r\n", "-", " ", "<", ">", "\"", "@", "\\", "\0", "250", "."].randomElement(using: &rng)!.utf8), at: position)
                    default: input.insert(contentsOf: input.prefix(Int.random(in: 0...20, using: &rng)), at: position)
                    }
                }
            }
            if let finding = MailFuzz.check(input) {
                Issue.record("\(finding) — input (base64): \(Data(input).base64EncodedString())")
                return
            }
        }
    }
}
