import Foundation
import Hummingbird

/// Counts and times every answered request by route template, method and status
/// (``MetricName/httpRequests``, ``MetricName/httpRequestDuration``). The route is the template the router
/// matched (`/…/projects/{project}/accounts`), `unmatched` otherwise, so label values stay few.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let metrics: HearthMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let status: Int
        do {
            let response = try await next(request, context)
            status = response.status.code
            record(request, context, status: status, started: started)
            return response
        } catch {
            status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, started: started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, started: ContinuousClock.Instant) {
        let path = context.endpointPath
        let route = path == nil || path == "NotFound" ? "unmatched" : path!
        let method = Self.knownMethods.contains(request.method) ? request.method.rawValue : "other"
        let labels = [route, method, String(status)]
        metrics.count(.httpRequests, labels)
        metrics.record(.httpRequestDuration, labels, nanoseconds: HearthMetrics.nanoseconds(since: started))
    }

    static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]
}
