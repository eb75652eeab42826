import HearthWire
import Hummingbird
import HummingbirdAuth

/// The admin route group's authenticator (hummingbird-auth): an admin bearer token or the emulator credential
/// (``AdminAuthorizer``) becomes the ``AdminPrincipal`` on the context, and the `{project}` in the path must be this
/// server's. A request without valid credentials never reaches a handler.
struct AdminAuthenticator: AuthenticatorMiddleware {
    typealias Context = HearthRequestContext
    let authorizer: AdminAuthorizer

    func authenticate(request: Request, context: Context) async throws -> AdminPrincipal? {
        let principal = try await authorizer.authorize(request, context: context)
        if let project = context.parameters.get("project") { try authorizer.checkProject(project) }
        return principal
    }
}

/// The emulator route group's authenticator: the `{project}` first, then the emulator credential, which exists only
/// where the configuration allows it (demo-* projects or `--emulator-admin`, from loopback clients).
struct EmulatorAuthenticator: AuthenticatorMiddleware {
    typealias Context = HearthRequestContext
    let authorizer: AdminAuthorizer

    func authenticate(request: Request, context: Context) async throws -> AdminPrincipal? {
        if let project = context.parameters.get("project") { try authorizer.checkProject(project) }
        guard authorizer.emulatorCredentialsAllowed(request, context: context) else {
            throw HearthAPIError(.notFound, "the emulator endpoints exist only for demo-* projects or with --emulator-admin, from loopback clients")
        }
        return .emulatorOwner
    }
}
