import Foundation

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
        var parts = token.utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false).makeIterator()
        guard let header = parts.next(), parts.next() != nil, parts.next() != nil, parts.next() == nil,
              let data = Data(base64URLEncoded: Substring(header)),
              let decoded = try? Self.decoder.decode(JWTHeaderFields.self, from: data)
        else { return nil }
        self = decoded
    }
}

extension Data {
    /// Decodes base64url (RFC 4648 §5), with or without padding.
    public init?(base64URLEncoded text: some StringProtocol) {
        var value = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while value.count % 4 != 0 { value.append("=") }
        self.init(base64Encoded: value)
    }
}
