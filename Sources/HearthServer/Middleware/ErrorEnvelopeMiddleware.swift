import Foundation
import HTTPTypes
import HearthStore
import HearthWire
import Hummingbird
import Logging

/// Renders every failure as the Google error envelope: Hearth errors as they are, Hummingbird's own HTTP
/// errors (unknown route, body too large) with their status, anything else as a logged 500 with no detail.
/// It returns the rendered response rather than throwing, and sits inside the CORS middleware, so every error
/// keeps its status and envelope and gets the CORS headers of the request's origin.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, request: request, context: context)
            var response = try apiError.response(from: request, context: context)
            // A load balancer or client retries a 503 after this many seconds (the store is probed every quarter second).
            if apiError.code == .unavailable { response.headers[.retryAfter] = "1" }
            return response
        }
    }

    static func apiError(for error: any Error, request: Request, context: Context) -> HearthAPIError {
        switch error {
        case let error as HearthAPIError:
            return error
        case StoreError.textWithNUL:
            return HearthRequestDecoder.nulRefusal
        case StoreError.unavailable(let reason):
            // Reasons are written to say what without where (no host, port or path of the database).
            context.logger.warning("store unavailable", metadata: ["reason": "\(reason)"])
            return HearthAPIError(.unavailable, "the database is unavailable (\(reason)); try again shortly")
        case let error as HTTPError:
            switch error.status {
            case .notFound: return HearthAPIError(.notFound, "no such endpoint: \(request.method) \(request.uri.path)")
            case .methodNotAllowed: return HearthAPIError(.methodNotAllowed, "\(request.method) is not allowed here")
            case .contentTooLarge: return HearthAPIError(.payloadTooLarge)
            default:
                if (400..<500).contains(error.status.code) {
                    return HearthAPIError(.invalidArgument, error.body ?? error.status.reasonPhrase, httpStatus: error.status.code)
                }
                context.logger.error("request failed", metadata: ["status": "\(error.status.code)"])
                return HearthAPIError(.internalError)
            }
        default:
            // The error's text may hold data from the request; log only its type.
            context.logger.error("request failed with an unexpected error", metadata: ["error.type": "\(type(of: error))"])
            return HearthAPIError(.internalError)
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

/// Bounds the time each request may spend waiting for the store (``HearthServerConfiguration/storeTimeout``): the
/// store turns a wait past it into ``StoreError/unavailable(_:)``, answered 503 by ``ErrorEnvelopeMiddleware``.
struct StoreDeadlineMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let seconds: TimeInterval

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await StoreDeadline.withRequestDeadline(seconds) { try await next(request, context) }
    }
}
