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
    /// Base64url without padding (RFC 4648 §5): the one implementation.
    public func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    public init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        self.init(base64Encoded: base64)
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
