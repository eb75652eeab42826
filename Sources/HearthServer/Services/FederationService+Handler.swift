import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire

/// What the auth handler answers: a redirect, or an HTML page (errors that must not redirect anywhere).
public enum HandlerOutcome: Sendable, Equatable {
    case redirect(String)
    case page(status: Int, title: String, message: String)
}

extension FederationService {
    /// `GET /__/auth/handler` without `state`: validates the app's request (API key, app and redirect target,
    /// provider, custom parameters), stores a single-use authorization session and sends the browser to the
    /// provider with state, nonce and PKCE. Problems with the app or redirect target get an error page (no open
    /// redirect); later problems are delivered to the app as `firebaseError`.
    public func startSignIn(query: [String: String]) async throws -> HandlerOutcome {
        let apiKey = query["apiKey"] ?? ""
        guard configuration.acceptsAnyAPIKey || configuration.apiKeys.contains(apiKey) else {
            return .page(status: 400, title: "Invalid API key", message: "The API key is not valid for this project.")
        }
        let providerId = (query["providerId"] ?? "").lowercased()
        guard IdPConfig.kind(forProviderId: providerId) != nil else {
            return .page(status: 400, title: "Unsupported provider", message: "providerId must be microsoft.com, yahoo.com or oidc.<name>.")
        }
        guard let sessionIdHash = query["sessionId"]?.lowercased(), sessionIdHash.count == 64, sessionIdHash.allSatisfy(\.isHexDigit) else {
            return .page(status: 400, title: "Invalid request", message: "sessionId must be the hex SHA-256 of the app's session id.")
        }
        guard let eventId = query["eventId"], (1...64).contains(eventId.count), eventId.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            return .page(status: 400, title: "Invalid request", message: "eventId is missing or malformed.")
        }
        let authType = query["authType"].flatMap { $0.isEmpty ? nil : $0 } ?? "signInWithRedirect"
        guard authType.count <= 40, authType.allSatisfy({ $0.isLetter }) else {
            return .page(status: 400, title: "Invalid request", message: "authType is malformed.")
        }
        let target: RedirectTarget
        switch try await redirectTarget(query) {
        case .success(let value): target = value
        case .failure(let error): return error.outcome
        }
        func fail(_ code: String, _ message: String) -> HandlerOutcome {
            .redirect(Self.deliver(target, publicURL: configuration.publicURL.url, authType: authType, eventId: eventId,
                                   link: nil, firebaseError: (code, message)))
        }
        let config: IdPConfig
        do {
            config = try await enabledProvider(providerId)
        } catch {
            return fail("auth/operation-not-allowed", "OPERATION_NOT_ALLOWED : \(providerId) sign-in is not enabled for this project")
        }
        var parameters: [(String, String)] = []
        var tenant: String?
        if let raw = query["customParameters"], !raw.isEmpty {
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8)) else {
                return fail("auth/argument-error", "INVALID_ARGUMENT : customParameters must be a JSON object")
            }
            let reserved = object.keys.filter { RelyingParty.reservedParameters.contains($0.lowercased()) }.sorted()
            if !reserved.isEmpty {
                return fail("auth/argument-error", "INVALID_ARGUMENT : customParameters may not set \(reserved.joined(separator: ", ")); Hearth sets them")
            }
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                let text: String
                switch value {
                case .string(let string): text = string
                case .bool(let flag): text = flag ? "true" : "false"
                case .number(let number): text = number.rounded() == number ? String(Int64(number)) : String(number)
                default: return fail("auth/argument-error", "INVALID_ARGUMENT : customParameters.\(key) must be a string")
                }
                if config.kind == .microsoft, key == "tenant" { tenant = text } else { parameters.append((key, text)) }
            }
        }
        if let tid = query["tid"], !tid.isEmpty {
            // `tid` is Firebase's multi-tenancy (Identity Platform) tenant, not Microsoft's: Hearth has no tenants.
            return fail("auth/unsupported-tenant-operation", "TENANT_ID_MISMATCH : this server does not support multi-tenancy (tid \(tid)); use the tenant custom parameter for a Microsoft tenant")
        }
        if let language = query["hl"], !language.isEmpty, !parameters.contains(where: { $0.0 == "ui_locales" || $0.0 == "language" }) {
            parameters.append((config.kind == .yahoo ? "language" : "ui_locales", language))
        }
        let requested = (query["scopes"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let provider: ResolvedProvider
        do {
            provider = try await relyingParty.resolve(config, tenant: tenant)
        } catch let error as RelyingPartyError {
            let code = error.kind == .configuration ? "auth/argument-error" : "auth/network-request-failed"
            return fail(code, "INVALID_ARGUMENT : \(error.message)")
        }
        let moment = now
        let state = RandomID.token(byteCount: 32)
        let nonce = RandomID.token(byteCount: 24)
        let pkce = config.pkce ? RelyingParty.pkcePair() : nil
        let scopes = RelyingParty.scopes(for: config.kind, requested: requested)
        let redirectUri = configuration.publicURL.authHandlerURL
        try await store.insertAuthorizationSession(AuthorizationSession(
            state: state, providerId: providerId, nonce: nonce, codeVerifier: pkce?.verifier, sessionIdHash: sessionIdHash,
            eventId: eventId, authType: authType, tenant: provider.tenant, redirect: target, redirectUri: redirectUri,
            scopes: scopes, createdAt: moment, expiresAt: moment.addingTimeInterval(configuration.authorizationSessionLifetime)))
        try? await store.pruneExpiredFlows(now: moment)
        return .redirect(relyingParty.authorizationURL(provider, redirectUri: redirectUri, state: state, nonce: nonce,
                                                       codeChallenge: pkce?.challenge, scopes: scopes, parameters: parameters))
    }

    /// The app a handler request comes from, and where its result may go.
    func redirectTarget(_ query: [String: String]) async throws -> Result<RedirectTarget, HandlerOutcomeError> {
        let project = try await accounts.projectConfig()
        let apps = try await store.apps()
        if let redirectUrl = query["redirectUrl"], !redirectUrl.isEmpty {
            guard RedirectTarget.isLoopback(redirectUrl) else {
                return .failure(HandlerOutcomeError(.page(status: 400, title: "Redirect not allowed",
                    message: "redirectUrl must be a loopback address (http://127.0.0.1:<port>/… or http://[::1]:<port>/…).")))
            }
            let appId = query["appId"] ?? query["clientId"] ?? ""
            guard project.acceptAnyApp || apps.contains(where: { $0.kind == .desktop && $0.id == appId }) else {
                return .failure(HandlerOutcomeError(.page(status: 400, title: "Unknown application",
                    message: "No desktop application '\(appId)' is registered for this project.")))
            }
            return .success(.loopback(redirectUrl))
        }
        let bundleId = query["ibi"] ?? ""
        let appId = query["appId"]
        let clientId = query["clientId"]
        guard !bundleId.isEmpty, let scheme = AppRegistration.callbackScheme(appId: appId, clientId: clientId) else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Unknown application",
                message: "The request names no application (ibi with appId or clientId, or a loopback redirectUrl).")))
        }
        let registered = apps.contains { app in
            app.kind == .apple && app.bundleId == bundleId
                && ((clientId.map { !$0.isEmpty && app.clientId == $0 } ?? false) || (appId.map { !$0.isEmpty && app.appId == $0 } ?? false))
        }
        guard project.acceptAnyApp || registered else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Unknown application",
                message: "The application \(bundleId) is not registered for this project.")))
        }
        guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "+" }), scheme.first?.isLetter == true else {
            return .failure(HandlerOutcomeError(.page(status: 400, title: "Invalid request", message: "The application's URL scheme is malformed.")))
        }
        return .success(.appleScheme(scheme.lowercased()))
    }

    /// The provider's return to the handler (`code` or `error`, and `state`): delivers the full callback URL
    /// (`link`) to the app once. Unknown, expired or used states get an error page and no redirect.
    public func handleCallback(query: [String: String], callbackURL: String) async throws -> HandlerOutcome {
        guard let state = query["state"], let session = try await store.authorizationSession(state: state) else {
            return .page(status: 400, title: "Unknown sign-in", message: "This sign-in is unknown. Start again from the app.")
        }
        guard try await store.markCallback(state: state, now: now) else {
            return .page(status: 400, title: "Sign-in link used or expired", message: "This sign-in was already completed or has expired. Start again from the app.")
        }
        let base = configuration.publicURL.url
        if let error = query["error"] {
            let description = query["error_description"].map { String($0.prefix(300)) } ?? ""
            let code = error == "access_denied" ? "auth/web-context-cancelled" : "auth/invalid-credential"
            return .redirect(Self.deliver(session.redirect, publicURL: base, authType: session.authType, eventId: session.eventId,
                                          link: nil, firebaseError: (code, "\(error): \(description)")))
        }
        return .redirect(Self.deliver(session.redirect, publicURL: base, authType: session.authType, eventId: session.eventId,
                                      link: callbackURL, firebaseError: nil))
    }

    /// The URL that hands a result to the app: Firebase's Apple deep link, or the loopback URL.
    static func deliver(_ target: RedirectTarget, publicURL: String, authType: String, eventId: String, link: String?,
                        firebaseError: (code: String, message: String)?) -> String {
        var fields: [(String, String)] = [("authType", authType)]
        if let link { fields.append(("link", link)) }
        if let firebaseError {
            let error = JSONValue.object(["code": .string(firebaseError.code), "message": .string(firebaseError.message)])
            fields.append(("firebaseError", error.compactJSONString))
        }
        fields.append(("eventId", eventId))
        switch target {
        case .appleScheme(let scheme):
            let deepLink = "\(publicURL)/__/auth/callback?" + FormEncoding.encode(fields)
            return "\(scheme)://firebaseauth/link?deep_link_id=" + FormEncoding.escape(deepLink)
        case .loopback(let url):
            return url + (url.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
        }
    }
}

/// A handler failure shown as a page.
public struct HandlerOutcomeError: Error {
    public let outcome: HandlerOutcome
    init(_ outcome: HandlerOutcome) { self.outcome = outcome }
}
