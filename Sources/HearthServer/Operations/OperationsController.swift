import Foundation
import HTTPTypes
import HearthStore
import HearthWire
import Hummingbird
import NIOCore
import Synchronization

/// Who may read `GET /metrics` (`metrics.access`).
public enum MetricsAccess: String, Sendable, CaseIterable {
    /// Programs on this machine only (loopback address, no proxy headers, no browser Origin): the default.
    case local
    /// Anyone who reaches the port (put the port behind a firewall or a private network).
    case `public`
    /// Anyone presenting `Authorization: Bearer <metrics.token>`.
    case token
    /// No metrics endpoint (404).
    case off
}

/// The operator's endpoints: `/healthz` (the process answers), `/readyz` (store reachable, signing key loaded,
/// every stored TOTP secret opens with this server's keys),
/// `/metrics` (Prometheus text format) and `/openapi.json` (this API's OpenAPI 3.1 description).
struct OperationsController {
    let store: any HearthStore
    let keyRing: KeyRing
    let configuration: HearthServerConfiguration
    /// TOTP secrets sealed with a key this server lacks make it not ready (issue 35, item 11).
    var multiFactorKeys: MultiFactorKeyCheck?

    /// How long `/readyz` waits for the store before calling it unreachable.
    static let storeProbeTimeout: Duration = .seconds(2)

    func register(on router: Router<HearthRequestContext>) {
        router.get("/healthz") { _, _ in JSONResponse(["status": "ok"]) }
        router.get("/readyz") { _, _ -> JSONResponse<[String: String]> in
            var problems: [String] = []
            if let problem = await probeStore() { problems.append(problem) }
            if !keyRing.hasActiveKey { problems.append("no signing key is loaded yet") }
            if let problem = await multiFactorKeys?.readinessProblem() { problems.append(problem) }
            guard problems.isEmpty else { throw HearthAPIError(.notReady, problems.joined(separator: "; ")) }
            return JSONResponse(["status": "ready", "store": "ok", "keys": "ok"])
        }
        let metrics = configuration.metrics
        let access = configuration.metricsAccess
        let token = configuration.metricsToken
        router.get("/metrics") { request, context -> Response in
            try Self.authorizeMetrics(request, context: context, access: access, token: token)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/openapi.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json; charset=UTF-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }

    static func authorizeMetrics(_ request: Request, context: HearthRequestContext, access: MetricsAccess, token: String?) throws {
        switch access {
        case .public:
            return
        case .off:
            throw HearthAPIError(.notFound, "the metrics endpoint is turned off (metrics.access is off)")
        case .local:
            guard AdminAuthorizer.isLocalClient(request, context: context) else {
                throw HearthAPIError(.permissionDenied, "metrics are served to programs on this machine only; set metrics.access to token (with metrics.token) or public to scrape from elsewhere")
            }
        case .token:
            let header = request.headers[.authorization] ?? ""
            guard let token, !token.isEmpty, header.hasPrefix("Bearer "),
                  Self.constantTimeEqual(Array(header.dropFirst(7).utf8), Array(token.utf8))
            else { throw HearthAPIError(.unauthenticated, "the metrics endpoint needs Authorization: Bearer <metrics.token>") }
        }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// nil when a small store read answers within ``storeProbeTimeout``, else what went wrong. The read runs in its
    /// own task, so a store that hangs cannot hold the probe past the timeout.
    func probeStore() async -> String? {
        let store = store
        let projectId = configuration.projectId
        let metrics = configuration.metrics
        let outcome = Mutex<CheckedContinuation<String?, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            outcome.withLock { $0 = continuation }
            let finish: @Sendable (String?) -> Void = { result in
                outcome.withLock { pending in
                    pending?.resume(returning: result)
                    pending = nil
                }
            }
            let timer = Task {
                try? await Task.sleep(for: Self.storeProbeTimeout)
                finish("the store did not answer within \(Self.storeProbeTimeout)")
            }
            Task {
                do {
                    _ = try await metrics.timeStore("readiness") { try await store.projectConfig(projectId: projectId) }
                    finish(nil)
                } catch {
                    finish("the store is unreachable (\(type(of: error)))")
                }
                timer.cancel()
            }
        }
    }
}
