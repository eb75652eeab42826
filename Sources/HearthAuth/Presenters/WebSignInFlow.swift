import Crypto
import Foundation
#if canImport(AuthenticationServices)
import AuthenticationServices
#endif

/// The headful flow: build the auth handler URL (hashed session id, event id, scopes, custom parameters), present
/// it, take the callback, check it and turn it into an `OAuthCredential`.
enum WebSignInFlow {
    static func randomLetters(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(UnicodeScalar(UInt8.random(in: 65...90, using: &generator))) })
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The handler URL for one sign-in.
    static func handlerURL(configuration: AuthConfiguration, providerID: String, sessionID: String, eventID: String, scopes: [String],
                           customParameters: [String: String], redirectUrl: String?) throws -> URL {
        var components = URLComponents(url: configuration.serverURL, resolvingAgainstBaseURL: false)!
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/__/auth/handler"
        var items = [
            URLQueryItem(name: "apiKey", value: configuration.apiKey),
            URLQueryItem(name: "authType", value: "signInWithRedirect"),
            URLQueryItem(name: "sessionId", value: sha256Hex(sessionID)),
            URLQueryItem(name: "v", value: "Hearth-Swift/1"),
            URLQueryItem(name: "eventId", value: eventID),
            URLQueryItem(name: "providerId", value: providerID),
            URLQueryItem(name: "scopes", value: scopes.joined(separator: ",")),
        ]
        if let bundleId = configuration.bundleId { items.append(URLQueryItem(name: "ibi", value: bundleId)) }
        if let clientId = configuration.clientId {
            items.append(URLQueryItem(name: "clientId", value: clientId))
        } else if let appId = configuration.appId {
            items.append(URLQueryItem(name: "appId", value: appId))
        }
        if !customParameters.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            items.append(URLQueryItem(name: "customParameters", value: String(decoding: try encoder.encode(customParameters), as: UTF8.self)))
        }
        if let redirectUrl { items.append(URLQueryItem(name: "redirectUrl", value: redirectUrl)) }
        components.queryItems = items
        // `+` would read as a space: encode it, as Firebase's SDK does.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = encoded
        guard let url = components.url else { throw AuthErrorUtils.error(.internalError, message: "Could not build the sign-in URL.") }
        return url
    }

    static func run(core: AuthCore, providerID: String, scopes: [String], customParameters: [String: String],
                    uiDelegate: (any AuthUIDelegate)?) async throws -> OAuthCredential {
        let configuration = core.configuration
        let sessionID = randomLetters(10)
        let eventID = randomLetters(10)
        #if canImport(AuthenticationServices) && !os(macOS)
        return try await appleFlow(core: core, configuration: configuration, providerID: providerID, sessionID: sessionID,
                                   eventID: eventID, scopes: scopes, customParameters: customParameters, uiDelegate: uiDelegate)
        #else
        #if canImport(AuthenticationServices)
        if configuration.redirectsToApp {
            return try await appleFlow(core: core, configuration: configuration, providerID: providerID, sessionID: sessionID,
                                       eventID: eventID, scopes: scopes, customParameters: customParameters, uiDelegate: uiDelegate)
        }
        #endif
        let receiver = try LoopbackReceiver(path: "/__/auth/callback")
        defer { receiver.shutdown() }
        let url = try handlerURL(configuration: configuration, providerID: providerID, sessionID: sessionID, eventID: eventID,
                                 scopes: scopes, customParameters: customParameters, redirectUrl: receiver.url)
        async let callback = receiver.waitForCallback(timeout: configuration.webSignInTimeout)
        do {
            try await (uiDelegate ?? SystemBrowserUIDelegate()).open(url)
        } catch {
            receiver.shutdown()
            _ = try? await callback
            throw error
        }
        let received = try await callback
        return try credential(fromCallback: received, providerID: providerID, sessionID: sessionID, eventID: eventID)
        #endif
    }

    /// Reads `link`, `eventId` and `firebaseError` from a callback URL (directly, or inside Firebase's
    /// `deep_link_id`).
    static func credential(fromCallback url: URL, providerID: String, sessionID: String, eventID: String) throws -> OAuthCredential {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if let deepLink = components?.queryItems?.first(where: { $0.name == "deep_link_id" })?.value {
            components = URLComponents(string: deepLink)
        }
        let items = components?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard value("eventId") == eventID else {
            throw AuthErrorUtils.error(.webSignInUserInteractionFailure, message: "The sign-in callback belongs to another sign-in.")
        }
        if let errorJSON = value("firebaseError") {
            let object = (try? JSONSerialization.jsonObject(with: Data(errorJSON.utf8))) as? [String: Any]
            throw AuthErrorUtils.webError(code: object?["code"] as? String ?? "", message: object?["message"] as? String)
        }
        guard let link = value("link"), !link.isEmpty else {
            throw AuthErrorUtils.error(.webSignInUserInteractionFailure, message: "The sign-in callback carries no result.")
        }
        return OAuthCredential(providerID: providerID, sessionID: sessionID, requestURI: link)
    }

    /// A URL passed to `Auth.canHandle(_:)`: resumes the pending sign-in with the same event id.
    static func deliver(_ url: URL, to core: AuthCore) -> Bool {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard components?.host == "firebaseauth", components?.path == "/link",
              let deepLink = components?.queryItems?.first(where: { $0.name == "deep_link_id" })?.value
        else { return false }
        components = URLComponents(string: deepLink)
        guard let eventID = components?.queryItems?.first(where: { $0.name == "eventId" })?.value,
              let continuation = core.state.withLock({ $0.pendingWebSignIns.removeValue(forKey: eventID) })
        else { return false }
        continuation.resume(returning: url)
        return true
    }

    #if canImport(AuthenticationServices)
    static func appleFlow(core: AuthCore, configuration: AuthConfiguration, providerID: String, sessionID: String, eventID: String,
                          scopes: [String], customParameters: [String: String], uiDelegate: (any AuthUIDelegate)?) async throws -> OAuthCredential {
        guard let scheme = configuration.callbackScheme else {
            throw AuthErrorUtils.error(.invalidClientID, message: "Set AuthConfiguration.appId or clientId (the app's URL scheme) and bundleId.")
        }
        let url = try handlerURL(configuration: configuration, providerID: providerID, sessionID: sessionID, eventID: eventID,
                                 scopes: scopes, customParameters: customParameters, redirectUrl: nil)
        let callback: URL
        if let uiDelegate {
            // A custom presenter: the app forwards the callback to `Auth.canHandle(_:)`.
            callback = try await withCheckedThrowingContinuation { continuation in
                core.state.withLock { $0.pendingWebSignIns[eventID] = continuation }
                Task {
                    do { try await uiDelegate.open(url) } catch {
                        if let pending = core.state.withLock({ $0.pendingWebSignIns.removeValue(forKey: eventID) }) { pending.resume(throwing: error) }
                    }
                }
            }
        } else {
            callback = try await WebAuthenticationSessionPresenter.present(url: url, callbackScheme: scheme)
        }
        return try credential(fromCallback: callback, providerID: providerID, sessionID: sessionID, eventID: eventID)
    }
    #endif
}

extension AuthConfiguration {
    /// The custom URL scheme Firebase's Apple SDK uses: the reversed client id, else `app-<appId with - for :>`.
    var callbackScheme: String? {
        if let clientId, !clientId.isEmpty { return clientId.split(separator: ".").reversed().joined(separator: ".") }
        if let appId, appId.contains(":") { return "app-" + appId.replacingOccurrences(of: ":", with: "-") }
        return nil
    }

    /// Apple apps (a bundle id and a URL scheme) receive results on their scheme; others use loopback.
    var redirectsToApp: Bool { bundleId != nil && callbackScheme != nil }
}
