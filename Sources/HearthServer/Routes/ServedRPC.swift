import HearthCore
import HearthWire
import Hummingbird

/// The services an RPC is answered by. A class: the services are large structs (each holds the configuration), and
/// every call's ``RPCCall`` holds them — copying them by value retained every field of each on every request.
final class HearthServices: Sendable {
    let accounts: AccountService
    let federation: FederationService
    let admin: AdminService
    let emailActions: EmailActionService

    init(accounts: AccountService, federation: FederationService, admin: AdminService, emailActions: EmailActionService) {
        self.accounts = accounts
        self.federation = federation
        self.admin = admin
        self.emailActions = emailActions
    }

    var configuration: HearthServerConfiguration { accounts.configuration }
    /// Resolves a call's scope (``Scopes/resolve(tenantId:)``).
    var scopes: Scopes { accounts.scopes }
}

/// One call of an RPC: the services, and the HTTP request and context it came in (client address, headers,
/// the admin principal its route group's authenticator put there).
struct RPCCall: Sendable {
    let services: HearthServices
    /// What the call acts on, resolved by the route from the request's `tenantId`.
    let scope: Scope
    let request: Request
    let context: HearthRequestContext

    var accounts: AccountService { services.accounts }
    var federation: FederationService { services.federation }
    var admin: AdminService { services.admin }
    var emailActions: EmailActionService { services.emailActions }

    /// The admin principal of an admin-group call (set by ``AdminAuthenticator``).
    func principal() throws -> AdminPrincipal { try context.adminPrincipal() }
}

/// An RPC of ``RPCCatalog`` as the server answers it: the service method it goes to, and the route's extras.
/// Each conformance sits beside its service method.
protocol ServedRPC: WireRPC {
    /// Answers `request`.
    static func serve(_ request: Self, _ call: RPCCall) async throws -> Response
    /// The rate limit in front of the route; nil: none.
    static var rateLimit: RateLimitedEndpoint? { get }
    /// The kind of sign-in the RPC is, counted when it is refused; nil: not a sign-in.
    static var signInKind: SignInKind? { get }
}

extension ServedRPC {
    static var rateLimit: RateLimitedEndpoint? { nil }
    static var signInKind: SignInKind? { nil }
}
