import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// Refuses requests over their rate limit: `429` with `TOO_MANY_ATTEMPTS_TRY_LATER` in the Google envelope (an
/// HTML page for the auth handler, which a browser shows) and `Retry-After`.
///
/// It is a route-group middleware: the routes of one limited endpoint are registered in a group that carries it,
/// so it runs for exactly the requests the router matched to those routes — whatever the path's spelling (a
/// trailing or doubled slash reaches the same route, and the same limit), never by comparing path text.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let limiter: RateLimiter
    let endpoint: RateLimitedEndpoint

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let wait = await limiter.admit(endpoint, address: context.clientAddress) else { return try await next(request, context) }
        var response: Response
        if endpoint == .authHandler {
            response = HTMLPage.message("Too many sign-in attempts", "Too many sign-ins were started from your network. Wait \(wait) seconds, then try again.",
                                        tone: .error, status: .tooManyRequests, badge: ServerErrorCode.tooManyAttempts.rawValue)
        } else {
            let error = HearthAPIError(.tooManyAttempts, "Too many requests from this client or project. Try again in \(wait) seconds.", httpStatus: 429)
            response = try HearthResponseEncoder.response(error.envelope, status: .tooManyRequests)
        }
        response.headers[.retryAfter] = "\(wait)"
        return response
    }
}
