import AsyncHTTPClient
import Foundation
import HearthAdmin
import HearthAdminHummingbird
import HearthWire
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A strict blocking-function endpoint on loopback (issue 39) for tests: Hummingbird on port 0, one path per
/// event (`/beforeCreate`, `/beforeSignIn`, `/beforeSendEmail`, `/beforeSendSms`, see ``url(for:)``).
///
/// Every request is checked by HearthAdmin's ``BlockingFunctionVerifier`` against the harness server's published
/// keys: `POST`, `Content-Type: application/json`, body `{"data":{"jwt":…}}`, RS256 with a published `kid`,
/// `iss = https://securetoken.google.com/<project>`, `aud` exactly this endpoint's URL for the path, `event_type`
/// the path's event, `iat`/`exp` checked against the **harness's TestClock** (the clock the server signs with) with
/// a 5-second leeway, and the claims firebase-functions requires. A request that fails is answered 401/400 and
/// recorded in ``rejections`` (a test should expect it empty); a verified one is recorded in ``events`` (in
/// arrival order) and answered by the script: the next one-shot reply queued for its event
/// (``answerNext(_:with:)``), else the standing reply (``answer(_:with:)``), else ``Reply/allow``.
///
/// ```swift
/// try await HookEndpoint.run(harness: h) { hooks in
///     hooks.answer(.beforeCreate, with: .update(.init(customClaims: ["role": "admin"])))
///     // configure h's project: triggers.beforeCreate.functionUri = hooks.url(for: .beforeCreate)
///     …
///     #expect(hooks.rejections.isEmpty)
///     #expect(hooks.events.map(\.eventType) == [.beforeCreate, .beforeSignIn])
/// }
/// ```
public final class HookEndpoint: Sendable {
    /// How the endpoint answers one verified request.
    public indirect enum Reply: Sendable {
        /// 200 `{}`: go on, change nothing.
        case allow
        /// 200 with the response encoded by HearthAdmin (validated as firebase-functions does: a reserved claim or
        /// session claims in beforeCreate become a 400 `INVALID_ARGUMENT` refusal — use ``json(_:)`` to send one
        /// anyway).
        case update(BlockingFunctionResponse)
        /// The refusal firebase-functions sends for an `HttpsError`: the code's status (403 for
        /// `permissionDenied`, 400 for `invalidArgument`) and `{"error":{"status","message"}}`.
        case error(BlockingFunctionError)
        /// 200 with this body verbatim, unvalidated (e.g. `{"userRecord":{"customClaims":{"iss":"x"},"updateMask":"customClaims"}}`).
        case json(String)
        /// This status and body verbatim (e.g. `.status(500, body: "Internal Server Error")`).
        case status(Int, body: String)
        /// 200 with a body that is not JSON.
        case garbage
        /// 200 with a valid JSON answer of `bytes` bytes (a long display name).
        case oversized(bytes: Int)
        /// A redirect (`Location`) with this status.
        case redirect(to: String, status: Int)
        /// Waits (real time) before the reply; the wait ends early when the endpoint stops.
        case delay(seconds: Double, then: Reply)
        /// The closure decides, as a Swift hook would (a thrown ``BlockingFunctionError`` refuses).
        case handler(@Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?)

        /// Refuses with `message`: 403 `PERMISSION_DENIED`, or `code`'s status (400 for `.invalidArgument`).
        public static func refuse(_ message: String, code: BlockingFunctionError.Code = .permissionDenied) -> Reply {
            .error(BlockingFunctionError(code, message))
        }
        /// 500 with firebase-functions' body for an unhandled error.
        public static var serverError: Reply { .status(500, body: #"{"error":{"status":"INTERNAL","message":"INTERNAL"}}"#) }
        /// Sleeps `seconds` (real time), then allows.
        public static func sleep(_ seconds: Double) -> Reply { .delay(seconds: seconds, then: .allow) }
        /// Sets custom claims (stored on the user).
        public static func customClaims(_ claims: [String: JSONValue]) -> Reply { .update(BlockingFunctionResponse(customClaims: claims)) }
        /// Sets session claims (this sign-in's tokens only; beforeSignIn).
        public static func sessionClaims(_ claims: [String: JSONValue]) -> Reply { .update(BlockingFunctionResponse(sessionClaims: claims)) }
        /// Disables the user.
        public static var disable: Reply { .update(BlockingFunctionResponse(disabled: true)) }
    }

    /// One verified request.
    public struct Call: Sendable {
        /// The decoded event.
        public var event: AuthBlockingEvent
        /// The status the endpoint answered with.
        public var status: Int
        /// The request's headers, as sent.
        public var headers: HTTPFields
    }

    private struct State {
        var calls: [Call] = []
        var rejections: [String] = []
        var standing: [BlockingEventType: Reply] = [:]
        var queued: [BlockingEventType: [Reply]] = [:]
        var baseURL = ""
        var stopped = false
    }

    private let state = Mutex(State())
    private let keys: TokenVerifier

    /// An endpoint that checks JWTs of `projectId` against the keys of the server at `serverURL`, with `now` as
    /// the clock. Use ``run(harness:_:)`` in tests.
    public init(projectId: String, serverURL: String, now: @escaping @Sendable () -> Date) {
        keys = TokenVerifier(projectId: projectId, keySource: .hearth(serverURL), leeway: 5, minimumRefetchInterval: 0, now: now)
    }

    /// `http://127.0.0.1:<port>` once running.
    public var baseURL: String { state.withLock { $0.baseURL } }

    /// The URL to configure as the event's `functionUri`.
    public func url(for event: BlockingEventType) -> String { "\(baseURL)/\(event.rawValue)" }

    /// The verified requests, in arrival order.
    public var calls: [Call] { state.withLock { $0.calls } }
    /// The verified events, in arrival order.
    public var events: [AuthBlockingEvent] { calls.map(\.event) }
    /// The verified events of one kind.
    public func events(_ type: BlockingEventType) -> [AuthBlockingEvent] { events.filter { $0.eventType == type } }
    /// Requests refused before the script ran (wrong method, body, JWT, event for the path), with the reason.
    public var rejections: [String] { state.withLock { $0.rejections } }

    /// Answers every later `event` with `reply` (until changed); one-shot replies go first.
    public func answer(_ event: BlockingEventType, with reply: Reply) {
        state.withLock { $0.standing[event] = reply }
    }

    /// Answers every later event of every kind with `reply`.
    public func answerAll(with reply: Reply) {
        state.withLock { state in for event in BlockingEventType.allCases { state.standing[event] = reply } }
    }

    /// Queues one-shot replies for the next `event`s, in order.
    public func answerNext(_ event: BlockingEventType, with replies: Reply...) {
        state.withLock { $0.queued[event, default: []].append(contentsOf: replies) }
    }

    /// Forgets the recorded calls and rejections (the script stays).
    public func reset() {
        state.withLock { state in
            state.calls = []
            state.rejections = []
        }
    }

    /// Runs an endpoint for `harness`'s server (its project, published keys and TestClock) while `body` runs.
    public static func run<T: Sendable>(harness: HearthHarness, _ body: @Sendable (HookEndpoint) async throws -> T) async throws -> T {
        let clock = harness.clock
        return try await run(projectId: harness.projectId, serverURL: harness.baseURL, now: { clock.now }, body)
    }

    /// Runs an endpoint for the server at `serverURL` while `body` runs.
    public static func run<T: Sendable>(projectId: String, serverURL: String, now: @escaping @Sendable () -> Date,
                                        _ body: @Sendable (HookEndpoint) async throws -> T) async throws -> T {
        let endpoint = HookEndpoint(projectId: projectId, serverURL: serverURL, now: now)
        let router = Router()
        for event in BlockingEventType.allCases {
            router.post(RouterPath(stringLiteral: "/\(event.rawValue)")) { request, _ in
                await endpoint.handle(request, event: event)
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "HookEndpoint"))
        return try await app.test(.live) { client in
            guard let port = client.port else { throw HarnessError("the hook endpoint has no port") }
            endpoint.state.withLock { $0.baseURL = "http://127.0.0.1:\(port)" }
            defer { endpoint.state.withLock { $0.stopped = true } }
            return try await body(endpoint)
        }
    }

    private func nextReply(for event: BlockingEventType) -> Reply {
        state.withLock { state in
            if var queue = state.queued[event], !queue.isEmpty {
                let reply = queue.removeFirst()
                state.queued[event] = queue
                return reply
            }
            return state.standing[event] ?? .allow
        }
    }

    private func handle(_ request: Request, event expected: BlockingEventType) async -> Response {
        let verifier = BlockingFunctionVerifier(functionURL: url(for: expected), sharingKeysWith: keys)
        let body: Data
        do {
            body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
        } catch {
            state.withLock { $0.rejections.append("\(expected.rawValue): the body could not be read") }
            return BlockingFunctionResponder.response(status: 400, body: BlockingFunctionError(.invalidArgument, "Bad Request").body)
        }
        let event: AuthBlockingEvent
        do {
            event = try await verifier.verifiedEvent(method: request.method.rawValue, contentType: request.headers[.contentType],
                                                     body: body, events: [expected])
        } catch {
            state.withLock { $0.rejections.append("\(expected.rawValue): \(error.reason)") }
            return BlockingFunctionResponder.response(status: error.error.httpStatus, body: error.error.body)
        }
        let response = await respond(to: event, with: nextReply(for: expected))
        state.withLock { $0.calls.append(Call(event: event, status: response.status.code, headers: request.headers)) }
        return response
    }

    private func respond(to event: AuthBlockingEvent, with reply: Reply) async -> Response {
        switch reply {
        case .allow:
            return BlockingFunctionResponder.response(status: 200, body: Data("{}".utf8))
        case .update(let update):
            return await answer(event) { _ in update }
        case .handler(let handler):
            return await answer(event, handler)
        case .error(let error):
            return BlockingFunctionResponder.response(status: error.httpStatus, body: error.body)
        case .json(let text):
            return BlockingFunctionResponder.response(status: 200, body: Data(text.utf8))
        case .status(let status, body: let text):
            return BlockingFunctionResponder.response(status: status, body: Data(text.utf8))
        case .garbage:
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>not json at all {\"userRecord\":")))
        case .oversized(bytes: let bytes):
            let prefix = #"{"userRecord":{"updateMask":"displayName","displayName":""#
            let filler = String(repeating: "x", count: max(0, bytes - prefix.utf8.count - 3))
            return BlockingFunctionResponder.response(status: 200, body: Data((prefix + filler + #""}}"#).utf8))
        case .redirect(to: let location, status: let status):
            return Response(status: HTTPResponse.Status(code: status), headers: [.location: location])
        case .delay(seconds: let seconds, then: let then):
            let end = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
            while ContinuousClock.now < end, !state.withLock({ $0.stopped }) {
                try? await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
            }
            return await respond(to: event, with: then)
        }
    }

    /// HearthAdmin's answer for the closure: validated and encoded as firebase-functions does.
    private func answer(_ event: AuthBlockingEvent, _ handler: @Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?) async -> Response {
        let answer = await BlockingFunctionHTTPAnswer.answering(event, handler)
        return BlockingFunctionResponder.response(status: answer.status, body: answer.body)
    }
}

extension HearthHarness {
    /// Runs a ``HookEndpoint`` for this server while `body` runs.
    public func withHookEndpoint<T: Sendable>(_ body: @Sendable (HookEndpoint) async throws -> T) async throws -> T {
        try await HookEndpoint.run(harness: self, body)
    }
}
