/// `accounts:signUp` (v3 `signupNewUser`): email + password, or nothing for an anonymous user.
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var idToken: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?

    public init(email: String? = nil, password: String? = nil, displayName: String? = nil, idToken: String? = nil, returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.idToken = idToken
        self.returnSecureToken = returnSecureToken
    }
}

/// The answer to `accounts:signUp`.
public struct SignUpResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#SignupNewUserResponse"
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var idToken: String?
    public var refreshToken: String?
    /// Seconds, as a string.
    public var expiresIn: String?

    public init(localId: String, email: String?, displayName: String?, tokens: SessionTokens?) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
    }
}

/// A freshly minted ID token and refresh token.
public struct SessionTokens: Codable, Sendable, Equatable {
    public var idToken: String
    public var refreshToken: String
    /// The ID token's lifetime in seconds, as a string ("3600").
    public var expiresIn: String

    public init(idToken: String, refreshToken: String, expiresIn: String) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
