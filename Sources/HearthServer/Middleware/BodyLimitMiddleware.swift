import Hummingbird

/// Sets the request context's body limit from the configuration.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let maxBodySize: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.maxUploadSize = maxBodySize
        return try await next(request, context)
    }
}
