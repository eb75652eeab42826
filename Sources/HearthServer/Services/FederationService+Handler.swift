import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import Logging

/// What the auth handler answers: a redirect, or an HTML page (errors that must not redirect anywhere), or the web
/// result page that hands an auth event to the JS SDK's helper iframe (popup) or keeps it for it (redirect).
public enum HandlerOutcome: Sendable, Equatable {
    case redirect(String)
    case page(status: Int, title: String, message: String)
    case web(WebDelivery)
    /// A refusal page whose explanation also goes to the browser's console (a web app's developer looks there).
    case explained(status: Int, title: String, message: String)
}

/// A web sign-in's result for the Firebase JS SDK: the event, the app it may go to, and how.
public struct WebDelivery: Sendable, Equatable {
    public var target: WebAppTarget
    public var event: WebAuthEvent
    /// A popup (the event goes to the opener's helper iframe) or a redirect (kept for the iframe, then back to the app).
    public var popup: Bool
}

extension FederationService {
    /// `GET /__/auth/handler` without `state`: validates the app's request (API key, app and redirect target,
    /// provider, custom parameters), stores a single-use authorization session and sends the browser to the
    /// provider with state, nonce and PKCE. Problems with the app or redirect target get an error page (no open
    /// redirect); later problems are delivered to the app as `firebaseError`.
    public func startSignIn(query: [String: String]) async throws -> HandlerOutcome {
        // The sign-in's scope, from the JS SDK's `tid` (an Identity Platform tenant). A tenant is refused below, once
        // the app's target is known (so the app is told); until then the project's own settings check the target.
        var resolved: Result<Scope, any Error>
        do { resolved = .success(try await accounts.scopes.resolve(tenantId: query[.tid], in: "the handler's tid")) } catch { resolved = .failure(error) }
        let scope = (try? resolved.get()) ?? accounts.scopes.project
        let apiKey = query[.apiKey] ?? ""
        guard configuration.acceptsAnyAPIKey || configuration.apiKeys.contains(apiKey) else {
            return .page(status: 400, title: "Invalid API key", message: "The API key is not valid for this project.")
        }
        let providerId = (query[.providerId] ?? "").lowercased()
        guard IdPConfig.kind(forProviderId: providerId) != nil else {
            return .page(status: 400, title: "Unsupported provider", message: "providerId must be microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>.")
        }
        let authType = query[.authType].flatMap { $0.isEmpty ? nil : $0 } ?? "signInWithRedirect"
        guard authType.count <= 40, authType.allSatisfy({ $0.isLetter }) else {
            return .page(status: 400, title: "Invalid request", message: "authType is malformed.")
        }
        // The Firebase JS SDK (popup and redirect): no session id (Hearth makes it at the callback), its own event ids,
        // a page on an authorized domain.
        let web = AuthHandlerProtocol.webAuthTypes.contains(authType)
        let sessionIdHash: String
        let eventId: String
        let target: RedirectTarget
        if web {
            sessionIdHash = ""
            guard let value = Self.webEventId(query[.eventId], authType: authType) else {
                return .page(status: 400, title: "Invalid request", message: "eventId is missing or malformed.")
            }
            eventId = value
            switch try await webTarget(query, authType: authType, in: scope) {
            case .success(let value): target = .web(value)
            case .failure(let error): return error.outcome
            }
        } else {
            guard let hash = query[.sessionId]?.lowercased(), hash.count == 64, hash.allSatisfy(\.isHexDigit) else {
                return .page(status: 400, title: "Invalid request", message: "sessionId must be the hex SHA-256 of the app's session id.")
            }
            sessionIdHash = hash
            guard let value = query[.eventId], (1...64).contains(value.count), value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return .page(status: 400, title: "Invalid request", message: "eventId is missing or malformed.")
            }
            eventId = value
            switch try await redirectTarget(query, in: scope) {
            case .success(let value): target = value
            case .failure(let error): return error.outcome
            }
        }
        func fail(_ code: WebAuthErrorCode, _ message: String) -> HandlerOutcome {
            Self.result(target, publicURL: configuration.publicURL.url, authType: authType, eventId: eventId,
                        link: nil, sessionId: nil, firebaseError: FirebaseWebError(code: code, message: message))
        }
        let config: IdPConfig
        do {
            config = try await enabledProvider(providerId, in: scope)
        } catch {
            return fail(.operationNotAllowed, "OPERATION_NOT_ALLOWED : \(providerId) sign-in is not enabled for this project")
        }
        if config.kind == .apple, !config.hasAppleCodeFlow {
            return fail(.operationNotAllowed, "OPERATION_NOT_ALLOWED : apple.com is set up for native sign-in only: the web flow needs appleSignInConfig.codeFlowConfig (team id, key id, .p8 key)")
        }
        var parameters: [(String, String)] = []
        var entraTenantOrHostedDomain: String?
        if let raw = query[.customParameters], !raw.isEmpty {
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8)) else {
                return fail(.argumentError, "INVALID_ARGUMENT : customParameters must be a JSON object")
            }
            let reserved = object.keys.filter { RelyingParty.reservedParameters.contains($0.lowercased()) }.sorted()
            if !reserved.isEmpty {
                return fail(.argumentError, "INVALID_ARGUMENT : customParameters may not set \(reserved.joined(separator: ", ")); Hearth sets them")
            }
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                let text: String
                switch value {
                case .string(let string): text = string
                case .bool(let flag): text = flag ? "true" : "false"
                case .number(let number): text = number.rounded() == number ? String(Int64(number)) : String(number)
                default: return fail(.argumentError, "INVALID_ARGUMENT : customParameters.\(key) must be a string")
                }
                // Microsoft's tenant and Google's hosted domain narrow the administrator's allow-list (checked in resolve).
                if (config.kind == .microsoft && key == "tenant") || (config.kind == .google && key == "hd") {
                    entraTenantOrHostedDomain = text
                } else {
                    parameters.append((key, text))
                }
            }
        }
        if case .failure(let refusal) = resolved {
            // `tid` is Firebase's multi-tenancy (Identity Platform) tenant, not Microsoft's Entra tenant.
            let why = (refusal as? HearthAPIError)?.detail ?? "\(refusal)"
            let code = (refusal as? HearthAPIError)?.code.rawValue ?? ServerErrorCode.tenantNotFound.rawValue
            return fail(.unsupportedTenantOperation, "\(code) : \(why). (For a Microsoft Entra tenant use the tenant custom parameter, not auth.tenantId)")
        }
        if let language = query[.hl], !language.isEmpty, !parameters.contains(where: { $0.0 == "ui_locales" || $0.0 == "language" }) {
            parameters.append((config.kind == .yahoo ? "language" : "ui_locales", language))
        }
        let requested = (query[.scopes] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let provider: ResolvedProvider
        do {
            provider = try await relyingParty.resolve(config, entraTenantOrHostedDomain: entraTenantOrHostedDomain)
        } catch let error as RelyingPartyError where error.kind == .entraTenantNotAllowed || error.kind == .hostedDomainNotAllowed {
            // The app asked for a Microsoft tenant outside the administrator's allow-list: refused before any login page.
            let correlationId = UUID().uuidString.lowercased()
            diagnostics.record("federated sign-in refused", error.errorInfo(providerId: config.providerId), detail: error.message,
                               correlationId: correlationId)
            let sentence = error.message.prefix(1).uppercased() + error.message.dropFirst()
            return Self.result(target, publicURL: configuration.publicURL.url, authType: authType, eventId: eventId, link: nil, sessionId: nil,
                               firebaseError: FirebaseWebError(code: .operationNotAllowed, message: "OPERATION_NOT_ALLOWED : \(sentence).",
                                                               correlationId: correlationId))
        } catch let error as RelyingPartyError {
            let code: WebAuthErrorCode = error.kind == .configuration ? .argumentError : .networkRequestFailed
            return fail(code, "INVALID_ARGUMENT : \(error.message)")
        }
        let moment = now
        let state = RandomID.token(byteCount: 32)
        let nonce = RelyingParty.ownFlowNonce()
        let pkce = config.pkce ? RelyingParty.pkcePair() : nil
        let scopes = RelyingParty.scopes(for: config.kind, requested: requested, offlineAccess: wantsOfflineAccess(provider))
        let redirectUri = configuration.publicURL.authHandlerURL
        try await scope.store.insertAuthorizationSession(AuthorizationSession(
            state: state, providerId: providerId, nonce: nonce, codeVerifier: pkce?.verifier, sessionIdHash: sessionIdHash,
            eventId: eventId, authType: authType, entraTenantOrHostedDomain: provider.entraTenantOrHostedDomain, redirect: target, redirectUri: redirectUri,
            scopes: scopes, createdAt: moment, expiresAt: moment.addingTimeInterval(configuration.authorizationSessionLifetime)))
        return .redirect(relyingParty.authorizationURL(provider, redirectUri: redirectUri, state: state, nonce: nonce,
                                                       codeChallenge: pkce?.challenge, scopes: scopes, parameters: parameters))
    }

    /// The app a handler request comes from, and where its result may go.
    func redirectTarget(_ query: [String: String], in scope: Scope) async throws -> Result<RedirectTarget, HandlerOutcomeError> {
        let project = try await scope.config()
        let apps = try await scope.store.apps()
        if let redirectUrl = query[.redirectUrl], !redirectUrl.isEmpty {
            guard RedirectTarget.isLoopback(redirectUrl) else {
                return .failure(HandlerOutcomeError(.page(status: 400, title: "Redirect not allowed",
                    message: "redirectUrl must be a loopback address (http://127.0.0.1:<port>/… or http://[::1]:<port>/…).")))
            }
            let appId = query[.appId] ?? query[.clientId] ?? ""
            guard acceptsDesktopApp(appId, project: project, apps: apps) else {
                // The result is only an error, so it may go to the loopback address (only a program on this machine
                // listens there): the app waiting for it learns at once what is wrong, rather than at its timeout.
                let message = Self.unregisteredDesktopApp(appId)
                return .failure(HandlerOutcomeError(.redirect(Self.deliver(.loopback(redirectUrl), publicURL: configuration.publicURL.url,
                    authType: query[.authType] ?? "signInWithRedirect", eventId: Self.safeEventId(query[.eventId]), link: nil,
                    firebaseError: FirebaseWebError(code: .appNotAuthorized, message: "APP_NOT_AUTHORIZED : " + message)))))
            }
            return .success(.loopback(redirectUrl))
        }
        let bundleId = query[.ibi] ?? ""
        let appId = query[.appId].flatMap { $0.isEmpty ? nil : $0 }
        let clientId = query[.clientId].flatMap { $0.isEmpty ? nil : $0 }
        guard !bundleId.isEmpty, appId != nil || clientId != nil else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Unknown application",
                message: "The request names no application (ibi with appId or clientId, or a loopback redirectUrl).")))
        }
        // The scheme the result goes to comes only from the registered app record that matched: an app matched by
        // its app id must not have its result delivered to a scheme built from an unregistered client id (that
        // would hand the sign-in to whichever app claims that scheme).
        var scheme: String?
        for app in apps where app.kind == .apple && app.bundleId == bundleId {
            if let clientId, app.clientId == clientId {
                scheme = AuthHandlerProtocol.callbackScheme(appId: nil, clientId: clientId)
                break
            }
            if let appId, app.appId == appId {
                scheme = AuthHandlerProtocol.callbackScheme(appId: appId, clientId: nil)
                break
            }
        }
        if scheme == nil, acceptsAnyApp(project) {
            // Any app is accepted (a demo project in --dev): the scheme is the app's own choice.
            scheme = AuthHandlerProtocol.callbackScheme(appId: appId, clientId: clientId)
        }
        guard let scheme else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Unknown application",
                message: "The application \(bundleId) is not registered for this project with that app id or client id (hearth apps add-apple, or the console's Apps page).")))
        }
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "+" }), scheme.first?.isLetter == true else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Invalid request", message: "The application's URL scheme is malformed.")))
        }
        return .success(.appleScheme(scheme.lowercased()))
    }

    /// A JS SDK event id: 10 digits for popups, `<uid>:::<digits>` for link and reauth redirects, none for a sign-in
    /// redirect (empty then). Printable ASCII without spaces, at most 200 characters; echoed exactly.
    static func webEventId(_ raw: String?, authType: String) -> String? {
        guard let raw, !raw.isEmpty else { return authType == "signInViaRedirect" ? "" : nil }
        guard raw.utf8.count <= 200, raw.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "<" && $0 != ">" && $0 != "\"" }) else { return nil }
        return raw
    }

    /// The web page a JS SDK sign-in returns to: an http(s) URL on one of the project's authorized domains (the SDK
    /// skips its own origin check in emulator mode, so Hearth does it). A redirect sign-in also needs the page on
    /// Hearth's site: across sites, the browser partitions the storage that carries the result back.
    func webTarget(_ query: [String: String], authType: String, in scope: Scope) async throws -> Result<WebAppTarget, HandlerOutcomeError> {
        let apiKey = query[.apiKey] ?? ""
        let appName = query[.appName].flatMap { $0.isEmpty ? nil : $0 } ?? "[DEFAULT]"
        guard let redirectUrl = query[.redirectUrl], !redirectUrl.isEmpty, redirectUrl.utf8.count <= 4096,
              let components = URLComponents(string: redirectUrl), components.user == nil, components.password == nil,
              let host = components.host, WebAppTarget.origin(of: redirectUrl) != nil,
              apiKey.utf8.count <= 200, appName.utf8.count <= 200,
              (apiKey + appName).unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Invalid request",
                message: "redirectUrl must be the http(s) address of the app's page (the Firebase JS SDK sends it).")))
        }
        let project = try await scope.config()
        guard AuthorizedDomains.allows(host: host, in: project.authorizedDomains) else {
            logger.notice("web sign-in from an unauthorized domain refused", metadata: ["host": "\(host.prefix(100))"])
            return .failure(HandlerOutcomeError(.page(status: 400, title: "This site is not an authorized domain",
                message: "\(host.prefix(100)) is not an authorized domain of this project, so Hearth does not sign in from it. An administrator adds it with hearth project domains --add \(host.prefix(100)) (or the console's Settings) — only for a site the project owns.")))
        }
        if authType.hasSuffix("ViaRedirect"), let publicHost = URLComponents(string: configuration.publicURL.url)?.host,
           !WebOrigins.sameSite(redirectUrl, configuration.publicURL.url) {
            logger.notice("redirect sign-in across sites refused", metadata: ["host": "\(host.prefix(100))", "hearth": "\(publicHost)"])
            return .failure(HandlerOutcomeError(.explained(status: 400, title: WebOrigins.crossSiteTitle,
                message: WebOrigins.crossSiteExplanation(appHost: String(host.prefix(100)), hearthHost: publicHost))))
        }
        return .success(WebAppTarget(redirectUrl: redirectUrl, apiKey: apiKey, appName: appName))
    }

    /// The app's event id when well-formed, else empty (an error still reaches the app).
    static func safeEventId(_ raw: String?) -> String {
        guard let raw, (1...64).contains(raw.count), raw.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return "" }
        return raw
    }

    /// The provider's return to the handler (`code` or `error`, and `state`): delivers the full callback URL
    /// (`link`) to the app once. Unknown, expired or used states get an error page and no redirect.
    /// `formPost`: the callback came as Apple's `form_post`, accepted only for an `apple.com` sign-in (a POST with
    /// another provider's state is refused without using the state).
    public func handleCallback(query: [String: String], callbackURL: String, formPost: Bool = false) async throws -> HandlerOutcome {
        guard let state = query["state"], let session = try await store.authorizationSession(state: state) else {
            if formPost { logger.notice("form_post callback with an unknown state refused") }
            return .page(status: 400, title: "Unknown sign-in", message: "This sign-in is unknown. Start again from the app.")
        }
        if formPost, session.providerId != "apple.com" {
            logger.notice("form_post callback for a provider that does not post refused", metadata: ["provider": "\(session.providerId)"])
            return .page(status: 400, title: "Unknown sign-in", message: "This sign-in is unknown. Start again from the app.")
        }
        // A web sign-in's session id is made now and handed to the page only; the session keeps its hash.
        var rawSessionId: String?
        if case .web = session.redirect, query["error"] == nil { rawSessionId = RandomID.token(byteCount: 32) }
        guard try await store.markCallback(state: state, now: now, sessionIdHash: rawSessionId.map(\.sha256Hex)) else {
            return .page(status: 400, title: "Sign-in link used or expired", message: "This sign-in was already completed or has expired. Start again from the app.")
        }
        let base = configuration.publicURL.url
        if let error = query["error"] {
            let refusal = ProviderRefusal(error: error, subcode: query["error_subcode"], description: query["error_description"],
                                          providerId: session.providerId, entraTenant: session.entraTenantOrHostedDomain, correlationId: query["correlation_id"])
            var info = ProviderErrorInfo.parse(providerId: session.providerId, query: query)
            if refusal.cancelled { info.reason = "cancelled" }
            diagnostics.record(refusal.cancelled ? "federated sign-in cancelled by the user" : "federated sign-in refused by the provider",
                               info, detail: refusal.logReason, correlationId: refusal.correlationId)
            return Self.result(session.redirect, publicURL: base, authType: session.authType, eventId: session.eventId,
                               link: nil, sessionId: nil, firebaseError: refusal.firebaseError, tenantId: session.tenantId)
        }
        return Self.result(session.redirect, publicURL: base, authType: session.authType, eventId: session.eventId,
                           link: callbackURL, sessionId: rawSessionId, firebaseError: nil, tenantId: session.tenantId)
    }

    /// Apple's `form_post` fields as the callback URL the app receives (`link`) and its query: `code` or `error`
    /// (with `error_description`), `state`, and Apple's `user` field (the name, first authorization only) for
    /// ``signInWithIdp(_:)`` to read. Nil unless the form has a state and a code or an error.
    static func formPostLink(_ fields: [String: String], handlerURL: String) -> (url: String, query: [String: String])? {
        guard let state = fields["state"], !state.isEmpty, fields["code"] != nil || fields["error"] != nil else { return nil }
        var pairs: [(String, String)] = []
        for name in ["code", "state", "error", "error_description", "user"] {
            if let value = fields[name], !value.isEmpty, value.count <= 8192 { pairs.append((name, value)) }
        }
        guard pairs.contains(where: { $0.0 == "state" }) else { return nil }
        var query: [String: String] = [:]
        for (name, value) in pairs { query[name] = value }
        return (handlerURL + "?" + FormEncoding.encode(pairs), query)
    }

    /// What hands a result to the app: a redirect to Firebase's Apple deep link or the loopback URL, or the web
    /// result page (the JS SDK's auth event; `sessionId` is the raw one, for web sign-ins).
    static func result(_ target: RedirectTarget, publicURL: String, authType: String, eventId: String, link: String?, sessionId: String?,
                       firebaseError: FirebaseWebError?, tenantId: String? = nil) -> HandlerOutcome {
        guard case .web(let app) = target else {
            return .redirect(deliver(target, publicURL: publicURL, authType: authType, eventId: eventId, link: link, firebaseError: firebaseError))
        }
        var error: WebAuthEvent.EventError?
        if let firebaseError {
            // The JS SDK's name for a cancellation; its other codes are the same.
            let code = firebaseError.webCode == .webContextCancelled ? WebAuthErrorCode.userCancelled.rawValue : firebaseError.code
            error = WebAuthEvent.EventError(code: code, message: firebaseError.message)
        }
        var event = WebAuthEvent(type: authType, eventId: eventId.isEmpty ? nil : eventId, urlResponse: error == nil ? link : nil,
                                 sessionId: error == nil ? sessionId : nil, error: error)
        // The sign-in's tenant: the JS SDK checks it against `auth.tenantId`.
        event.tenantId = tenantId
        return .web(WebDelivery(target: app, event: event, popup: authType.hasSuffix("ViaPopup")))
    }

    /// The URL that hands a result to the app: Firebase's Apple deep link, or the loopback URL.
    static func deliver(_ target: RedirectTarget, publicURL: String, authType: String, eventId: String, link: String?,
                        firebaseError: FirebaseWebError?) -> String {
        var fields: [(String, String)] = [(AuthHandlerParameter.authType.rawValue, authType)]
        if let link { fields.append((AuthHandlerParameter.link.rawValue, link)) }
        if let firebaseError { fields.append((AuthHandlerParameter.firebaseError.rawValue, firebaseError.jsonString)) }
        fields.append((AuthHandlerParameter.eventId.rawValue, eventId))
        switch target {
        case .appleScheme(let scheme):
            let deepLink = "\(publicURL)\(AuthHandlerProtocol.callbackPath)?" + FormEncoding.encode(fields)
            return "\(scheme)://firebaseauth/link?\(AuthHandlerParameter.deepLinkId.rawValue)=" + FormEncoding.escape(deepLink)
        case .loopback(let url):
            return url + (url.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
        case .web(let app):
            return app.redirectUrl
        }
    }
}

/// A handler failure shown as a page.
public struct HandlerOutcomeError: Error {
    public let outcome: HandlerOutcome
    init(_ outcome: HandlerOutcome) { self.outcome = outcome }
}

extension Dictionary where Key == String, Value == String {
    /// A parameter of the auth handler protocol.
    subscript(_ parameter: AuthHandlerParameter) -> String? { self[parameter.rawValue] }
}

/// A provider's `error` answer to the authorization request, read for people and for the app: cancelled by the
/// user, or refused (with the provider's reason in words).
struct ProviderRefusal {
    let error: String
    let providerErrorCode: String?
    let description: String
    let cancelled: Bool
    let reason: String
    let correlationId: String

    init(error: String, subcode: String?, description: String?, providerId: String, entraTenant: String?, correlationId: String?) {
        self.error = String(error.prefix(64))
        let description = String((description ?? "").prefix(300))
        self.description = description
        // Microsoft's AADSTS codes (and similar provider codes) lead the description.
        let code = description.range(of: #"AADSTS\d+"#, options: .regularExpression).map { String(description[$0]) }
        self.providerErrorCode = code
        // The user cancelled: `access_denied` with Microsoft's `error_subcode=cancel`, or a plain `access_denied`
        // without a provider code (Yahoo's consent screen "Cancel").
        self.cancelled = (error == "access_denied" && (subcode == "cancel" || code == nil)) || error == "user_cancelled_authorize"
        let provider = providerId
        switch (code, entraTenant) {
        case ("AADSTS50020"?, "organizations"?):
            reason = "this app accepts work or school accounts only"
        case ("AADSTS50020"?, "consumers"?):
            reason = "this app accepts personal Microsoft accounts only"
        case ("AADSTS50020"?, .some), ("AADSTS50020"?, nil), ("AADSTS700016"?, _), ("AADSTS90072"?, _):
            reason = "your organisation is not allowed to sign in to this app"
        case ("AADSTS65004"?, _), ("AADSTS65001"?, _):
            reason = "the permissions the app asks for were not granted"
        default:
            if cancelled {
                reason = "you cancelled the sign-in at \(provider)"
            } else {
                switch error {
                case "access_denied": reason = "\(provider) did not allow this sign-in"
                case "consent_required", "interaction_required", "login_required": reason = "\(provider) needs you to sign in and consent again"
                case "server_error", "temporarily_unavailable": reason = "\(provider) could not complete the sign-in right now; try again later"
                default: reason = "\(provider) refused the request (\(error))"
                }
            }
        }
        self.correlationId = correlationId.flatMap { $0.count <= 64 && $0.allSatisfy { $0.isHexDigit || $0 == "-" } ? $0 : nil }
            ?? UUID().uuidString.lowercased()
        self.traceId = ProviderErrorInfo.parse(providerId: providerId, query: ["error": error, "error_description": description]).traceId
    }

    /// The provider's trace id (Microsoft writes "Trace ID: …" into the description).
    let traceId: String?

    /// The web error code the app receives.
    var webCode: WebAuthErrorCode {
        if cancelled { return .webContextCancelled }
        if error == "server_error" || error == "temporarily_unavailable" { return .internalError }
        return .invalidCredential
    }

    /// What the log says: the reason and the provider's code (never tokens).
    var logReason: String { [reason, providerErrorCode ?? error].joined(separator: "; ") }

    var firebaseError: FirebaseWebError {
        let sentence = reason.prefix(1).uppercased() + reason.dropFirst()
        return FirebaseWebError(code: webCode, message: sentence + (providerErrorCode.map { " (\($0))." } ?? "."),
                                providerError: error, providerErrorCode: providerErrorCode,
                                providerErrorDescription: description.isEmpty ? nil : description, correlationId: correlationId,
                                providerTraceId: traceId)
    }
}
