import Foundation
import HearthCore
import Testing

/// Issue 41, item 2 (import ≥ 20 000 users/s): the fast paths an import's per-user checks take answer exactly as the
/// general paths they skip.
@Suite struct ImportFastPathTests {
    /// The general path of ``EmailAddress/canonical(_:)``, as it was before its ASCII fast path.
    static func generalCanonical(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().precomposedStringWithCanonicalMapping
    }

    /// Issue 41, item 2: every printable-ASCII address (mixed case, symbols) is canonical as the general path makes it;
    /// spaces, controls and non-ASCII still take the general path.
    @Test func asciiAddressesAreCanonicalAsBefore() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...40, using: &generator)
            let raw = String(decoding: (0..<length).map { _ in UInt8.random(in: 0x21...0x7E, using: &generator) }, as: UTF8.self)
            #expect(EmailAddress.canonical(raw) == Self.generalCanonical(raw), "\(raw)")
        }
        for raw in ["  Alice@Example.COM ", "RENÉ@example.com", "rene\u{301}@example.com", "a\tb@example.com", "Ünïcode@EXAMPLE.com", "", " "] {
            #expect(EmailAddress.canonical(raw) == Self.generalCanonical(raw), "\(raw)")
        }
        #expect(EmailAddress.canonical("Alice@Example.COM") == "alice@example.com")
        #expect(EmailAddress.normalize("Bob@Example.org") == "bob@example.org")
    }

    /// Issue 41, item 2: plain padded base64 decodes directly; URL-safe, unpadded, space-wrapped and invalid texts
    /// answer as before (decoded, or nil).
    @Test func base64DecodesAsBefore() {
        for count in [0, 1, 2, 3, 12, 16, 32, 64, 65] {
            let data = Data((0..<count).map { _ in UInt8.random(in: 0...255) })
            let plain = data.base64EncodedString()
            #expect(ImportedPasswordHash.decodeBase64(plain) == data)
            let urlSafe = plain.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(ImportedPasswordHash.decodeBase64(urlSafe) == data)
            #expect(ImportedPasswordHash.decodeBase64(plain.replacingOccurrences(of: "=", with: "")) == data)
            #expect(ImportedPasswordHash.decodeBase64(" \(plain)\n") == data)
        }
        for odd in ["ab=c", "a", "****", "abc=d===", "====", "QUJD\n", "QU JD", "QUJ-", "QUJ_", "Q===", ""] {
            #expect(ImportedPasswordHash.decodeBase64(odd) == Self.generalDecodeBase64(odd), "\(odd)")
        }
        #expect(ImportedPasswordHash.decodeBase64("****") == nil)
    }

    /// The general path of ``ImportedPasswordHash/decodeBase64(_:)``, as it was before its fast path.
    static func generalDecodeBase64(_ text: String) -> Data? {
        var normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.count % 4 != 0 { normalized.append("=") }
        return Data(base64Encoded: normalized)
    }
}
