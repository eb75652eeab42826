#if canImport(AuthenticationServices) && !os(watchOS)
import AuthenticationServices
import Foundation

// The Firebase preview's passkey API on Apple platforms: thin conversions between AuthenticationServices' platform
// passkey types and the neutral values the wire layer takes (Passkey.swift, Passkey+Wire.swift; tested on Linux).
//
// The app needs `webcredentials:<rp id>` in its Associated Domains entitlement, and its team id and bundle id
// registered with Hearth (`hearth apps add-apple --team-id`), which serves them in
// `/.well-known/apple-app-site-association` (docs/passkeys.md).
//
// The async members are `nonisolated(nonsending)`: they run on the caller's actor, so the (non-Sendable)
// AuthenticationServices objects never cross an isolation boundary; only the neutral values reach the network code.

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension PasskeyEnrollmentChallenge {
    /// The platform authenticator's request to create this passkey (relying party, challenge, `name`, user handle).
    public func platformRegistrationRequest() -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
        return provider.createCredentialRegistrationRequest(challenge: challenge, name: name, userID: userId)
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension PasskeySignInChallenge {
    /// The platform authenticator's request to sign this challenge (limited to `allowedCredentialIds` when the
    /// server named them: a second factor).
    public func platformAssertionRequest() -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
        let request = provider.createCredentialAssertionRequest(challenge: challenge)
        if !allowedCredentialIds.isEmpty {
            request.allowedCredentials = allowedCredentialIds.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        }
        return request
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension PasskeyRegistration {
    /// The registration the platform authenticator made. `invalidAuthenticatorResponse` without an attestation object.
    public init(platformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration) throws {
        guard let attestationObject = platformCredential.rawAttestationObject, !attestationObject.isEmpty else {
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse)
        }
        self.init(credentialId: platformCredential.credentialID, clientDataJSON: platformCredential.rawClientDataJSON,
                  attestationObject: attestationObject)
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension PasskeyAssertion {
    /// The assertion the platform authenticator made.
    public init(platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion) {
        let authenticatorData: Data = platformCredential.rawAuthenticatorData
        let signature: Data = platformCredential.signature
        let userHandle: Data? = platformCredential.userID
        self.init(credentialId: platformCredential.credentialID, clientDataJSON: platformCredential.rawClientDataJSON,
                  authenticatorData: authenticatorData, signature: signature, userHandle: userHandle)
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension User {
    /// Starts a passkey enrollment (`accounts/passkeyEnrollment:start`): perform the returned request with an
    /// `ASAuthorizationController`, then pass the credential to `finalizePasskeyEnrollment(withPlatformCredential:)`.
    /// `name` names the passkey (nil or empty: "Unnamed account (Apple)"). Needs a recent sign-in.
    nonisolated(nonsending)
    public func startPasskeyEnrollment(withName name: String?) async throws -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        try await passkeyEnrollmentChallenge(withName: name).platformRegistrationRequest()
    }

    /// Registers the passkey the platform created (`accounts/passkeyEnrollment:finalize`) under the name given to
    /// `startPasskeyEnrollment(withName:)`; the user continues with new tokens and `enrolledPasskeys` lists it.
    nonisolated(nonsending)
    public func finalizePasskeyEnrollment(withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration)
        async throws -> AuthDataResult {
        let registration = try PasskeyRegistration(platformCredential: platformCredential)
        return try await finalizePasskeyEnrollment(with: registration)
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension Auth {
    /// Starts a passkey sign-in (`accounts/passkeySignIn:start`): perform the returned request with an
    /// `ASAuthorizationController` (the system shows the user's passkeys for the relying party), then pass the
    /// credential to `finalizePasskeySignIn(withPlatformCredential:)`.
    nonisolated(nonsending)
    public func startPasskeySignIn() async throws -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        try await passkeySignInChallenge().platformAssertionRequest()
    }

    /// Signs in with the platform's passkey assertion (`accounts/passkeySignIn:finalize`).
    nonisolated(nonsending)
    public func finalizePasskeySignIn(withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion)
        async throws -> AuthDataResult {
        let assertion = PasskeyAssertion(platformCredential: platformCredential)
        return try await finalizePasskeySignIn(with: assertion)
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension MultiFactorResolver {
    /// Hearth extension: the platform request for a passkey second factor (`passkeyChallenge()`, limited to the
    /// user's passkeys). Resolve with `PasskeyMultiFactorGenerator.assertionForSignIn(withPlatformCredential:)`.
    nonisolated(nonsending)
    public func startPasskeySignIn() async throws -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        try await passkeyChallenge().platformAssertionRequest()
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
extension PasskeyMultiFactorGenerator {
    /// Hearth extension: the second-factor assertion of the platform's passkey credential.
    public static func assertionForSignIn(withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion)
        -> PasskeyMultiFactorAssertion {
        assertionForSignIn(with: PasskeyAssertion(platformCredential: platformCredential))
    }
}
#endif
