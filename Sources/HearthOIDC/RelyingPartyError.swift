/// Why a federated sign-in failed. The message is safe to show: it never holds a code, token or secret.
public struct RelyingPartyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure classes; the server maps all of them to `INVALID_IDP_RESPONSE` with the message.
    public enum Kind: String, Sendable, Equatable {
        case discovery
        case tokenExchange
        case idToken
        case profile
        case configuration
        /// The provider refused a stored refresh token (`invalid_grant`): it is dead, a new sign-in is needed.
        case refreshRefused
        /// A native ID token's nonce is not the SHA-256 of the raw nonce the app sent.
        case nonce
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func idToken(_ message: String) -> RelyingPartyError { RelyingPartyError(.idToken, message) }
}
