import Crypto
import CryptoExtras
import Foundation

/// The COSE signature algorithms Hearth accepts for passkeys (RFC 9053 / RFC 8812 identifiers).
public enum COSEAlgorithm: Int64, Sendable, CaseIterable {
    /// ECDSA with P-256 and SHA-256.
    case es256 = -7
    /// EdDSA with Ed25519.
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 (keys of 2048 bits or more).
    case rs256 = -257
}

/// Why a passkey's credential, authenticator data, attestation object or client data is refused.
public enum WebAuthnError: Error, Equatable, Sendable {
    /// The bytes are not CBOR of the supported subset.
    case cbor(CBORError)
    /// A COSE key with an algorithm, key type or curve Hearth does not support (`alg` as sent, when it was an integer).
    case unsupportedAlgorithm(Int64?)
    /// A COSE key whose parameters are missing, of the wrong type or length, private, or not a valid public key.
    case invalidKey(String)
    /// Authenticator data that is truncated, has bytes left over or an attested credential that is malformed.
    case invalidAuthenticatorData(String)
    /// An attestation object that is not `{fmt, attStmt, authData}` or whose statement does not fit its format.
    case invalidAttestation(String)
    /// A packed self-attestation whose signature does not verify with the credential's own key.
    case attestationSignatureInvalid
    /// clientDataJSON that is not a JSON object with the required members.
    case invalidClientData(String)
}

/// A credential public key from a COSE_Key map (RFC 9052 §7, RFC 9053): ES256 (EC2/P-256), RS256 (RSA) or
/// EdDSA (OKP/Ed25519). Private parameters and mismatched key types or curves are refused.
public struct COSEKey: Sendable {
    /// The key's algorithm (its `alg`, label 3).
    public let alg: COSEAlgorithm
    private let key: Key

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// Parses the COSE_Key encoded in `bytes` (exactly one CBOR map).
    public init(bytes: Data) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .cbor(error) }
        try self.init(cbor: value)
    }

    /// Parses a decoded COSE_Key map.
    public init(cbor: CBORValue) throws(WebAuthnError) {
        guard case .map = cbor else { throw .invalidKey("a COSE key is a map") }
        guard let algValue = cbor[3] else { throw .invalidKey("no alg (3)") }
        guard let alg = algValue.int64.flatMap(COSEAlgorithm.init(rawValue:)) else { throw .unsupportedAlgorithm(algValue.int64) }
        guard cbor[-4] == nil else { throw .invalidKey("a private key parameter (-4)") }
        let kty = cbor[1]?.int64
        func bytes(_ label: Int64, count: Int? = nil) throws(WebAuthnError) -> Data {
            guard case .bytes(let data) = cbor[label] else { throw .invalidKey("parameter \(label) is missing or not bytes") }
            if let count, data.count != count { throw .invalidKey("parameter \(label) has \(data.count) bytes, not \(count)") }
            return data
        }
        self.alg = alg
        switch alg {
        case .es256:
            guard kty == 2, cbor[-1]?.int64 == 1 else { throw .unsupportedAlgorithm(alg.rawValue) }
            let x = try bytes(-2, count: 32), y = try bytes(-3, count: 32)
            let point = Data([0x04]) + x + y
            guard let key = try? P256.Signing.PublicKey(x963Representation: point) else { throw .invalidKey("not a P-256 point") }
            self.key = .p256(key)
        case .rs256:
            guard kty == 3 else { throw .unsupportedAlgorithm(alg.rawValue) }
            let n = try bytes(-1), e = try bytes(-2)
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { throw .invalidKey("not an RSA key of 2048 bits or more") }
            self.key = .rsa(key)
        case .edDSA:
            guard kty == 1, cbor[-1]?.int64 == 6 else { throw .unsupportedAlgorithm(alg.rawValue) }
            let x = try bytes(-2, count: 32)
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw .invalidKey("not an Ed25519 key")
            }
            self.key = .ed25519(key)
        }
    }

    /// Whether `signature` is this key's signature of `message`, in WebAuthn's encodings: ES256 a DER ECDSA
    /// signature over SHA-256(message), RS256 PKCS#1 v1.5 with SHA-256, EdDSA the raw 64-byte Ed25519 signature.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        switch key {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .insecurePKCS1v1_5)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: message)
        }
    }
}
