import Foundation
import HearthCore
import HearthDevIdP
import HearthOIDC
import HearthStore
import HearthWire
import Hummingbird

/// `--dev` only: a page that runs the whole federated flow in a browser, as an app would, and shows who signed in.
/// `/__dev/try?provider=microsoft.com` → auth handler → dev IdP login form → callback → `/__dev/try/done`, which
/// completes `signInWithIdp`. (The raw session id travels in the loopback URL: acceptable for a dev page only.)
struct DevTryController {
    let federation: FederationService
    let publicURL: PublicBaseURL

    func register(on router: Router<HearthRequestContext>) {
        router.get("/__dev/try") { request, _ -> Response in
            let provider = request.uri.queryParameters.get("provider") ?? "microsoft.com"
            guard ["microsoft.com", "yahoo.com"].contains(provider) || provider.hasPrefix("oidc.") else {
                return Pages.response(Pages.message(title: "Unknown provider", message: "Use provider=microsoft.com or yahoo.com."), status: .badRequest)
            }
            let rawSession = RandomID.alphanumeric(count: 10).uppercased()
            let done = "\(publicURL.url)/__dev/try/done?s=\(rawSession)&p=\(FormEncoding.escape(provider))"
            var fields: [(String, String)] = [
                ("apiKey", "dev"), ("authType", "signInWithRedirect"), ("providerId", provider),
                ("sessionId", rawSession.sha256Hex), ("eventId", RandomID.alphanumeric(count: 10)),
                ("redirectUrl", done),
            ]
            if let tenant = request.uri.queryParameters.get("tenant"), !tenant.isEmpty {
                fields.append(("customParameters", JSONValue.object(["tenant": .string(tenant)]).compactJSONString))
            }
            return Response(status: .found, headers: [.location: "\(publicURL.url)/__/auth/handler?" + FormEncoding.encode(fields)])
        }
        router.get("/__dev/try/done") { request, _ -> Response in
            let query = request.uri.queryParameters
            if let error = query.get("firebaseError") {
                return Pages.response(Pages.message(title: "Sign-in failed", message: error), status: .badRequest)
            }
            guard let link = query.get("link"), let session = query.get("s"), let provider = query.get("p") else {
                return Pages.response(Pages.message(title: "Nothing to complete", message: "Start at /__dev/try?provider=microsoft.com."), status: .badRequest)
            }
            do {
                let result = try await federation.signInWithIdp(SignInWithIdpRequest(
                    requestUri: link, postBody: "providerId=\(provider)", sessionId: session, returnIdpCredential: true))
                var user: UserRecord?
                if let localId = result.localId { user = try await federation.store.user(localId: localId) }
                let linked = user?.providerUserInfo.map(\.providerId).joined(separator: ", ") ?? "-"
                let summary = result.needConfirmation == true
                    ? "Another account already uses \(result.email ?? "this email"): sign in to it and link \(provider) (needConfirmation)."
                    : "uid \(result.localId ?? "-") · provider \(provider) · email \(result.email ?? "-") (verified: \(result.emailVerified == true)) · new user: \(result.isNewUser == true) · linked: \(linked)"
                return Pages.response(Pages.message(title: "Signed in with \(provider)", message: summary,
                                                    detail: "ID token: \(Self.mask(result.idToken)) · refresh token: \(Self.mask(result.refreshToken))"))
            } catch let error as HearthAPIError {
                return Pages.response(Pages.message(title: "Sign-in failed", message: error.description), status: .badRequest)
            }
        }
    }

    static func mask(_ token: String?) -> String {
        guard let token, token.count > 12 else { return "-" }
        return "\(token.prefix(8))…(\(token.count) characters)"
    }
}
