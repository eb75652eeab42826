import Foundation

/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// User present.
    public static let up = AuthenticatorFlags(rawValue: 0x01)
    /// User verified.
    public static let uv = AuthenticatorFlags(rawValue: 0x04)
    /// Backup eligible.
    public static let be = AuthenticatorFlags(rawValue: 0x08)
    /// Backed up.
    public static let bs = AuthenticatorFlags(rawValue: 0x10)
    /// Attested credential data included.
    public static let at = AuthenticatorFlags(rawValue: 0x40)
    /// Extension data included.
    public static let ed = AuthenticatorFlags(rawValue: 0x80)
}

/// The attested credential data of a registration's authenticator data (WebAuthn §6.5.2).
public struct AttestedCredentialData: Sendable {
    /// The authenticator's AAGUID (16 bytes; all zero for `none` attestation from many authenticators).
    public let aaguid: Data
    /// The credential id (at most 1023 bytes).
    public let credentialId: Data
    /// The credential public key.
    public let publicKey: COSEKey
    /// The COSE_Key bytes exactly as the authenticator sent them (what a relying party stores).
    public let publicKeyBytes: Data
}

/// Parsed authenticator data (WebAuthn §6.1): rpIdHash ‖ flags ‖ signCount ‖ [attested credential data] ‖
/// [extensions]. Truncation and bytes beyond what the flags announce are refused.
public struct AuthenticatorData: Sendable {
    /// The longest credential id WebAuthn allows.
    public static let maxCredentialIdLength = 1023

    /// The raw bytes (signed over, so kept as received).
    public let bytes: Data
    /// SHA-256 of the relying party id the authenticator used.
    public let rpIdHash: Data
    /// The flags byte.
    public let flags: AuthenticatorFlags
    /// The signature counter (0 when the authenticator does not keep one).
    public let signCount: UInt32
    /// Present when the AT flag is set.
    public let attestedCredential: AttestedCredentialData?
    /// The extension outputs map, present when the ED flag is set.
    public let extensions: CBORValue?

    /// Parses authenticator data.
    public init(bytes: Data) throws(WebAuthnError) {
        let raw = [UInt8](bytes)
        guard raw.count >= 37 else { throw .invalidAuthenticatorData("\(raw.count) bytes, at least 37 needed") }
        self.bytes = Data(raw)
        rpIdHash = Data(raw[0..<32])
        flags = AuthenticatorFlags(rawValue: raw[32])
        signCount = raw[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.at) {
            guard raw.count >= offset + 18 else { throw .invalidAuthenticatorData("truncated attested credential data") }
            let aaguid = Data(raw[offset..<offset + 16])
            let idLength = Int(raw[offset + 16]) << 8 | Int(raw[offset + 17])
            offset += 18
            guard idLength <= Self.maxCredentialIdLength else { throw .invalidAuthenticatorData("credential id of \(idLength) bytes") }
            guard raw.count >= offset + idLength else { throw .invalidAuthenticatorData("truncated credential id") }
            let credentialId = Data(raw[offset..<offset + idLength])
            offset += idLength
            let key: (value: CBORValue, length: Int)
            do { key = try CBORDecoder.decodePrefix(Data(raw[offset...])) } catch { throw .cbor(error) }
            let keyBytes = Data(raw[offset..<offset + key.length])
            offset += key.length
            attestedCredential = AttestedCredentialData(aaguid: aaguid, credentialId: credentialId,
                                                        publicKey: try COSEKey(cbor: key.value), publicKeyBytes: keyBytes)
        } else {
            attestedCredential = nil
        }
        if flags.contains(.ed) {
            let value: CBORValue
            do { value = try CBORDecoder.decode(Data(raw[offset...])) } catch { throw .cbor(error) }
            guard case .map = value else { throw .invalidAuthenticatorData("extensions are not a map") }
            extensions = value
        } else {
            guard offset == raw.count else { throw .invalidAuthenticatorData("\(raw.count - offset) bytes left over") }
            extensions = nil
        }
    }
}
