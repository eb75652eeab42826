import Foundation
import HearthCore
import HearthStore
import HearthWire
import Hummingbird

/// Counts refused sign-ins by their error code for the console's overview (the sign-ins themselves are counted
/// where sessions are issued). Only the sign-in endpoints are looked at; counting never changes the answer.
struct SignInStatsMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext
    let store: any HearthStore
    let clock: WallClock
    let metrics: HearthMetrics

    static let signInPaths = ["accounts:signInWithPassword", "accounts:signInWithIdp", "accounts:signInWithCustomToken", "accounts:signUp",
                              "relyingparty/verifyPassword", "relyingparty/verifyAssertion", "relyingparty/verifyCustomToken",
                              "relyingparty/signupNewUser"]

    /// The kind of sign-in a refused request was (its provider is not known before the request is read).
    static func kind(_ path: String) -> String {
        if path.hasSuffix("signInWithPassword") || path.hasSuffix("verifyPassword") { return "password" }
        if path.hasSuffix("signInWithIdp") || path.hasSuffix("verifyAssertion") { return "idp" }
        if path.hasSuffix("signInWithCustomToken") || path.hasSuffix("verifyCustomToken") { return "custom" }
        return "signUp"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HearthAPIError {
            let path = request.uri.path
            if Self.signInPaths.contains(where: { path.hasSuffix($0) }) {
                await AdminService.countRefusal(store: store, reason: error.code.rawValue, at: clock.now())
                metrics.count(.refusedSignIns, [error.code.rawValue])
                metrics.count(.signIns, [Self.kind(path), "refused"])
            }
            throw error
        }
    }
}
