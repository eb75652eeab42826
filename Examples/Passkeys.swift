// Passkeys in an app with HearthAuth's platform-neutral layer (docs/passkeys.md): add one, sign in with one, use one
// as the second factor, remove one. On Apple platforms the preview's `startPasskeyEnrollment(withName:)` /
// `startPasskeySignIn()` hand `ASAuthorization…` requests to an `ASAuthorizationController` instead; the flow is the
// same. The test suite compiles this target and runs these functions against a real server with a software
// authenticator.
import Foundation
import HearthAuth

/// The passkey flows, as functions.
public enum PasskeyExamples {
    /// Whatever creates and uses passkeys on the platform: the system's passkey sheet, a browser through Hearth's
    /// passkey page, a security-key library.
    public struct Authenticator: Sendable {
        /// Creates a passkey for the challenge's relying party and user handle.
        public var create: @Sendable (PasskeyEnrollmentChallenge) async throws -> PasskeyRegistration
        /// Signs the challenge with one of the relying party's passkeys (one of `allowedCredentialIds` when given).
        public var sign: @Sendable (PasskeySignInChallenge) async throws -> PasskeyAssertion

        /// An authenticator from its two operations.
        public init(create: @escaping @Sendable (PasskeyEnrollmentChallenge) async throws -> PasskeyRegistration,
                    sign: @escaping @Sendable (PasskeySignInChallenge) async throws -> PasskeyAssertion) {
            self.create = create
            self.sign = sign
        }
    }

    /// Adding a passkey to the signed-in user (who signed in recently): a challenge, the authenticator's new
    /// credential, the registration. Returns the user's passkeys, the new one included.
    public static func addPasskey(user: User, name: String, authenticator: Authenticator) async throws -> [PasskeyInfo] {
        let challenge = try await user.passkeyEnrollmentChallenge(withName: name)
        let registration = try await authenticator.create(challenge)
        _ = try await user.finalizePasskeyEnrollment(with: registration)
        return user.enrolledPasskeys ?? []
    }

    /// Signing in with a passkey: no email, no password; the passkey's user handle says who it is.
    public static func signIn(auth: Auth = .auth(), authenticator: Authenticator) async throws -> AuthDataResult {
        let challenge = try await auth.passkeySignInChallenge()
        return try await auth.finalizePasskeySignIn(with: try await authenticator.sign(challenge))
    }

    /// Signing in with a password and, for a user with a second factor, a passkey in place of the TOTP code (Hearth
    /// extension).
    public static func signIn(auth: Auth = .auth(), email: String, password: String, authenticator: Authenticator) async throws -> AuthDataResult {
        do {
            return try await auth.signIn(withEmail: email, password: password)
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else { throw error }
            let challenge = try await resolver.passkeyChallenge()
            let assertion = try await authenticator.sign(challenge)
            return try await resolver.resolveSignIn(with: PasskeyMultiFactorGenerator.assertionForSignIn(with: assertion))
        }
    }

    /// Removing the passkeys with this name (needs a recent sign-in); returns how many were removed.
    @discardableResult
    public static func removePasskeys(user: User, named name: String) async throws -> Int {
        let ids = (user.enrolledPasskeys ?? []).filter { $0.name == name }.compactMap(\.credentialID)
        for id in ids { try await user.unenrollPasskey(withCredentialID: id) }
        return ids.count
    }
}
