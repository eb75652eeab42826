import Foundation
import HearthStore
import Hummingbird

/// Bounds the time each request may spend waiting for the store (``HearthServerConfiguration/storeTimeout``): the
/// store turns a wait past it into ``StoreError/unavailable(_:)``, answered 503 by ``ErrorEnvelopeMiddleware``.
struct StoreDeadlineMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let seconds: TimeInterval

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await StoreDeadline.withRequestDeadline(seconds) { try await next(request, context) }
    }
}
