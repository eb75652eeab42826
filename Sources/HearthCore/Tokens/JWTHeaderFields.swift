import Foundation
import HearthWire
import Synchronization

/// The JOSE header fields Hearth reads before verifying a JWT (`alg` to refuse unexpected algorithms, `kid` to
/// pick the key). The one header parser for Hearth's own ID tokens, custom tokens and providers' ID tokens.
/// Decoding it verifies nothing.
public struct JWTHeaderFields: Decodable, Sendable, Equatable {
    public var alg: String?
    public var kid: String?
    public var typ: String?

    private static let decoder = JSONDecoder()

    /// The last headers decoded, by their base64url text: a server sees the same few headers (one per signing key)
    /// on nearly every token, and comparing the text costs far less than decoding it again. A header's fields
    /// depend on its text only, so the answer is the same.
    private static let recent = Mutex<[(text: String, fields: JWTHeaderFields)]>([])
    private static let recentLimit = 8

    /// The header of a compact JWS (`header.payload.signature`); nil when `token` is not one or the header is
    /// not a JSON object. Non-string `alg`/`kid` values make it nil too.
    public init?(token: String) {
        // Exactly three parts: two dots, found in one pass over the bytes.
        guard let first = Self.headerLength(token) else { return nil }
        let text = Substring(token.utf8[..<token.utf8.index(token.utf8.startIndex, offsetBy: first)])
        if let known = Self.recent.withLock({ $0.first { $0.text == text }?.fields }) {
            self = known
            return
        }
        guard let data = Data(base64URLEncoded: text),
              let decoded = try? Self.decoder.decode(JWTHeaderFields.self, from: data)
        else { return nil }
        Self.recent.withLock { recent in
            if recent.count >= Self.recentLimit { recent.removeFirst() }
            recent.append((String(text), decoded))
        }
        self = decoded
    }

    /// The length in bytes of the header part when `token` has exactly three dot-separated parts, else nil.
    static func headerLength(_ token: String) -> Int? {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
            var first = -1
            var dots = 0
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: ".") {
                if dots == 0 { first = index }
                dots += 1
                if dots > 2 { return nil }
            }
            return dots == 2 ? first : nil
        }
        if let found = token.utf8.withContiguousStorageIfAvailable(scan) { return found }
        return Array(token.utf8).withUnsafeBufferPointer(scan)
    }
}
