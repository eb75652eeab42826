/// `accounts:signInWithCustomToken` (v3 `verifyCustomToken`).
public struct SignInWithCustomTokenRequest: Codable, Sendable, Equatable {
    public var token: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?

    public init(token: String?, returnSecureToken: Bool? = true) {
        self.token = token
        self.returnSecureToken = returnSecureToken
    }
}

/// The answer to `accounts:signInWithCustomToken`.
public struct SignInWithCustomTokenResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#VerifyCustomTokenResponse"
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    public var isNewUser: Bool

    public init(tokens: SessionTokens?, isNewUser: Bool) {
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
        self.isNewUser = isNewUser
    }
}
