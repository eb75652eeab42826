import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) over HOTP (RFC 4226): the second factor Firebase calls TOTP.
///
/// The server keeps the secret and, per factor, the last time step it accepted; ``verify(_:at:adjacentIntervals:after:)``
/// answers the step a code matched so that a code is accepted once.
public struct TOTP: Sendable, Equatable {
    /// The HMAC's hash (`hashingAlgorithm` on the wire).
    public enum Algorithm: String, Sendable, CaseIterable, Codable {
        /// HMAC-SHA-1, the default and what authenticator apps support everywhere.
        case sha1 = "SHA1"
        /// HMAC-SHA-256.
        case sha256 = "SHA256"
        /// HMAC-SHA-512.
        case sha512 = "SHA512"
    }

    /// The digits a code may have.
    public static let digitRange = 6...8
    /// The adjacent intervals a project may allow (Google's range).
    public static let adjacentIntervalRange = 0...10
    /// Bytes of a generated secret (160 bits, RFC 4226's recommendation).
    public static let secretByteCount = 20

    /// The shared secret.
    public let secret: Data
    /// The HMAC's hash.
    public let algorithm: Algorithm
    /// Digits per code, 6…8.
    public let digits: Int
    /// Seconds per time step.
    public let period: Int

    /// A generator; `nil` for an empty secret, digits outside 6…8 or a period below one second.
    public init?(secret: Data, algorithm: Algorithm = .sha1, digits: Int = 6, period: Int = 30) {
        guard !secret.isEmpty, Self.digitRange.contains(digits), period >= 1 else { return nil }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    /// A new random secret (``secretByteCount`` bytes from the system's secure generator).
    public static func generateSecret(byteCount: Int = TOTP.secretByteCount) -> Data {
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: byteCount * 8))
        return key.withUnsafeBytes { Data($0) }
    }

    /// The time step of a moment: whole periods since the Unix epoch (RFC 6238's T, with T0 = 0).
    public func timeStep(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code of a moment.
    public func code(at date: Date) -> String { code(forStep: timeStep(at: date)) }

    /// The code of a time step.
    public func code(forStep step: Int64) -> String {
        Self.hotp(secret: secret, counter: UInt64(bitPattern: step), algorithm: algorithm, digits: digits)
    }

    /// RFC 4226's HOTP value of a counter: HMAC, dynamic truncation, the low `digits` decimal digits, zero-padded.
    public static func hotp(secret: Data, counter: UInt64, algorithm: Algorithm = .sha1, digits: Int = 6) -> String {
        let message = withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8] = switch algorithm {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }

    /// Checks a code against the steps from `adjacentIntervals` before the current one to as many after it
    /// (clamped to 0…10), skipping steps at or before `lastUsedStep` (a code is accepted once). Answers the
    /// matched step — the latest one, should a code match two — or `nil`.
    ///
    /// The code must be exactly ``digits`` ASCII digits (no spaces, no other scripts' digits). Every candidate
    /// in the window is computed and compared in constant time, without stopping at a match, so the answer's
    /// timing does not tell how many digits matched.
    public func verify(_ code: String, at date: Date, adjacentIntervals: Int, after lastUsedStep: Int64? = nil) -> Int64? {
        let typed = Array(code.utf8)
        guard typed.count == digits, typed.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let window = Int64(min(max(adjacentIntervals, Self.adjacentIntervalRange.lowerBound), Self.adjacentIntervalRange.upperBound))
        let now = timeStep(at: date)
        var matched: Int64?
        for step in (now - window)...(now + window) {
            let equal = ConstantTime.equals(Array(self.code(forStep: step).utf8), typed)
            if equal, lastUsedStep.map({ step > $0 }) ?? true { matched = step }
        }
        return matched
    }
}

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether two byte strings are equal; the time depends only on their lengths.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // swift-crypto's SymmetricKey compares its bytes in constant time.
        return SymmetricKey(data: lhs) == SymmetricKey(data: rhs)
    }
}

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
                            algorithm: TOTP.Algorithm = .sha1, digits: Int = 6, period: Int = 30) -> String {
        let label = issuer.isEmpty ? encode(accountName) : "\(encode(issuer)):\(encode(accountName))"
        var query = ["secret=\(encode(secret))"]
        if !issuer.isEmpty { query.append("issuer=\(encode(issuer))") }
        query.append("algorithm=\(algorithm.rawValue)")
        query.append("digits=\(digits)")
        query.append("period=\(period)")
        return "otpauth://totp/\(label)?\(query.joined(separator: "&"))"
    }

    /// The URI of a generator's secret.
    public static func totp(_ generator: TOTP, accountName: String, issuer: String) -> String {
        totp(secret: Base32.encode(generator.secret), accountName: accountName, issuer: issuer,
             algorithm: generator.algorithm, digits: generator.digits, period: generator.period)
    }
}
