import Foundation

/// A federated provider (`microsoft.com`, `yahoo.com`, `apple.com`, `google.com`, `oidc.<name>`), used as in Firebase:
/// set `customParameters` and `scopes`, then `credential(with:)` / `getCredentialWith(_:completion:)` runs the
/// web sign-in and returns a credential for `Auth.signIn(with:)`, `User.link(with:)` or `reauthenticate(with:)`.
public final class OAuthProvider: Sendable {
    // The mutable settings live behind a lock.
    public let providerID: String
    let auth: Auth
    private let settings = LockedValue<(scopes: [String]?, parameters: [String: String]?)>((nil, nil))

    /// A provider for `providerID` on `auth` (default: `Auth.auth()`).
    public init(providerID: String, auth: Auth = .auth()) {
        self.providerID = providerID
        self.auth = auth
    }

    /// Firebase's factory form.
    public static func provider(providerID: String, auth: Auth = .auth()) -> OAuthProvider {
        OAuthProvider(providerID: providerID, auth: auth)
    }

    /// Extra OAuth scopes (e.g. `["mail.read", "calendars.read"]`).
    public var scopes: [String]? {
        get { settings.withLock { $0.scopes } }
        set { settings.withLock { $0.scopes = newValue } }
    }

    /// Extra authorization parameters (`prompt`, `login_hint`, Microsoft's `tenant`, …). The reserved ones
    /// (`client_id`, `response_type`, `redirect_uri`, `state`, `scope`, `response_mode`) are refused by the server.
    public var customParameters: [String: String]? {
        get { settings.withLock { $0.parameters } }
        set { settings.withLock { $0.parameters = newValue } }
    }

    /// Runs the web sign-in through `uiDelegate` (nil: the platform default — ASWebAuthenticationSession on Apple
    /// platforms, the system browser and a loopback listener elsewhere) and returns the credential.
    public func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        let (scopes, parameters) = settings.withLock { ($0.scopes ?? [], $0.parameters ?? [:]) }
        return try await WebSignInFlow.run(core: auth.core, providerID: providerID, scopes: scopes, customParameters: parameters,
                                           uiDelegate: uiDelegate)
    }

    /// Runs the web sign-in and completes it with `complete` (the loopback page shows how it ended).
    func run(_ uiDelegate: (any AuthUIDelegate)?, linking: Bool = false,
             complete: @Sendable @escaping (OAuthCredential) async throws -> AuthDataResult) async throws -> AuthDataResult {
        let (scopes, parameters) = settings.withLock { ($0.scopes ?? [], $0.parameters ?? [:]) }
        let providerID = providerID
        return try await WebSignInFlow.run(core: auth.core, providerID: providerID, scopes: scopes, customParameters: parameters,
                                           uiDelegate: uiDelegate, complete: complete,
                                           outcome: { linking ? .linked(providerID: providerID, email: $0.user.email)
                                                              : .signedIn(providerID: providerID, email: $0.user.email) })
    }

    /// A credential from a provider ID token the app obtained itself (MSAL, Yahoo's SDK, Google Sign-In, an OpenID
    /// library), for `microsoft.com`, `yahoo.com`, `google.com` and `oidc.<name>` (Apple: ``appleCredential(withIDToken:rawNonce:fullName:)``). The server accepts it only if the token verifies against the
    /// provider's keys, was issued to the provider's client ID or an allowed native client ID, is fresh, and —
    /// when `rawNonce` is given — carries the SHA-256 (hex) of `rawNonce` as its `nonce`.
    public static func credential(providerID: String, idToken: String, rawNonce: String? = nil) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, rawNonce: rawNonce)
    }

    /// Firebase's older spelling of ``credential(providerID:idToken:rawNonce:)``.
    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String?) -> OAuthCredential {
        credential(providerID: providerID, idToken: idToken, rawNonce: rawNonce)
    }

    /// A credential from a provider ID token and the access token issued with it (Firebase's
    /// `credential(withProviderID:idToken:accessToken:)`). The server signs in with the ID token; the access token
    /// travels in `postBody` as Firebase sends it and is never a credential by itself.
    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?) -> OAuthCredential {
        OAuthCredential(providerID: providerID, accessToken: accessToken, idToken: idToken)
    }

    /// A credential from a provider ID token, the raw nonce whose SHA-256 (hex) it carries, and the access token
    /// issued with it (Firebase's `credential(withProviderID:idToken:rawNonce:accessToken:)`).
    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, accessToken: accessToken, idToken: idToken, rawNonce: rawNonce)
    }

    /// A Sign in with Apple credential from what `ASAuthorizationAppleIDCredential` gave the app: its
    /// `identityToken` (as a UTF-8 string), the raw nonce whose SHA-256 (hex) went into the request's `nonce`, and
    /// its `fullName` — which Apple hands over on the first authorization only, so pass it then: a new account takes
    /// it as its display name. The server requires the nonce and checks that the token was issued to one of the
    /// project's bundle ids (or its services id).
    public static func appleCredential(withIDToken idToken: String, rawNonce: String?, fullName: PersonNameComponents?) -> OAuthCredential {
        OAuthCredential(providerID: "apple.com", idToken: idToken, rawNonce: rawNonce, fullName: fullName)
    }

    /// Completion-handler form of `credential(with:)`.
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?, completion: (@Sendable (AuthCredential?, (any Error)?) -> Void)? = nil) {
        Task {
            do { completion?(try await credential(with: uiDelegate), nil) } catch { completion?(nil, error) }
        }
    }
}
