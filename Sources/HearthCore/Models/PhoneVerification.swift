import Crypto
import Foundation
import HearthWire

/// What an SMS code (or a temporary proof) was made for: a record of one purpose never completes another.
public enum PhoneCodePurpose: String, Sendable, Codable, CaseIterable {
    /// `accounts:sendVerificationCode` → `accounts:signInWithPhoneNumber` (sign-in, sign-up, link, reauth).
    case signIn = "sign_in"
    /// `mfaEnrollment:start` with `phoneEnrollmentInfo` → `mfaEnrollment:finalize`.
    case mfaEnrollment = "mfa_enrollment"
    /// `mfaSignIn:start` with `phoneSignInInfo` → `mfaSignIn:finalize`.
    case mfaSignIn = "mfa_sign_in"

    /// The `sms_type` of the `beforeSendSms` event for a code of this purpose.
    public var smsType: BlockingSmsType {
        switch self {
        case .signIn: .signInOrSignUp
        case .mfaEnrollment: .multiFactorEnrollment
        case .mfaSignIn: .multiFactorSignIn
        }
    }
}

/// A phone verification in progress, stored by the hash of the opaque string the client holds — any replica can
/// check it. Either a code sent by SMS (`sessionInfo`, kind ``Kind/code``) or a temporary proof that a number was
/// verified (kind ``Kind/temporaryProof``: the `PHONE_NUMBER_EXISTS` dance of a link whose number is on another
/// account). Single use: the step that completes it deletes it. Bound to the tenant of the store that wrote it.
public struct PhoneVerificationRecord: Sendable, Equatable {
    /// What the client holds.
    public enum Kind: String, Sendable, Codable {
        /// A `sessionInfo`: a 6-digit code was sent to ``phoneNumber``.
        case code
        /// A `temporaryProof`: ``phoneNumber`` was verified already.
        case temporaryProof = "temporary_proof"
    }

    /// ``RefreshTokenRecord/hash(_:)`` of the `sessionInfo` / `temporaryProof`.
    public var idHash: String
    public var kind: Kind
    public var purpose: PhoneCodePurpose
    /// The number, E.164.
    public var phoneNumber: String
    /// ``PhoneVerificationRecord/codeHash(code:sessionInfo:)`` of the code (kind ``Kind/code``); nil for a proof.
    public var codeHash: String?
    /// The user the code is for (MFA enrollment and MFA sign-in; a link), nil for a sign-in or sign-up.
    public var localId: String?
    /// MFA sign-in: the `idHash` of the pending credential the code completes; nil otherwise.
    public var binding: String?
    /// Wrong codes counted so far (``PhoneVerificationStore/countPhoneCodeAttempt(idHash:maxAttempts:now:)``).
    public var attempts: Int
    public var createdAt: Date
    public var expiresAt: Date
    /// The tenant (set by the store from its binding; nil: the project's own users).
    public var tenantId: String?

    public init(idHash: String, kind: Kind, purpose: PhoneCodePurpose, phoneNumber: String, codeHash: String?,
                localId: String? = nil, binding: String? = nil, attempts: Int = 0, createdAt: Date, expiresAt: Date,
                tenantId: String? = nil) {
        self.idHash = idHash
        self.kind = kind
        self.purpose = purpose
        self.phoneNumber = phoneNumber
        self.codeHash = codeHash
        self.localId = localId
        self.binding = binding
        self.attempts = attempts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.tenantId = tenantId
    }

    /// How long a code may be used: 5 minutes.
    public static let codeLifetime: TimeInterval = 5 * 60
    /// Digits in a code.
    public static let codeLength = 6
    /// Wrong codes a session survives: the 5th wrong one ends it.
    public static let maximumAttempts = 5

    /// A new `sessionInfo`: `hps1.` and 32 random bytes (base64url). Stored only as ``RefreshTokenRecord/hash(_:)``.
    public static func newSessionInfo() -> String { "hps1." + RandomID.token(byteCount: 32) }
    /// A new `temporaryProof`: `hpp1.` and 32 random bytes (base64url). Stored only hashed.
    public static func newTemporaryProof() -> String { "hpp1." + RandomID.token(byteCount: 32) }
    /// A new code: ``codeLength`` digits from the system's secure generator, uniformly.
    public static func newCode() -> String {
        RandomID.string(count: codeLength, from: Array("0123456789"))
    }

    /// The stored form of a code: HMAC-SHA256 keyed by the `sessionInfo` (which the database holds only hashed),
    /// hex — the rows alone cannot be brute-forced to the codes.
    public static func codeHash(code: String, sessionInfo: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(code.utf8), using: SymmetricKey(data: Data(sessionInfo.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `code` is the one this record was made for, compared in constant time. False for a proof.
    public func matches(code: String, sessionInfo: String) -> Bool {
        guard let codeHash else { return false }
        return Self.constantTimeEquals(codeHash, Self.codeHash(code: code, sessionInfo: sessionInfo))
    }

    /// Compares two strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// Whether the record's lifetime is over at `now`.
    public func isExpired(at now: Date) -> Bool { expiresAt <= now }
}

/// A text message waiting in the outbox for the SMS gateway (the mail outbox's table and loop, channel `sms`).
/// `body` is what the messenger made of it — sealed with the vault keys when the server has them, since the code is
/// in it; the store never reads it.
public struct OutboxSms: Sendable, Equatable {
    public var id: String
    /// The message, opaque to the store (sealed JSON `{to, text, …}` when vault keys exist).
    public var body: String
    public var createdAt: Date
    /// Not tried again before this moment.
    public var nextAttemptAt: Date
    public var attempts: Int
    /// When the code in it expires: not worth sending after (pruned with the expired flows).
    public var expiresAt: Date
    /// The last delivery failure (no secrets), for the console and logs.
    public var lastError: String?

    public init(id: String = RandomID.alphanumeric(count: 24), body: String, createdAt: Date, expiresAt: Date,
                attempts: Int = 0, lastError: String? = nil) {
        self.id = id
        self.body = body
        self.createdAt = createdAt
        self.nextAttemptAt = createdAt
        self.attempts = attempts
        self.expiresAt = expiresAt
        self.lastError = lastError
    }
}
