import Foundation
import HearthCore

/// The `cbor` and `webauthn` targets: untrusted bytes straight into HearthCore's WebAuthn parsers (no server
/// involved; the relying party hands them the decoded bytes of a passkey response).
public enum WebAuthnFuzz {
    /// `cbor`: the decoder returns an item or a ``CBORError`` (typed, so never another error); an accepted item's
    /// deterministic encoding decodes to the same item and re-encodes to the same bytes, and a prefix decode never
    /// reports more bytes than it was given. Nil when every invariant held, else what broke.
    public static func checkCBOR(_ input: [UInt8]) -> String? {
        let data = Data(input)
        if let decoded = try? CBORDecoder.decodePrefix(data) {
            let (value, length) = decoded
            guard length > 0, length <= data.count else { return "decodePrefix used \(length) of \(data.count) bytes" }
            let whole = try? CBORDecoder.decode(data)
            if (whole != nil) != (length == data.count) { return "decode and decodePrefix disagree at \(length)/\(data.count)" }
            let encoded = CBOREncoder.encode(value)
            guard let again = try? CBORDecoder.decode(encoded) else { return "the encoding of an accepted item is refused" }
            guard CBOREncoder.encode(again) == encoded else { return "the encoding is not deterministic" }
        }
        return nil
    }

    /// `webauthn`: the bytes as an attestation object (then its statement verified against a fixed client data
    /// hash), as authenticator data, as a COSE key (then a signature check with the bytes as signature) and as
    /// clientDataJSON. Every parser returns a value or a ``WebAuthnError``; accepted values keep their bounds.
    public static func checkWebAuthn(_ input: [UInt8]) -> String? {
        let data = Data(input)
        let hash = Data(repeating: 0x5a, count: 32)
        if let object = try? AttestationObject(bytes: data) {
            guard let credential = object.authData.attestedCredential else { return "an attestation object without a credential" }
            if let problem = check(credential) { return problem }
            _ = try? object.verify(clientDataHash: hash)
        }
        if let authData = try? AuthenticatorData(bytes: data) {
            guard authData.rpIdHash.count == 32, authData.bytes == data else { return "authenticator data fields out of bounds" }
            if authData.flags.contains(.at) != (authData.attestedCredential != nil) { return "AT flag and credential disagree" }
            if authData.flags.contains(.ed) != (authData.extensions != nil) { return "ED flag and extensions disagree" }
            if let credential = authData.attestedCredential, let problem = check(credential) { return problem }
        }
        if let key = try? COSEKey(bytes: data) {
            _ = key.isValidSignature(data, for: data)
        }
        if let clientData = try? CollectedClientData(json: data), clientData.challenge.isEmpty {
            return "client data with an empty challenge"
        }
        return nil
    }

    private static func check(_ credential: AttestedCredentialData) -> String? {
        guard credential.aaguid.count == 16, credential.credentialId.count <= AuthenticatorData.maxCredentialIdLength else {
            return "attested credential out of bounds"
        }
        guard let reparsed = try? COSEKey(bytes: credential.publicKeyBytes), reparsed.alg == credential.publicKey.alg else {
            return "the credential's key bytes do not parse to the same key"
        }
        return nil
    }
}
