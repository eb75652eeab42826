/// `accounts:update` (v3 `setAccountInfo`) for the signed-in user.
public struct UpdateRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    /// The Identity Platform tenant the user belongs to (refused: Hearth has no tenants yet).
    public var tenantId: String?
    public var displayName: String?
    public var photoUrl: String?
    public var password: String?
    public var email: String?
    /// `DISPLAY_NAME`, `PHOTO_URL`.
    public var deleteAttribute: [String]?
    /// Provider ids to unlink (`password`, `microsoft.com`, ...).
    public var deleteProvider: [String]?
    /// Credential ids of the user's passkeys to remove (either base64 alphabet; needs a recent login).
    public var deletePasskey: [String]?
    public var returnSecureToken: Bool?
    /// An email action code to apply instead (`VERIFY_EMAIL`, `RECOVER_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`): no
    /// `idToken` then; the code names the user.
    public var oobCode: String?

    public init(idToken: String?, displayName: String? = nil, photoUrl: String? = nil, password: String? = nil,
                email: String? = nil, deleteAttribute: [String]? = nil, deleteProvider: [String]? = nil,
                returnSecureToken: Bool? = true) {
        self.idToken = idToken
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.password = password
        self.email = email
        self.deleteAttribute = deleteAttribute
        self.deleteProvider = deleteProvider
        self.returnSecureToken = returnSecureToken
    }
}

/// The answer to `accounts:update`. New tokens are included when the password or email changed
/// (those changes revoke the user's other sessions).
public struct UpdateResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#SetAccountInfoResponse"
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    public var providerUserInfo: [ProviderUserInfo]
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?

    public init(localId: String, email: String?, emailVerified: Bool, displayName: String?, photoUrl: String?,
                providerUserInfo: [ProviderUserInfo], tokens: SessionTokens?) {
        self.localId = localId
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.providerUserInfo = providerUserInfo
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
    }
}

/// `accounts:delete` (v3 `deleteAccount`) for the signed-in user.
public struct DeleteAccountRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    /// The Identity Platform tenant the user belongs to (refused: Hearth has no tenants yet).
    public var tenantId: String?
    public init(idToken: String?) { self.idToken = idToken }
}

/// The answer to `accounts:delete`.
public struct DeleteAccountResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#DeleteAccountResponse"
    public init() {}
}
