import Foundation
import HearthCore
import HearthWire
import HTTPTypes
import Hummingbird
import Logging

/// Sets the request's client address from `X-Forwarded-For` when its peer is a trusted proxy.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let forwarded = request.headers[values: HTTPField.Name("X-Forwarded-For")!]
        if !forwarded.isEmpty {
            context.forwardedClientAddress = proxies.clientAddress(peer: context.peerAddress, forwardedFor: forwarded)
        }
        return try await next(request, context)
    }
}
