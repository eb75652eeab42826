import Foundation

/// An SMS code as a second factor (Firebase's `PhoneMultiFactorAssertion`), for
/// `MultiFactor.enroll(with:displayName:)` and `MultiFactorResolver.resolveSignIn(with:)`. Made by
/// `PhoneMultiFactorGenerator.assertion(with:)`.
public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    /// The credential: the verification ID of the code sent and the code.
    let credential: PhoneAuthCredential

    init(credential: PhoneAuthCredential) {
        self.credential = credential
        super.init(factorID: PhoneMultiFactorInfo.PhoneMultiFactorID)
    }

    /// `phoneVerificationInfo`'s `sessionInfo` and `code`; nil for a credential that carries no code (the
    /// temporary proof of a refused link, which signs in only as a first factor).
    var verification: (sessionInfo: String, code: String)? {
        if case .verification(let id, let code) = credential.kind { return (id, code) }
        return nil
    }
}

/// Makes SMS second-factor assertions (Firebase's `PhoneMultiFactorGenerator`).
///
/// Enrolling: `let session = try await user.multiFactor.session()`, `let id = try await
/// PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil, multiFactorSession:
/// session)`, then, with the code from the SMS, `try await user.multiFactor.enroll(with:
/// PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: id, verificationCode: code)),
/// displayName: "Work phone")`.
///
/// Signing in (after `secondFactorRequired`): `let hint = resolver.hints.first as? PhoneMultiFactorInfo`, `let id =
/// try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session)`, then
/// `try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: provider.credential(
/// withVerificationID: id, verificationCode: code)))`.
public enum PhoneMultiFactorGenerator {
    /// `phone`.
    public static let factorID = PhoneMultiFactorInfo.PhoneMultiFactorID

    /// The assertion of a phone credential: enrolls its number, or completes a sign-in with it.
    public static func assertion(with phoneAuthCredential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: phoneAuthCredential)
    }
}
