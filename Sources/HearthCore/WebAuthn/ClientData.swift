import Foundation
import HearthWire

/// A ceremony's collected client data (WebAuthn §5.8.1), parsed from the raw clientDataJSON bytes (hash those raw
/// bytes, never a re-serialisation). Members other than the ones below (e.g. `tokenBinding`, Android's
/// `androidPackageName`) are ignored.
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge bytes (sent as unpadded base64url).
    public let challenge: Data
    /// The origin of the page or app that ran the ceremony.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin iframe (absent counts as false).
    public let crossOrigin: Bool
    /// The top-level origin when it differs from `origin`.
    public let topOrigin: String?

    /// The longest clientDataJSON accepted.
    public static let maxSize = 64 * 1024

    private struct Wire: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
    }

    /// Parses clientDataJSON: a UTF-8 JSON object with string `type`, `challenge` (base64url, no padding) and
    /// `origin`, optional boolean `crossOrigin` and string `topOrigin`.
    public init(json: Data) throws(WebAuthnError) {
        guard json.count <= Self.maxSize else { throw .invalidClientData("\(json.count) bytes") }
        guard String(validating: json, as: UTF8.self) != nil else { throw .invalidClientData("not UTF-8") }
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: json) } catch { throw .invalidClientData("not a client data object: \(error)") }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard wire.challenge.utf8.allSatisfy(alphabet.contains), wire.challenge.utf8.count % 4 != 1,
              let challenge = Data(base64URLEncoded: wire.challenge), !challenge.isEmpty
        else { throw .invalidClientData("challenge is not base64url") }
        type = wire.type
        self.challenge = challenge
        origin = wire.origin
        crossOrigin = wire.crossOrigin ?? false
        topOrigin = wire.topOrigin
    }
}
