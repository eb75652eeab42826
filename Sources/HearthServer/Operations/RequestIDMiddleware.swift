import HTTPTypes
import Hummingbird
import Logging

/// The id of the request being served, for log lines written anywhere below the router (services, stores, the
/// relying party): ``HearthLogHandler`` adds it to every line as `request_id`.
public enum HearthRequestID {
    /// The current request's id, or nil outside a request.
    @TaskLocal public static var current: String?

    /// The response (and accepted request) header.
    public static let headerName = HTTPField.Name("X-Request-Id")!

    /// A new id: 128 random bits as 32 hexadecimal digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (value: UInt64) in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// An incoming id is kept when it is 1 to 128 characters of letters, digits and `-_.:` (what proxies and
    /// tracing systems send); anything else is replaced, so a log line never carries arbitrary client text.
    public static func accepts(_ candidate: String) -> Bool {
        (1...128).contains(candidate.utf8.count)
            && candidate.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x3A
            }
    }
}

/// Gives every request an id — the caller's `X-Request-Id` when it is sane, else a random one — answers it in
/// `X-Request-Id` on every response (errors and CORS preflights included), and makes it the request's logging id.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let incoming = request.headers[HearthRequestID.headerName]
        let id = incoming.flatMap { HearthRequestID.accepts($0) ? $0 : nil } ?? HearthRequestID.generate()
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        var response = try await HearthRequestID.$current.withValue(id) {
            try await next(request, context)
        }
        response.headers[HearthRequestID.headerName] = id
        return response
    }
}
