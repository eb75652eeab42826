import Hummingbird
import Logging
import NIOCore

/// The request context: Hummingbird's core storage, the client's address (for throttling), the body limit, and
/// the API's one codec (``HearthRequestDecoder`` / ``HearthResponseEncoder``).
public struct HearthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Largest accepted request body; set from the configuration by the router.
    public var maxUploadSize: Int = 256 * 1024

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    public var requestDecoder: HearthRequestDecoder { HearthRequestDecoder() }
    public var responseEncoder: HearthResponseEncoder { HearthResponseEncoder() }

    /// The client's IP address as text, or `unknown`.
    public var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
