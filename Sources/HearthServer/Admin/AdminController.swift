import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// The admin API's resource routes: the v2 project configuration, provider configurations and tenants, and the Auth
/// emulator's own endpoints. The admin RPCs (users, session cookies, the audit log) are registered from
/// ``RPCCatalog`` by ``RPCRoutes``. Every route here is in an authenticated group (``AdminAuthenticator``,
/// ``EmulatorAuthenticator``): a handler finds the principal on its context.
///
/// Update masks end here: a `PATCH` body and its `updateMask` become typed changes (``ProjectConfigWire``,
/// ``ProviderConfigWire``) before the service sees them.
struct AdminController {
    let service: AdminService

    func register(admin router: RouterGroup<HearthRequestContext>, emulator: RouterGroup<HearthRequestContext>) {
        // v2: project configuration and provider configurations.
        let configHandler: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<AdminProjectConfig> = { request, context in
            let principal = try context.adminPrincipal()
            let scope = service.projectScope
            if request.method == .get { return JSONResponse(try await service.projectConfigResource(in: scope)) }
            let body = try await request.decode(as: JSONValue.self, context: context)
            let query = FormQuery(request.uri.query)
            let changes = try ProjectConfigWire.changes(body: body, updateMask: query.get("updateMask") ?? query.get("update_mask"))
            try await service.updateProjectSettings(changes, by: principal, in: scope)
            return JSONResponse(try await service.projectConfigResource(in: scope))
        }
        for prefix in [WirePaths.identityToolkitV2, "/identitytoolkit.googleapis.com/admin/v2"] {
            router.get(RouterPath("\(prefix)/projects/{project}/config"), use: configHandler)
            router.patch(RouterPath("\(prefix)/projects/{project}/config"), use: configHandler)
        }
        router.get(RouterPath("\(WirePaths.identityToolkitV2)/defaultSupportedIdps")) { _, _ -> JSONResponse<DefaultSupportedIdpList> in
            JSONResponse(service.defaultSupportedIdpList())
        }

        // Provider configurations, the project's and each tenant's (`…/tenants/{tenant}/…`).
        let project = "\(WirePaths.identityToolkitV2)/projects/{project}"
        for v2 in [project, "\(project)/tenants/{tenant}"] {
            router.post(RouterPath("\(v2)/defaultSupportedIdpConfigs")) { request, context -> JSONResponse<DefaultSupportedIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                let body = try await request.decode(as: DefaultSupportedIdpConfig.self, context: context)
                return JSONResponse(try await service.createDefaultIdpConfig(idpId: FormQuery(request.uri.query).get("idpId"), body,
                                                                             by: try context.adminPrincipal(), in: scope))
            }
            router.get(RouterPath("\(v2)/defaultSupportedIdpConfigs")) { request, context -> JSONResponse<DefaultSupportedIdpConfigList> in
                let scope = try await service.resolveScope(of: context)
                let query = FormQuery(request.uri.query)
                return JSONResponse(try await service.listDefaultIdpConfigs(pageSize: query.get("pageSize"), pageToken: query.get("pageToken"), in: scope))
            }
            router.get(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { _, context -> JSONResponse<DefaultSupportedIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                return JSONResponse(try await service.defaultIdpConfig(try context.parameters.require("idp"), in: scope))
            }
            router.patch(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { request, context -> JSONResponse<DefaultSupportedIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                let body = try await request.decode(as: DefaultSupportedIdpConfig.self, context: context)
                let idp = try context.parameters.require("idp")
                // An unknown or unconfigured provider is answered before a bad mask, as it always was.
                _ = try await service.defaultIdpConfig(idp, in: scope)
                let changes = try ProviderConfigWire.changes(body, updateMask: FormQuery(request.uri.query).get("updateMask"))
                return JSONResponse(try await service.updateDefaultIdpConfig(idp, changes, by: try context.adminPrincipal(), in: scope))
            }
            router.delete(RouterPath("\(v2)/defaultSupportedIdpConfigs/{idp}")) { _, context -> JSONResponse<EmptyResponse> in
                let scope = try await service.resolveScope(of: context)
                let (providerId, _) = try AdminService.checkDefaultIdpId(try context.parameters.require("idp"))
                return JSONResponse(try await service.deleteIdpConfig(providerId, action: "defaultSupportedIdpConfigs.delete", by: try context.adminPrincipal(), in: scope))
            }
            router.post(RouterPath("\(v2)/oauthIdpConfigs")) { request, context -> JSONResponse<OAuthIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                let body = try await request.decode(as: OAuthIdpConfig.self, context: context)
                return JSONResponse(try await service.createOAuthIdpConfig(id: FormQuery(request.uri.query).get("oauthIdpConfigId"), body,
                                                                           by: try context.adminPrincipal(), in: scope))
            }
            router.get(RouterPath("\(v2)/oauthIdpConfigs")) { request, context -> JSONResponse<OAuthIdpConfigList> in
                let scope = try await service.resolveScope(of: context)
                let query = FormQuery(request.uri.query)
                return JSONResponse(try await service.listOAuthIdpConfigs(pageSize: query.get("pageSize"), pageToken: query.get("pageToken"), in: scope))
            }
            router.get(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { _, context -> JSONResponse<OAuthIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                return JSONResponse(try await service.oauthIdpConfig(try context.parameters.require("idp"), in: scope))
            }
            router.patch(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { request, context -> JSONResponse<OAuthIdpConfig> in
                let scope = try await service.resolveScope(of: context)
                let body = try await request.decode(as: OAuthIdpConfig.self, context: context)
                let idp = try context.parameters.require("idp")
                // An unknown or unconfigured provider is answered before a bad mask, as it always was.
                _ = try await service.oauthIdpConfig(idp, in: scope)
                let changes = try ProviderConfigWire.changes(body, updateMask: FormQuery(request.uri.query).get("updateMask"))
                return JSONResponse(try await service.updateOAuthIdpConfig(idp, changes, by: try context.adminPrincipal(), in: scope))
            }
            router.delete(RouterPath("\(v2)/oauthIdpConfigs/{idp}")) { _, context -> JSONResponse<EmptyResponse> in
                let scope = try await service.resolveScope(of: context)
                let providerId = try AdminService.checkOIDCId(try context.parameters.require("idp"))
                return JSONResponse(try await service.deleteIdpConfig(providerId, action: "oauthIdpConfigs.delete", by: try context.adminPrincipal(), in: scope))
            }
        }

        // Identity Platform tenants (`projects.tenants`): the bodies read field by field, unknown fields refused.
        router.post(RouterPath("\(project)/tenants")) { request, context -> JSONResponse<Tenant> in
            let principal = try context.adminPrincipal()
            let json = try await request.decode(as: JSONValue.self, context: context)
            let body = try AdminService.tenantWire { try Tenant.decodeBody(json) }
            return JSONResponse(try await service.createTenant(body, by: principal))
        }
        router.get(RouterPath("\(project)/tenants")) { request, _ -> JSONResponse<ListTenantsResponse> in
            let query = FormQuery(request.uri.query)
            return JSONResponse(try await service.listTenants(pageSize: query.get("pageSize"), pageToken: query.get("pageToken")))
        }
        router.get(RouterPath("\(project)/tenants/{tenant}")) { _, context -> JSONResponse<Tenant> in
            JSONResponse(try await service.tenantResource(try context.parameters.require("tenant")))
        }
        router.patch(RouterPath("\(project)/tenants/{tenant}")) { request, context -> JSONResponse<Tenant> in
            let principal = try context.adminPrincipal()
            let id = try context.parameters.require("tenant")
            let json = try await request.decode(as: JSONValue.self, context: context)
            // An unknown tenant is answered before a bad body or mask.
            _ = try await service.storedTenant(id)
            let query = FormQuery(request.uri.query)
            // The mask first: a path Hearth cannot change is INVALID_UPDATE_MASK even when the body names it too.
            let (paths, body) = try AdminService.tenantWire {
                (try Tenant.updatePaths(updateMask: query.get("updateMask") ?? query.get("update_mask"), body: json), try Tenant.decodeBody(json))
            }
            return JSONResponse(try await service.updateTenant(id, body, paths: paths, by: principal))
        }
        // A body (the Node SDK sends `{}`) is not read.
        router.delete(RouterPath("\(project)/tenants/{tenant}")) { _, context -> JSONResponse<EmptyResponse> in
            JSONResponse(try await service.deleteTenant(try context.parameters.require("tenant"), by: try context.adminPrincipal()))
        }

        // The Auth emulator's own endpoints: only where its credential is accepted.
        let path = "/emulator/v1/projects/{project}"
        emulator.delete(RouterPath("\(path)/accounts")) { _, context -> JSONResponse<EmptyResponse> in
            JSONResponse(try await service.deleteAllUsers(by: try context.adminPrincipal(), in: service.projectScope))
        }
        emulator.get(RouterPath("\(path)/config")) { _, _ -> JSONResponse<EmulatorConfig> in
            JSONResponse(try await service.emulatorConfig(in: service.projectScope))
        }
        emulator.patch(RouterPath("\(path)/config")) { request, context -> JSONResponse<EmulatorConfig> in
            let body = try await request.decode(as: EmulatorConfig.self, context: context)
            let scope = service.projectScope
            try await service.updateProjectSettings(ProjectConfigWire.changes(emulator: body), by: try context.adminPrincipal(), in: scope)
            return JSONResponse(try await service.emulatorConfig(in: scope))
        }
    }
}

extension HearthRequestContext {
    /// The admin principal ``AdminAuthenticator`` put on the context (admin and emulator route groups only).
    func adminPrincipal() throws -> AdminPrincipal {
        guard let identity else { throw HearthAPIError(.unauthenticated, "Request is missing required authentication credential") }
        return identity
    }
}

extension AdminService {
    /// The scope of an admin resource route: the path's `{tenant}` (`TENANT_NOT_FOUND` when there is no such
    /// tenant), else the project's own.
    func resolveScope(of context: HearthRequestContext) async throws -> Scope {
        try await accounts.scopes.resolve(tenantId: context.parameters.get("tenant"), in: "the path")
    }
}
