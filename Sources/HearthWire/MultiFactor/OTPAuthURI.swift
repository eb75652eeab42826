import Foundation

/// Base32 (RFC 4648 §6), the alphabet TOTP secrets travel in.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes; without `=` padding unless asked (otpauth URIs and Firebase's `sharedSecretKey` have none).
    public static func encode(_ data: Data, padding: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((data.count * 8 + 4) / 5 + 8)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        if padding { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base32 in either case, with or without trailing `=` padding; ASCII spaces (as apps group secrets)
    /// are ignored. `nil` for any other character, padding inside the text, or a length no encoding produces.
    public static func decode(_ text: String) -> Data? {
        var symbols: [UInt8] = []
        var sawPadding = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: " ") { continue }
            if byte == UInt8(ascii: "=") { sawPadding = true; continue }
            if sawPadding { return nil }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = byte - UInt8(ascii: "2") + 26
            default: return nil
            }
            symbols.append(value)
        }
        // 8 symbols carry 5 bytes; a final group of 1, 3 or 6 symbols is no encoding's output.
        guard ![1, 3, 6].contains(symbols.count % 8) else { return nil }
        var out = Data()
        out.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for value in symbols {
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}

/// The `otpauth://` URI authenticator apps scan (Google Authenticator's Key URI Format): Firebase's
/// `TOTPSecret.generateQRCodeURL(withAccountName:issuer:)`, percent-encoded so that spaces, colons and non-ASCII
/// names survive.
public enum OTPAuthURI {
    /// Whether a byte stays as it is: RFC 3986's unreserved set, and `@` (allowed in a path segment and in a query,
    /// and what account names — email addresses — are full of).
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes the UTF-8 bytes outside the unreserved set (a space is `%20`, a colon `%3A`).
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isAllowed(byte) {
                out.append(byte)
            } else {
                out.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=…&digits=…&period=…`; without an issuer
    /// (empty) the label is the account alone and the `issuer` parameter is left out.
    public static func totp(secret: String, accountName: String, issuer: String,
                            algorithm: String = "SHA1", digits: Int = 6, period: Int = 30) -> String {
        let label = issuer.isEmpty ? encode(accountName) : "\(encode(issuer)):\(encode(accountName))"
        var query = ["secret=\(encode(secret))"]
        if !issuer.isEmpty { query.append("issuer=\(encode(issuer))") }
        query.append("algorithm=\(encode(algorithm))")
        query.append("digits=\(digits)")
        query.append("period=\(period)")
        return "otpauth://totp/\(label)?\(query.joined(separator: "&"))"
    }
}
