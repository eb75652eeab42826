import Foundation
import HearthWire
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

    /// The handler URL for one sign-in; `tenantID` (`Auth.tenantID`) goes in `tid`, as Firebase's Apple SDK sends it.
    static func handlerURL(configuration: AuthConfiguration, providerID: String, sessionID: String, eventID: String, scopes: [String],
                           customParameters: [String: String], redirectUrl: String?, tenantID: String? = nil) throws -> URL {
        var components = URLComponents(url: configuration.serverURL, resolvingAgainstBaseURL: false)!
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + AuthHandlerProtocol.handlerPath
        func item(_ name: AuthHandlerParameter, _ value: String) -> URLQueryItem { URLQueryItem(name: name.rawValue, value: value) }
        var items = [
            item(.apiKey, configuration.apiKey),
            item(.authType, "signInWithRedirect"),
            item(.sessionId, AuthHandlerProtocol.sessionIdHash(sessionID)),
            item(.v, "Hearth-Swift/1"),
            item(.eventId, eventID),
            item(.providerId, providerID),
            item(.scopes, scopes.joined(separator: ",")),
        ]
        if let bundleId = configuration.bundleId { items.append(item(.ibi, bundleId)) }
        if let clientId = configuration.clientId {
            items.append(item(.clientId, clientId))
        } else if let appId = configuration.appId {
            items.append(item(.appId, appId))
        }
        if let tenantID, !tenantID.isEmpty { items.append(item(.tid, tenantID)) }
        if !customParameters.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            items.append(item(.customParameters, String(decoding: try encoder.encode(customParameters), as: UTF8.self)))
        }
        if let redirectUrl { items.append(item(.redirectUrl, redirectUrl)) }
        components.queryItems = items
        // `+` would read as a space: encode it, as Firebase's SDK does.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = encoded
        guard let url = components.url else { throw AuthErrorUtils.error(.internalError, message: "Could not build the sign-in URL.") }
        return url
    }

    static func run(core: AuthCore, providerID: String, scopes: [String], customParameters: [String: String],
                    uiDelegate: (any AuthUIDelegate)?) async throws -> OAuthCredential {
        try await run(core: core, providerID: providerID, scopes: scopes, customParameters: customParameters, uiDelegate: uiDelegate,
                      complete: { $0 }, outcome: { _ in .confirmed(providerID: providerID) })
    }

    /// The web sign-in, then `complete` with its credential (sign in, link); with the loopback listener, the
    /// browser's page waits for `complete` and says how it ended (signed in, account exists, refused, cancelled).
    static func run<Result: Sendable>(core: AuthCore, providerID: String, scopes: [String], customParameters: [String: String],
                                      uiDelegate: (any AuthUIDelegate)?, complete: @Sendable (OAuthCredential) async throws -> Result,
                                      outcome: @Sendable (Result) -> LoopbackOutcome) async throws -> Result {
        let configuration = core.configuration
        let sessionID = randomLetters(10)
        let eventID = randomLetters(10)
        #if canImport(AuthenticationServices) && !os(macOS)
        return try await complete(try await appleFlow(core: core, configuration: configuration, providerID: providerID, sessionID: sessionID,
                                                      eventID: eventID, scopes: scopes, customParameters: customParameters, uiDelegate: uiDelegate))
        #else
        #if canImport(AuthenticationServices)
        if configuration.redirectsToApp {
            return try await complete(try await appleFlow(core: core, configuration: configuration, providerID: providerID, sessionID: sessionID,
                                                          eventID: eventID, scopes: scopes, customParameters: customParameters, uiDelegate: uiDelegate))
        }
        #endif
        let receiver = try LoopbackReceiver(path: AuthHandlerProtocol.callbackPath, providerID: providerID, page: configuration.loopbackPage)
        defer { receiver.shutdown() }
        let url = try handlerURL(configuration: configuration, providerID: providerID, sessionID: sessionID, eventID: eventID,
                                 scopes: scopes, customParameters: customParameters, redirectUrl: receiver.url, tenantID: core.tenantID)
        async let callback = receiver.waitForCallback(timeout: configuration.webSignInTimeout)
        // The presenter runs alongside the wait: a presenter that is itself the browser (tests, embedded web views)
        // only returns once the loopback page is answered, which happens after the sign-in completes.
        let presenter = uiDelegate ?? SystemBrowserUIDelegate()
        let opener = Task {
            do { try await presenter.open(url) } catch {
                receiver.shutdown()
                throw error
            }
        }
        let received: URL
        do {
            received = try await callback
        } catch {
            if case .failure(let openError) = await opener.result { throw openError }
            throw error
        }
        do {
            let credential = try credential(fromCallback: received, providerID: providerID, sessionID: sessionID, eventID: eventID)
            let result = try await complete(credential)
            receiver.finish(outcome(result))
            await settle(opener)
            return result
        } catch {
            receiver.finish(LoopbackReceiver.outcome(of: error, providerID: providerID))
            await settle(opener)
            throw error
        }
        #endif
    }

    /// Lets a presenter that is itself the browser read the answered page (at most a few seconds).
    static func settle(_ opener: Task<Void, any Error>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await opener.result }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Reads `link`, `eventId` and `firebaseError` from a callback URL (directly, or inside Firebase's
    /// `deep_link_id`).
    static func credential(fromCallback url: URL, providerID: String, sessionID: String, eventID: String) throws -> OAuthCredential {
        let parameters = AuthHandlerProtocol.resultParameters(of: url)
        guard parameters[.eventId] == eventID else {
            throw AuthErrorUtils.error(.webSignInUserInteractionFailure, message: "The sign-in callback belongs to another sign-in.")
        }
        if let errorJSON = parameters[.firebaseError] {
            throw AuthErrorUtils.webError(FirebaseWebError(jsonString: errorJSON)
                ?? FirebaseWebError(code: .internalError, message: "The sign-in failed with an unreadable error."))
        }
        guard let link = parameters[.link], !link.isEmpty else {
            throw AuthErrorUtils.error(.webSignInUserInteractionFailure, message: "The sign-in callback carries no result.")
        }
        return OAuthCredential(providerID: providerID, sessionID: sessionID, requestURI: link)
    }

    /// A URL passed to `Auth.canHandle(_:)`: resumes the pending sign-in with the same event id.
    static func deliver(_ url: URL, to core: AuthCore) -> Bool {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard components?.host == "firebaseauth", components?.path == "/link",
              components?.queryItems?.contains(where: { $0.name == AuthHandlerParameter.deepLinkId.rawValue }) == true
        else { return false }
        guard let eventID = AuthHandlerProtocol.resultParameters(of: url)[.eventId],
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
                                 scopes: scopes, customParameters: customParameters, redirectUrl: nil, tenantID: core.tenantID)
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
        // A desktop app id (no `:`) is not a Firebase app id: it has no scheme.
        if clientId?.isEmpty ?? true, !(appId?.contains(":") ?? false) { return nil }
        return AuthHandlerProtocol.callbackScheme(appId: appId, clientId: clientId)
    }

    /// Apple apps (a bundle id and a URL scheme) receive results on their scheme; others use loopback.
    var redirectsToApp: Bool { bundleId != nil && callbackScheme != nil }
}
