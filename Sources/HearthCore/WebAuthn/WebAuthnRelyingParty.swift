import Crypto
import Foundation
import HearthWire

/// The relying party's checks of a WebAuthn ceremony (W3C WebAuthn §7.1 registration, §7.2 authentication), pure:
/// the caller supplies the challenge it issued, and the stored key and counter; the store and the RPCs are the
/// server's. Each refusal names what failed, for the log (the client gets `INVALID_AUTHENTICATOR_RESPONSE`).
public struct WebAuthnRelyingParty: Sendable {
    /// The RP ID (a registrable domain; `localhost` in tests).
    public var rpId: String
    /// Origins `clientDataJSON.origin` may hold (`https://example.com`, `http://localhost:8080`, Apple's app origins).
    public var allowedOrigins: Set<String>
    /// Refuse ceremonies without the UV flag (the default: a passkey is then two factors in one).
    public var requireUserVerification: Bool
    /// Public-key algorithms a new credential may use.
    public var algorithms: [COSEAlgorithm]

    public init(rpId: String, allowedOrigins: Set<String>, requireUserVerification: Bool = true,
                algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256]) {
        self.rpId = rpId
        self.allowedOrigins = allowedOrigins
        self.requireUserVerification = requireUserVerification
        self.algorithms = algorithms
    }

    /// Why a ceremony was refused.
    public enum Refusal: Error, Equatable, Sendable {
        case malformed(WebAuthnError)
        case wrongType(String)
        case challengeMismatch
        case originNotAllowed(String)
        case crossOrigin
        case rpIdMismatch
        case userNotPresent
        case userVerificationMissing
        case backupStateInvalid
        case missingCredentialData
        case algorithmNotAllowed(Int64)
        case attestationInvalid
        case signatureInvalid
        /// The counter did not go up: a cloned authenticator (or a replayed assertion).
        case counterNotIncreased(stored: UInt32, presented: UInt32)
    }

    /// A verified registration: what to store.
    public struct Registration: Sendable {
        public let credentialId: Data
        /// The COSE_Key bytes as the authenticator sent them.
        public let publicKeyBytes: Data
        public let algorithm: COSEAlgorithm
        public let signCount: UInt32
        public let backupEligible: Bool
        public let backedUp: Bool
        public let userVerified: Bool
        public let attestation: AttestationObject.Verification
    }

    /// A verified assertion: the counter and backup state to record.
    public struct Assertion: Sendable, Equatable {
        public let signCount: UInt32
        public let backedUp: Bool
        public let userVerified: Bool
    }

    /// §7.1: `navigator.credentials.create`'s answer for the challenge `expectedChallenge`.
    public func verifyRegistration(clientDataJSON: Data, attestationObject: Data, expectedChallenge: Data) throws(Refusal) -> Registration {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: expectedChallenge)
        let object: AttestationObject
        do { object = try AttestationObject(bytes: attestationObject) } catch { throw .malformed(error) }
        let authData = object.authData
        try checkAuthenticatorData(authData)
        guard let credential = authData.attestedCredential, authData.flags.contains(.at) else { throw .missingCredentialData }
        guard algorithms.contains(credential.publicKey.alg) else { throw .algorithmNotAllowed(credential.publicKey.alg.rawValue) }
        let attestation: AttestationObject.Verification
        do {
            // `none` and self attestation are verified; other formats are accepted unverified (Hearth trusts no
            // attestation: it asks for `none`, and no policy depends on the authenticator's make).
            attestation = try object.verify(clientDataHash: Data(SHA256.hash(data: clientDataJSON)))
        } catch {
            throw .attestationInvalid
        }
        return Registration(credentialId: credential.credentialId, publicKeyBytes: credential.publicKeyBytes, algorithm: credential.publicKey.alg,
                            signCount: authData.signCount, backupEligible: authData.flags.contains(.be), backedUp: authData.flags.contains(.bs),
                            userVerified: authData.flags.contains(.uv), attestation: attestation)
    }

    /// §7.2: `navigator.credentials.get`'s answer for `expectedChallenge`, against the stored key and counter.
    public func verifyAssertion(clientDataJSON: Data, authenticatorData: Data, signature: Data, expectedChallenge: Data,
                                publicKeyBytes: Data, storedSignCount: UInt32) throws(Refusal) -> Assertion {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: expectedChallenge)
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(bytes: authenticatorData) } catch { throw .malformed(error) }
        try checkAuthenticatorData(authData)
        let key: COSEKey
        do { key = try COSEKey(bytes: publicKeyBytes) } catch { throw .malformed(error) }
        guard key.isValidSignature(signature, for: authData.bytes + Data(SHA256.hash(data: clientDataJSON))) else { throw .signatureInvalid }
        // An authenticator that counts must count up; 0 and 0 is one that keeps no counter (synced passkeys).
        if authData.signCount != 0 || storedSignCount != 0, authData.signCount <= storedSignCount {
            throw .counterNotIncreased(stored: storedSignCount, presented: authData.signCount)
        }
        return Assertion(signCount: authData.signCount, backedUp: authData.flags.contains(.bs), userVerified: authData.flags.contains(.uv))
    }

    private func checkClientData(_ json: Data, type: String, challenge: Data) throws(Refusal) {
        let clientData: CollectedClientData
        do { clientData = try CollectedClientData(json: json) } catch { throw .malformed(error) }
        guard clientData.type == type else { throw .wrongType(String(clientData.type.prefix(40))) }
        guard clientData.challenge.count == challenge.count,
              SymmetricKey(data: clientData.challenge) == SymmetricKey(data: challenge) else { throw .challengeMismatch }
        guard allowedOrigins.contains(clientData.origin) else { throw .originNotAllowed(String(clientData.origin.prefix(200))) }
        if clientData.crossOrigin { throw .crossOrigin }
    }

    private func checkAuthenticatorData(_ authData: AuthenticatorData) throws(Refusal) {
        guard authData.rpIdHash == WireDigest.sha256(rpId) else { throw .rpIdMismatch }
        guard authData.flags.contains(.up) else { throw .userNotPresent }
        if requireUserVerification, !authData.flags.contains(.uv) { throw .userVerificationMissing }
        if authData.flags.contains(.bs), !authData.flags.contains(.be) { throw .backupStateInvalid }
    }
}
