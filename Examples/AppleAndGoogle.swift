// The flows of Firebase's "Authenticate using Apple" and "Authenticate using Google Sign-In" guides on Apple
// platforms, written against HearthAuth. What ASAuthorizationController and Google Sign-In hand the app arrives
// here as strings, so the same code compiles (and is tested) everywhere; the test suite runs it against a server.
import Foundation
import HearthAuth

extension GuideExamples {
    /// A random nonce for Sign in with Apple: keep it, put its SHA-256 (hex) in `ASAuthorizationAppleIDRequest.nonce`
    /// and pass it raw to `OAuthProvider.appleCredential(withIDToken:rawNonce:fullName:)`.
    public static func randomNonceString(length: Int = 32) -> String {
        let characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._")
        var generator = SystemRandomNumberGenerator()
        return String((0..<max(length, 1)).map { _ in characters.randomElement(using: &generator)! })
    }

    /// Sign in with Apple (completion-handler style, as in the guide), in
    /// `authorizationController(controller:didCompleteWithAuthorization:)`: `idTokenString` is the credential's
    /// `identityToken` decoded as UTF-8, `fullName` its `fullName` (Apple sends it on the first authorization only).
    public static func signInWithAppleCompletion(idTokenString: String, rawNonce: String, fullName: PersonNameComponents?, auth: Auth = .auth(),
                                                 done: @escaping @Sendable (AuthDataResult?, (any Error)?) -> Void) {
        // Initialize a Firebase-style credential, including the user's full name.
        let credential = OAuthProvider.appleCredential(withIDToken: idTokenString, rawNonce: rawNonce, fullName: fullName)
        // Sign in with Hearth.
        auth.signIn(with: credential) { authResult, error in
            // User is signed in with Apple: authResult?.user.displayName holds the name given on the first sign-in.
            done(authResult, error)
        }
    }

    /// Sign in with Apple, async.
    public static func signInWithApple(idTokenString: String, rawNonce: String, fullName: PersonNameComponents?, auth: Auth = .auth()) async throws -> AuthDataResult {
        let credential = OAuthProvider.appleCredential(withIDToken: idTokenString, rawNonce: rawNonce, fullName: fullName)
        return try await auth.signIn(with: credential)
    }

    /// Sign in with Apple through the web flow (an app without the native sheet: macOS with a loopback browser,
    /// Linux, a custom `AuthUIDelegate`).
    public static func signInWithAppleOnTheWeb(auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: "apple.com", auth: auth)
        provider.scopes = ["email", "name"]
        provider.customParameters = ["locale": "en_US"]
        let credential = try await provider.credential(with: uiDelegate)
        return try await auth.signIn(with: credential)
    }

    /// Account deletion with Sign in with Apple (the App Store's rule): with the `authorizationCode` of a fresh
    /// Sign in with Apple (decoded as UTF-8), revoke the user's Apple tokens, then delete the account.
    public static func deleteAccountRevokingApple(authorizationCode: String, auth: Auth = .auth()) async throws {
        guard let user = auth.currentUser else { throw NSError(domain: AuthErrorDomain, code: AuthErrorCode.nullUser.rawValue) }
        try await auth.revokeToken(withAuthorizationCode: authorizationCode)
        try await user.delete()
    }

    /// Sign in with Google (completion-handler style, as in the guide), with what Google Sign-In returned:
    /// `result.user.idToken?.tokenString` and `result.user.accessToken.tokenString`.
    public static func signInWithGoogleCompletion(idToken: String, accessToken: String, auth: Auth = .auth(),
                                                  done: @escaping @Sendable (AuthDataResult?, (any Error)?) -> Void) {
        let credential = GoogleAuthProvider.credential(withIDToken: idToken, accessToken: accessToken)
        auth.signIn(with: credential) { result, error in
            // At this point, our user is signed in.
            done(result, error)
        }
    }

    /// Sign in with Google, async.
    public static func signInWithGoogle(idToken: String, accessToken: String, auth: Auth = .auth()) async throws -> AuthDataResult {
        try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: idToken, accessToken: accessToken))
    }

    /// Sign in with Google through the web flow, optionally limited to a Google Workspace domain (`hd`; the server's
    /// allow-list can only narrow what the app asks).
    public static func signInWithGoogleOnTheWeb(auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil,
                                                hostedDomain: String? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: GoogleAuthProvider.id, auth: auth)
        var parameters = ["prompt": "select_account"]
        if let hostedDomain { parameters["hd"] = hostedDomain }
        provider.customParameters = parameters
        let credential = try await provider.credential(with: uiDelegate)
        return try await auth.signIn(with: credential)
    }
}
