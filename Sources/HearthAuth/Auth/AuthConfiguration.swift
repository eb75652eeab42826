import Foundation
import HearthWire

/// How an `Auth` instance reaches its Hearth server and who the app is.
public struct AuthConfiguration: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:9099` or `https://auth.example.com`.
    public var serverURL: URL
    /// The project's API key.
    public var apiKey: String
    /// The project id (`aud` of ID tokens).
    public var projectId: String
    /// The Firebase app id of an Apple app (`1:1234:ios:abcd`, scheme `app-1-1234-ios-abcd`), or the registered
    /// desktop app id for loopback sign-in.
    public var appId: String?
    /// The OAuth client id whose reversed form is the app's URL scheme (alternative to `appId`).
    public var clientId: String?
    /// The app's bundle id (`ibi`).
    public var bundleId: String?
    /// Where the signed-in user is kept (default: Keychain on Apple platforms, a 0600 file elsewhere).
    public var persistence: any UserPersistence
    /// The network seam (default: URLSession).
    public var backend: (any AuthBackend)?
    /// The clock (tests move it).
    public var clock: @Sendable () -> Date
    /// How long a web sign-in may take before it fails with `webContextCancelled`.
    public var webSignInTimeout: TimeInterval
    /// The HTML page the loopback listener shows in the browser when a sign-in comes back (desktop apps); `nil`
    /// uses a plain built-in page. It says what happened: the provider confirmed the user, refused, or the user
    /// cancelled.
    public var loopbackPage: (@Sendable (LoopbackOutcome) -> String)?

    public init(serverURL: URL, apiKey: String, projectId: String, appId: String? = nil, clientId: String? = nil, bundleId: String? = nil,
                persistence: (any UserPersistence)? = nil, backend: (any AuthBackend)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }, webSignInTimeout: TimeInterval = 300,
                loopbackPage: (@Sendable (LoopbackOutcome) -> String)? = nil) {
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.projectId = projectId
        self.appId = appId
        self.clientId = clientId
        self.bundleId = bundleId ?? Bundle.main.bundleIdentifier
        self.persistence = persistence ?? defaultUserPersistence()
        self.backend = backend
        self.clock = clock
        self.webSignInTimeout = webSignInTimeout
        self.loopbackPage = loopbackPage
    }

    /// From `HEARTH_SERVER_URL` (default `http://127.0.0.1:9099`), `HEARTH_API_KEY` (default `demo-key`),
    /// `HEARTH_PROJECT_ID` (default `demo-hearth`) and `HEARTH_APP_ID`.
    public static func fromEnvironment() -> AuthConfiguration {
        let environment = ProcessInfo.processInfo.environment
        return AuthConfiguration(
            serverURL: URL(string: environment["HEARTH_SERVER_URL"] ?? "http://127.0.0.1:9099")!,
            apiKey: environment["HEARTH_API_KEY"] ?? "demo-key", projectId: environment["HEARTH_PROJECT_ID"] ?? "demo-hearth",
            appId: environment["HEARTH_APP_ID"])
    }

    /// The persistence key: one signed-in user per project and API key.
    var storageKey: String { "user.\(projectId).\(apiKey.prefix(12))" }

    /// Instances with equal identity share their state (`Auth()` and `Auth.auth()` see the same user).
    var identity: String { "\(serverURL.absoluteString)|\(apiKey)|\(projectId)" }
}

/// What came back to the loopback listener, for its browser page.
public enum LoopbackOutcome: Sendable, Equatable {
    /// The provider confirmed who the user is; the app completes the sign-in itself (`OAuthProvider.credential(with:)`).
    case confirmed(providerID: String)
    /// Signed in: `Auth.signIn(with:uiDelegate:)` completed.
    case signedIn(providerID: String, email: String?)
    /// Linked to the signed-in user: `User.link(with:uiDelegate:)` completed.
    case linked(providerID: String, email: String?)
    /// Another account has the email: sign in to it (with one of `signInMethods`), then link the provider.
    case accountExists(providerID: String, email: String?, signInMethods: [String])
    /// The user cancelled at the provider.
    case cancelled(providerID: String, message: String)
    /// The provider refused the sign-in (`message` says why).
    case refused(providerID: String, message: String)
    /// Hearth's rules refused it: a provider not enabled, an app not registered, the account linked elsewhere.
    case notAllowed(providerID: String, message: String)
    /// Hearth failed: the provider or the database could not be reached.
    case failed(providerID: String, message: String)

    /// The outcome for a refusal by `refusal`.
    static func stopped(by refusal: SignInRefusal, providerID: String, message: String) -> LoopbackOutcome {
        switch refusal {
        case .provider: .refused(providerID: providerID, message: message)
        case .rules: .notAllowed(providerID: providerID, message: message)
        case .server: .failed(providerID: providerID, message: message)
        }
    }
}
