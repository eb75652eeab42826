import Foundation
import HearthCore
import HearthOIDC
import HearthPages
import HearthStore
import HearthWire
import HTTPTypes
import Hummingbird
import NIOCore

/// `--dev` only: a page that runs the whole federated flow in a browser, as an app would, and shows what happened
/// (signed in, refused, cancelled, account exists). `/__dev/try?provider=microsoft.com` → auth handler → dev IdP
/// login form → callback → `/__dev/try/done`, which completes `signInWithIdp`. (The raw session id travels in the
/// loopback URL: acceptable for a dev page only.)
struct DevTryController {
    let federation: FederationService
    let publicURL: PublicBaseURL
    /// The address the server listens on (`--host`): the loopback address the result comes back to.
    var listenHost = "127.0.0.1"

    /// Where the sign-in's result comes back: `/__dev/try/done` on this server, at a loopback address (the only
    /// return address the auth handler accepts for an app without a registered scheme). A `localhost` public URL —
    /// what docs/passkeys.md recommends for development — is the same server at 127.0.0.1 (or [::1] when it listens
    /// there only), on the same port (issue 35, item 13: the handler refused `http://localhost:PORT/…`).
    var returnBase: String {
        guard let components = URLComponents(string: publicURL.url), components.scheme == "http",
              let host = components.host?.lowercased(), host == "localhost" || host.hasSuffix(".localhost")
        else { return publicURL.url }
        let loopback = ["::1", "[::1]"].contains(listenHost) ? "[::1]" : "127.0.0.1"
        let path = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        return "http://\(loopback):\(components.port ?? 80)\(path)"
    }

    static let badge = "dev try page"

    func register(on router: Router<HearthRequestContext>) {
        router.get("/__dev/try") { request, _ -> Response in
            let provider = FormQuery(request.uri.query).get("provider") ?? "microsoft.com"
            guard ["microsoft.com", "yahoo.com", "apple.com", "google.com"].contains(provider) || provider.hasPrefix("oidc.") else {
                return HTMLPage.message("Unknown provider", "Use provider=microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>.", tone: .error,
                                        status: .badRequest, links: Self.startLinks, badge: Self.badge)
            }
            let entraTenant = FormQuery(request.uri.query).get("tenant").flatMap { $0.isEmpty ? nil : $0 }
            let rawSession = RandomID.alphanumeric(count: 10).uppercased()
            var done = [("s", rawSession), ("p", provider)]
            if let entraTenant { done.append(("t", entraTenant)) }
            var fields: [(AuthHandlerParameter, String)] = [
                (.apiKey, "dev"), (.authType, "signInWithRedirect"), (.providerId, provider),
                (.sessionId, AuthHandlerProtocol.sessionIdHash(rawSession)), (.eventId, RandomID.alphanumeric(count: 10)),
                (.redirectUrl, "\(returnBase)/__dev/try/done?" + FormEncoding.encode(done)),
            ]
            if let entraTenant {
                fields.append((.customParameters, JSONValue.object(["tenant": .string(entraTenant)]).compactJSONString))
            }
            let query = FormEncoding.encode(fields.map { ($0.0.rawValue, $0.1) })
            return Response(status: .found, headers: [.location: "\(publicURL.url)\(AuthHandlerProtocol.handlerPath)?" + query])
        }
        router.get("/__dev/try/done") { request, _ -> Response in
            try await done(request)
        }
        router.get(RouterPath(Self.webPath)) { request, _ -> Response in
            try await webPage(request)
        }
        router.get(RouterPath(Self.webScriptPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache",
                                            HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                     body: .init(byteBuffer: ByteBuffer(string: Pages.devTryWebScript)))
        }
    }

    /// The web flow's page (issue 36): what a web app does with the Firebase JS SDK's `signInWithPopup`.
    static let webPath = "/__dev/try/web"
    static let webScriptPath = "/__dev/try/web.js"
    static let webProviders = ["microsoft.com", "yahoo.com", "apple.com", "google.com"]

    /// `/__dev/try/web[?provider=…&customParameters=…&scopes=…]`: the page, prefilled from its query. It works at
    /// Hearth's public origin only (the result page hands the event to a same-origin opener); a public host that is
    /// not an authorized domain is named before anyone clicks, since the handler refuses such a page.
    func webPage(_ request: Request) async throws -> Response {
        let query = FormQuery(request.uri.query)
        var providers = Self.webProviders
        let configured = try await federation.store.idpConfigs().map(\.providerId).filter { $0.hasPrefix("oidc.") }.sorted()
        providers += configured
        let asked = query.get("provider") ?? "microsoft.com"
        if !providers.contains(asked), asked.hasPrefix("oidc.") { providers.append(asked) }
        let origin = WebAppTarget.origin(of: publicURL.url) ?? publicURL.url
        let host = URLComponents(string: publicURL.url)?.host ?? ""
        let project = try await federation.accounts.scopes.project.config()
        let warning = AuthorizedDomains.allows(host: host, in: project.authorizedDomains) ? nil
            : "This server's host, \(host), is not an authorized domain of project \(project.projectId), so the auth handler refuses this page as a redirectUrl. Add it with hearth project domains --add \(host) (or in the console's Settings), then reload."
        let apiKey = federation.configuration.apiKeys.sorted().first ?? "dev"
        let html = Pages.devTryWeb(
            providers: providers, selected: providers.contains(asked) ? asked : "microsoft.com",
            customParameters: query.get("customParameters") ?? "", scopes: query.get("scopes") ?? "", apiKey: apiKey, origin: origin,
            handler: publicURL.url + AuthHandlerProtocol.emulatorHandlerPath,
            signIn: publicURL.url + WirePaths.accounts("signInWithIdp") + "?" + FormEncoding.encode([("key", apiKey)]),
            warning: warning, links: [Pages.Link("Try the app flow", href: "/__dev/try?provider=microsoft.com"), Pages.Link("Server home", href: "/")],
            script: Self.webScriptPath)
        // No Cross-Origin-Opener-Policy: the popup's result page reaches this page through window.opener.
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: Pages.devTryWebContentSecurityPolicy,
            ActionHandlerController.referrerPolicy: "no-referrer", HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static let startLinks = [Pages.Link("Try Microsoft", href: "/__dev/try?provider=microsoft.com"),
                             Pages.Link("Try Yahoo", href: "/__dev/try?provider=yahoo.com"),
                             Pages.Link("Try Apple", href: "/__dev/try?provider=apple.com"),
                             Pages.Link("Try Google", href: "/__dev/try?provider=google.com"),
                             Pages.Link("Try the web flow", href: webPath)]

    func done(_ request: Request) async throws -> Response {
        let query = FormQuery(request.uri.query)
        let provider = query.get("p") ?? "microsoft.com"
        var again = "/__dev/try?" + FormEncoding.encode([("provider", provider)])
        if let entraTenant = query.get("t") { again += "&" + FormEncoding.encode([("tenant", entraTenant)]) }
        let tryAgain = [Pages.Link("Try again", href: again)]
        if let json = query.get(AuthHandlerParameter.firebaseError.rawValue) {
            let error = FirebaseWebError(jsonString: json)
            let cancelled = error?.webCode == .webContextCancelled
            var facts: [(String, String)] = [("Provider", provider), ("Error code", error?.code ?? "-")]
            if let code = error?.providerErrorCode ?? error?.providerError { facts.append(("Provider's code", code)) }
            if let id = error?.correlationId { facts.append(("Correlation id", id)) }
            return HTMLPage.message(cancelled ? "Sign-in cancelled" : (error?.refusal ?? .rules).title(provider: provider),
                                    error?.message ?? "The sign-in did not complete.", tone: cancelled ? .warning : .error,
                                    status: cancelled ? .ok : .badRequest, facts: facts, detail: error?.providerErrorDescription,
                                    links: tryAgain, badge: Self.badge)
        }
        guard let link = query.get(AuthHandlerParameter.link.rawValue), let session = query.get("s") else {
            return HTMLPage.message("Nothing to complete", "Start a sign-in from one of the links below.", tone: .info,
                                    status: .badRequest, links: Self.startLinks, badge: Self.badge)
        }
        do {
            let result = try await federation.signInWithIdp(SignInWithIdpRequest(
                requestUri: link, postBody: "providerId=\(provider)", sessionId: session, returnIdpCredential: true),
                in: federation.accounts.scopes.project)
            if result.needConfirmation == true {
                let methods = result.verifiedProvider ?? []
                let email = result.email ?? "this email"
                return HTMLPage.message(
                    "An account already exists for \(email)",
                    "\(provider) confirmed \(email), but another account already uses that address, so no one was signed in. To use \(provider) with it, sign in to the existing account first, then link \(provider) (an app does this with the pending credential).",
                    tone: .warning, status: .ok,
                    facts: [("Existing account uses", methods.isEmpty ? "-" : methods.joined(separator: ", "))],
                    items: methods.map { "Sign in with \($0), then link \(provider)" + ($0 == "password" ? " (hearth signin password --email \(email), then hearth link \(provider))" : " (hearth signin \($0), then hearth link \(provider))") },
                    links: tryAgain, badge: Self.badge)
            }
            var user: UserRecord?
            if let localId = result.localId { user = try await federation.store.user(localId: localId) }
            let linked = user?.providerUserInfo.map(\.providerId).joined(separator: ", ") ?? "-"
            return HTMLPage.message(
                "Signed in with \(provider)", result.isNewUser == true ? "A new account was created." : "Welcome back.", tone: .success,
                facts: [("uid", result.localId ?? "-"), ("Email", result.email ?? "-"),
                        ("Email verified", result.emailVerified == true ? "yes" : "no"), ("Linked providers", linked),
                        ("ID token", Self.mask(result.idToken)), ("Refresh token", result.refreshToken.map { "issued (\($0.count) characters, not shown)" } ?? "-")],
                links: tryAgain, badge: Self.badge)
        } catch let error as HearthAPIError {
            // Titled by who refused: the provider (its refusal carries its answer), Hearth's rules, or Hearth itself.
            let refusal: SignInRefusal = error.details?.isEmpty == false ? .provider
                : error.httpStatus >= 500 ? .server : .rules
            return HTMLPage.message(refusal.title(provider: provider), error.description, tone: .error, status: .badRequest,
                                    links: tryAgain, badge: Self.badge)
        }
    }

    static func mask(_ token: String?) -> String {
        guard let token, token.count > 12 else { return "-" }
        return "\(token.prefix(8))…(\(token.count) characters)"
    }
}
