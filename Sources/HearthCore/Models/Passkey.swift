import Foundation

/// A registered passkey (WebAuthn public-key credential) of a user.
public struct PasskeyCredential: Sendable, Equatable {
    /// Unpadded base64url of the credential id (the one form, whatever alphabet a client used).
    public var credentialId: String
    public var localId: String
    /// Unpadded base64url of the WebAuthn user handle (random, the same for all of a user's passkeys; never the email).
    public var userHandle: String
    /// The credential's public key as its COSE_Key bytes (unpadded base64url).
    public var publicKey: String
    /// The COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int
    /// The authenticator's signature counter at the last use (0: the authenticator keeps none).
    public var signCount: Int64
    public var name: String?
    public var transports: [String]
    /// Backup eligible / backed up (a synced passkey).
    public var backupEligible: Bool
    public var backedUp: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(credentialId: String, localId: String, userHandle: String, publicKey: String, algorithm: Int, signCount: Int64,
                name: String?, transports: [String] = [], backupEligible: Bool = false, backedUp: Bool = false,
                createdAt: Date, lastUsedAt: Date? = nil) {
        self.credentialId = credentialId
        self.localId = localId
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.name = name
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A WebAuthn challenge waiting for its ceremony, stored by the SHA-256 of its bytes; single use, short-lived.
public struct PasskeyChallenge: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// `passkeyEnrollment:start` for `localId`.
        case enrollment
        /// `passkeySignIn:start` (no user yet: discoverable credentials).
        case signIn = "sign_in"
        /// A passkey as the second factor of `localId`'s pending sign-in.
        case secondFactor = "second_factor"
    }

    /// Hex SHA-256 of the challenge bytes.
    public var challengeHash: String
    public var kind: Kind
    public var localId: String?
    /// Enrollment: the user handle the options named.
    public var userHandle: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(challengeHash: String, kind: Kind, localId: String?, userHandle: String? = nil, createdAt: Date, expiresAt: Date) {
        self.challengeHash = challengeHash
        self.kind = kind
        self.localId = localId
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
