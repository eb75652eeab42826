import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

/// The request context: Hummingbird's core storage, the client's address (for throttling), the body limit, and
/// the API's one codec (``HearthRequestDecoder`` / ``HearthResponseEncoder``).
public struct HearthRequestContext: RequestContext, RemoteAddressRequestContext, AuthRequestContext {
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

    /// The admin principal, on the admin and emulator route groups (set by ``AdminAuthenticator``).
    public var identity: AdminPrincipal?

    /// The client's address as a trusted reverse proxy reported it (`X-Forwarded-For`, see ``TrustedProxies``).
    public var forwardedClientAddress: String?

    /// The tenant the RPC route resolved (for the sign-in metrics' `tenant` label); shared by every copy of the context.
    let resolvedTenant = ResolvedTenant()

    /// The connection's peer address as text, or `unknown`.
    public var peerAddress: String { remoteAddress?.ipAddress ?? "unknown" }

    /// The client's IP address as text, or `unknown`: the peer, or behind a trusted proxy the address it forwarded.
    public var clientAddress: String { forwardedClientAddress ?? peerAddress }
}
