import Foundation
import HearthAdmin
import HearthAdminHummingbird
import HearthWire
import Hummingbird

/// Blocking functions written in Swift (docs/hooks.md, "Swift with HearthAdmin"; issue 39): `POST /before-create`
/// lets only `allowedDomain` addresses sign up and gives them the custom claim `role: member`; `POST /before-sign-in`
/// refuses sign-ins from addresses starting with `blockedPrefix` and puts the address into the session's tokens.
///
/// - Parameters:
///   - hearthURL: the Hearth server whose published keys sign the events.
///   - projectId: its project (the JWT's issuer names it).
///   - baseURL: where Hearth reaches this backend: the triggers' `functionUri` are `baseURL + "/before-create"` and
///     `baseURL + "/before-sign-in"`, and each JWT's `aud` must be exactly its route's URL.
///   - now: the clock the JWTs' `iat`/`exp` are checked against.
public func exampleBlockingFunctionsRouter(
    hearthURL: String, projectId: String, baseURL: String, allowedDomain: String = "example.com",
    blockedPrefix: String = "192.0.2.", now: @escaping @Sendable () -> Date = { Date() }
) -> Router<BasicRequestContext> {
    let beforeCreate = BlockingFunctionVerifier(projectId: projectId, functionURL: baseURL + "/before-create",
                                                keySource: .hearth(hearthURL), now: now)
    let beforeSignIn = BlockingFunctionVerifier(functionURL: baseURL + "/before-sign-in",
                                                sharingKeysWith: beforeCreate.tokenVerifier)
    let router = Router()
    router.post("/before-create") { request, _ in
        await BlockingFunctionResponder.respond(request, beforeCreate, events: [.beforeCreate]) { event in
            guard event.user?.email?.lowercased().hasSuffix("@" + allowedDomain) == true else {
                throw BlockingFunctionError(.permissionDenied, "Only \(allowedDomain) addresses may sign up.")
            }
            return BlockingFunctionResponse(customClaims: ["role": .string("member")])
        }
    }
    router.post("/before-sign-in") { request, _ in
        await BlockingFunctionResponder.respond(request, beforeSignIn, events: [.beforeSignIn]) { event in
            if event.ipAddress.hasPrefix(blockedPrefix) {
                throw BlockingFunctionError(.permissionDenied, "Sign-ins from your network are blocked.")
            }
            return BlockingFunctionResponse(sessionClaims: ["signed_in_from": .string(event.ipAddress)])
        }
    }
    return router
}
