import Foundation
import HearthWire

extension Auth {
    /// Revokes the signed-in user's Sign in with Apple tokens (the App Store's rule when an account is deleted),
    /// with the authorization code of a fresh Sign in with Apple (`ASAuthorizationAppleIDCredential.authorizationCode`
    /// as a UTF-8 string): the server exchanges the code with its own client secret and revokes the token at Apple.
    /// Revoke first, then `User.delete()`. Without a signed-in user it does nothing, as Firebase.
    public func revokeToken(withAuthorizationCode authorizationCode: String) async throws {
        guard let user = currentUser else { return }
        let idToken = try await user.getIDToken()
        let body = RevokeTokenBody(providerId: "apple.com", tokenType: RevokeTokenBody.authorizationCode, token: authorizationCode, idToken: idToken)
        do {
            _ = try await core.backend.post(RevokeTokenRequest.method.clientPath, body, as: RevokeTokenResponse.self)
        } catch {
            core.signOutIfTokenIsInvalid(error, user: user)
            throw error
        }
    }

    /// Completion-handler form of ``revokeToken(withAuthorizationCode:)``.
    public func revokeToken(withAuthorizationCode authorizationCode: String, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task {
            do { try await revokeToken(withAuthorizationCode: authorizationCode); completion?(nil) } catch { completion?(error) }
        }
    }
}

/// `accounts:revokeToken` as Firebase's Apple SDK sends it: `tokenType` is the enum's number as a string (`"3"`,
/// an authorization code), where HearthWire's `RevokeTokenRequest` writes the enum's name; the server reads both.
struct RevokeTokenBody: Encodable, Sendable {
    /// `TokenType.CODE`.
    static let authorizationCode = "3"

    let providerId: String
    let tokenType: String
    let token: String
    let idToken: String
}
