import HTTPTypes
import HearthCore
import HearthWire
import Hummingbird

/// Registers every RPC of ``RPCCatalog`` on the router, each in its route group's middleware:
///
/// - client API and secure token: sign-in counting (sign-ins only) → the API key → the rate limit (limited RPCs);
/// - admin: ``AdminAuthenticator`` (the principal on the context, the project checked) → the admin body limit;
/// - emulator: ``EmulatorAuthenticator`` (the emulator credential, where the configuration allows it).
///
/// A `GET` or `DELETE` RPC reads its request from the query string; every other one from its JSON or form body.
/// The call's ``Scope`` is resolved here, once, from the request's `tenantId` (``TenantScopedRequest``), before the
/// service runs: the one place a tenant is decided.
struct RPCRoutes {
    let services: HearthServices
    let router: Router<HearthRequestContext>
    let apiKeys: APIKeyMiddleware
    let stats: SignInStats
    let limiter: RateLimiter?
    let authenticator: AdminAuthenticator
    let emulatorAuthenticator: EmulatorAuthenticator
    /// The admin group's body limit (a 1000-user import is large).
    let adminBodyLimit: Int

    /// Registers the catalog; returns the RPCs the server has no service method for (a test expects none).
    @discardableResult
    func register(_ catalog: [any WireRPC.Type] = RPCCatalog.all) -> [String] {
        var unserved: [String] = []
        for rpc in catalog {
            guard let served = rpc as? any ServedRPC.Type else {
                unserved.append(rpc.method.description)
                continue
            }
            register(served)
        }
        return unserved
    }

    /// The route group an RPC's routes go in.
    func group<R: ServedRPC>(for rpc: R.Type) -> RouterGroup<HearthRequestContext> {
        switch R.method.group {
        case .clientAPI, .secureToken:
            var group = router.group()
            if let kind = R.signInKind { group = group.add(middleware: SignInCountingMiddleware(kind: kind, stats: stats)) }
            group = group.add(middleware: apiKeys)
            if let endpoint = R.rateLimit, let limiter { group = group.add(middleware: RateLimitMiddleware(limiter: limiter, endpoint: endpoint)) }
            return group
        case .admin:
            return router.group().add(middleware: authenticator).add(middleware: BodyLimitMiddleware(maxBodySize: adminBodyLimit))
        case .emulator:
            return router.group().add(middleware: emulatorAuthenticator)
        }
    }

    func register<R: ServedRPC>(_ rpc: R.Type) {
        let services = services
        let handler: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<R.Response> = { request, context in
            let decoded: R = request.method == .get || request.method == .delete
                ? try HearthRequestDecoder.decodeForm(R.self, text: request.uri.query ?? "")
                : try await request.decode(as: R.self, context: context)
            var scope = try await services.scopes.resolve(tenantId: try Self.tenant(of: decoded, request: request, context: context,
                                                                                 byToken: R.method.group != .admin))
            scope.client = ClientFacts(request: request, context: context)
            context.resolvedTenant.note(scope)
            return JSONResponse(try await R.serve(decoded, RPCCall(services: services, scope: scope, request: request, context: context)))
        }
        let group = group(for: rpc)
        for route in R.method.routes {
            for name in route.httpMethods {
                group.on(RouterPath(route.path), method: HTTPRequest.Method(name)!, use: handler)
            }
        }
    }

    /// The tenant a request is for: an admin path's `{tenant}`; else the request's `tenantId`; else, when `byToken`
    /// (client RPCs: the SDKs name the tenant on sign-ins only) and the request carries an ID token, the token's
    /// `firebase.tenant` (checked again once the token is verified). Admin RPCs are in their path's tenant, so an
    /// ID token of another tenant is refused there. A body `tenantId` that differs from the path's is
    /// `TENANT_ID_MISMATCH`.
    static func tenant(of decoded: some Decodable, request: Request, context: HearthRequestContext, byToken: Bool) throws -> String? {
        let named = ((decoded as? any TenantScopedRequest)?.tenantId).flatMap { $0.isEmpty ? nil : $0 }
        if let path = context.parameters.get("tenant") {
            if let named, named != path {
                throw HearthAPIError(.tenantIdMismatch, "the request's tenantId \"\(Scope.shown(named))\" is not the tenant of its path, \"\(Scope.shown(path))\"")
            }
            return path
        }
        if let named { return named }
        guard byToken, let carrying = decoded as? any IDTokenScopedRequest else { return nil }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return (carrying.idToken ?? bearer).flatMap(UnverifiedTenantClaim.of)
    }
}

extension ClientFacts {
    /// The facts of an HTTP request: the client's address (after trusted proxies), `User-Agent`, `X-Firebase-Locale`.
    init(request: Request, context: HearthRequestContext) {
        let locale = HTTPField.Name("X-Firebase-Locale").flatMap { request.headers[$0] }
        self.init(ipAddress: context.clientAddress, userAgent: request.headers[.userAgent] ?? "", locale: locale)
    }
}
