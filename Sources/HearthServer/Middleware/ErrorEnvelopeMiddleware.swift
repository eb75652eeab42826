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
        case let error as StoreError:
            switch error {
            case .unavailable(let reason): context.logger.warning("store unavailable", metadata: ["reason": "\(reason)"])
            case .backend: context.logger.error("store failed", metadata: ["error.type": "StoreError.backend"])
            default: break
            }
            return HearthAPIError(error)
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
