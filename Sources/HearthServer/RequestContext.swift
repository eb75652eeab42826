import Hummingbird
import Logging
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address (for throttling).
public struct HearthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address as text, or `unknown`.
    public var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
