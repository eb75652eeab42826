import Crypto
import Foundation

/// SHA-256 as the protocol uses it (session-id hashes, token hashes, PKCE): the one implementation.
public enum WireDigest {
    /// Lower-case hex SHA-256 of the UTF-8 bytes.
    public static func sha256Hex(_ text: String) -> String { Data(SHA256.hash(data: Data(text.utf8))).hexString }

    /// The raw SHA-256 of the UTF-8 bytes.
    public static func sha256(_ text: String) -> Data { Data(SHA256.hash(data: Data(text.utf8))) }

    /// Lower-case hex SHA-256 of bytes (passkey challenges are stored by it).
    public static func sha256Hex(bytes: some Sequence<UInt8>) -> String { Data(SHA256.hash(data: Data(bytes))).hexString }
}

extension Data {
    private static let base64URLAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding (RFC 4648 §5): the one implementation. Encoded byte by byte (every token's
    /// three parts and every refresh token go through it; Foundation's string replacing cost a refresh ~1 M
    /// instructions on Linux).
    public func base64URLEncodedString() -> String {
        let alphabet = Self.base64URLAlphabet
        var out: [UInt8] = []
        out.reserveCapacity((count * 4 + 2) / 3)
        withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var index = 0
            while index + 3 <= raw.count {
                let value = UInt32(raw[index]) << 16 | UInt32(raw[index + 1]) << 8 | UInt32(raw[index + 2])
                out.append(alphabet[Int(value >> 18)])
                out.append(alphabet[Int(value >> 12 & 0x3F)])
                out.append(alphabet[Int(value >> 6 & 0x3F)])
                out.append(alphabet[Int(value & 0x3F)])
                index += 3
            }
            switch raw.count - index {
            case 1:
                let value = UInt32(raw[index]) << 16
                out.append(alphabet[Int(value >> 18)])
                out.append(alphabet[Int(value >> 12 & 0x3F)])
            case 2:
                let value = UInt32(raw[index]) << 16 | UInt32(raw[index + 1]) << 8
                out.append(alphabet[Int(value >> 18)])
                out.append(alphabet[Int(value >> 12 & 0x3F)])
                out.append(alphabet[Int(value >> 6 & 0x3F)])
            default: break
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url with or without padding (standard base64's `+` and `/` are accepted too).
    public init?(base64URLEncoded text: some StringProtocol) {
        self.init(base64URLEncodedBytes: text.utf8)
    }

    /// Decodes base64url bytes (ASCII) with or without padding, as ``init(base64URLEncoded:)``.
    public init?(base64URLEncodedBytes text: some Collection<UInt8>) {
        var bytes = Array(text)
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "-"): bytes[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): bytes[index] = UInt8(ascii: "/")
            default: break
            }
        }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        self.init(base64Encoded: Data(bytes))
    }

    /// Lower-case hex, without a formatter per byte (token hashes are computed on every refresh).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Lower-case hex SHA-256 of the UTF-8 bytes (stored token hashes, Firebase's session-id hash).
    public var sha256Hex: String { WireDigest.sha256Hex(self) }
}

extension WireDigest {
    /// PKCE's S256 code challenge (RFC 7636): base64url of the verifier's SHA-256.
    public static func pkceChallenge(verifier: String) -> String { sha256(verifier).base64URLEncodedString() }
}
