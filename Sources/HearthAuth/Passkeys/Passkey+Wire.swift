import Foundation
import HearthWire

// Passkeys over the wire, with platform-neutral values (Passkey.swift). On Apple platforms the preview's names
// (`startPasskeyEnrollment(withName:)`, `finalizePasskeyEnrollment(withPlatformCredential:)`, `startPasskeySignIn()`,
// `finalizePasskeySignIn(withPlatformCredential:)`) wrap these (Passkey+AuthenticationServices.swift).

extension User {
    /// The user's passkeys, as of the last sign-in, enrollment or `reload()` (`passkeyInfo` of the user record);
    /// empty when there are none.
    public var enrolledPasskeys: [PasskeyInfo]? {
        (profile.passkeyInfo ?? []).map { PasskeyInfo(name: $0.name, credentialID: $0.credentialId) }
    }

    /// Asks the server for a registration challenge (`accounts/passkeyEnrollment:start`): hand its `rpId`,
    /// `challenge`, `userId` and `name` to the platform authenticator, then pass its answer to
    /// `finalizePasskeyEnrollment(with:)`. `name` names the passkey (empty or nil: "Unnamed account (Apple)").
    /// Needs passkeys enabled for the project (`operationNotAllowed`) and a recent sign-in (`requiresRecentLogin`).
    public func passkeyEnrollmentChallenge(withName name: String?) async throws -> PasskeyEnrollmentChallenge {
        let passkeyName = name.flatMap { $0.isEmpty ? nil : $0 } ?? PasskeyEnrollmentChallenge.defaultName
        let answer = try await callMultiFactor(StartPasskeyEnrollmentRequest(idToken: try await getIDToken()))
        let challenge = try PasskeyEnrollmentChallenge(answer.credentialCreationOptions, name: passkeyName)
        pendingPasskeyName.withLock { $0 = passkeyName }
        return challenge
    }

    /// Registers the passkey the authenticator created (`accounts/passkeyEnrollment:finalize`) under `name` (nil:
    /// the name given to `passkeyEnrollmentChallenge(withName:)`). The user continues with the answer's tokens and
    /// the profile is reloaded, so `enrolledPasskeys` lists the new passkey. `invalidAuthenticatorResponse` when the
    /// answer does not verify, `passkeyChallengeExpired` when the challenge is too old or used,
    /// `passkeyAlreadyEnrolled`, `passkeyLimitExceeded`.
    public func finalizePasskeyEnrollment(with registration: PasskeyRegistration, name: String? = nil) async throws -> AuthDataResult {
        let passkeyName = name.flatMap { $0.isEmpty ? nil : $0 } ?? pendingPasskeyName.withLock { $0 } ?? PasskeyEnrollmentChallenge.defaultName
        let request = FinalizePasskeyEnrollmentRequest(idToken: try await getIDToken(), name: passkeyName,
                                                       authenticatorRegistrationResponse: registration.wire)
        let answer = try await callMultiFactor(request)
        pendingPasskeyName.withLock { $0 = nil }
        try await adoptTokens(idToken: answer.idToken, refreshToken: answer.refreshToken)
        return AuthDataResult(user: self, additionalUserInfo: nil, credential: nil)
    }

    /// Removes one of the user's passkeys (`accounts:update` with `deletePasskey`; needs a recent sign-in). The
    /// profile is reloaded. `missingPasskeyEnrollment` for an id the user has no passkey with. The passkey itself
    /// stays on the user's devices until they delete it there; it no longer signs in.
    public func unenrollPasskey(withCredentialID credentialID: String) async throws {
        guard !credentialID.isEmpty else { throw AuthErrorUtils.error(.missingPasskeyEnrollment) }
        var request = UpdateRequest(idToken: try await getIDToken())
        request.deletePasskey = [credentialID]
        try await setAccountInfo(request)
    }

    /// Completion-handler form of `unenrollPasskey(withCredentialID:)`.
    public func unenrollPasskey(withCredentialID credentialID: String, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await unenrollPasskey(withCredentialID: credentialID); completion?(nil) } catch { completion?(error) } }
    }
}

extension Auth {
    /// Asks the server for a sign-in challenge (`accounts/passkeySignIn:start`, no user named: any passkey of the
    /// relying party may answer). Hand its `rpId` and `challenge` to the platform authenticator, then pass its answer
    /// to `finalizePasskeySignIn(with:)`. `operationNotAllowed` when passkeys are off for the project.
    public func passkeySignInChallenge() async throws -> PasskeySignInChallenge {
        let answer = try await core.send(StartPasskeySignInRequest(), tenantID: core.tenantID)
        return try PasskeySignInChallenge(answer.credentialRequestOptions)
    }

    /// Signs in with the authenticator's assertion (`accounts/passkeySignIn:finalize`): the passkey's user becomes
    /// the current user (sign-in provider `passkey`). A passkey that verified the user (biometrics or a PIN) is a
    /// complete sign-in even for a user with a second factor. One that did not (a project with
    /// `userVerification: PREFERRED`) is one factor: a user with a second factor gets `secondFactorRequired` with a
    /// `MultiFactorResolver`, as after a password, resolved with a TOTP code or a recovery code.
    /// `invalidAuthenticatorResponse` when it does not verify, `missingPasskeyEnrollment` when the passkey was
    /// removed, `passkeyChallengeExpired` when the challenge is too old or used, `userDisabled`.
    public func finalizePasskeySignIn(with assertion: PasskeyAssertion) async throws -> AuthDataResult {
        let answer = try await core.send(FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: assertion.wire), tenantID: core.tenantID)
        try core.checkSecondFactor(pendingCredential: answer.mfaPendingCredential, mfaInfo: answer.mfaInfo, email: nil, firstFactor: .init(
            additionalUserInfo: AdditionalUserInfo(providerID: PasskeyMultiFactorGenerator.factorID, profile: nil, username: nil, isNewUser: false),
            credential: nil, replacing: nil))
        return try await sessionResult(answer.idToken, answer.refreshToken, answer.expiresIn, provider: PasskeyMultiFactorGenerator.factorID,
                                       isNewUser: false)
    }
}

// MARK: A passkey as the second factor (Hearth extension)

/// Hearth extension: a passkey assertion completing a sign-in in place of a TOTP code, for a user with a TOTP
/// factor and passkeys. Made by `PasskeyMultiFactorGenerator.assertionForSignIn(with:)`.
public final class PasskeyMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    // Safe: every stored property is an immutable `let` of a Sendable type.
    let assertion: PasskeyAssertion

    init(assertion: PasskeyAssertion) {
        self.assertion = assertion
        super.init(factorID: PasskeyMultiFactorGenerator.factorID)
    }
}

/// Hearth extension: makes passkey assertions for `MultiFactorResolver.resolveSignIn(with:)`. Firebase has no passkey
/// second factor: the challenge comes from `MultiFactorResolver.passkeyChallenge()` (`mfaSignIn:start` with
/// `passkeySignInInfo`), the answer goes in `passkeyVerificationInfo`.
public enum PasskeyMultiFactorGenerator {
    /// `passkey` (the ID token's `sign_in_second_factor`).
    public static let factorID = "passkey"

    /// The assertion that completes a sign-in: the authenticator's answer to `MultiFactorResolver.passkeyChallenge()`.
    public static func assertionForSignIn(with assertion: PasskeyAssertion) -> PasskeyMultiFactorAssertion {
        PasskeyMultiFactorAssertion(assertion: assertion)
    }
}

extension MultiFactorResolver {
    /// Hearth extension: a challenge for one of the pending user's passkeys (`mfaSignIn:start` with
    /// `passkeySignInInfo`; `allowedCredentialIds` lists them). Sign it with the platform authenticator and resolve
    /// with `PasskeyMultiFactorGenerator.assertionForSignIn(with:)`. `missingPasskeyEnrollment` when the user has no
    /// passkey, `invalidMultiFactorSession` when the pending sign-in is used or expired.
    public func passkeyChallenge() async throws -> PasskeySignInChallenge {
        var request = StartMFASignInRequest(mfaPendingCredential: pendingCredential, mfaEnrollmentId: nil)
        request.passkeySignInInfo = EmptyWireObject()
        let answer = try await auth.core.send(request, tenantID: tenantID)
        guard let options = answer.passkeyResponseInfo?.credentialRequestOptions else {
            throw AuthErrorUtils.error(.internalError, message: "The server sent no passkey challenge.")
        }
        return try PasskeySignInChallenge(options)
    }
}
