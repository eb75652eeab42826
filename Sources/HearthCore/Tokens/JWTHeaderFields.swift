import Foundation
import HearthWire

/// The JOSE header fields Hearth reads before verifying a JWT (`alg` to refuse unexpected algorithms, `kid` to
/// pick the key). The one header parser for Hearth's own ID tokens, custom tokens and providers' ID tokens.
/// Decoding it verifies nothing.
public struct JWTHeaderFields: Decodable, Sendable, Equatable {
    public var alg: String?
    public var kid: String?
    public var typ: String?

    private static let decoder = JSONDecoder()

    /// The header of a compact JWS (`header.payload.signature`); nil when `token` is not one or the header is
    /// not a JSON object. Non-string `alg`/`kid` values make it nil too.
    public init?(token: String) {
        // Exactly three parts: two dots (found directly: a generic split cost more than the header's decoding).
        let bytes = token.utf8
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
              let second = bytes[bytes.index(after: first)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[bytes.index(after: second)...].contains(UInt8(ascii: ".")),
              let data = Data(base64URLEncoded: Substring(token.utf8[..<first])),
              let decoded = try? Self.decoder.decode(JWTHeaderFields.self, from: data)
        else { return nil }
        self = decoded
    }
}
