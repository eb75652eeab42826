import Crypto
import Foundation

/// The source of the current time, injectable so tests can move it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

    /// The system clock.
    public static let system = WallClock { Date() }

    /// The current time.
    public func now() -> Date { read() }
}

/// Random identifiers and secrets from the system's secure random generator.
public enum RandomID {
    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A Firebase-style user id: 28 alphanumeric characters.
    public static func localId() -> String { alphanumeric(count: 28) }

    /// `count` random alphanumeric characters.
    public static func alphanumeric(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphanumerics.randomElement(using: &generator)! })
    }

    /// `byteCount` random bytes, base64url without padding.
    public static func token(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 §5).
    public func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Lower-case hex.
    public var hexString: String { Self.hex(self) }

    /// Lower-case hex of `bytes`, without a formatter per byte (token hashes are on every refresh).
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Lower-case hex SHA-256 of the UTF-8 bytes (stored token hashes, Firebase's session-id hash).
    public var sha256Hex: String { Data.hex(SHA256.hash(data: Data(utf8))) }
}
