import HTTPTypes
import HearthStore
import HearthWire
import Hummingbird
import Logging

/// Renders every failure as the Google error envelope: Hearth errors as they are, Hummingbird's own HTTP
/// errors (unknown route, body too large) with their status, anything else as a logged 500 with no detail.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HearthAPIError {
            throw error
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: throw HearthAPIError(.notFound, "no such endpoint: \(request.method) \(request.uri.path)")
            case .methodNotAllowed: throw HearthAPIError(.methodNotAllowed, "\(request.method) is not allowed here")
            case .contentTooLarge: throw HearthAPIError(.payloadTooLarge)
            default:
                if (400..<500).contains(error.status.code) {
                    throw HearthAPIError(.invalidArgument, error.body ?? error.status.reasonPhrase, httpStatus: error.status.code)
                }
                context.logger.error("request failed", metadata: ["status": "\(error.status.code)"])
                throw HearthAPIError(.internalError)
            }
        } catch {
            // The error's text may hold data from the request; log only its type.
            context.logger.error("request failed with an unexpected error", metadata: ["error.type": "\(type(of: error))"])
            throw HearthAPIError(.internalError)
        }
    }
}

/// Checks the API key (`key` query parameter or `X-Goog-Api-Key` header) of Identity Toolkit and Secure Token
/// requests: `API key not valid` with reason `keyInvalid` otherwise.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let acceptedKeys: Set<String>
    let acceptsAny: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !acceptsAny {
            let key = request.uri.queryParameters.get("key") ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
            guard let key, acceptedKeys.contains(key) else { throw HearthAPIError(.invalidApiKey) }
        }
        return try await next(request, context)
    }
}
