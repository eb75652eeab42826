import Foundation
import HearthAdmin
import HearthWire
import Hummingbird

/// Answers blocking-function requests in a Hummingbird app, so a `beforeCreate` / `beforeSignIn` /
/// `beforeSendEmail` / `beforeSendSms` hook can be written in Swift:
///
/// ```swift
/// let verifier = BlockingFunctionVerifier(projectId: "my-project", functionURL: "https://api.example.com/hooks/before-create",
///                                         keySource: .hearth("https://auth.example.com"))
/// router.post("/hooks/before-create") { request, context in
///     try await BlockingFunctionResponder.respond(request, verifier, events: [.beforeCreate]) { event in
///         guard event.user?.email?.hasSuffix("@example.com") == true else {
///             throw BlockingFunctionError(.permissionDenied, "Only example.com accounts may sign up.")
///         }
///         return BlockingFunctionResponse(customClaims: ["role": .string("staff")])
///     }
/// }
/// ```
///
/// The request is checked and answered by ``BlockingFunctionVerifier/answer(method:contentType:body:events:_:)``:
/// the JWT verified against the server's published keys, the closure's answer validated and encoded as
/// firebase-functions does (`{"userRecord":{…,"updateMask":…}}`), a thrown ``BlockingFunctionError`` answered
/// with Firebase's status and `{"error":{"status","message"}}`.
public enum BlockingFunctionResponder {
    /// The largest request body read (Hearth's JWTs are a few kilobytes).
    public static let defaultMaximumBodySize = 256 * 1024

    /// Answers `request` (see ``BlockingFunctionResponder``).
    /// - Parameters:
    ///   - events: the events this route handles; another event's JWT is refused (nil: any).
    ///   - maximumBodySize: a larger body is refused with 400 `INVALID_ARGUMENT`.
    ///   - onRejection: called with the full reason when a request is refused before `handler` runs (a bad JWT,
    ///     method or body) — log it; it never holds the JWT.
    public static func respond(
        _ request: Request, _ verifier: BlockingFunctionVerifier, events: Set<BlockingEventType>? = nil,
        maximumBodySize: Int = defaultMaximumBodySize, onRejection: @Sendable (String) -> Void = { _ in },
        _ handler: @Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?
    ) async -> Response {
        let answer = await self.answer(request, verifier, events: events, maximumBodySize: maximumBodySize, handler)
        if let rejection = answer.rejection { onRejection(rejection) }
        return response(status: answer.status, body: answer.body)
    }

    /// The answer ``respond(_:_:events:maximumBodySize:onRejection:_:)`` sends, with the verified event and the
    /// rejection reason (for apps and tests that record them).
    public static func answer(
        _ request: Request, _ verifier: BlockingFunctionVerifier, events: Set<BlockingEventType>? = nil,
        maximumBodySize: Int = defaultMaximumBodySize,
        _ handler: @Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?
    ) async -> BlockingFunctionHTTPAnswer {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            let failure = BlockingFunctionError(.invalidArgument, "Bad Request")
            return BlockingFunctionHTTPAnswer(status: failure.httpStatus, body: failure.body, event: nil,
                                              rejection: "the body is larger than \(maximumBodySize) bytes or could not be read")
        }
        return await verifier.answer(method: request.method.rawValue, contentType: request.headers[.contentType],
                                     body: Data(body.readableBytesView), events: events, handler)
    }

    /// A JSON response.
    public static func response(status: Int, body: Data) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
