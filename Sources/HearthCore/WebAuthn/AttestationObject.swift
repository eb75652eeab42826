import Foundation

/// A registration's attestation object (WebAuthn §6.5.4): the CBOR map `{fmt, attStmt, authData}`. Its
/// authenticator data must carry an attested credential.
public struct AttestationObject: Sendable {
    /// The attestation statement format (`none`, `packed`, `tpm`, …).
    public let format: String
    /// The attestation statement (a map).
    public let statement: CBORValue
    /// The authenticator data, with its attested credential.
    public let authData: AuthenticatorData

    /// What ``verify(clientDataHash:)`` could establish about the statement.
    public enum Verification: Equatable, Sendable {
        /// `none`: no statement (the usual case for passkeys).
        case noStatement
        /// `packed` self attestation: signed with the credential's own key (verified).
        case selfAttestation
        /// A format or variant Hearth does not verify (`packed` with a certificate chain, `tpm`, `apple`, …):
        /// the relying party decides whether to accept it as unattested.
        case unverified(format: String)
    }

    /// Parses an attestation object (exactly one CBOR map; other members than the three are ignored).
    public init(bytes: Data) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .cbor(error) }
        guard case .map = value else { throw .invalidAttestation("not a map") }
        guard case .text(let format) = value["fmt"] else { throw .invalidAttestation("fmt is missing or not text") }
        guard let statement = value["attStmt"], case .map = statement else { throw .invalidAttestation("attStmt is missing or not a map") }
        guard case .bytes(let authBytes) = value["authData"] else { throw .invalidAttestation("authData is missing or not bytes") }
        let authData = try AuthenticatorData(bytes: authBytes)
        guard authData.attestedCredential != nil else { throw .invalidAttestation("authData has no attested credential (AT)") }
        self.format = format
        self.statement = statement
        self.authData = authData
    }

    /// Checks the statement against its format, given SHA-256 of the raw clientDataJSON. Throws when a statement
    /// Hearth understands is wrong (`none` with members, a self attestation with another `alg` or a bad signature).
    public func verify(clientDataHash: Data) throws(WebAuthnError) -> Verification {
        guard case .map(let members) = statement, let credential = authData.attestedCredential else {
            throw .invalidAttestation("no statement or credential")
        }
        switch format {
        case "none":
            guard members.isEmpty else { throw .invalidAttestation("a none statement must be empty") }
            return .noStatement
        case "packed":
            if statement["x5c"] != nil || statement["ecdaaKeyId"] != nil { return .unverified(format: format) }
            guard let alg = statement["alg"]?.int64 else { throw .invalidAttestation("packed: alg is missing") }
            guard alg == credential.publicKey.alg.rawValue else { throw .invalidAttestation("packed: alg \(alg) is not the credential's") }
            guard case .bytes(let signature) = statement["sig"] else { throw .invalidAttestation("packed: sig is missing") }
            guard credential.publicKey.isValidSignature(signature, for: authData.bytes + clientDataHash) else {
                throw .attestationSignatureInvalid
            }
            return .selfAttestation
        default:
            return .unverified(format: format)
        }
    }
}
