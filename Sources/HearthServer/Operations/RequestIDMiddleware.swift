import HTTPTypes
import Hummingbird
import HearthCore
import Logging

extension HearthRequestID {
    /// The response (and accepted request) header.
    public static let headerName = HTTPField.Name("X-Request-Id")!
}

/// Gives every request an id — the caller's `X-Request-Id` when it is sane, else a random one — answers it in
/// `X-Request-Id` on every response (errors and CORS preflights included), and makes it the request's logging id.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let incoming = request.headers[HearthRequestID.headerName]
        let id = incoming.flatMap { HearthRequestID.accepts($0) ? $0 : nil } ?? HearthRequestID.generate()
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        var response = try await HearthRequestID.$current.withValue(id) {
            try await next(request, context)
        }
        response.headers[HearthRequestID.headerName] = id
        return response
    }
}
