/// `accounts:signInWithPassword` (v3 `verifyPassword`).
public struct SignInWithPasswordRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?

    public init(email: String?, password: String?, returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.returnSecureToken = returnSecureToken
    }
}

/// The answer to `accounts:signInWithPassword`.
public struct SignInWithPasswordResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#VerifyPasswordResponse"
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var profilePicture: String?
    public var registered: Bool = true
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// Instead of the tokens when the user has a second factor: finish with `mfaSignIn:finalize`.
    public var mfaPendingCredential: String?
    /// The user's second factors, with `mfaPendingCredential`.
    public var mfaInfo: [MFAEnrollmentInfo]?

    public init(localId: String, email: String?, displayName: String?, photoUrl: String?, tokens: SessionTokens?) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.profilePicture = photoUrl
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
    }
}
