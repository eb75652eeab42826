import Foundation
import HearthAdmin
import HearthAdminHummingbird
import HearthWire
import Hummingbird

/// An example backend: its routes accept Firebase ID tokens from Hearth (or Google), and an admin route grants
/// a role through the admin API with a service account.
public struct ExampleRequestContext: HearthAuthRequestContext, RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var verifiedToken: VerifiedToken?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

/// `GET /me` answers who the caller is; `POST /admin/grant/{uid}` (callers with the `admin` claim) sets the
/// `role: editor` claim on another user.
public func exampleBackendRouter(verifier: TokenVerifier, admin: AdminClient) -> Router<ExampleRequestContext> {
    let router = Router(context: ExampleRequestContext.self)
    router.get("/health") { _, _ in "ok" }
    let api = router.group().add(middleware: HearthAuthMiddleware(verifier: verifier))
    api.get("/me") { _, context -> String in
        guard let token = context.verifiedToken else { throw HTTPError(.unauthorized) }
        return "uid=\(token.uid) provider=\(token.signInProvider ?? "-") email=\(token.email ?? "-")"
    }
    api.post("/admin/grant/{uid}") { _, context -> String in
        guard context.verifiedToken?.claims["admin"] == .bool(true) else { throw HTTPError(.forbidden, message: "admins only") }
        let uid = try context.parameters.require("uid")
        try await admin.setCustomClaims(uid: uid, ["role": .string("editor")])
        return "granted editor to \(uid)"
    }
    return router
}
