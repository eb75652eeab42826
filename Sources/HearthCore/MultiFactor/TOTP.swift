import Crypto
import Foundation
import HearthWire

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
    /// Firebase's code length and period: 6 digits every 30 seconds.
    public static let defaultDigits = 6
    public static let defaultPeriod = 30

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

extension OTPAuthURI {
    /// The URI of a generator's secret.
    public static func totp(_ generator: TOTP, accountName: String, issuer: String) -> String {
        totp(secret: Base32.encode(generator.secret), accountName: accountName, issuer: issuer,
             algorithm: generator.algorithm.rawValue, digits: generator.digits, period: generator.period)
    }
}
