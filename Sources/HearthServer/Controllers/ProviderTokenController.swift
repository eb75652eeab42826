import Foundation
import HearthWire
import Hummingbird

/// `POST /hearth/v1/providerAccessToken` (provider token vault): the user's Hearth ID token as
/// `Authorization: Bearer …` (or `idToken` in the body), the provider in `providerId`.
struct ProviderTokenController {
    let federation: FederationService

    func register(on group: RouterGroup<HearthRequestContext>) {
        group.post(RouterPath(WirePaths.providerAccessToken)) { request, context -> JSONResponse<ProviderAccessTokenResponse> in
            let body = try await request.decode(as: ProviderAccessTokenRequest.self, context: context)
            var idToken = body.idToken
            if let authorization = request.headers[.authorization] {
                let parts = authorization.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                    throw HearthAPIError(.invalidIdToken, "Authorization must be Bearer <the user's ID token>")
                }
                idToken = String(parts[1]).trimmingCharacters(in: .whitespaces)
            }
            return JSONResponse(try await federation.providerAccessToken(idToken: idToken, request: body))
        }
    }
}
