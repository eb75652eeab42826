import HearthPages
import HearthWire
import Hummingbird

/// Refuses a request whose path or query holds an encoded NUL (`%00`): no field accepts U+0000 (see
/// ``HearthRequestDecoder/nulRefusal``), and a query is read before any body decoder could check it.
struct NULQueryMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.description.contains("%00") else { return try await next(request, context) }
        // The pages (auth handler, console, dev pages) answer a page, as every other refusal of theirs; the API the envelope.
        let path = request.uri.path
        if ["/__/", "/emulator/auth/", "/console", "/__dev/"].contains(where: { path.hasPrefix($0) }) {
            return HTMLPage.message("Invalid request", "The address holds a NUL character (%00), which no parameter accepts.",
                                    tone: .error, status: .badRequest)
        }
        throw HearthRequestDecoder.nulRefusal
    }
}
