/// `accounts:lookup` (v3 `getAccountInfo`) by ID token.
public struct LookupRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    /// The Identity Platform tenant the user belongs to (refused: Hearth has no tenants yet).
    public var tenantId: String?
    public init(idToken: String?) { self.idToken = idToken }
}

/// The answer to `accounts:lookup`: one user.
public struct LookupResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#GetAccountInfoResponse"
    public var users: [UserInfo]
    public init(users: [UserInfo]) { self.users = users }
}

/// A user as Firebase's `accounts:lookup` describes it. Times are milliseconds since 1970 as strings,
/// `validSince` seconds as a string, as Google sends them.
public struct UserInfo: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    /// E.164 phone number (`+15555550100`), when the user has one.
    public var phoneNumber: String?
    /// Milliseconds since 1970 (a number, as Google sends it).
    public var passwordUpdatedAt: Double?
    public var providerUserInfo: [ProviderUserInfo]
    public var validSince: String
    public var disabled: Bool
    /// Milliseconds since 1970 of the last sign-in; absent for users who never signed in (e.g. created by an admin).
    public var lastLoginAt: String?
    public var createdAt: String
    /// RFC 3339 time of the last token refresh.
    public var lastRefreshAt: String?
    /// Custom claims as a JSON object string.
    public var customAttributes: String?
    /// `true` for users created by a custom token.
    public var customAuth: Bool?
    /// The user's second factors (never their secrets); absent when there are none.
    public var mfaInfo: [MFAEnrollmentInfo]?
    /// The user's passkeys (name and credential id only); absent when there are none.
    public var passkeyInfo: [PasskeyInfo]?
    /// The Identity Platform tenant of the user; absent for the project's own users. The JS SDK checks it against
    /// `auth.tenantId`.
    public var tenantId: String?

    public init(localId: String, email: String?, emailVerified: Bool, displayName: String?, photoUrl: String?,
                passwordUpdatedAt: Double?, providerUserInfo: [ProviderUserInfo], validSince: String, disabled: Bool,
                lastLoginAt: String?, createdAt: String, lastRefreshAt: String?, customAttributes: String?, customAuth: Bool?,
                phoneNumber: String? = nil, mfaInfo: [MFAEnrollmentInfo]? = nil, passkeyInfo: [PasskeyInfo]? = nil) {
        self.localId = localId
        self.mfaInfo = mfaInfo
        self.passkeyInfo = passkeyInfo
        self.phoneNumber = phoneNumber
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.passwordUpdatedAt = passwordUpdatedAt
        self.providerUserInfo = providerUserInfo
        self.validSince = validSince
        self.disabled = disabled
        self.lastLoginAt = lastLoginAt
        self.createdAt = createdAt
        self.lastRefreshAt = lastRefreshAt
        self.customAttributes = customAttributes
        self.customAuth = customAuth
    }
}

extension UserInfo {
    /// This answer for a user of `tenantId` (nil: the project's own).
    public func inTenant(_ tenantId: String?) -> UserInfo {
        var info = self
        info.tenantId = tenantId
        return info
    }
}

/// One sign-in method of a user: `password`, `phone`, `microsoft.com`, `yahoo.com`, `oidc.*`.
public struct ProviderUserInfo: Codable, Sendable, Equatable {
    public var providerId: String
    /// The provider's id for the user (Firebase's `providerData[].uid`).
    public var rawId: String
    public var federatedId: String
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    /// For the `phone` provider: the E.164 number.
    public var phoneNumber: String?

    public init(providerId: String, rawId: String, federatedId: String, email: String?, displayName: String?, photoUrl: String?,
                phoneNumber: String? = nil) {
        self.phoneNumber = phoneNumber
        self.providerId = providerId
        self.rawId = rawId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
    }
}
