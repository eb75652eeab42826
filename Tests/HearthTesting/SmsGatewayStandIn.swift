import Foundation
import HearthServer
import HearthWire
import Hummingbird
import HummingbirdTesting
import Synchronization

/// An SMS gateway on loopback for tests (issue 40): Hummingbird on port 0, answering Twilio's Messages API
/// (`POST /2010-04-01/Accounts/<SID>/Messages.json`, ``twilioURL(accountSid:authToken:from:)``) and a webhook
/// (`POST /sms`, ``webhookURL``). It records every request as sent (``requests``) and answers with the next
/// queued reply (``reply(_:)``), else 201 and a Twilio-shaped message.
///
/// ```swift
/// try await SmsGatewayStandIn.run { gateway in
///     let sender = try TwilioSmsSender(url: gateway.twilioURL())
///     try await HearthHarness.run(configure: { $0.sms.sender = sender }) { h in … gateway.requests … }
/// }
/// ```
public final class SmsGatewayStandIn: Sendable {
    /// One request as the gateway received it.
    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var headers: HTTPFields
        public var body: Data
        /// The body's form fields (Twilio), by name.
        public var form: [String: String] { Dictionary(FormEncoding.decode(String(decoding: body, as: UTF8.self)), uniquingKeysWith: { $1 }) }
        /// The `Authorization` header.
        public var authorization: String? { headers[.authorization] }
    }

    /// A reply: status and body.
    public struct Reply: Sendable {
        public var status: Int
        public var body: String
        public init(_ status: Int, _ body: String = "{}") {
            self.status = status
            self.body = body
        }
    }

    private let state = Mutex<(base: String, received: [Received], queued: [Reply])>(("", [], []))

    /// A test account SID (`AC` and 32 hex digits).
    public static let accountSid = "AC" + String(repeating: "0123456789abcdef", count: 2)
    /// A test auth token.
    public static let authToken = "tw-secret-token-4f9a1c"

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { state.withLock { $0.base } }
    /// The `sms.url` of a Twilio account on this stand-in.
    public func twilioURL(accountSid: String = accountSid, authToken: String = authToken, from: String = "+15555550000") -> String {
        "twilio+http://\(accountSid):\(authToken)@\(baseURL.dropFirst("http://".count))?from=\(FormEncoding.escape(from))"
    }
    /// The webhook's URL.
    public var webhookURL: String { baseURL + "/sms" }
    /// Every request, in arrival order.
    public var requests: [Received] { state.withLock { $0.received } }
    /// Answers the next request with `reply` (replies queue).
    public func reply(_ reply: Reply) { state.withLock { $0.queued.append(reply) } }

    /// Runs a stand-in while `body` runs.
    public static func run<T: Sendable>(_ body: @Sendable (SmsGatewayStandIn) async throws -> T) async throws -> T {
        let gateway = SmsGatewayStandIn()
        let router = Router()
        router.post("/2010-04-01/Accounts/:sid/Messages.json") { request, _ in await gateway.record(request) }
        router.post("/sms") { request, _ in await gateway.record(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "SmsGatewayStandIn"))
        return try await app.test(.live) { client in
            guard let port = client.port else { throw HarnessError("the SMS gateway stand-in has no port") }
            gateway.state.withLock { $0.base = "http://127.0.0.1:\(port)" }
            return try await body(gateway)
        }
    }

    private func record(_ request: Request) async -> Response {
        let body = (try? await request.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data()
        let reply = state.withLock { state -> Reply in
            state.received.append(Received(method: request.method.rawValue, path: request.uri.path, headers: request.headers, body: body))
            return state.queued.isEmpty ? Reply(201, #"{"sid":"SM00000000000000000000000000000000","status":"queued"}"#) : state.queued.removeFirst()
        }
        return Response(status: HTTPResponse.Status(code: reply.status), headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
    }
}

/// An in-process SMS sender that fails as told and records what it took.
public final class RecordingSmsSender: SmsSender, Sendable {
    private let failures: Mutex<[SmsSendError]>
    private let taken = Mutex<[OutgoingSms]>([])

    public init(failures: [SmsSendError] = []) { self.failures = Mutex(failures) }

    public func deliver(_ sms: OutgoingSms) async throws {
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        taken.withLock { $0.append(sms) }
    }

    /// What was delivered, in order.
    public var delivered: [OutgoingSms] { taken.withLock { $0 } }
    public var summary: String { "recording" }
}

extension HearthHarness {
    /// The dev SMS sink (`demo-*` projects, `--dev`): the codes the server sent, e.g. `h.devSms?.latest(to: number)?.code`.
    public var devSms: DevSmsSink? { server.accounts.sms.devSink }
}
