/// `accounts:signInWithIdp` (v3 `verifyAssertion`): completes a federated sign-in, link or reauthentication.
public struct SignInWithIdpRequest: Codable, Sendable, Equatable {
    /// The `link` the auth handler delivered (the provider's callback URL with `code` and `state`).
    public var requestUri: String?
    /// Form text; `providerId=…`, or `id_token=…&providerId=…[&nonce=<raw nonce>]` for a provider ID token the app
    /// obtained natively (checked as Hearth's own; a bare `access_token` is refused).
    public var postBody: String?
    /// The raw session id whose SHA-256 went to the auth handler.
    public var sessionId: String?
    /// A `needConfirmation` answer's pending credential, to link to the user of `idToken`.
    public var pendingToken: String?
    /// The signed-in user's ID token: link instead of sign in.
    public var idToken: String?
    public var returnSecureToken: Bool?
    public var returnIdpCredential: Bool?
    /// `false` for reauthentication: an unknown identity is `USER_NOT_FOUND`, no account is created.
    public var autoCreate: Bool?
    public var tenantId: String?

    public init(requestUri: String?, postBody: String? = nil, sessionId: String?, pendingToken: String? = nil, idToken: String? = nil,
                returnSecureToken: Bool? = true, returnIdpCredential: Bool? = true, autoCreate: Bool? = nil) {
        self.requestUri = requestUri
        self.postBody = postBody
        self.sessionId = sessionId
        self.pendingToken = pendingToken
        self.idToken = idToken
        self.returnSecureToken = returnSecureToken
        self.returnIdpCredential = returnIdpCredential
        self.autoCreate = autoCreate
    }
}

/// The answer to `accounts:signInWithIdp`, with Firebase's field names.
public struct SignInWithIdpResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#VerifyAssertionResponse"
    public var federatedId: String?
    public var providerId: String?
    public var localId: String?
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var fullName: String?
    public var firstName: String?
    public var lastName: String?
    public var photoUrl: String?
    /// The provider's profile as a JSON string.
    public var rawUserInfo: String?
    public var oauthAccessToken: String?
    public var oauthIdToken: String?
    /// Seconds (a number).
    public var oauthExpireIn: Int?
    public var idToken: String?
    public var refreshToken: String?
    /// Seconds, as a string.
    public var expiresIn: String?
    public var isNewUser: Bool?
    public var needConfirmation: Bool?
    public var verifiedProvider: [String]?
    public var pendingToken: String?
    /// An error delivered with HTTP 200 (`returnIdpCredential`), with the provider tokens.
    public var errorMessage: String?
    /// Instead of the tokens when the user has a second factor: finish with `mfaSignIn:finalize`.
    public var mfaPendingCredential: String?
    /// The user's second factors, with `mfaPendingCredential`.
    public var mfaInfo: [MFAEnrollmentInfo]?

    public init() {}
}
