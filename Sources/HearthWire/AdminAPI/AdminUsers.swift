/// Wire types of the Admin API's user calls (`/v1/projects/{p}/accounts…`), as the Firebase Admin SDKs send
/// and read them. Numbers that some SDK sends as strings are ``FlexibleInt``.

/// `POST /v1/projects/{p}/accounts`: create a user (admin).
public struct AdminCreateUserRequest: Codable, Sendable, Equatable {
    public var localId: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var phoneNumber: String?
    public var photoUrl: String?
    public var emailVerified: Bool?
    public var disabled: Bool?
    public var tenantId: String?

    public init(localId: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil,
                phoneNumber: String? = nil, photoUrl: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil) {
        self.localId = localId
        self.email = email
        self.password = password
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.photoUrl = photoUrl
        self.emailVerified = emailVerified
        self.disabled = disabled
    }
}

/// A `(providerId, rawId)` pair: `federatedUserId` of an admin lookup.
public struct FederatedUserIdentifier: Codable, Sendable, Equatable {
    public var providerId: String?
    public var rawId: String?

    public init(providerId: String, rawId: String) {
        self.providerId = providerId
        self.rawId = rawId
    }
}

/// `POST /v1/projects/{p}/accounts:lookup` (admin): any mix of identifiers; missing users are skipped.
public struct AdminLookupRequest: Codable, Sendable, Equatable {
    public var localId: [String]?
    public var email: [String]?
    public var phoneNumber: [String]?
    public var federatedUserId: [FederatedUserIdentifier]?
    /// Also accepted: the signed-in user's own ID token (the client form).
    public var idToken: String?
    public var tenantId: String?

    public init(localId: [String]? = nil, email: [String]? = nil, phoneNumber: [String]? = nil,
                federatedUserId: [FederatedUserIdentifier]? = nil) {
        self.localId = localId
        self.email = email
        self.phoneNumber = phoneNumber
        self.federatedUserId = federatedUserId
    }
}

/// The answer to an admin lookup: `users` is omitted when nothing matched (as Google does).
public struct AdminLookupResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#GetAccountInfoResponse"
    public var users: [UserInfo]?
    public init(users: [UserInfo]) { self.users = users.isEmpty ? nil : users }
}

/// `GET /v1/projects/{p}/accounts:batchGet?maxResults=&nextPageToken=`: users ordered by `localId`.
public struct BatchGetResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#DownloadAccountResponse"
    public var users: [UserInfo]?
    /// Absent on the last page.
    public var nextPageToken: String?
    public init(users: [UserInfo], nextPageToken: String?) {
        self.users = users.isEmpty ? nil : users
        self.nextPageToken = nextPageToken
    }
}

/// A provider to link by `accounts:update` (`linkProviderUserInfo`).
public struct LinkProviderUserInfo: Codable, Sendable, Equatable {
    public var providerId: String?
    public var rawId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?

    public init(providerId: String, rawId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
    }
}

/// `POST /v1/projects/{p}/accounts:update` (admin, by `localId`).
public struct AdminUpdateRequest: Codable, Sendable, Equatable {
    public var localId: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var emailVerified: Bool?
    public var disableUser: Bool?
    /// Custom claims as a JSON object text (≤ 1000 characters, no reserved names); `"{}"` or `""` clears them.
    public var customAttributes: String?
    /// Seconds since 1970: tokens issued before it are revoked.
    public var validSince: FlexibleInt?
    public var createdAt: FlexibleInt?
    public var lastLoginAt: FlexibleInt?
    /// `DISPLAY_NAME`, `PHOTO_URL`, `EMAIL`, `PASSWORD`.
    public var deleteAttribute: [String]?
    /// `password`, `phone`, or a federated provider id.
    public var deleteProvider: [String]?
    public var linkProviderUserInfo: LinkProviderUserInfo?
    /// The user's second factors after the update: `{}` (or no `enrollments`) removes them all; otherwise the
    /// factors whose `mfaEnrollmentId` is listed stay (their `displayName` may change) and the others are removed.
    /// What the Node Admin SDK sends for `updateUser(uid, {multiFactor: {enrolledFactors}})`.
    public var mfa: MFAUpdate?
    /// Hearth: credential ids of the user's passkeys to remove.
    public var deletePasskey: [String]?
    public var tenantId: String?

    public init(localId: String?) { self.localId = localId }

    /// `accounts:update`'s `mfa` member.
    public struct MFAUpdate: Codable, Sendable, Equatable {
        public var enrollments: [MFAEnrollmentInfo]?
        public init(enrollments: [MFAEnrollmentInfo]? = nil) { self.enrollments = enrollments }
    }
}

/// The answer to an admin `accounts:update`.
public struct AdminUpdateResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#SetAccountInfoResponse"
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    public var providerUserInfo: [ProviderUserInfo]

    public init(user: UserInfo) {
        localId = user.localId
        email = user.email
        emailVerified = user.emailVerified
        displayName = user.displayName
        photoUrl = user.photoUrl
        providerUserInfo = user.providerUserInfo
    }
}

/// `POST /v1/projects/{p}/accounts:delete` (admin).
public struct AdminDeleteRequest: Codable, Sendable, Equatable {
    public var localId: String?
    public var idToken: String?
    public var tenantId: String?
    public init(localId: String?) { self.localId = localId }
}

/// `POST /v1/projects/{p}/accounts:batchDelete`.
public struct BatchDeleteRequest: Codable, Sendable, Equatable {
    public var localIds: [String]?
    /// Delete enabled users too (without it, only disabled users are deleted).
    public var force: Bool?
    public var tenantId: String?
    public init(localIds: [String], force: Bool? = nil) {
        self.localIds = localIds
        self.force = force
    }
}

/// The answer to `accounts:batchDelete`: one entry per user that was not deleted.
public struct BatchDeleteResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#BatchDeleteAccountsResponse"
    public var errors: [Failure]?

    /// Why the user at `index` was not deleted.
    public struct Failure: Codable, Sendable, Equatable {
        public var index: Int
        public var localId: String
        public var message: String
        public init(index: Int, localId: String, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }

    public init(errors: [Failure]) { self.errors = errors.isEmpty ? nil : errors }
}

/// One condition of `accounts:query`'s `expression` (only one field set).
public struct QueryExpression: Codable, Sendable, Equatable {
    public var email: String?
    public var phoneNumber: String?
    public var userId: String?
    public init(email: String? = nil, phoneNumber: String? = nil, userId: String? = nil) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.userId = userId
    }
}

/// `POST /v1/projects/{p}/accounts:query` (Go `QueryUsers`, the Firebase CLI).
public struct QueryUsersRequest: Codable, Sendable, Equatable {
    public var returnUserInfo: Bool?
    /// 1–500, default 500.
    public var limit: FlexibleInt?
    public var offset: FlexibleInt?
    /// `USER_ID` (default), `NAME`, `CREATED_AT`, `LAST_LOGIN_AT`, `USER_EMAIL`.
    public var sortBy: String?
    /// `ASC` (default) or `DESC`.
    public var order: String?
    public var expression: [QueryExpression]?
    public var tenantId: String?
    public init() {}
}

/// The answer to `accounts:query`: `recordsCount` is a string (Go decodes it so).
public struct QueryUsersResponse: Codable, Sendable, Equatable {
    public var recordsCount: String
    public var userInfo: [UserInfo]?
    public init(recordsCount: Int, userInfo: [UserInfo]?) {
        self.recordsCount = String(recordsCount)
        self.userInfo = userInfo
    }
}

/// `POST /v1/projects/{p}:createSessionCookie`.
public struct CreateSessionCookieRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    /// Seconds, 300 (5 minutes) to 1209600 (14 days); default 14 days.
    public var validDuration: FlexibleInt?
    public var tenantId: String?
    public init(idToken: String?, validDuration: Int64? = nil) {
        self.idToken = idToken
        self.validDuration = validDuration.map { FlexibleInt($0) }
    }
}

/// The answer to `createSessionCookie`.
public struct CreateSessionCookieResponse: Codable, Sendable, Equatable {
    public var sessionCookie: String
    public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
}

/// The answer to an admin `accounts:delete`.
public struct AdminDeleteResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#DeleteAccountResponse"
    public init() {}
}

/// One admin write as the audit log records it (`GET /v1/projects/{p}/auditLog`). Never holds secrets:
/// changed fields are listed by name, not value.
public struct AuditLogEntry: Codable, Sendable, Equatable {
    /// Increasing identifier; also the page token.
    public var id: String
    /// RFC 3339.
    public var time: String
    /// `serviceAccount:<email>` or `emulator:owner`.
    public var actor: String
    /// The call, e.g. `accounts.update`.
    public var action: String
    /// The user's `localId` or the configuration's name.
    public var target: String
    /// Names of the changed fields, or a short summary.
    public var detail: String?

    public init(id: String, time: String, actor: String, action: String, target: String, detail: String?) {
        self.id = id
        self.time = time
        self.actor = actor
        self.action = action
        self.target = target
        self.detail = detail
    }
}

/// The answer to `GET /v1/projects/{p}/auditLog?pageSize=&pageToken=`: newest first.
public struct AuditLogResponse: Codable, Sendable, Equatable {
    public var entries: [AuditLogEntry]
    public var nextPageToken: String?
    public init(entries: [AuditLogEntry], nextPageToken: String?) {
        self.entries = entries
        self.nextPageToken = nextPageToken
    }
}

/// The empty answer (`{}`) of emulator calls.
public struct EmptyResponse: Codable, Sendable, Equatable {
    public init() {}
}

/// One user of `accounts:batchCreate` (import).
public struct ImportUserInfo: Codable, Sendable, Equatable {
    public var localId: String?
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var phoneNumber: String?
    public var photoUrl: String?
    public var disabled: Bool?
    public var customAttributes: String?
    /// Milliseconds since 1970.
    public var createdAt: FlexibleInt?
    public var lastLoginAt: FlexibleInt?
    /// base64 (standard or URL-safe, padded or not).
    public var passwordHash: String?
    public var salt: String?
    /// A clear-text password (hashed with Hearth's scrypt on import).
    public var rawPassword: String?
    public var providerUserInfo: [LinkProviderUserInfo]?
    /// Second factors: Hearth refuses users that have any (a factor's secret is never exported, so it could not
    /// verify a code; dropping it silently would weaken the account).
    public var mfaInfo: [MFAEnrollmentInfo]?
    public var tenantId: String?

    public init(localId: String?, email: String? = nil, passwordHash: String? = nil, salt: String? = nil) {
        self.localId = localId
        self.email = email
        self.passwordHash = passwordHash
        self.salt = salt
    }
}

/// `POST /v1/projects/{p}/accounts:batchCreate`: up to 1000 users and the hash parameters of their passwords.
public struct ImportUsersRequest: Codable, Sendable, Equatable {
    public var users: [ImportUserInfo]?
    /// `SCRYPT`, `STANDARD_SCRYPT`, `BCRYPT`, `PBKDF2_SHA256`, `PBKDF_SHA1`, `HMAC_SHA512`, `HMAC_SHA256`,
    /// `HMAC_SHA1`, `HMAC_MD5`, `SHA512`, `SHA256`, `SHA1`, `MD5`.
    public var hashAlgorithm: String?
    /// base64: the HMAC key or Firebase scrypt's signer key.
    public var signerKey: String?
    /// base64: Firebase scrypt's salt separator.
    public var saltSeparator: String?
    public var rounds: FlexibleInt?
    public var memoryCost: FlexibleInt?
    public var cpuMemCost: FlexibleInt?
    public var parallelization: FlexibleInt?
    public var blockSize: FlexibleInt?
    public var dkLen: FlexibleInt?
    /// `SALT_AND_PASSWORD` (default) or `PASSWORD_AND_SALT`.
    public var passwordHashOrder: String?
    /// Replace users whose `localId` exists (otherwise they are reported as errors).
    public var allowOverwrite: Bool?
    public var sanityCheck: Bool?
    public var tenantId: String?

    public init(users: [ImportUserInfo], hashAlgorithm: String? = nil) {
        self.users = users
        self.hashAlgorithm = hashAlgorithm
    }
}

/// The answer to `accounts:batchCreate`: `error` (singular, as Google names it) lists the users not imported.
public struct ImportUsersResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#UploadAccountResponse"
    public var error: [Failure]?

    /// Why the user at `index` was not imported.
    public struct Failure: Codable, Sendable, Equatable {
        public var index: Int
        public var message: String
        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }

    public init(errors: [Failure]) { self.error = errors.isEmpty ? nil : errors }
}

extension MFAEnrollmentInfo {
    private enum DecodingKeys: String, CodingKey {
        case mfaEnrollmentId, displayName, enrolledAt, totpInfo, phoneInfo
    }

    /// Decodes a factor as Firebase's SDKs send and read it. `mfaEnrollmentId` may be absent — "" then: the Admin
    /// SDKs send none for an SMS factor an administrator adds (`accounts:update` `mfa.enrollments`, imports), and the
    /// server makes one.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DecodingKeys.self)
        self.init(mfaEnrollmentId: try c.decodeIfPresent(String.self, forKey: .mfaEnrollmentId) ?? "",
                  displayName: try c.decodeIfPresent(String.self, forKey: .displayName),
                  enrolledAt: try c.decodeIfPresent(String.self, forKey: .enrolledAt))
        totpInfo = try c.decodeIfPresent(EmptyWireObject.self, forKey: .totpInfo)
        phoneInfo = try c.decodeIfPresent(String.self, forKey: .phoneInfo)
    }
}
