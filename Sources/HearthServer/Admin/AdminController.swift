import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// The admin API's routes: users (v1), session cookies, the audit log, the emulator's conveniences, and the
/// v2 configuration resources. Every call is authorized by ``AdminAuthorizer``; no API key is involved.
struct AdminController {
    let service: AdminService
    let authorizer: AdminAuthorizer
    let maxBodySize: Int

    /// Admin bodies can be large (a 1000-user import).
    var adminBodyLimit: Int { max(maxBodySize, 8 * 1024 * 1024) }

    func register(on router: Router<HearthRequestContext>) {
        let v1 = "\(WirePaths.identityToolkitV1)/projects/{project}"
        post(router, "\(v1)/accounts", AdminCreateUserRequest.self) { request, principal in
            try await service.createUser(request, by: principal)
        }
        post(router, "\(v1)/accounts:lookup", AdminLookupRequest.self) { request, _ in try await service.lookup(request) }
        post(router, "\(v1)/accounts:update", AdminUpdateRequest.self) { request, principal in
            try await service.update(request, by: principal)
        }
        post(router, "\(v1)/accounts:delete", AdminDeleteRequest.self) { request, principal in
            try await service.delete(request, by: principal)
        }
        post(router, "\(v1)/accounts:batchDelete", BatchDeleteRequest.self) { request, principal in
            try await service.batchDelete(request, by: principal)
        }
        post(router, "\(v1)/accounts:batchCreate", ImportUsersRequest.self) { request, principal in
            try await service.importUsers(request, by: principal)
        }
        post(router, "\(v1)/accounts:query", QueryUsersRequest.self) { request, _ in try await service.query(request) }
        post(router, "\(WirePaths.identityToolkitV1)/projects/{project}:createSessionCookie", CreateSessionCookieRequest.self) { request, _ in
            try await service.createSessionCookie(request)
        }
        get(router, "\(v1)/accounts:batchGet") { request, _ in
            let query = FormQuery(request.uri.query)
            return try await service.batchGet(maxResults: query.get("maxResults"), pageToken: query.get("nextPageToken"))
        }
        get(router, "\(v1)/auditLog") { request, _ in
            let query = FormQuery(request.uri.query)
            var pageSize: Int?
            if let text = query.get("pageSize") {
                guard let size = Int(text) else { throw HearthAPIError(.invalidPageSelection, "pageSize must be a number") }
                pageSize = size
            }
            return try await service.auditLog(pageSize: pageSize, pageToken: query.get("pageToken"))
        }

        // v2: project configuration and provider configurations.
        let configHandler: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<AdminProjectConfig> = { request, context in
            let principal = try await authorize(request, context)
            if request.method == .get { return JSONResponse(try await service.projectConfigResource()) }
            let body = try await RequestBody.decode(JSONValue.self, from: request, context: context, limit: maxBodySize)
            let query = FormQuery(request.uri.query)
            let mask = query.get("updateMask") ?? query.get("update_mask")
            return JSONResponse(try await service.updateProjectConfig(body: body, updateMask: mask, by: principal))
        }
        for prefix in [WirePaths.identityToolkitV2, "/identitytoolkit.googleapis.com/admin/v2"] {
            router.get(RouterPath("\(prefix)/projects/{project}/config"), use: configHandler)
            router.patch(RouterPath("\(prefix)/projects/{project}/config"), use: configHandler)
        }
        get(router, "\(WirePaths.identityToolkitV2)/defaultSupportedIdps") { _, _ in service.defaultSupportedIdpList() }

        let v2 = "\(WirePaths.identityToolkitV2)/projects/{project}"
        router.post(RouterPath("\(v2)/defaultSupportedIdpConfigs")) { request, context -> JSONResponse<DefaultSupportedIdpConfig> in
            let principal = try await authorize(request, context)
            let body = try await RequestBody.decode(DefaultSupportedIdpConfig.self, from: request, context: context, limit: maxBodySize)
            return JSONResponse(try await service.createDefaultIdpConfig(idpId: FormQuery(request.uri.query).get("idpId"), body, by: principal))
        }
        get(router, "\(v2)/defaultSupportedIdpConfigs") { request, _ in
            let query = FormQuery(request.uri.query)
            return try await service.listDefaultIdpConfigs(pageSize: query.get("pageSize"), pageToken: query.get("pageToken"))
        }
        router.get(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { request, context -> JSONResponse<DefaultSupportedIdpConfig> in
            _ = try await authorize(request, context)
            return JSONResponse(try await service.defaultIdpConfig(try context.parameters.require("idp")))
        }
        router.patch(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { request, context -> JSONResponse<DefaultSupportedIdpConfig> in
            let principal = try await authorize(request, context)
            let body = try await RequestBody.decode(DefaultSupportedIdpConfig.self, from: request, context: context, limit: maxBodySize)
            return JSONResponse(try await service.updateDefaultIdpConfig(try context.parameters.require("idp"), body,
                                                                         updateMask: FormQuery(request.uri.query).get("updateMask"), by: principal))
        }
        router.delete(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { request, context -> JSONResponse<EmptyResponse> in
            let principal = try await authorize(request, context)
            let (providerId, _) = try AdminService.checkDefaultIdpId(try context.parameters.require("idp"))
            return JSONResponse(try await service.deleteIdpConfig(providerId, action: "defaultSupportedIdpConfigs.delete", by: principal))
        }
        router.post(RouterPath("\(v2)/oauthIdpConfigs")) { request, context -> JSONResponse<OAuthIdpConfig> in
            let principal = try await authorize(request, context)
            let body = try await RequestBody.decode(OAuthIdpConfig.self, from: request, context: context, limit: maxBodySize)
            return JSONResponse(try await service.createOAuthIdpConfig(id: FormQuery(request.uri.query).get("oauthIdpConfigId"), body, by: principal))
        }
        get(router, "\(v2)/oauthIdpConfigs") { request, _ in
            let query = FormQuery(request.uri.query)
            return try await service.listOAuthIdpConfigs(pageSize: query.get("pageSize"), pageToken: query.get("pageToken"))
        }
        router.get(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { request, context -> JSONResponse<OAuthIdpConfig> in
            _ = try await authorize(request, context)
            return JSONResponse(try await service.oauthIdpConfig(try context.parameters.require("idp")))
        }
        router.patch(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { request, context -> JSONResponse<OAuthIdpConfig> in
            let principal = try await authorize(request, context)
            let body = try await RequestBody.decode(OAuthIdpConfig.self, from: request, context: context, limit: maxBodySize)
            return JSONResponse(try await service.updateOAuthIdpConfig(try context.parameters.require("idp"), body,
                                                                       updateMask: FormQuery(request.uri.query).get("updateMask"), by: principal))
        }
        router.delete(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { request, context -> JSONResponse<EmptyResponse> in
            let principal = try await authorize(request, context)
            let providerId = try AdminService.checkOIDCId(try context.parameters.require("idp"))
            return JSONResponse(try await service.deleteIdpConfig(providerId, action: "oauthIdpConfigs.delete", by: principal))
        }

        // Session-cookie verification keys: the ID-token keys, where Google publishes the session-cookie keys.
        let keyRing = service.accounts.keyRing
        router.get(RouterPath(WirePaths.sessionCookieCertificates)) { _, _ -> JSONResponse<[String: String]> in
            let published = try await keyRing.published()
            return JSONResponse(Dictionary(uniqueKeysWithValues: published.keys.map { ($0.kid, $0.certificatePEM) }),
                                cacheControl: "public, max-age=\(published.maxAge), must-revalidate, no-transform")
        }
        router.get(RouterPath(WirePaths.sessionCookieJWKS)) { _, _ -> JSONResponse<PublicKeysController.JWKSet> in
            let published = try await keyRing.published()
            return JSONResponse(PublicKeysController.JWKSet(keys: try published.keys.map { try $0.publicJWK() }),
                                cacheControl: "public, max-age=\(published.maxAge), must-revalidate, no-transform")
        }

        // The Auth emulator's own endpoints: only where its credential is accepted.
        let emulator = "/emulator/v1/projects/{project}"
        router.delete(RouterPath("\(emulator)/accounts")) { request, context -> JSONResponse<EmptyResponse> in
            try service.checkProject(try context.parameters.require("project"))
            let principal = try emulatorPrincipal(request, context)
            return JSONResponse(try await service.deleteAllUsers(by: principal))
        }
        router.get(RouterPath("\(emulator)/config")) { request, context -> JSONResponse<EmulatorConfig> in
            try service.checkProject(try context.parameters.require("project"))
            _ = try emulatorPrincipal(request, context)
            return JSONResponse(try await service.emulatorConfig())
        }
        router.patch(RouterPath("\(emulator)/config")) { request, context -> JSONResponse<EmulatorConfig> in
            try service.checkProject(try context.parameters.require("project"))
            let principal = try emulatorPrincipal(request, context)
            let body = try await RequestBody.decode(EmulatorConfig.self, from: request, context: context, limit: maxBodySize)
            return JSONResponse(try await service.updateEmulatorConfig(body, by: principal))
        }
    }

    private func emulatorPrincipal(_ request: Request, _ context: HearthRequestContext) throws -> AdminPrincipal {
        guard authorizer.emulatorCredentialsAllowed(request, context: context) else {
            throw HearthAPIError(.notFound, "the emulator endpoints exist only for demo-* projects or with --emulator-admin, from loopback clients")
        }
        return .emulatorOwner
    }

    /// An authorized POST with a JSON body.
    func post<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ router: Router<HearthRequestContext>, _ path: String, _ input: Input.Type,
        _ body: @escaping @Sendable (Input, AdminPrincipal) async throws -> Output
    ) {
        let limit = adminBodyLimit
        router.post(RouterPath(path)) { request, context -> JSONResponse<Output> in
            let principal = try await authorize(request, context)
            let decoded = try await RequestBody.decode(Input.self, from: request, context: context, limit: limit)
            return JSONResponse(try await body(decoded, principal))
        }
    }

    /// An authorized call without a body (GET, DELETE).
    func get<Output: Encodable & Sendable>(
        _ router: Router<HearthRequestContext>, _ path: String, method: HTTPRequest.Method = .get,
        _ body: @escaping @Sendable (Request, AdminPrincipal) async throws -> Output
    ) {
        router.on(RouterPath(path), method: method) { request, context -> JSONResponse<Output> in
            let principal = try await authorize(request, context)
            return JSONResponse(try await body(request, principal))
        }
    }

    /// Authorizes, then checks the project in the path.
    func authorize(_ request: Request, _ context: HearthRequestContext) async throws -> AdminPrincipal {
        let principal = try await authorizer.authorize(request, context: context)
        if let project = context.parameters.get("project") { try service.checkProject(project) }
        return principal
    }
}
