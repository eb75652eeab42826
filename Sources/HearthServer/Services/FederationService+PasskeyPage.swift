import Foundation
import HearthCore
import HearthStore
import HearthWire

/// Where the passkey page may send an authenticator's response: the app that opened it, checked like the auth
/// handler's redirect (a hostile page must not harvest assertions for its own challenge by naming its own address).
struct PasskeyPageReturn: Equatable {
    /// The app's address, as it sent it.
    let url: String
    /// Who asks, for the page: the registered app's name, else its id, scheme or loopback address.
    let appName: String
}

extension FederationService {
    /// The passkey page's return address: a loopback URL of a registered desktop app (`appId` or `clientId`: its id)
    /// or any loopback URL when the project accepts any app; or a URL in the custom scheme of a registered Apple app
    /// (Firebase's `app-<app id>` or reversed client id), or in an app-like scheme (`app-…` or dotted) when the
    /// project accepts any app. Anything else is refused with a page.
    func passkeyPageReturn(redirectUrl: String, appId: String?, in scope: Scope) async throws -> Result<PasskeyPageReturn, HandlerOutcomeError> {
        let project = try await scope.config()
        let apps = try await scope.store.apps()
        return Self.passkeyPageReturn(redirectUrl: redirectUrl, appId: appId, apps: apps, acceptsAnyApp: acceptsAnyApp(project))
    }

    /// The rule itself, for callers (and tests) with the apps and the project's setting at hand.
    static func passkeyPageReturn(redirectUrl: String, appId: String?, apps: [AppRegistration],
                                  acceptsAnyApp: Bool) -> Result<PasskeyPageReturn, HandlerOutcomeError> {
        func refuse(_ message: String) -> Result<PasskeyPageReturn, HandlerOutcomeError> {
            .failure(HandlerOutcomeError(.page(status: 400, title: "Return address not allowed", message: message)))
        }
        guard !redirectUrl.isEmpty, redirectUrl.utf8.count <= 2048 else {
            return refuse("The app must say where to return (redirectUrl): its custom URL scheme or a loopback address.")
        }
        if RedirectTarget.isLoopback(redirectUrl) {
            let appId = appId ?? ""
            let registered = apps.first { $0.kind == .desktop && $0.id == appId }
            guard registered != nil || acceptsAnyApp else {
                let sentence = Self.unregisteredDesktopApp(appId.isEmpty ? "<appId>" : appId)
                return refuse(sentence.prefix(1).uppercased() + sentence.dropFirst() + " (the page's appId names it).")
            }
            let host = URLComponents(string: redirectUrl).map { "\($0.host ?? "127.0.0.1"):\($0.port ?? 0)" } ?? redirectUrl
            return .success(PasskeyPageReturn(url: redirectUrl, appName: registered.map { $0.name ?? $0.id } ?? "a program on this computer (\(host))"))
        }
        guard let components = URLComponents(string: redirectUrl), let scheme = components.scheme?.lowercased(),
              Self.isAppScheme(scheme), components.user == nil, components.password == nil, components.fragment == nil else {
            return refuse("The return address must be a registered app's custom URL scheme, or a loopback address (http://127.0.0.1:<port>/…) of a registered desktop app.")
        }
        for app in apps where app.kind == .apple {
            let schemes = [AuthHandlerProtocol.callbackScheme(appId: nil, clientId: app.clientId),
                           AuthHandlerProtocol.callbackScheme(appId: app.appId, clientId: nil)].compactMap { $0?.lowercased() }
            if schemes.contains(scheme) {
                return .success(PasskeyPageReturn(url: redirectUrl, appName: app.name ?? app.bundleId ?? scheme))
            }
        }
        // Any app is accepted (a demo project in --dev): a scheme shaped like an app's, never http, javascript or data.
        if acceptsAnyApp, scheme.hasPrefix("app-") || scheme.contains(".") {
            return .success(PasskeyPageReturn(url: redirectUrl, appName: scheme))
        }
        return refuse("No app with the URL scheme \(scheme.prefix(100)) is registered for this project (hearth apps add-apple, or the console's Apps page).")
    }

    /// A URL scheme as the auth handler accepts an app's: letters, digits, `-`, `.`, `+`, starting with a letter;
    /// not a web or document scheme.
    static func isAppScheme(_ scheme: String) -> Bool {
        scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "+") }) && scheme.first?.isLetter == true
            && !["http", "https", "javascript", "data", "file", "blob", "about", "vbscript", "ws", "wss", "ftp"].contains(scheme)
    }
}
