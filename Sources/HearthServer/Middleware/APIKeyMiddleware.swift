import HTTPTypes
import HearthWire
import Hummingbird
import Logging

/// Checks the API key (`key` query parameter or `X-Goog-Api-Key` header) of Identity Toolkit and Secure Token
/// requests: `API key not valid` with reason `keyInvalid` otherwise.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let acceptedKeys: Set<String>
    let acceptsAny: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !acceptsAny {
            let key = FormQuery(request.uri.query).get("key") ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
            guard let key, acceptedKeys.contains(key) else {
                // One notice per refusal (the key itself is not a secret but need not be logged: its length and prefix say enough).
                context.logger.notice("request refused: API key not valid",
                                      metadata: ["path": "\(request.uri.path)", "key": "\(key.map { "\($0.prefix(4))… (\($0.count) characters)" } ?? "none")"])
                throw HearthAPIError(.invalidApiKey)
            }
        }
        return try await next(request, context)
    }
}
