import Foundation

/// Google sign-in credentials (Firebase's `GoogleAuthProvider`): the tokens Google Sign-In gave the app, for
/// `Auth.signIn(with:)`, `User.link(with:)` and `User.reauthenticate(with:)`. The web flow needs no credential of
/// its own: `OAuthProvider(providerID: "google.com")`.
public enum GoogleAuthProvider {
    /// `google.com`: the provider id of Google accounts.
    public static let id = "google.com"

    /// A credential from Google Sign-In's ID token (`user.idToken.tokenString`) and access token
    /// (`user.accessToken.tokenString`). The server checks the ID token — Google's signature, an audience among the
    /// project's Google client ids, `azp`, and the nonce when the token has one; the access token is sent along as
    /// Firebase sends it and is never a credential by itself.
    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: accessToken, idToken: idToken)
    }
}
