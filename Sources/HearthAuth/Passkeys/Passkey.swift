import Foundation
import HearthWire

// The platform-neutral half of passkeys (Firebase's preview RPCs `accounts/passkeyEnrollment:*` and
// `accounts/passkeySignIn:*`): challenges as bytes in, the authenticator's answer as bytes out. The
// AuthenticationServices wrappers (Passkey+AuthenticationServices.swift) convert Apple's types to and from these;
// other platforms (a browser through Hearth's `/__/auth/passkey` page, a security key library) use them directly.

/// One passkey of a user (Firebase's preview `PasskeyInfo`): in `User.enrolledPasskeys`.
public struct PasskeyInfo: Sendable, Equatable, Hashable {
    /// The name given at enrollment ("Unnamed account (Apple)" when none was).
    public let name: String?
    /// The credential id (unpadded base64url), for `User.unenrollPasskey(withCredentialID:)`.
    public let credentialID: String?

    /// A passkey entry.
    public init(name: String?, credentialID: String?) {
        self.name = name
        self.credentialID = credentialID
    }
}

/// What the authenticator needs to create a passkey (`passkeyEnrollment:start`): the relying party, the challenge and
/// the user handle, as bytes.
public struct PasskeyEnrollmentChallenge: Sendable, Equatable {
    /// The name a passkey gets when the app gives none (the Firebase preview's default on Apple platforms).
    public static let defaultName = "Unnamed account (Apple)"

    /// The relying party id (a domain: Hearth's public host unless the project names another).
    public let rpId: String
    /// The challenge to sign (single use, a few minutes).
    public let challenge: Data
    /// The user handle the passkey stores (random bytes, never the email).
    public let userId: Data
    /// The passkey's name: the account name the authenticator shows, and what `finalizePasskeyEnrollment` registers.
    public let name: String
    /// The COSE algorithms the server accepts (`-7` ES256, `-257` RS256, `-8` EdDSA).
    public let algorithms: [Int]
    /// The user's registered credentials, which the authenticator should not register again.
    public let excludedCredentialIds: [Data]
    /// `required`, `preferred` or `discouraged`, as the server asks.
    public let userVerification: String?
    /// How long the server waits, when it says.
    public let timeout: TimeInterval?
    /// The server's `credentialCreationOptions` as JSON (binary members in base64), e.g. for Hearth's passkey page.
    public let optionsJSON: Data

    init(_ options: PasskeyCreationOptions, name: String) throws {
        guard let challenge = PasskeyBytes.decode(options.challenge), !challenge.isEmpty,
              let userId = PasskeyBytes.decode(options.user.id), !userId.isEmpty, !options.rp.id.isEmpty
        else { throw AuthErrorUtils.error(.internalError, message: "The server's passkey options could not be read.") }
        self.rpId = options.rp.id
        self.challenge = Data(challenge)
        self.userId = Data(userId)
        self.name = name
        self.algorithms = options.pubKeyCredParams.map(\.alg)
        self.excludedCredentialIds = (options.excludeCredentials ?? []).compactMap { PasskeyBytes.decode($0.id).map { Data($0) } }
        self.userVerification = options.authenticatorSelection?.userVerification
        self.timeout = options.timeout.map { TimeInterval($0) / 1000 }
        self.optionsJSON = try JSONEncoder().encode(options)
    }
}

/// What the authenticator needs to sign in with a passkey (`passkeySignIn:start`, or Hearth's second-factor
/// `mfaSignIn:start`): the relying party and the challenge.
public struct PasskeySignInChallenge: Sendable, Equatable {
    /// The relying party id.
    public let rpId: String
    /// The challenge to sign (single use, a few minutes).
    public let challenge: Data
    /// Empty for a sign-in with any passkey of this relying party (discoverable credentials); the user's passkeys for
    /// a second factor.
    public let allowedCredentialIds: [Data]
    /// `required`, `preferred` or `discouraged`, as the server asks.
    public let userVerification: String?
    /// How long the server waits, when it says.
    public let timeout: TimeInterval?
    /// The server's `credentialRequestOptions` as JSON (binary members in base64), e.g. for Hearth's passkey page.
    public let optionsJSON: Data

    init(_ options: PasskeyRequestOptions) throws {
        guard let challenge = PasskeyBytes.decode(options.challenge), !challenge.isEmpty, !options.rpId.isEmpty else {
            throw AuthErrorUtils.error(.internalError, message: "The server's passkey options could not be read.")
        }
        self.rpId = options.rpId
        self.challenge = Data(challenge)
        self.allowedCredentialIds = (options.allowCredentials ?? []).compactMap { PasskeyBytes.decode($0.id).map { Data($0) } }
        self.userVerification = options.userVerification
        self.timeout = options.timeout.map { TimeInterval($0) / 1000 }
        self.optionsJSON = try JSONEncoder().encode(options)
    }
}

/// The authenticator's answer to a `PasskeyEnrollmentChallenge`: the new credential.
public struct PasskeyRegistration: Sendable, Equatable {
    /// The credential id.
    public var credentialId: Data
    /// The client data exactly as the platform wrote it (its hash is signed; never re-serialize it).
    public var clientDataJSON: Data
    /// The CBOR attestation object (authenticator data, public key, attestation statement).
    public var attestationObject: Data

    /// A registration from its parts.
    public init(credentialId: Data, clientDataJSON: Data, attestationObject: Data) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }

    /// A registration from WebAuthn's JSON form (`PublicKeyCredential.toJSON()`, or the `passkeyResponse` Hearth's
    /// passkey page returns): `{id, rawId?, type, response: {clientDataJSON, attestationObject}}`, binary members in
    /// base64 or base64url. `invalidAuthenticatorResponse` when a member is missing or not base64.
    public init(json: Data) throws {
        let parsed = try? JSONDecoder().decode(PasskeyRegistrationResponse.self, from: json)
        guard let id = (parsed?.rawId ?? parsed?.id).flatMap(PasskeyBytes.decode),
              let clientData = parsed?.response?.clientDataJSON.flatMap(PasskeyBytes.decode),
              let attestation = parsed?.response?.attestationObject.flatMap(PasskeyBytes.decode)
        else { throw AuthErrorUtils.error(.invalidAuthenticatorResponse) }
        self.init(credentialId: Data(id), clientDataJSON: Data(clientData), attestationObject: Data(attestation))
    }

    /// `authenticatorRegistrationResponse` as the Apple SDK sends it: standard padded base64.
    var wire: PasskeyRegistrationResponse {
        PasskeyRegistrationResponse(id: credentialId.base64EncodedString(), response: .init(
            clientDataJSON: clientDataJSON.base64EncodedString(), attestationObject: attestationObject.base64EncodedString()))
    }
}

/// The authenticator's answer to a `PasskeySignInChallenge`: a signature by one of the user's passkeys.
public struct PasskeyAssertion: Sendable, Equatable {
    /// The credential id.
    public var credentialId: Data
    /// The client data exactly as the platform wrote it.
    public var clientDataJSON: Data
    /// The authenticator data (relying party hash, flags, counter).
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's hash.
    public var signature: Data
    /// The user handle the passkey stored at registration (names the user of a discoverable sign-in).
    public var userHandle: Data?

    /// An assertion from its parts.
    public init(credentialId: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// An assertion from WebAuthn's JSON form (`PublicKeyCredential.toJSON()`, or the `passkeyResponse` Hearth's
    /// passkey page returns): `{id, rawId?, type, response: {clientDataJSON, authenticatorData, signature,
    /// userHandle?}}`, binary members in base64 or base64url. `invalidAuthenticatorResponse` when a member is missing
    /// or not base64.
    public init(json: Data) throws {
        let parsed = try? JSONDecoder().decode(PasskeyAuthenticationResponse.self, from: json)
        let body = parsed?.response
        guard let id = (parsed?.rawId ?? parsed?.id).flatMap(PasskeyBytes.decode),
              let clientData = body?.clientDataJSON.flatMap(PasskeyBytes.decode),
              let authenticatorData = body?.authenticatorData.flatMap(PasskeyBytes.decode),
              let signature = body?.signature.flatMap(PasskeyBytes.decode)
        else { throw AuthErrorUtils.error(.invalidAuthenticatorResponse) }
        var userHandle: Data?
        if let text = body?.userHandle, !text.isEmpty {
            guard let bytes = PasskeyBytes.decode(text) else { throw AuthErrorUtils.error(.invalidAuthenticatorResponse) }
            userHandle = Data(bytes)
        }
        self.init(credentialId: Data(id), clientDataJSON: Data(clientData), authenticatorData: Data(authenticatorData),
                  signature: Data(signature), userHandle: userHandle)
    }

    /// `authenticatorAuthenticationResponse` as the Apple SDK sends it: standard padded base64; no `userHandle` when
    /// the authenticator gave none.
    var wire: PasskeyAuthenticationResponse {
        PasskeyAuthenticationResponse(id: credentialId.base64EncodedString(), response: .init(
            clientDataJSON: clientDataJSON.base64EncodedString(), authenticatorData: authenticatorData.base64EncodedString(),
            signature: signature.base64EncodedString(), userHandle: userHandle.flatMap { $0.isEmpty ? nil : $0.base64EncodedString() }))
    }
}
