import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird
import NIOCore

/// `GET /__/auth/handler` and `/emulator/auth/handler`: starts a federated sign-in, and receives the provider's
/// callback (registered redirect URI: `<public URL>/__/auth/handler`). `POST` on the same paths receives Sign in
/// with Apple's `response_mode=form_post` callback (`code`, `state`, `user`, `error` as a form).
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
        // Apple's form_post: a cross-site POST, so no cookie binds it; the single-use state does (bound to the
        // app's session id, which signInWithIdp checks) and must belong to an apple.com sign-in.
        let formPost: @Sendable (Request, HearthRequestContext) async throws -> Response = { request, _ in
            let buffer = try await request.body.collect(upTo: maxBodySize)
            let fields = FormQuery(String(buffer: buffer)).fields
            guard let link = FederationService.formPostLink(fields, handlerURL: federation.configuration.publicURL.authHandlerURL) else {
                return HTMLPage.message("Unknown sign-in", "This sign-in is unknown. Start again from the app.", tone: .error, status: .badRequest)
            }
            return Self.render(try await federation.handleCallback(query: link.query, callbackURL: link.url, formPost: true))
        }
        limited.post(RouterPath(AuthHandlerProtocol.handlerPath), use: formPost)
        limited.post(RouterPath(AuthHandlerProtocol.emulatorHandlerPath), use: formPost)
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
