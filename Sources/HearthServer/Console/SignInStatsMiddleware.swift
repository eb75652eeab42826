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

    static let signInPaths = ["accounts:signInWithPassword", "accounts:signInWithIdp", "accounts:signInWithCustomToken", "accounts:signUp",
                              "relyingparty/verifyPassword", "relyingparty/verifyAssertion", "relyingparty/verifyCustomToken",
                              "relyingparty/signupNewUser"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HearthAPIError {
            let path = request.uri.path
            if Self.signInPaths.contains(where: { path.hasSuffix($0) }) {
                await AdminService.countRefusal(store: store, reason: error.code.rawValue, at: clock.now())
            }
            throw error
        }
    }
}
