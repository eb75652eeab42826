import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import Hummingbird
import Logging

/// `POST /v2/projects/{p}/defaultSupportedIdpConfigs/{idp}:test` and `…/oauthIdpConfigs/{idp}:test` (Hearth
/// extensions): check a provider's configuration without a user (see ``RelyingParty/checkConfiguration(_:redirectUri:)``).
/// Answers a ``ProviderCheckReport`` with HTTP 200 whether or not the configuration works; the console's
/// "Test" button and `hearth providers test` show the same report.
struct ProviderCheckController {
    let federation: FederationService

    /// Registers on the admin route group (``AdminAuthenticator`` has checked the caller and the project).
    func register(on router: RouterGroup<HearthRequestContext>) {
        let v2 = "\(WirePaths.identityToolkitV2)/projects/{project}"
        for collection in ["defaultSupportedIdpConfigs", "oauthIdpConfigs"] {
            router.post(RouterPath("\(v2)/\(collection)/{idp}:test")) { _, context -> JSONResponse<ProviderCheckReport> in
                let providerId = try context.parameters.require("idp")
                let kind = IdPConfig.kind(forProviderId: providerId)
                guard let kind, (kind == .oidc) == (collection == "oauthIdpConfigs") else {
                    throw HearthAPIError(.invalidProviderIdAdmin, collection == "oauthIdpConfigs"
                        ? "an OpenID provider id is oidc.<letters, digits, - or _>"
                        : "Hearth federates microsoft.com and yahoo.com as built-in providers, not \(providerId)")
                }
                return JSONResponse(try await federation.checkProvider(providerId, in: federation.accounts.scopes.project))
            }
        }
    }
}

extension FederationService {
    /// Checks `providerId`'s configuration (stored, enabled or not; else the dev IdP's) without a user.
    public func checkProvider(_ providerId: String, in scope: Scope) async throws -> ProviderCheckReport {
        let stored = try await scope.store.idpConfig(providerId: providerId).flatMap { $0.isDevLeftover ? nil : $0 }
        guard let config = stored ?? devProviders?.config(providerId) else {
            throw HearthAPIError(.configurationNotFound, "\(providerId) is not configured")
        }
        let report = await relyingParty.checkConfiguration(config, redirectUri: configuration.publicURL.authHandlerURL)
        logger.info("provider configuration checked", metadata: [
            "provider": "\(providerId)", "ok": "\(report.ok)",
            "failed": "\(report.checks.filter { $0.status == .failed }.map(\.name).joined(separator: ","))",
        ])
        return report
    }
}
