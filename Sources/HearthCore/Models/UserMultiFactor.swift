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

    /// The `mfaInfo` entries of lookups and admin records: never a secret; a phone factor's full number.
    public var enrollmentInfo: [MFAEnrollmentInfo] { factors.map(\.enrollmentInfo) }

    /// The `mfaInfo` entries of first-factor sign-in answers (`mfaPendingCredential`): a phone factor's number
    /// masked as Firebase does (``PhoneNumber/masked(_:)``).
    public var maskedEnrollmentInfo: [MFAEnrollmentInfo] { factors.map(\.maskedEnrollmentInfo) }

    /// The enrolled SMS factors.
    public var phoneFactors: [MultiFactorEnrollment] { factors.filter { $0.kind == .phone } }

    /// The enrolled factor of this number (E.164), if any.
    public func phoneFactor(number: String) -> MultiFactorEnrollment? {
        factors.first { $0.kind == .phone && $0.phoneNumber == number }
    }
}

/// One enrolled second factor: TOTP (the secret and its parameters) or SMS (``phoneNumber``; the TOTP fields are
/// unused: an empty secret).
public struct MultiFactorEnrollment: Sendable, Equatable, Codable {
    /// Firebase's `mfaEnrollmentId` (the Admin SDKs' `MultiFactorInfo.uid`).
    public var enrollmentId: String
    public var displayName: String?
    public var enrolledAt: Date
    /// `totp` or `phone` (rows written before SMS factors have none: TOTP).
    public var kind: MultiFactorKind
    /// An SMS factor's number, E.164; nil for TOTP.
    public var phoneNumber: String?
    /// TOTP: the shared secret, base32, sealed (``ProviderTokenKeys/sealSecret(_:context:)`` with
    /// ``MultiFactorEnrollment/sealingContext(enrollmentId:)``) when the server has vault keys, else as it is.
    /// Empty for an SMS factor.
    public var secret: String
    public var algorithm: TOTP.Algorithm
    public var digits: Int
    public var period: Int
    /// The last time step a code was accepted for: codes of this step and earlier are refused (no replay).
    public var lastUsedStep: Int64?

    /// A TOTP factor.
    public init(enrollmentId: String, displayName: String?, enrolledAt: Date, secret: String,
                algorithm: TOTP.Algorithm = .sha1, digits: Int = 6, period: Int = 30, lastUsedStep: Int64? = nil) {
        self.enrollmentId = enrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.kind = .totp
        self.phoneNumber = nil
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.lastUsedStep = lastUsedStep
    }

    /// An SMS factor for `phoneNumber` (E.164).
    public init(enrollmentId: String, displayName: String?, enrolledAt: Date, phoneNumber: String) {
        self.init(enrollmentId: enrollmentId, displayName: displayName, enrolledAt: enrolledAt, secret: "")
        self.kind = .phone
        self.phoneNumber = phoneNumber
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enrollmentId = try c.decode(String.self, forKey: .enrollmentId)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        enrolledAt = try c.decode(Date.self, forKey: .enrolledAt)
        kind = try c.decodeIfPresent(MultiFactorKind.self, forKey: .kind) ?? .totp
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        secret = try c.decodeIfPresent(String.self, forKey: .secret) ?? ""
        algorithm = try c.decodeIfPresent(TOTP.Algorithm.self, forKey: .algorithm) ?? .sha1
        digits = try c.decodeIfPresent(Int.self, forKey: .digits) ?? 6
        period = try c.decodeIfPresent(Int.self, forKey: .period) ?? 30
        lastUsedStep = try c.decodeIfPresent(Int64.self, forKey: .lastUsedStep)
    }

    /// A TOTP factor is written as before SMS factors existed (no `kind`), so stored rows and backups of TOTP
    /// users do not change; an SMS factor carries `kind: "phone"` and `phoneNumber`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(enrollmentId, forKey: .enrollmentId)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encode(enrolledAt, forKey: .enrolledAt)
        if kind != .totp { try c.encode(kind, forKey: .kind) }
        try c.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try c.encode(secret, forKey: .secret)
        try c.encode(algorithm, forKey: .algorithm)
        try c.encode(digits, forKey: .digits)
        try c.encode(period, forKey: .period)
        try c.encodeIfPresent(lastUsedStep, forKey: .lastUsedStep)
    }

    private enum CodingKeys: String, CodingKey {
        case enrollmentId, displayName, enrolledAt, kind, phoneNumber, secret, algorithm, digits, period, lastUsedStep
    }

    /// What a sealed secret is bound to: it opens only as this enrollment's.
    public static func sealingContext(enrollmentId: String) -> String { "hearth.totp-secret.v1\u{0}\(enrollmentId)" }

    /// The `mfaInfo` entry: `enrolledAt` in RFC 3339 with exactly three fraction digits (the iOS SDK parses that
    /// form only), `totpInfo: {}` for TOTP, `phoneInfo: "+15555550100"` (the full number) for SMS.
    public var enrollmentInfo: MFAEnrollmentInfo { info(masked: false) }

    /// The entry of a first-factor sign-in answer: an SMS factor's `phoneInfo` masked (`+*******0100`).
    public var maskedEnrollmentInfo: MFAEnrollmentInfo { info(masked: true) }

    private func info(masked: Bool) -> MFAEnrollmentInfo {
        let enrolledAt = enrolledAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        if kind == .phone, let phoneNumber {
            return MFAEnrollmentInfo(mfaEnrollmentId: enrollmentId, displayName: displayName, enrolledAt: enrolledAt,
                                     phoneInfo: masked ? PhoneNumber.masked(phoneNumber) : phoneNumber)
        }
        return MFAEnrollmentInfo(mfaEnrollmentId: enrollmentId, displayName: displayName, enrolledAt: enrolledAt)
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
