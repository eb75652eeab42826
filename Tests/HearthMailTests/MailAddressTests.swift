import Foundation
import HearthMail
import Testing

@Suite struct MailAddressTests {
    @Test(arguments: [
        ("ada@example.com", "ada@example.com", nil),
        ("  ada@example.com  ", "ada@example.com", nil),
        ("<ada@example.com>", "ada@example.com", nil),
        ("Ada Lovelace <ada@example.com>", "ada@example.com", "Ada Lovelace"),
        ("Ada   Lovelace<ada@example.com>", "ada@example.com", "Ada Lovelace"),
        ("\"Lovelace, Ada\" <ada@example.com>", "ada@example.com", "Lovelace, Ada"),
        ("\"Ada \\\"the Countess\\\" L.\" <ada@example.com>", "ada@example.com", "Ada \"the Countess\" L."),
        ("Zoë Ñúñez <zoe@example.org>", "zoe@example.org", "Zoë Ñúñez"),
        ("first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk", nil),
        ("o'brien@example.com", "o'brien@example.com", nil),
        ("user@localhost", "user@localhost", nil),
        ("user@[127.0.0.1]", "user@[127.0.0.1]", nil),
        ("\"\" <ada@example.com>", "ada@example.com", nil),
    ] as [(String, String, String?)])
    func parsesGoodForms(_ text: String, _ address: String, _ name: String?) throws {
        let parsed = try MailAddress(parsing: text)
        #expect(parsed.address == address)
        #expect(parsed.name == name)
    }

    @Test(arguments: [
        "", "   ", "ada", "ada@", "@example.com", "ada@@example.com", "ada@example..com", ".ada@example.com",
        "ada.@example.com", "a..b@example.com", "ada@-example.com", "ada@example-.com", "ada@exa_mple.com",
        "ada example@example.com", "Ada <ada@example.com", "Ada ada@example.com>", "Ada <<ada@example.com>>",
        "Ada <ada@example.com> trailing", "\"Ada <ada@example.com>", "\"Ada\" x <ada@example.com>", "A\"da <ada@example.com>",
        "zoë@example.com", "ada@exämple.com", "ada@[300.1.1.1]", "ada@[1.2.3]",
        String(repeating: "a", count: 65) + "@example.com",
        "a@" + String(repeating: "b", count: 64) + ".com",
        String(repeating: "a", count: 60) + "@" + Array(repeating: String(repeating: "d", count: 60), count: 4).joined(separator: ".") + ".com",
    ])
    func refusesBadForms(_ text: String) {
        #expect(throws: MailError.self, "\(text)") { try MailAddress(parsing: text) }
    }

    /// CR, LF, NUL and other controls anywhere (name, address, around them) are refused: no header injection.
    @Test(arguments: [
        "ada@example.com\r\nBcc: everyone@example.com",
        "ada@example.com\nBcc: everyone@example.com",
        "Ada\r\nBcc: x@example.com <ada@example.com>",
        "\"Ada\r\nBcc: x@example.com\" <ada@example.com>",
        "Ada <ada@example.com\r\n>",
        "ada\u{0}@example.com",
        "Ada\u{0} <ada@example.com>",
        "ada@example.com\r",
        "Ada\u{85}Bcc <ada@example.com>",
        "Ada\u{2028} <ada@example.com>",
        "Ada\t\u{1b}[31m <ada@example.com>",
    ])
    func refusesControlCharacters(_ text: String) throws {
        let error = try #require(throws: MailError.self) { try MailAddress(parsing: text) }
        guard case .invalidAddress(let detail) = error else { Issue.record("\(error)"); return }
        // The message shows the input with its controls escaped, never raw.
        #expect(!detail.contains("\r") && !detail.contains("\n") && !detail.contains("\u{0}"))
        #expect(!error.description.contains("\r") && !error.description.contains("\n"))
    }

    @Test func refusesOverlongInput() {
        #expect(throws: MailError.self) { try MailAddress(parsing: String(repeating: "x", count: 2000) + " <a@b.c>") }
        // 254 bytes is the limit of the address itself.
        let local = String(repeating: "a", count: 64)
        let labels = Array(repeating: String(repeating: "d", count: 60), count: 3).joined(separator: ".")
        let ok = local + "@" + labels + "." + String(repeating: "e", count: 254 - local.count - 1 - labels.count - 1)
        #expect(ok.utf8.count == 254)
        #expect((try? MailAddress(parsing: ok)) != nil)
        #expect(throws: MailError.self) { try MailAddress(parsing: ok + "e") }
    }

    /// The description is the header form; parsing it again gives the same address (names with commas, quotes,
    /// Unicode included).
    @Test(arguments: ["Ada Lovelace", "Lovelace, Ada", "Ada \"Countess\" Lovelace", "Zoë Ñúñez", "名前 テスト", "a\\b", "Ada (the first)"])
    func descriptionRoundTrips(_ name: String) throws {
        let address = MailAddress(address: "ada@example.com", name: name)
        let header = address.description
        #expect(!header.contains("\r") || header.contains("\r\n "))
        if name.unicodeScalars.allSatisfy(\.isASCII) {
            let parsed = try MailAddress(parsing: header)
            #expect(parsed == address, "\(header)")
        } else {
            #expect(header.hasPrefix("=?UTF-8?B?"), "\(header)")
            #expect(header.hasSuffix(" <ada@example.com>"))
        }
    }

    @Test func unicodeNameBecomesEncodedWords() throws {
        let address = try MailAddress(parsing: "Zoë <zoe@example.org>")
        #expect(address.description == "=?UTF-8?B?Wm/Dqw==?= <zoe@example.org>")
        // A long name is split into several words on folded lines, never inside a character.
        let long = MailAddress(address: "a@b.co", name: String(repeating: "ж", count: 60))
        let words = long.description.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        for word in words.dropLast() { #expect(word.count <= 75 && word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?=")) }
    }

    /// A name or address set directly (not parsed) still cannot inject a header when rendered.
    @Test func directValuesAreSanitizedWhenRendered() {
        let address = MailAddress(address: "ada@example.com>\r\nBcc: x@example.com", name: "Ada\r\nBcc: y@example.com")
        let header = address.description
        #expect(!header.contains("\r\nBcc"))
        #expect(!header.contains("\n"))
    }
}
