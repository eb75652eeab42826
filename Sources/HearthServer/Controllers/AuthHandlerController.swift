import Foundation
import HTTPTypes
import HearthCore
import HearthPages
import HearthWire
import Hummingbird
import NIOCore

/// `GET /__/auth/handler` and `/emulator/auth/handler`: starts a federated sign-in, and receives the provider's
/// callback (registered redirect URI: `<public URL>/__/auth/handler`). `POST` on the same paths receives Sign in
/// with Apple's `response_mode=form_post` callback (`code`, `state`, `user`, `error` as a form).
struct AuthHandlerController {
    let federation: FederationService
    let accounts: AccountService
    let maxBodySize: Int
    /// Rate limits (nil: off), attached to the handler's routes.
    let limiter: RateLimiter?

    func register(on router: Router<HearthRequestContext>) {
        let handler: @Sendable (Request, HearthRequestContext) async throws -> Response = { request, _ in
            var query: [String: String] = [:]
            for (key, value) in FormQuery(request.uri.query).fields { query[key] = value }
            let isCallback = query["state"] != nil && (query["code"] != nil || query["error"] != nil) && query[.apiKey] == nil
            let outcome = isCallback
                ? try await federation.handleCallback(query: query, callbackURL: federation.configuration.publicURL.url + request.uri.description)
                : try await federation.startSignIn(query: query)
            return Self.render(outcome)
        }
        let limited = router.group()
        if let limiter { limited.add(middleware: RateLimitMiddleware(limiter: limiter, endpoint: .authHandler)) }
        limited.get(RouterPath(AuthHandlerProtocol.handlerPath), use: handler)
        limited.get(RouterPath(AuthHandlerProtocol.emulatorHandlerPath), use: handler)
        // Apple's form_post: a cross-site POST, so no cookie binds it; the single-use state does (bound to the
        // app's session id, which signInWithIdp checks) and must belong to an apple.com sign-in.
        let formPost: @Sendable (Request, HearthRequestContext) async throws -> Response = { request, _ in
            let buffer = try await request.body.collect(upTo: maxBodySize)
            let fields = FormQuery(String(buffer: buffer)).fields
            guard let link = FederationService.formPostLink(fields, handlerURL: federation.configuration.publicURL.authHandlerURL) else {
                return HTMLPage.message("Unknown sign-in", "This sign-in is unknown. Start again from the app.", tone: .error, status: .badRequest)
            }
            return Self.render(try await federation.handleCallback(query: link.query, callbackURL: link.url, formPost: true))
        }
        limited.post(RouterPath(AuthHandlerProtocol.handlerPath), use: formPost)
        limited.post(RouterPath(AuthHandlerProtocol.emulatorHandlerPath), use: formPost)
        // The Firebase JS SDK's helper iframe, framed only by the project's authorized domains.
        let iframe: @Sendable (Request, HearthRequestContext) async throws -> Response = { _, _ in
            let domains = try await accounts.scopes.project.config().authorizedDomains
            return Response(status: .ok, headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; script-src 'self' https://apis.google.com; connect-src https://apis.google.com; "
                    + "frame-src https://apis.google.com; base-uri 'none'; form-action 'none'; frame-ancestors \(WebOrigins.frameAncestors(domains))",
            ], body: .init(byteBuffer: ByteBuffer(string: Pages.webIframe(script: AuthHandlerProtocol.iframeScriptPath, gapiURL: Self.gapiURL))))
        }
        // Not rate-limited: Safari and mobile browsers load it with every page of the app.
        router.get(RouterPath(AuthHandlerProtocol.iframePath), use: iframe)
        router.get(RouterPath(AuthHandlerProtocol.emulatorIframePath), use: iframe)
        router.get(RouterPath(AuthHandlerProtocol.iframeScriptPath)) { _, _ in Self.script(Pages.webIframeScript) }
        router.get(RouterPath(AuthHandlerProtocol.webResultScriptPath)) { _, _ in Self.script(Pages.webResultScript) }
        router.get(RouterPath(AuthHandlerProtocol.callbackPath)) { _, _ in
            HTMLPage.message("Return to the app", "This address is opened by the app, not the browser. You can close this window.", tone: .info)
        }
    }

    /// Where the helper iframe loads `gapi.iframes` from (the same script the SDK loads into the app's page).
    static let gapiURL = "https://apis.google.com/js/api.js"

    /// The pages of web sign-in: their scripts from this origin only, inline styles, no framing. No
    /// `Cross-Origin-Opener-Policy`: any but `unsafe-none` in a popup cuts it from the app that opened it.
    static let webPageSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func script(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=300"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func render(_ outcome: HandlerOutcome) -> Response {
        switch outcome {
        case .redirect(let location):
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        case .page(let status, let title, let message):
            return HTMLPage.message(title, message, tone: status >= 400 ? .error : .info, status: HTTPResponse.Status(code: status))
        case .explained(let status, let title, let message):
            let data = JSONValue.object(["consoleError": .string(title + ". " + message.replacingOccurrences(of: "\n\n", with: " "))]).compactJSONString
            return webPage(status: status, Pages.webResult(title: title, message: message, tone: .error, data: data,
                                                           script: AuthHandlerProtocol.webResultScriptPath))
        case .web(let delivery):
            var data: [String: JSONValue] = [
                "popup": .bool(delivery.popup), "apiKey": .string(delivery.target.apiKey), "appName": .string(delivery.target.appName),
                "appOrigin": .string(delivery.target.origin ?? ""), "redirectUrl": .string(delivery.target.redirectUrl),
                "storageKey": .string("hearth:redirectEvent:\(delivery.target.apiKey):\(delivery.target.appName)"),
            ]
            if let event = try? JSONDecoder().decode(JSONValue.self, from: WireJSON.encoder.encode(delivery.event)) { data["event"] = event }
            let failed = delivery.event.error != nil
            let title = failed ? "The sign-in did not complete" : "Signed in"
            let message = failed
                ? (delivery.event.error?.message ?? "") + "\n\nReturning to the app, which shows what to do."
                : (delivery.popup ? "Returning to the app…" : "Returning to the app…")
            return webPage(status: 200, Pages.webResult(title: title, message: message, tone: failed ? .warning : .success,
                                                        data: JSONValue.object(data).compactJSONString,
                                                        script: AuthHandlerProtocol.webResultScriptPath))
        }
    }

    static func webPage(status: Int, _ html: String) -> Response {
        Response(status: HTTPResponse.Status(code: status),
                 headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: webPageSecurityPolicy,
                           HTTPField.Name("Referrer-Policy")!: "no-referrer"],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
