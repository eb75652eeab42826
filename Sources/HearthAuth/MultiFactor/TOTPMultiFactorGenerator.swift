import Foundation
import HearthWire
#if canImport(UIKit) && !os(watchOS)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Proof of a second factor, for `MultiFactor.enroll(with:displayName:)` and `MultiFactorResolver.resolveSignIn(with:)`
/// (Firebase's `MultiFactorAssertion`). Made by `TOTPMultiFactorGenerator` (and Hearth's
/// `RecoveryCodeMultiFactorGenerator`).
public class MultiFactorAssertion: @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type, in this class and its subclasses.
    /// The factor kind the assertion is for (`totp`; Hearth's recovery codes: `recoveryCode`).
    public let factorID: String

    init(factorID: String) {
        self.factorID = factorID
    }
}

/// A TOTP code: with the secret being enrolled (`assertionForEnrollment`) or for an enrolled factor
/// (`assertionForSignIn`).
public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    enum Target: Sendable {
        /// Enrollment: the secret (and its enrollment session) from `generateSecret(with:)`.
        case secret(TOTPSecret)
        /// Sign-in: the enrolled factor's id.
        case enrollmentID(String)
    }

    let target: Target
    let oneTimePassword: String

    init(target: Target, oneTimePassword: String) {
        self.target = target
        self.oneTimePassword = oneTimePassword
        super.init(factorID: PhoneMultiFactorInfo.TOTPMultiFactorID)
    }
}

/// Makes TOTP secrets and assertions (Firebase's `TOTPMultiFactorGenerator`).
///
/// Enrolling: `let session = try await user.multiFactor.session()`, `let secret = try await
/// TOTPMultiFactorGenerator.generateSecret(with: session)`, show `secret.generateQRCodeURL(withAccountName:issuer:)`
/// as a QR code (or `sharedSecretKey()` to type in), then `user.multiFactor.enroll(with:
/// TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code), displayName: "Phone")`.
public enum TOTPMultiFactorGenerator {
    /// `totp`.
    public static let factorID = PhoneMultiFactorInfo.TOTPMultiFactorID

    /// A new TOTP secret for the user of `session` (from `MultiFactor.session()`): `accounts/mfaEnrollment:start`.
    /// Needs a recent sign-in (`requiresRecentLogin`), a verified email (`unverifiedEmail`) and TOTP enabled for
    /// the project (`operationNotAllowed`).
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        guard case .enrollment(let user, let idToken) = session.kind else {
            throw AuthErrorUtils.error(.missingMultiFactorSession,
                                       message: "This session completes a sign-in; a secret needs an enrollment session from user.multiFactor.session().")
        }
        let answer = try await user.callMultiFactor(StartMFAEnrollmentRequest(idToken: idToken))
        guard let info = answer.totpSessionInfo else {
            throw AuthErrorUtils.error(.internalError, message: "The server answered no totpSessionInfo to a TOTP enrollment.")
        }
        return TOTPSecret(secretKey: info.sharedSecretKey, hashingAlgorithm: info.hashingAlgorithm, codeLength: info.verificationCodeLength,
                          codeIntervalSeconds: info.periodSec,
                          enrollmentCompletionDeadline: MultiFactorInfo.enrollmentDate(from: info.finalizeEnrollmentTime),
                          sessionInfo: info.sessionInfo)
    }

    /// Completion-handler form of `generateSecret(with:)`.
    public static func generateSecret(with session: MultiFactorSession, completion: @escaping @Sendable (TOTPSecret?, (any Error)?) -> Void) {
        Task { do { completion(try await generateSecret(with: session), nil) } catch { completion(nil, error) } }
    }

    /// The assertion that enrolls `secret`: the code the authenticator app shows for it now.
    public static func assertionForEnrollment(with secret: TOTPSecret, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(target: .secret(secret), oneTimePassword: oneTimePassword)
    }

    /// The assertion that completes a sign-in: the enrolled factor's id (`MultiFactorInfo.uid`, from the resolver's
    /// `hints`) and its current code.
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(target: .enrollmentID(enrollmentID), oneTimePassword: oneTimePassword)
    }
}

/// A TOTP secret being enrolled (Firebase's `TOTPSecret`): show it to the user as a QR code or as text, then enroll
/// with the first code their app shows.
public final class TOTPSecret: Sendable {
    private let secretKey: String
    /// Hearth: the HMAC of the codes (`SHA1`).
    public let hashingAlgorithm: String
    /// Hearth: the digits per code (6).
    public let codeLength: Int
    /// Hearth: the seconds each code lasts (30).
    public let codeIntervalSeconds: Int
    /// Hearth: when the enrollment session ends (finish `enroll` before it; then generate a new secret).
    public let enrollmentCompletionDeadline: Date?
    /// The enrollment session, sent back with the first code.
    let sessionInfo: String

    init(secretKey: String, hashingAlgorithm: String, codeLength: Int, codeIntervalSeconds: Int, enrollmentCompletionDeadline: Date?,
         sessionInfo: String) {
        self.secretKey = secretKey
        self.hashingAlgorithm = hashingAlgorithm
        self.codeLength = codeLength
        self.codeIntervalSeconds = codeIntervalSeconds
        self.enrollmentCompletionDeadline = enrollmentCompletionDeadline
        self.sessionInfo = sessionInfo
    }

    /// The shared secret in base32 (RFC 4648, no padding), for typing into an authenticator app.
    public func sharedSecretKey() -> String { secretKey }

    /// The `otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=…&digits=…&period=…` URI authenticator
    /// apps scan (Google Authenticator's key URI format), percent-encoded so spaces, colons and non-ASCII names
    /// survive. Show it as a QR code. `accountName` is usually the email, `issuer` the app's name (empty: none).
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        OTPAuthURI.totp(secret: secretKey, accountName: accountName, issuer: issuer, algorithm: hashingAlgorithm,
                        digits: codeLength, period: codeIntervalSeconds)
    }

    /// Hands an `otpauth://` URL (from `generateQRCodeURL`) to the system, which opens the user's authenticator or
    /// password manager (on iOS and macOS). Returns whether it was handed over: false for another kind of URL and on
    /// platforms without such a system call (Linux, Windows), where the app shows the QR code or the key instead.
    @discardableResult
    public func openInOTPApp(withQRCodeURL qrCodeURL: String) -> Bool {
        guard let url = URL(string: qrCodeURL), url.scheme?.lowercased() == "otpauth" else { return false }
        #if canImport(UIKit) && !os(watchOS)
        Task { @MainActor in UIApplication.shared.open(url, options: [:], completionHandler: nil) }
        return true
        #elseif canImport(AppKit)
        Task { @MainActor in _ = NSWorkspace.shared.open(url) }
        return true
        #else
        return false
        #endif
    }
}

/// Hearth extension: a one-time recovery code in place of a TOTP code, for the user who lost their authenticator.
/// Codes come from `MultiFactor.enroll(with:displayName:generatingRecoveryCodes:)` or
/// `MultiFactor.generateRecoveryCodes()`; each works once. Firebase has no such thing (its SDKs never send one).
public final class RecoveryCodeMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    let recoveryCode: String

    init(recoveryCode: String) {
        self.recoveryCode = recoveryCode
        super.init(factorID: RecoveryCodeMultiFactorGenerator.factorID)
    }
}

/// Hearth extension: makes recovery-code assertions for `MultiFactorResolver.resolveSignIn(with:)`.
public enum RecoveryCodeMultiFactorGenerator {
    /// `recoveryCode` (the ID token still says `sign_in_second_factor: "totp"`, so apps checking for it keep
    /// working).
    public static let factorID = "recoveryCode"

    /// The assertion that completes a sign-in with one of the user's recovery codes (`xxxxx-xxxxx`; case, dashes
    /// and spaces do not matter). No enrollment id: the codes belong to the user, not to one factor.
    public static func assertionForSignIn(withRecoveryCode recoveryCode: String) -> RecoveryCodeMultiFactorAssertion {
        RecoveryCodeMultiFactorAssertion(recoveryCode: recoveryCode)
    }
}
