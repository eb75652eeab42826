import HearthWire
import Hummingbird

/// The `accounts:*` methods at their v1 paths and their legacy v3 aliases, plus `getProjectConfig`.
struct AccountsController {
    let service: AccountService
    let federation: FederationService
    /// Rate limits (nil: off): attached to the limited methods' routes as a group middleware.
    let limiter: RateLimiter?

    func register(on group: RouterGroup<HearthRequestContext>) {
        route(group, v1: "signUp", v3: "signupNewUser", SignUpRequest.self, limit: .signUp) { request, _ in try await service.signUp(request) }
        route(group, v1: "signInWithPassword", v3: "verifyPassword", SignInWithPasswordRequest.self, limit: .signInWithPassword) { request, context in
            try await service.signInWithPassword(request, clientAddress: context.clientAddress)
        }
        route(group, v1: "lookup", v3: "getAccountInfo", LookupRequest.self) { request, _ in try await service.lookup(request) }
        route(group, v1: "update", v3: "setAccountInfo", UpdateRequest.self) { request, _ in try await service.update(request) }
        route(group, v1: "delete", v3: "deleteAccount", DeleteAccountRequest.self) { request, _ in try await service.delete(request) }
        route(group, v1: "createAuthUri", v3: "createAuthUri", CreateAuthUriRequest.self, limit: .createAuthUri) { request, _ in
            if let providerId = request.providerId, !providerId.isEmpty, request.identifier == nil {
                return try await federation.createAuthUri(providerId: providerId, sessionId: request.sessionId, appId: request.appId)
            }
            return try await service.createAuthUri(request)
        }
        route(group, v1: "signInWithIdp", v3: "verifyAssertion", SignInWithIdpRequest.self) { request, _ in
            try await federation.signInWithIdp(request)
        }
        // Unsigned (emulator-mode) custom tokens only where the emulator credential is accepted from this client.
        let configuration = service.configuration
        let customToken: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<SignInWithCustomTokenResponse> = { request, context in
            let decoded = try await request.decode(as: SignInWithCustomTokenRequest.self, context: context)
            let emulator = configuration.emulatorAdminEnabled
                && (configuration.emulatorAdminAllowRemote || AdminAuthorizer.isLocalClient(request, context: context))
            return JSONResponse(try await service.signInWithCustomToken(decoded, allowUnsigned: emulator))
        }
        group.post(RouterPath(WirePaths.accounts("signInWithCustomToken")), use: customToken)
        group.post(RouterPath(WirePaths.v3("verifyCustomToken")), use: customToken)
        // getProjectConfig: GET (the iOS SDK, no body) or POST, v3 and v1 (`GET v1/projects`).
        let projectConfig: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<GetProjectConfigResponse> = { _, _ in
            JSONResponse(try await service.getProjectConfig())
        }
        group.get(RouterPath(WirePaths.v3("getProjectConfig")), use: projectConfig)
        group.post(RouterPath(WirePaths.v3("getProjectConfig")), use: projectConfig)
        group.get(RouterPath(WirePaths.identityToolkitV1 + "/projects"), use: projectConfig)
    }

    private func route<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ group: RouterGroup<HearthRequestContext>, v1: String, v3: String, _ input: Input.Type, limit: RateLimitedEndpoint? = nil,
        _ body: @escaping @Sendable (Input, HearthRequestContext) async throws -> Output
    ) {
        let handler: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<Output> = { request, context in
            JSONResponse(try await body(try await request.decode(as: Input.self, context: context), context))
        }
        var target = group
        if let limit, let limiter { target = group.group().add(middleware: RateLimitMiddleware(limiter: limiter, endpoint: limit)) }
        target.post(RouterPath(WirePaths.accounts(v1)), use: handler)
        target.post(RouterPath(WirePaths.v3(v3)), use: handler)
    }
}

/// `POST /securetoken.googleapis.com/v1/token`.
struct SecureTokenController {
    let service: AccountService

    func register(on group: RouterGroup<HearthRequestContext>) {
        group.post(RouterPath(WirePaths.secureToken)) { request, context -> JSONResponse<GrantTokenResponse> in
            var grant = try await request.decode(as: GrantTokenRequest.self, context: context)
            // Some clients put the grant in the query string.
            let query = FormQuery(request.uri.query)
            if grant.grantType == nil { grant.grantType = query.get("grant_type") ?? query.get("grantType") }
            if grant.refreshToken == nil { grant.refreshToken = query.get("refresh_token") ?? query.get("refreshToken") }
            return JSONResponse(try await service.refresh(grant))
        }
    }
}
