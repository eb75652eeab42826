import HearthWire
import Synchronization

/// The server's externally visible base URL (`http://127.0.0.1:9099`, `https://auth.example.com`), shared by the
/// auth handler (its `redirect_uri`) and the dev IdPs. Settable once the listening port is known (port 0).
public final class PublicBaseURL: Sendable {
    private let value: Mutex<String>
    /// Derived from the listening address rather than given by the operator (`--public-url`): a server started
    /// on port 0 replaces it with the port actually bound; an operator's URL is never replaced.
    public let isDerived: Bool

    public init(_ url: String, derived: Bool = false) {
        value = Mutex(Self.trimmed(url))
        isDerived = derived
    }

    /// The base URL without a trailing slash.
    public var url: String { value.withLock { $0 } }

    public func set(_ url: String) {
        value.withLock { $0 = Self.trimmed(url) }
    }

    /// `<base>/__/auth/handler`: the redirect URI to register at providers.
    public var authHandlerURL: String { url + AuthHandlerProtocol.handlerPath }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
