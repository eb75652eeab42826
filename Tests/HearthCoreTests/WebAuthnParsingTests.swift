import Crypto
import CryptoExtras
import Foundation
import HearthCore
import Testing

/// COSE keys made with swift-crypto, authenticator data, attestation objects and client data built by hand,
/// including the refusals.
@Suite struct WebAuthnParsingTests {
    static let message = Data("authenticator data ‖ client data hash".utf8)

    static func es256Key(_ key: P256.Signing.PublicKey) -> CBORValue {
        let point = key.x963Representation
        return .map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                     (.int(-2), .bytes(point.subdata(in: 1..<33))), (.int(-3), .bytes(point.subdata(in: 33..<65)))])
    }

    static func edKey(_ key: Curve25519.Signing.PublicKey) -> CBORValue {
        .map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(key.rawRepresentation))])
    }

    static func rsaKey(_ key: _RSA.Signing.PublicKey) throws -> CBORValue {
        let primitives = try key.getKeyPrimitives()
        return .map([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(primitives.modulus)),
                     (.int(-2), .bytes(primitives.publicExponent))])
    }

    /// `value` with `label` set to `replacement` (nil removes it).
    static func with(_ value: CBORValue, _ label: Int64, _ replacement: CBORValue?) -> CBORValue {
        guard case .map(var pairs) = value else { return value }
        pairs.removeAll { $0.0 == .int(label) }
        if let replacement { pairs.append((.int(label), replacement)) }
        return .map(pairs)
    }

    @Test func es256() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try COSEKey(bytes: CBOREncoder.encode(Self.es256Key(privateKey.publicKey)))
        #expect(key.alg == .es256)
        let signature = try privateKey.signature(for: Self.message)
        #expect(key.isValidSignature(signature.derRepresentation, for: Self.message))
        #expect(!key.isValidSignature(signature.rawRepresentation, for: Self.message)) // WebAuthn's ES256 is DER
        #expect(!key.isValidSignature(signature.derRepresentation, for: Self.message + [0]))
        var tampered = signature.derRepresentation
        tampered[tampered.count - 1] ^= 0x01
        #expect(!key.isValidSignature(tampered, for: Self.message))
        #expect(!key.isValidSignature(Data(), for: Self.message))
        // Wrong curve, wrong key type, short coordinate, an off-curve point, a private key.
        let good = Self.es256Key(privateKey.publicKey)
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-7)) { try COSEKey(cbor: Self.with(good, -1, .int(2))) }
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-7)) { try COSEKey(cbor: Self.with(good, 1, .int(1))) }
        #expect(throws: WebAuthnError.self) { try COSEKey(cbor: Self.with(good, -2, .bytes(Data(count: 31)))) }
        #expect(throws: WebAuthnError.self) { try COSEKey(cbor: Self.with(good, -3, .bool(true))) }
        #expect(throws: WebAuthnError.invalidKey("not a P-256 point")) { try COSEKey(cbor: Self.with(good, -3, .bytes(Data(count: 32)))) }
        #expect(throws: WebAuthnError.invalidKey("a private key parameter (-4)")) {
            try COSEKey(cbor: Self.with(good, -4, .bytes(privateKey.rawRepresentation)))
        }
    }

    @Test func rs256() throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let cose = try Self.rsaKey(privateKey.publicKey)
        let key = try COSEKey(cbor: cose)
        #expect(key.alg == .rs256)
        let signature = try privateKey.signature(for: Self.message, padding: .insecurePKCS1v1_5).rawRepresentation
        #expect(key.isValidSignature(signature, for: Self.message))
        var tampered = signature
        tampered[7] ^= 0x80
        #expect(!key.isValidSignature(tampered, for: Self.message))
        let pss = try privateKey.signature(for: Self.message, padding: .PSS).rawRepresentation
        #expect(!key.isValidSignature(pss, for: Self.message))
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-257)) { try COSEKey(cbor: Self.with(cose, 1, .int(2))) }
        #expect(throws: WebAuthnError.invalidKey("not an RSA key of 2048 bits or more")) {
            try COSEKey(cbor: Self.with(cose, -1, .bytes(Data(repeating: 0xc5, count: 128))))
        }
    }

    @Test func edDSA() throws {
        let privateKey = Curve25519.Signing.PrivateKey()
        let key = try COSEKey(cbor: Self.edKey(privateKey.publicKey))
        #expect(key.alg == .edDSA)
        let signature = try privateKey.signature(for: Self.message)
        #expect(key.isValidSignature(signature, for: Self.message))
        var tampered = signature
        tampered[0] ^= 0x01
        #expect(!key.isValidSignature(tampered, for: Self.message))
        #expect(!key.isValidSignature(signature.prefix(63), for: Self.message))
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-8)) { try COSEKey(cbor: Self.with(Self.edKey(privateKey.publicKey), -1, .int(7))) }
    }

    @Test func otherAlgorithmsAndShapesAreRefused() throws {
        let good = Self.es256Key(P256.Signing.PrivateKey().publicKey)
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-35)) { try COSEKey(cbor: Self.with(good, 3, .int(-35))) }
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-37)) { try COSEKey(cbor: Self.with(good, 3, .int(-37))) }
        #expect(throws: WebAuthnError.unsupportedAlgorithm(nil)) { try COSEKey(cbor: Self.with(good, 3, .text("ES256"))) }
        #expect(throws: WebAuthnError.invalidKey("no alg (3)")) { try COSEKey(cbor: Self.with(good, 3, nil)) }
        #expect(throws: WebAuthnError.invalidKey("a COSE key is a map")) { try COSEKey(cbor: .array([])) }
        #expect(throws: WebAuthnError.cbor(.trailingBytes(offset: 77))) { try COSEKey(bytes: CBOREncoder.encode(good) + [0]) }
    }

    // MARK: authenticator data

    static let rpIdHash = Data(SHA256.hash(data: Data("localhost".utf8)))

    static func authData(flags: UInt8, counter: UInt32, credentialId: Data? = nil, key: CBORValue? = nil, tail: Data = Data()) -> Data {
        var data = rpIdHash + [flags] + withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        if let credentialId, let key {
            data += Data(repeating: 0xaa, count: 16) + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId
            data += CBOREncoder.encode(key)
        }
        return data + tail
    }

    @Test func authenticatorData() throws {
        let assertion = try AuthenticatorData(bytes: Self.authData(flags: 0x1d, counter: 0x0102_0304))
        #expect(assertion.flags == [.up, .uv, .be, .bs] && assertion.signCount == 0x0102_0304 && assertion.rpIdHash == Self.rpIdHash)
        #expect(assertion.attestedCredential == nil && assertion.extensions == nil)

        let privateKey = P256.Signing.PrivateKey()
        let id = Data(repeating: 7, count: 1023)
        let extensions: CBORValue = .map([(.text("credProtect"), .unsigned(2))])
        let registration = try AuthenticatorData(bytes: Self.authData(flags: 0xc5, counter: 9, credentialId: id, key: Self.es256Key(privateKey.publicKey),
                                                                      tail: CBOREncoder.encode(extensions)))
        let credential = try #require(registration.attestedCredential)
        #expect(credential.credentialId == id && credential.aaguid == Data(repeating: 0xaa, count: 16))
        #expect(credential.publicKeyBytes == CBOREncoder.encode(Self.es256Key(privateKey.publicKey)))
        #expect(registration.extensions == extensions && registration.flags.contains([.at, .ed]))

        let key = Self.es256Key(privateKey.publicKey)
        let refusals: [Data] = [
            Self.authData(flags: 0x01, counter: 1).prefix(36),                                              // short
            Self.authData(flags: 0x01, counter: 1, tail: Data([0])),                                       // trailing byte
            Self.authData(flags: 0x45, counter: 1, credentialId: Data(count: 1024), key: key),             // id too long
            Self.authData(flags: 0x45, counter: 1, credentialId: Data(count: 4), key: key).prefix(60),    // truncated id
            Self.authData(flags: 0x45, counter: 1, credentialId: Data(count: 4), key: key).dropLast(),    // truncated key
            Self.authData(flags: 0x45, counter: 1, credentialId: Data(count: 4), key: key, tail: Data([0xa0])), // no ED flag
            Self.authData(flags: 0x81, counter: 1),                                                        // ED, nothing
            Self.authData(flags: 0x81, counter: 1, tail: Data([0x80])),                                    // ED, not a map
            Self.authData(flags: 0x81, counter: 1, tail: Data([0xa0, 0x00])),                              // ED, trailing
            Self.authData(flags: 0x45, counter: 1, credentialId: Data(count: 4), key: .map([(.int(3), .int(-7))])), // bad key
        ]
        for (index, bytes) in refusals.enumerated() {
            #expect(throws: WebAuthnError.self, "case \(index)") { try AuthenticatorData(bytes: bytes) }
        }
        // Every strict prefix of a registration's authenticator data is refused.
        let full = Self.authData(flags: 0xc5, counter: 9, credentialId: Data(count: 20), key: key, tail: CBOREncoder.encode(extensions))
        for length in 0..<full.count {
            #expect(throws: WebAuthnError.self, "prefix \(length)") { try AuthenticatorData(bytes: full.prefix(length)) }
        }
    }

    // MARK: attestation objects

    static func attestation(_ format: String, _ statement: CBORValue, _ authData: Data) -> Data {
        CBOREncoder.encode(.map([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))]))
    }

    @Test func attestationFormats() throws {
        let privateKey = P256.Signing.PrivateKey()
        let authData = Self.authData(flags: 0x45, counter: 0, credentialId: Data(count: 16), key: Self.es256Key(privateKey.publicKey))
        let clientDataHash = Data(SHA256.hash(data: Data("{}".utf8)))
        let none = try AttestationObject(bytes: Self.attestation("none", .map([]), authData))
        #expect(none.format == "none" && none.authData.bytes == authData)
        #expect(try none.verify(clientDataHash: clientDataHash) == .noStatement)
        #expect(throws: WebAuthnError.invalidAttestation("a none statement must be empty")) {
            try AttestationObject(bytes: Self.attestation("none", .map([(.text("x"), .null)]), authData)).verify(clientDataHash: clientDataHash)
        }

        let signature = try privateKey.signature(for: authData + clientDataHash).derRepresentation
        let packed = try AttestationObject(bytes: Self.attestation("packed", .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))]), authData))
        #expect(try packed.verify(clientDataHash: clientDataHash) == .selfAttestation)
        #expect(throws: WebAuthnError.attestationSignatureInvalid) { try packed.verify(clientDataHash: Data(count: 32)) }
        let otherAlg = try AttestationObject(bytes: Self.attestation("packed", .map([(.text("alg"), .int(-8)), (.text("sig"), .bytes(signature))]), authData))
        #expect(throws: WebAuthnError.self) { try otherAlg.verify(clientDataHash: clientDataHash) }
        let noSig = try AttestationObject(bytes: Self.attestation("packed", .map([(.text("alg"), .int(-7))]), authData))
        #expect(throws: WebAuthnError.invalidAttestation("packed: sig is missing")) { try noSig.verify(clientDataHash: clientDataHash) }
        let x5c = try AttestationObject(bytes: Self.attestation("packed", .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature)),
                                                                                 (.text("x5c"), .array([.bytes(Data([0x30]))]))]), authData))
        #expect(try x5c.verify(clientDataHash: clientDataHash) == .unverified(format: "packed"))
        let tpm = try AttestationObject(bytes: Self.attestation("tpm", .map([(.text("ver"), .text("2.0"))]), authData))
        #expect(try tpm.verify(clientDataHash: clientDataHash) == .unverified(format: "tpm"))

        // Shape refusals: no AT flag, members missing or of the wrong type, not a map, trailing bytes.
        let assertionData = Self.authData(flags: 0x05, counter: 0)
        #expect(throws: WebAuthnError.self) { try AttestationObject(bytes: Self.attestation("none", .map([]), assertionData)) }
        #expect(throws: WebAuthnError.self) { try AttestationObject(bytes: CBOREncoder.encode(.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([]))]))) }
        #expect(throws: WebAuthnError.self) { try AttestationObject(bytes: Self.attestation("none", .array([]), authData)) }
        #expect(throws: WebAuthnError.self) { try AttestationObject(bytes: CBOREncoder.encode(.array([]))) }
        #expect(throws: WebAuthnError.cbor(.trailingBytes(offset: 1))) { try AttestationObject(bytes: Data([0xa0, 0x00])) }
    }

    // MARK: client data

    @Test func clientData() throws {
        let json = #"{"type":"webauthn.get","challenge":"AAEC_-8","origin":"https://example.com","crossOrigin":true,"topOrigin":"https://top.example","other":[1]}"#
        let data = try CollectedClientData(json: Data(json.utf8))
        #expect(data.type == "webauthn.get")
        #expect(data.challenge == Data([0, 1, 2, 0xff, 0xef]) && data.origin == "https://example.com")
        #expect(data.crossOrigin && data.topOrigin == "https://top.example")
        let plain = try CollectedClientData(json: Data(#"{"type":"webauthn.create","challenge":"AQID","origin":"http://localhost"}"#.utf8))
        #expect(!plain.crossOrigin && plain.topOrigin == nil && plain.challenge == Data([1, 2, 3]))
        let refused = [
            #"{"challenge":"AQID","origin":"o"}"#, #"{"type":"t","origin":"o"}"#, #"{"type":"t","challenge":"AQID"}"#,
            #"[{"type":"t","challenge":"AQID","origin":"o"}]"#, #"{"type":"t","challenge":"AQID","origin":"o","crossOrigin":"true"}"#,
            #"{"type":"t","challenge":"AQ==","origin":"o"}"#, #"{"type":"t","challenge":"A+8/","origin":"o"}"#,
            #"{"type":"t","challenge":"","origin":"o"}"#, #"{"type":"t","challenge":"AQIDB","origin":"o"}"#,
            #"{"type":1,"challenge":"AQID","origin":"o"}"#, "", "null", #"{"type":"t","challenge":"AQID","origin":"o""#,
        ]
        for text in refused {
            #expect(throws: WebAuthnError.self, "\(text)") { try CollectedClientData(json: Data(text.utf8)) }
        }
        #expect(throws: WebAuthnError.invalidClientData("not UTF-8")) {
            try CollectedClientData(json: Data(#"{"type":"t","challenge":"AQID","origin":""#.utf8) + [0xff] + Data(#""}"#.utf8))
        }
    }
}
