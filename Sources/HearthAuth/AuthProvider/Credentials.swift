import Foundation
import HearthWire

/// A credential to sign in, link or reauthenticate with. Made by a provider (`OAuthProvider`).
public class AuthCredential: @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type, in this class and its subclasses.
    /// `microsoft.com`, `yahoo.com`, `oidc.<name>`, …
    public let provider: String

    init(provider: String) {
        self.provider = provider
    }
}

/// An OAuth credential. From `OAuthProvider.credential(with:)` it holds the result of the web flow (the session
/// id and callback URL the server exchanges); in `AuthDataResult.credential` and in recovery errors it holds the
/// provider's tokens and, for `accountExistsWithDifferentCredential`, the pending token.
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    /// The provider's OAuth access token (e.g. for Microsoft Graph).
    public let accessToken: String?
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The raw nonce whose SHA-256 the provider ID token carries (native ID-token credentials).
    public let rawNonce: String?
    /// The person's name as Sign in with Apple gave it to the app (only on the first authorization): sent with the
    /// ID token so the new account gets it as its display name.
    let fullName: PersonNameComponents?
    /// The raw session id whose hash went to the auth handler.
    let sessionID: String?
    /// The callback URL (`link`) of the web flow.
    let requestURI: String?
    /// A `needConfirmation` pending credential.
    let pendingToken: String?

    init(providerID: String, accessToken: String? = nil, idToken: String? = nil, rawNonce: String? = nil, fullName: PersonNameComponents? = nil,
         sessionID: String? = nil, requestURI: String? = nil, pendingToken: String? = nil) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.sessionID = sessionID
        self.requestURI = requestURI
        self.pendingToken = pendingToken
        super.init(provider: providerID)
    }

    /// The `signInWithIdp` `postBody` of a credential the app obtained natively, in the shape and order Firebase's
    /// SDKs send it: `providerId`, `id_token`, `nonce` (the raw one), `access_token`, and `user` — the name as JSON
    /// with sorted keys, `{"name":{"firstName":…,"lastName":…}}` — when the credential carries one.
    var nativePostBody: String {
        var fields = [("providerId", provider)]
        if let idToken { fields.append(("id_token", idToken)) }
        if let rawNonce, !rawNonce.isEmpty { fields.append(("nonce", rawNonce)) }
        if let accessToken, !accessToken.isEmpty { fields.append(("access_token", accessToken)) }
        if let user = Self.userField(fullName) { fields.append(("user", user)) }
        return FormEncoding.encode(fields)
    }

    /// The `user` field for `name`: nil when it has neither a given nor a family name.
    static func userField(_ name: PersonNameComponents?) -> String? {
        var names: [String: String] = [:]
        if let given = name?.givenName { names["firstName"] = given }
        if let family = name?.familyName { names["lastName"] = family }
        guard !names.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(["name": names]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The result of a sign-in, link or reauthentication.
public struct AuthDataResult: Sendable {
    /// The signed-in user.
    public let user: User
    /// Information from the provider (profile, username, whether the user is new).
    public let additionalUserInfo: AdditionalUserInfo?
    /// The provider's tokens, for federated sign-ins.
    public let credential: OAuthCredential?
}

/// Provider information returned with a sign-in.
public struct AdditionalUserInfo: @unchecked Sendable {
    // Safe: immutable; `profile` holds only JSON values (String, NSNumber, arrays and dictionaries of them).
    public let providerID: String
    /// The provider's profile (Microsoft Graph `/me`, Yahoo/OIDC UserInfo).
    public let profile: [String: Any]?
    public let username: String?
    public let isNewUser: Bool
}

/// Email credentials (Firebase's `EmailAuthProvider`): a password, or an email sign-in link, for
/// `Auth.signIn(with:)`, `User.link(with:)` and `User.reauthenticate(with:)`.
public enum EmailAuthProvider {
    /// `password`: the provider id of email accounts, whether they sign in with a password or a link.
    public static let id = "password"

    /// A credential that signs in with `email` and `password`.
    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, secret: .password(password))
    }

    /// A credential that signs in with `email` and the sign-in link sent to it
    /// (`Auth.sendSignInLink(toEmail:actionCodeSettings:)`).
    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        EmailAuthCredential(email: email, secret: .link(link))
    }
}

/// Firebase's names of the email sign-in methods (`fetchSignInMethods(forEmail:)` answers them).
public let EmailPasswordAuthSignInMethod = "password"
public let EmailLinkAuthSignInMethod = "emailLink"

/// An email credential: the address and its password or sign-in link.
public final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    enum Secret: Sendable, Equatable {
        case password(String)
        case link(String)
    }

    /// The email address.
    public let email: String
    let secret: Secret

    init(email: String, secret: Secret) {
        self.email = email
        self.secret = secret
        super.init(provider: EmailAuthProvider.id)
    }

    /// The password, for a password credential.
    public var password: String? {
        if case .password(let password) = secret { return password }
        return nil
    }

    /// The sign-in link, for an email-link credential.
    public var link: String? {
        if case .link(let link) = secret { return link }
        return nil
    }
}
