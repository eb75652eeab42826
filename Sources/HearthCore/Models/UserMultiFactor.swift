import Foundation
import HearthWire

/// A user's second factors and recovery codes, kept with the user (the `users.mfa` column, JSON): one
/// optimistic-concurrency write changes them together with the rest of the account, so a code used on one replica
/// is refused on every other.
public struct UserMultiFactor: Sendable, Equatable, Codable {
    /// Enrolled factors, oldest first.
    public var factors: [MultiFactorEnrollment]
    /// SHA-256 hashes (hex) of the user's recovery codes (see ``RecoveryCodes``); a used one is removed.
    public var recoveryCodeHashes: [String]
    /// How many recovery codes were used since the set was made (for the console and the audit).
    public var recoveryCodesUsed: Int

    public init(factors: [MultiFactorEnrollment] = [], recoveryCodeHashes: [String] = [], recoveryCodesUsed: Int = 0) {
        self.factors = factors
        self.recoveryCodeHashes = recoveryCodeHashes
        self.recoveryCodesUsed = recoveryCodesUsed
    }

    /// No factor and no code: stored as NULL.
    public var isEmpty: Bool { factors.isEmpty && recoveryCodeHashes.isEmpty }

    /// The most factors a user may enroll (`SECOND_FACTOR_LIMIT_EXCEEDED` beyond).
    public static let maximumFactors = 5

    /// Of `ids`, the first (in sorted order) that names none of the factors.
    public func firstUnknown(_ ids: some Collection<String>) -> String? {
        ids.sorted().first { id in !factors.contains { $0.enrollmentId == id } }
    }

    /// The `mfaInfo` entries of lookups, admin records and sign-in answers: never the secret.
    public var enrollmentInfo: [MFAEnrollmentInfo] { factors.map(\.enrollmentInfo) }
}

/// One enrolled TOTP factor.
public struct MultiFactorEnrollment: Sendable, Equatable, Codable {
    /// Firebase's `mfaEnrollmentId` (the Admin SDKs' `MultiFactorInfo.uid`).
    public var enrollmentId: String
    public var displayName: String?
    public var enrolledAt: Date
    /// The shared secret, base32, sealed (``ProviderTokenKeys/sealSecret(_:context:)`` with
    /// ``MultiFactorEnrollment/sealingContext(enrollmentId:)``) when the server has vault keys, else as it is.
    public var secret: String
    public var algorithm: TOTP.Algorithm
    public var digits: Int
    public var period: Int
    /// The last time step a code was accepted for: codes of this step and earlier are refused (no replay).
    public var lastUsedStep: Int64?

    public init(enrollmentId: String, displayName: String?, enrolledAt: Date, secret: String,
                algorithm: TOTP.Algorithm = .sha1, digits: Int = 6, period: Int = 30, lastUsedStep: Int64? = nil) {
        self.enrollmentId = enrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.lastUsedStep = lastUsedStep
    }

    /// What a sealed secret is bound to: it opens only as this enrollment's.
    public static func sealingContext(enrollmentId: String) -> String { "hearth.totp-secret.v1\u{0}\(enrollmentId)" }

    /// The `mfaInfo` entry: `enrolledAt` in RFC 3339 with exactly three fraction digits (the iOS SDK parses that
    /// form only), `totpInfo: {}`.
    public var enrollmentInfo: MFAEnrollmentInfo {
        MFAEnrollmentInfo(mfaEnrollmentId: enrollmentId, displayName: displayName,
                          enrolledAt: enrolledAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }
}

/// A second-factor step in progress, stored by the hash of the opaque string the client holds: an enrollment
/// (`sessionInfo` of `mfaEnrollment:start`) or a sign-in waiting for its second factor (`mfaPendingCredential`).
/// Short-lived; deleted by the step that completes it, so it completes once across replicas.
public struct MultiFactorSessionRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case enrollment
        case signIn = "sign_in"
    }

    /// SHA-256 (hex) of the string the client holds.
    public var idHash: String
    public var kind: Kind
    public var localId: String
    public var payload: Payload
    public var createdAt: Date
    public var expiresAt: Date

    public init(idHash: String, kind: Kind, localId: String, payload: Payload, createdAt: Date, expiresAt: Date) {
        self.idHash = idHash
        self.kind = kind
        self.localId = localId
        self.payload = payload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// What the step needs to finish.
    public struct Payload: Sendable, Equatable, Codable {
        /// Enrollment: the new secret (base32; sealed when the server has vault keys).
        public var secret: String?
        /// Sign-in: the first factor (`firebase.sign_in_provider` of the tokens to mint).
        public var signInProvider: String?
        /// Sign-in: the federated identity of the first factor, whose profile the sign-in refreshes.
        public var identity: ProviderIdentity?

        public init(secret: String? = nil, signInProvider: String? = nil, identity: ProviderIdentity? = nil) {
            self.secret = secret
            self.signInProvider = signInProvider
            self.identity = identity
        }
    }
}
