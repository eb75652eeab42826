import Foundation
import HearthAdmin
import Hummingbird

/// A request context that can carry the verified caller.
public protocol HearthAuthRequestContext: RequestContext {
    /// Set by ``HearthAuthMiddleware`` when the request carried a valid ID token.
    var verifiedToken: VerifiedToken? { get set }
}

/// Authenticates `Authorization: Bearer <Firebase ID token>` with a ``TokenVerifier`` and puts the verified
/// uid and claims on the context. Requests without a valid token get 401 (or pass through unauthenticated
/// when `required` is false); so do tokens of a user the tenant requirement does not accept.
public struct HearthAuthMiddleware<Context: HearthAuthRequestContext>: RouterMiddleware {
    let verifier: TokenVerifier
    let admin: AdminClient?
    let required: Bool
    let tenant: TenantRequirement

    /// - Parameters:
    ///   - admin: when given, disabled users and revoked sessions are refused too (one admin lookup per request,
    ///     in the token's tenant).
    ///   - required: refuse requests without a valid token (default), or let them through with no token.
    ///   - tenant: whose tokens to accept — `.tenant("acme-x7k2p")` for one Identity Platform tenant's users,
    ///     `.projectOnly` for the project's own users, `.any` for both; nil (default): the verifier's own
    ///     ``TokenVerifier/tenant``. A token of a user it does not accept gets 401; `context.verifiedToken.tenant`
    ///     says whose a token is.
    public init(verifier: TokenVerifier, checkRevokedWith admin: AdminClient? = nil, required: Bool = true,
                tenant: TenantRequirement? = nil) {
        self.verifier = verifier
        self.admin = admin
        self.required = required
        self.tenant = tenant ?? verifier.tenant
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            do {
                context.verifiedToken = if let admin {
                    try await verifier.verifyIDToken(token, tenant: tenant, checkRevokedWith: admin)
                } else {
                    try await verifier.verifyIDToken(token, tenant: tenant)
                }
            } catch let error as TokenVerificationError {
                throw HTTPError(.unauthorized, message: "invalid ID token: \(error.description)")
            }
        } else if required {
            throw HTTPError(.unauthorized, message: "send Authorization: Bearer <Firebase ID token>")
        }
        return try await next(request, context)
    }
}
