// TOTP multi-factor authentication in an app, as Firebase's "Add TOTP multi-factor authentication to your iOS app"
// guide does it, written against HearthAuth, plus Hearth's recovery codes. The test suite compiles this target and
// runs these functions against a real server.
import Foundation
import HearthAuth

/// The guide's snippets, as functions.
public enum MultiFactorExamples {
    /// Enrolling an authenticator app: get a session (the user signed in recently and verified their email), make a
    /// secret, show it as a QR code (or the key to type in), and enroll with the first code the app shows.
    /// `showSecretAndAskForCode` gets the secret and its `otpauth://` URL and answers the code the person typed.
    /// Returns the recovery codes (Hearth): show them once and ask the person to keep them somewhere safe.
    public static func enrollTOTP(user: User, issuer: String, factorName: String,
                                  showSecretAndAskForCode: @Sendable (TOTPSecret, String) async throws -> String) async throws -> [String] {
        let session = try await user.multiFactor.session()
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
        let qrCodeURL = secret.generateQRCodeURL(withAccountName: user.email ?? user.uid, issuer: issuer)
        // On iOS and macOS this offers the secret to the system's password manager; elsewhere it does nothing.
        secret.openInOTPApp(withQRCodeURL: qrCodeURL)
        let code = try await showSecretAndAskForCode(secret, qrCodeURL)
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code)
        // Firebase's `enroll(with:displayName:)` works the same, without the recovery codes.
        return try await user.multiFactor.enroll(with: assertion, displayName: factorName, generatingRecoveryCodes: true)
    }

    /// What the person answers when asked for the second factor.
    public enum SecondFactorAnswer: Sendable {
        /// The authenticator app's code for this factor (`MultiFactorInfo.uid`).
        case totp(enrollmentID: String, code: String)
        /// One of the recovery codes (Hearth).
        case recoveryCode(String)
    }

    /// Signing in a user who may have a second factor: the password sign-in fails with `secondFactorRequired`, whose
    /// resolver lists the factors (`hints`) and completes the sign-in with the code.
    public static func signIn(auth: Auth = .auth(), email: String, password: String,
                              askForSecondFactor: @Sendable ([MultiFactorInfo]) async throws -> SecondFactorAnswer) async throws -> AuthDataResult {
        do {
            return try await auth.signIn(withEmail: email, password: password)
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else { throw error }
            return try await resolve(resolver, askForSecondFactor: askForSecondFactor)
        }
    }

    /// Before a sensitive change (password, email, removing a factor): reauthenticate, which asks for the second
    /// factor too.
    public static func reauthenticate(user: User, password: String,
                                      askForSecondFactor: @Sendable ([MultiFactorInfo]) async throws -> SecondFactorAnswer) async throws -> AuthDataResult {
        guard let email = user.email else { throw AuthExampleError.noEmail }
        do {
            return try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: password))
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else { throw error }
            return try await resolve(resolver, askForSecondFactor: askForSecondFactor)
        }
    }

    static func resolve(_ resolver: MultiFactorResolver,
                        askForSecondFactor: @Sendable ([MultiFactorInfo]) async throws -> SecondFactorAnswer) async throws -> AuthDataResult {
        let assertion: MultiFactorAssertion = switch try await askForSecondFactor(resolver.hints) {
        case .totp(let enrollmentID, let code):
            TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: enrollmentID, oneTimePassword: code)
        case .recoveryCode(let code):
            RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode: code)
        }
        return try await resolver.resolveSignIn(with: assertion)
    }

    /// Settings screen: the enrolled factors, and removing one (needs a recent sign-in).
    public static func removeAllFactors(user: User) async throws {
        for factor in user.multiFactor.enrolledFactors {
            try await user.multiFactor.unenroll(with: factor)
        }
    }

    /// What the examples throw themselves.
    public enum AuthExampleError: Error {
        /// The user has no email address to reauthenticate with.
        case noEmail
    }
}
