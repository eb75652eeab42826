import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// `GET /__/auth/handler` and `/emulator/auth/handler`: starts a federated sign-in, and receives the provider's
/// callback (registered redirect URI: `<public URL>/__/auth/handler`).
struct AuthHandlerController {
    let federation: FederationService
    let accounts: AccountService
    let maxBodySize: Int
    /// Rate limits (nil: off), attached to the handler's routes.
    let limiter: RateLimiter?

    func register(on router: Router<HearthRequestContext>) {
        let handler: @Sendable (Request, HearthRequestContext) async throws -> Response = { request, _ in
            var query: [String: String] = [:]
            for (key, value) in FormQuery(request.uri.query).fields { query[key] = value }
            let isCallback = query["state"] != nil && (query["code"] != nil || query["error"] != nil) && query[.apiKey] == nil
            let outcome = isCallback
                ? try await federation.handleCallback(query: query, callbackURL: federation.configuration.publicURL.url + request.uri.description)
                : try await federation.startSignIn(query: query)
            return Self.render(outcome)
        }
        let limited = router.group()
        if let limiter { limited.add(middleware: RateLimitMiddleware(limiter: limiter, endpoint: .authHandler)) }
        limited.get(RouterPath(AuthHandlerProtocol.handlerPath), use: handler)
        limited.get(RouterPath(AuthHandlerProtocol.emulatorHandlerPath), use: handler)
        router.get(RouterPath(AuthHandlerProtocol.callbackPath)) { _, _ in
            HTMLPage.message("Return to the app", "This address is opened by the app, not the browser. You can close this window.", tone: .info)
        }
    }

    static func render(_ outcome: HandlerOutcome) -> Response {
        switch outcome {
        case .redirect(let location):
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        case .page(let status, let title, let message):
            return HTMLPage.message(title, message, tone: status >= 400 ? .error : .info, status: HTTPResponse.Status(code: status))
        }
    }
}
