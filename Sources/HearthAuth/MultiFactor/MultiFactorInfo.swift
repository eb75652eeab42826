import Foundation
import HearthWire

/// One enrolled second factor as the app sees it (Firebase's `MultiFactorInfo`): in `User.multiFactor.enrolledFactors`
/// and in `MultiFactorResolver.hints`. Never carries the secret.
public class MultiFactorInfo: @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type, in this class and its subclasses.
    /// The enrollment id (`mfaEnrollmentId`): what `TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID:
    /// oneTimePassword:)` and `MultiFactor.unenroll(withFactorUID:)` take.
    public let uid: String
    /// The name the user gave the factor at enrollment.
    public let displayName: String?
    /// When the factor was enrolled (the Unix epoch when the server sent no date).
    public let enrollmentDate: Date
    /// The kind: `totp` (`PhoneMultiFactorInfo.TOTPMultiFactorID`) or `phone`.
    public let factorID: String

    init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String) {
        self.uid = uid
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.factorID = factorID
    }

    /// The factors of a user record or a first-factor answer, by kind; entries of a kind this SDK does not know
    /// are left out (as Firebase's SDK does).
    static func factors(from entries: [MFAEnrollmentInfo]?) -> [MultiFactorInfo] {
        (entries ?? []).compactMap { entry -> MultiFactorInfo? in
            let date = enrollmentDate(from: entry.enrolledAt) ?? Date(timeIntervalSince1970: 0)
            switch entry.kind {
            case .totp?:
                return TOTPMultiFactorInfo(uid: entry.mfaEnrollmentId, displayName: entry.displayName, enrollmentDate: date,
                                           factorID: PhoneMultiFactorInfo.TOTPMultiFactorID)
            case .phone?:
                return PhoneMultiFactorInfo(uid: entry.mfaEnrollmentId, displayName: entry.displayName, enrollmentDate: date,
                                            phoneNumber: entry.phoneInfo ?? "")
            case .passkey?, nil:
                return nil
            }
        }
    }

    /// `enrolledAt`: RFC 3339 with or without fractional seconds (`2026-11-24T06:00:00.123Z`, `…T06:00:00Z`,
    /// an offset instead of `Z`). Nil for anything else.
    static func enrollmentDate(from text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        // A formatter per call: ISO8601DateFormatter is not Sendable, and factors are parsed rarely.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// A time-based one-time password (RFC 6238) factor: an authenticator app. Its `factorID` is `totp`.
public final class TOTPMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    // Safe: no stored properties beyond the base class's immutable ones.
}

/// An SMS second factor: codes sent to a phone number (`PhoneAuthProvider.verifyPhoneNumber(with:uiDelegate:
/// multiFactorSession:)`, `PhoneMultiFactorGenerator`). Also holds Firebase's factor-id constants.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    /// `phone`: the factor id of SMS factors.
    public static let PhoneMultiFactorID = "phone"
    /// `totp`: the factor id of TOTP factors.
    public static let TOTPMultiFactorID = "totp"

    /// The factor's phone number as the server sent it: in full in `User.multiFactor.enrolledFactors` (the user's
    /// own lookup), masked to its last four digits (`+*******0100`) in `MultiFactorResolver.hints`, since the first
    /// factor alone must not reveal it.
    public let phoneNumber: String

    init(uid: String, displayName: String?, enrollmentDate: Date, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: Self.PhoneMultiFactorID)
    }
}
