// The flows of Firebase's "Authenticate using Microsoft / Yahoo on Apple platforms" guides, written against
// HearthAuth. The test suite compiles this target and runs the async versions against a real server.
import Foundation
import HearthAuth

/// The guides' snippets, as functions.
public enum GuideExamples {
    /// Sign in with Microsoft (completion-handler style, as in the guide).
    public static func signInWithMicrosoftCompletion(auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil,
                                                     done: @escaping @Sendable (AuthDataResult?, (any Error)?) -> Void) {
        let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
        provider.customParameters = [
            "prompt": "consent",
            "login_hint": "user@firstadd.onmicrosoft.com",
        ]
        provider.scopes = ["mail.read", "calendars.read"]
        provider.getCredentialWith(uiDelegate) { credential, error in
            if let error {
                done(nil, error)
                return
            }
            if let credential {
                auth.signIn(with: credential) { authResult, error in
                    // IdP data available in authResult.additionalUserInfo.profile.
                    // OAuth access token: (authResult?.credential)?.accessToken
                    // OAuth ID token: (authResult?.credential)?.idToken
                    done(authResult, error)
                }
            }
        }
    }

    /// Sign in with Microsoft, restricted to a tenant (`common`, `organizations`, `consumers`, a GUID or a domain).
    public static func signInWithMicrosoft(auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil, tenant: String? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
        var parameters = ["prompt": "consent"]
        if let tenant { parameters["tenant"] = tenant }
        provider.customParameters = parameters
        provider.scopes = ["mail.read", "calendars.read"]
        let credential = try await provider.credential(with: uiDelegate)
        let result = try await auth.signIn(with: credential)
        // The provider's tokens, e.g. for Microsoft Graph:
        _ = result.credential?.accessToken
        _ = result.credential?.idToken
        // The federated id (`oid`, un-padded for personal accounts) is providerData[0].uid, not the ID token's sub.
        _ = result.user.providerData.first?.uid
        return result
    }

    /// Sign in with Yahoo.
    public static func signInWithYahoo(auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: "yahoo.com", auth: auth)
        provider.customParameters = ["prompt": "login", "language": "en-us"]
        provider.scopes = ["mail-r", "sdct-w"]
        let credential = try await provider.credential(with: uiDelegate)
        return try await auth.signIn(with: credential)
    }

    /// Link a provider to the signed-in user.
    public static func link(providerID: String, auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: providerID, auth: auth)
        let credential = try await provider.credential(with: uiDelegate)
        guard let user = auth.currentUser else { throw NSError(domain: AuthErrorDomain, code: AuthErrorCode.nullUser.rawValue) }
        return try await user.link(with: credential)
    }

    /// Reauthenticate the signed-in user before a sensitive operation.
    public static func reauthenticate(providerID: String, auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: providerID, auth: auth)
        let credential = try await provider.credential(with: uiDelegate)
        guard let user = auth.currentUser else { throw NSError(domain: AuthErrorDomain, code: AuthErrorCode.nullUser.rawValue) }
        return try await user.reauthenticate(with: credential)
    }

    /// One account per email: the provider's email belongs to a password account. Fetch its sign-in methods, sign
    /// in with the password, then link the pending credential.
    public static func signInHandlingExistingAccount(providerID: String, auth: Auth = .auth(), uiDelegate: (any AuthUIDelegate)? = nil,
                                                     password: @Sendable (String, [String]) -> String) async throws -> AuthDataResult {
        let provider = OAuthProvider(providerID: providerID, auth: auth)
        let credential = try await provider.credential(with: uiDelegate)
        do {
            return try await auth.signIn(with: credential)
        } catch let error as NSError where error.code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue {
            // Get the pending credential and the email of the existing account.
            let existingEmail = error.userInfo[AuthErrorUserInfoEmailKey] as! String
            let pendingCredential = error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as! AuthCredential
            let methods = try await auth.fetchSignInMethods(forEmail: existingEmail)
            guard methods.contains("password") else { throw error }
            let signedIn = try await auth.signIn(withEmail: existingEmail, password: password(existingEmail, methods))
            // Link the pending credential to the account.
            return try await signedIn.user.link(with: pendingCredential)
        }
    }

    /// Sign out.
    public static func signOut(auth: Auth = .auth()) throws {
        try auth.signOut()
    }
}
