import Foundation

/// An email address with an optional display name, as it appears in `From`, `To` and `Reply-To`.
///
/// The address itself is an RFC 5321 mailbox in ASCII (`local-part@domain`, the local part a dot-atom, the domain a
/// host name or `[IPv4]`); internationalized addresses (RFC 6531) are not supported. The display name is any text
/// without control characters and is encoded when the message is rendered, so neither part can inject a header.
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    /// The display name, if any (`Ada Lovelace`), unencoded.
    public var name: String?
    /// The mailbox, `local-part@domain`.
    public var address: String

    /// An address from its parts, taken as given: ``SMTPClient/send(_:)`` checks the address again before it is
    /// used, and rendering strips control characters from the name.
    public init(address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// Parses `Name <addr@host>`, `"Quoted, Name" <addr>` or a bare `addr@host`; throws MailError.invalidAddress for
    /// anything else (CR/LF/NUL anywhere, no @, over 254 bytes, ...). Header injection must be impossible.
    public init(parsing text: String) throws {
        self = try MailAddressParser.parse(text)
    }

    /// The address as a header would show it (the name quoted or encoded as needed): `Ada <ada@example.com>`.
    public var description: String {
        MIMEEncoding.addressHeaderValue(self)
    }

    /// The domain after the last `@` (empty if there is none).
    var domain: String {
        guard let at = address.lastIndex(of: "@") else { return "" }
        return String(address[address.index(after: at)...])
    }
}

/// The address grammar, kept small and separate so it can be fuzzed (`Fuzz/HearthFuzzing`).
package enum MailAddressParser {
    /// RFC 5321's limit on a forward path (254 octets for the mailbox itself).
    package static let maxAddressLength = 254
    /// RFC 5321's limit on a local part.
    package static let maxLocalPartLength = 64
    /// The longest input the parser looks at (a display name plus the address).
    package static let maxInputLength = 1000

    /// Parses `Name <addr>`, `"Quoted Name" <addr>`, `<addr>` or `addr`.
    package static func parse(_ text: String) throws(MailError) -> MailAddress {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxInputLength else { throw .invalidAddress("the text is longer than \(maxInputLength) bytes") }
        if let control = text.unicodeScalars.first(where: isControl) {
            throw .invalidAddress("\(quoted(text)) contains a control character (U+\(String(control.value, radix: 16, uppercase: true)))")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidAddress("the address is empty") }

        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            // A bare address.
            guard !trimmed.contains("<"), !trimmed.contains(">") else { throw .invalidAddress("\(quoted(text)) has unbalanced angle brackets") }
            try validateAddress(trimmed)
            return MailAddress(address: trimmed)
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        guard !address.contains("<"), !address.contains(">") else { throw .invalidAddress("\(quoted(text)) has nested angle brackets") }
        try validateAddress(address)
        let rawName = trimmed[..<open].trimmingCharacters(in: .whitespaces)
        guard !rawName.isEmpty else { return MailAddress(address: address) }
        let name = try displayName(rawName, in: text)
        return MailAddress(address: address, name: name.isEmpty ? nil : name)
    }

    /// Whether `address` is a mailbox this module sends to (the check ``SMTPClient`` repeats before each use).
    package static func isValidAddress(_ address: String) -> Bool {
        (try? validateAddress(address)) != nil
    }

    /// A display name: a quoted string (backslash escapes) or plain text without `"`, `<`, `>`.
    static func displayName(_ raw: String, in text: String) throws(MailError) -> String {
        guard raw.hasPrefix("\"") else {
            guard !raw.contains("\""), !raw.contains("<"), !raw.contains(">") else {
                throw .invalidAddress("\(quoted(text)): a display name with quotes or angle brackets must be quoted as a whole")
            }
            return collapsingWhitespace(raw)
        }
        var name = ""
        var escaped = false
        var closed = false
        for character in raw.dropFirst() {
            if closed { throw .invalidAddress("\(quoted(text)) has text after the quoted name") }
            if escaped {
                name.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                name.append(character)
            }
        }
        guard closed, !escaped else { throw .invalidAddress("\(quoted(text)) has an unterminated quoted name") }
        return collapsingWhitespace(name)
    }

    /// Checks an addr-spec: `dot-atom@domain`, ASCII, within RFC 5321's lengths.
    static func validateAddress(_ address: String) throws(MailError) {
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty else { throw .invalidAddress("the address is empty") }
        guard bytes.count <= maxAddressLength else { throw .invalidAddress("the address is longer than \(maxAddressLength) bytes") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw .invalidAddress("\(quoted(address)) contains spaces, control or non-ASCII characters")
        }
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { throw .invalidAddress("\(quoted(address)) has no @") }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= maxLocalPartLength else {
            throw .invalidAddress("\(quoted(address)): the part before @ must have 1 to \(maxLocalPartLength) characters")
        }
        guard isDotAtom(local) else { throw .invalidAddress("\(quoted(address)): the part before @ has characters or dots that are not allowed") }
        guard isDomain(domain) else { throw .invalidAddress("\(quoted(address)): \(quoted(String(decoding: domain, as: UTF8.self))) is not a domain name") }
    }

    /// RFC 5322 atext: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
        }
    }

    static func isDotAtom(_ bytes: ArraySlice<UInt8>) -> Bool {
        let dot = UInt8(ascii: ".")
        guard bytes.first != dot, bytes.last != dot else { return false }
        var previousDot = false
        for byte in bytes {
            if byte == dot {
                if previousDot { return false }
                previousDot = true
            } else {
                guard isAtext(byte) else { return false }
                previousDot = false
            }
        }
        return true
    }

    /// A host name (labels of letters, digits and inner hyphens, 1–63 bytes each) or an IPv4 literal `[a.b.c.d]`.
    static func isDomain(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        if bytes.first == UInt8(ascii: "[") {
            guard bytes.last == UInt8(ascii: "]") else { return false }
            let parts = bytes.dropFirst().dropLast().split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            return parts.count == 4 && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    && Int(String(decoding: part, as: UTF8.self)).map { $0 <= 255 } == true
            }
        }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return false }
            return label.allSatisfy { byte in
                byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            }
        }
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func collapsingWhitespace(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// `text` for an error message: control characters escaped, at most 80 characters.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(80) {
            out += isControl(scalar) ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
        }
        return "\"" + out + (text.unicodeScalars.count > 80 ? "…" : "") + "\""
    }
}
