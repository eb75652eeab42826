import Foundation
import HearthWire

/// A user account as Hearth stores it.
public struct UserRecord: Sendable, Equatable {
    /// Firebase's `localId` / `uid`: up to 128 characters.
    public var localId: String
    /// The email, if any, always in ``EmailAddress/canonical(_:)`` form (lower-cased, trimmed, NFC): whoever sets
    /// it, the stores write and compare one form.
    public var email: String? {
        // Compared as bytes: Swift's `==` calls a composed and a decomposed spelling equal, which is the point here.
        didSet { if let email, !EmailAddress.canonical(email).utf8.elementsEqual(email.utf8) { self.email = EmailAddress.canonical(email) } }
    }
    public var emailVerified: Bool
    public var displayName: String?
    public var photoUrl: String?
    /// The encoded password hash (see ``PasswordHasher``); never leaves the server.
    public var passwordHash: String?
    public var passwordUpdatedAt: Date?
    public var disabled: Bool
    public var createdAt: Date
    public var lastLoginAt: Date?
    public var lastRefreshAt: Date?
    /// ID tokens issued before this second, and sessions begun before it, are no longer valid.
    public var validSince: Date
    /// Developer claims added to every ID token.
    public var customClaims: [String: JSONValue]
    /// Created by a custom token.
    public var customAuth: Bool
    /// Linked federated identities (`microsoft.com`, `yahoo.com`, `oidc.*`).
    public var identities: [ProviderIdentity]
    /// Optimistic-concurrency version; stores bump it on every update.
    public var version: Int
    /// Has signed in with an email link (`fetchSignInMethods` lists `emailLink`; `providerUserInfo` lists
    /// `password`, as at Firebase, even without a password).
    public var emailLinkSignIn: Bool
    /// Second factors and recovery codes.
    public var mfa: UserMultiFactor = UserMultiFactor()
    /// The Identity Platform tenant the user belongs to; nil: the project's own users. Set by the store the user is
    /// read from or written to (a store bound to a tenant writes its own), never by a request.
    public var tenantId: String?

    public init(localId: String, email: String? = nil, emailVerified: Bool = false, displayName: String? = nil,
                photoUrl: String? = nil, passwordHash: String? = nil, passwordUpdatedAt: Date? = nil,
                disabled: Bool = false, createdAt: Date, lastLoginAt: Date? = nil, lastRefreshAt: Date? = nil,
                validSince: Date, customClaims: [String: JSONValue] = [:], customAuth: Bool = false,
                identities: [ProviderIdentity] = [], version: Int = 0, emailLinkSignIn: Bool = false) {
        self.localId = localId
        self.email = email.map(EmailAddress.canonical)
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.passwordHash = passwordHash
        self.passwordUpdatedAt = passwordUpdatedAt
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.lastRefreshAt = lastRefreshAt
        self.validSince = validSince
        self.customClaims = customClaims
        self.customAuth = customAuth
        self.identities = identities
        self.version = version
        self.emailLinkSignIn = emailLinkSignIn
    }

    /// Anonymous: no email, no password, no linked provider, not made by a custom token.
    public var isAnonymous: Bool {
        email == nil && passwordHash == nil && identities.isEmpty && !customAuth
    }

    /// The sign-in methods, as `createAuthUri` and `providerUserInfo` list them.
    public var providerUserInfo: [ProviderUserInfo] {
        var result: [ProviderUserInfo] = []
        if passwordHash != nil || emailLinkSignIn, let email {
            result.append(ProviderUserInfo(providerId: "password", rawId: email, federatedId: email, email: email,
                                           displayName: displayName, photoUrl: photoUrl))
        }
        for identity in identities {
            if identity.providerId == ProviderIdentity.phoneProviderId {
                result.append(ProviderUserInfo(providerId: identity.providerId, rawId: identity.federatedId,
                                               federatedId: identity.federatedId, email: nil, displayName: nil, photoUrl: nil,
                                               phoneNumber: identity.federatedId))
                continue
            }
            result.append(ProviderUserInfo(providerId: identity.providerId, rawId: identity.federatedId,
                                           federatedId: identity.federatedId, email: identity.email,
                                           displayName: identity.displayName, photoUrl: identity.photoUrl))
        }
        return result
    }

    /// The lookup representation of this user (no password hash).
    public var userInfo: UserInfo {
        UserInfo(
            localId: localId, email: email, emailVerified: emailVerified, displayName: displayName,
            photoUrl: photoUrl,
            passwordUpdatedAt: passwordUpdatedAt.map { ($0.timeIntervalSince1970 * 1000).rounded() },
            providerUserInfo: providerUserInfo,
            validSince: String(Int64(validSince.timeIntervalSince1970)),
            disabled: disabled,
            lastLoginAt: lastLoginAt.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) },
            createdAt: String(Int64((createdAt.timeIntervalSince1970 * 1000).rounded())),
            lastRefreshAt: lastRefreshAt.map { $0.formatted(.iso8601) },
            customAttributes: customClaims.isEmpty ? nil : JSONValue.object(customClaims).compactJSONString,
            customAuth: customAuth ? true : nil,
            phoneNumber: phoneNumber,
            mfaInfo: mfa.factors.isEmpty ? nil : mfa.enrollmentInfo
        ).inTenant(tenantId)
    }

    /// The user's phone number: kept as the `phone` identity, so it is unique across users like any identity.
    public var phoneNumber: String? {
        get { identities.first { $0.providerId == ProviderIdentity.phoneProviderId }?.federatedId }
        set {
            identities.removeAll { $0.providerId == ProviderIdentity.phoneProviderId }
            if let newValue { identities.append(ProviderIdentity(providerId: ProviderIdentity.phoneProviderId, federatedId: newValue)) }
        }
    }
}

/// A federated identity linked to a user: `(providerId, federatedId)` is unique across users.
public struct ProviderIdentity: Sendable, Equatable, Codable {
    public var providerId: String
    /// The provider's stable id for the user (Firebase's `rawId`, `providerData[].uid`).
    public var federatedId: String
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?

    /// The provider id under which a user's phone number is kept (`federatedId` = the E.164 number).
    public static let phoneProviderId = "phone"

    public init(providerId: String, federatedId: String, email: String? = nil, displayName: String? = nil, photoUrl: String? = nil) {
        self.providerId = providerId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
    }
}

extension JSONValue {
    /// Compact JSON text with sorted keys.
    public var compactJSONString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }
}
