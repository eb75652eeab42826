import HearthStore
import HearthWire
import Hummingbird
import Synchronization

/// Counts the refusals of one sign-in RPC's routes (the sign-ins themselves are counted where sessions are
/// issued). It sits outside the API-key check: a sign-in refused for its key counts too. A refusal is counted in the
/// tenant the route resolved (``ResolvedTenant``), or under the project when it came before the tenant was known.
struct SignInCountingMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let kind: SignInKind
    let stats: SignInStats

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            // A refusal is counted; a database that is away (or failing) refused nobody, and is not written to again.
            switch error {
            case StoreError.unavailable, StoreError.backend: break
            default:
                if let refusal = HearthAPIError.answering(error) {
                    await stats.countRefusal(kind, reason: refusal.code.rawValue, tenant: context.resolvedTenant.value ?? "")
                }
            }
            throw error
        }
    }
}

/// The tenant a request's scope was resolved to, noted by the RPC route for the middleware around it (which sees
/// the request's context before the route resolves its scope, and the error after). Only a tenant that exists is
/// ever noted, so a metric labelled with it stays bounded by the number of tenants.
final class ResolvedTenant: Sendable {
    private let tenant = Mutex<String?>(nil)

    /// The resolved tenant's id; nil: the project's own users, or not resolved (yet).
    var value: String? { tenant.withLock { $0 } }

    /// Notes the call's scope.
    func note(_ scope: Scope) { tenant.withLock { $0 = scope.tenantId } }
}
