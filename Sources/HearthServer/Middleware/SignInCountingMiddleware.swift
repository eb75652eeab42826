import HearthStore
import HearthWire
import Hummingbird

/// Counts the refusals of one sign-in RPC's routes (the sign-ins themselves are counted where sessions are
/// issued). It sits outside the API-key check: a sign-in refused for its key counts too.
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
                if let refusal = HearthAPIError.answering(error) { await stats.countRefusal(kind, reason: refusal.code.rawValue) }
            }
            throw error
        }
    }
}
