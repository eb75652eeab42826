import Crypto
import Foundation
import HearthCore
import HearthWire

/// A software authenticator holding one ES256 or EdDSA passkey, answering the RPCs' options with the RPCs' response
/// shapes — the client side of a passkey ceremony for tests, with a knob for each attack (origin, rp id, flags,
/// counter, type, signature).
public struct SoftwarePasskey: Sendable {
    /// The key kinds the authenticator can hold.
    public enum Algorithm: Sendable { case es256, edDSA }

    public let algorithm: Algorithm
    private let p256: P256.Signing.PrivateKey
    private let ed25519: Curve25519.Signing.PrivateKey
    /// The credential id (16 random bytes).
    public let credentialId: Data
    /// The signature counter of the next assertion minus one (an authenticator that counts).
    public var counter: UInt32
    /// The user handle the registration's options named.
    public private(set) var userHandle: Data?
    /// The rp id the registration's options named.
    public private(set) var rpId: String = ""

    /// A new passkey; `counter` 0 with `counts: false` is a synced passkey that keeps no counter.
    public init(_ algorithm: Algorithm = .es256, counter: UInt32 = 0) {
        self.algorithm = algorithm
        p256 = P256.Signing.PrivateKey()
        ed25519 = Curve25519.Signing.PrivateKey()
        credentialId = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        self.counter = counter
    }

    /// The credential id as Hearth names it (unpadded base64url).
    public var id: String { credentialId.base64URLEncodedString() }

    /// The COSE_Key of the public key.
    public var coseKey: CBORValue {
        switch algorithm {
        case .es256:
            let point = p256.publicKey.x963Representation
            return .map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                         (.int(-2), .bytes(point.subdata(in: 1..<33))), (.int(-3), .bytes(point.subdata(in: 33..<65)))])
        case .edDSA:
            return .map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(ed25519.publicKey.rawRepresentation))])
        }
    }

    /// clientDataJSON as a browser writes it.
    public static func clientData(_ type: String, challenge: Data, origin: String, crossOrigin: Bool = false) -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(challenge.base64URLEncodedString())","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
    }

    func authenticatorData(rpId: String, flags: UInt8, counter: UInt32, attested: Bool) -> Data {
        var data = Data(SHA256.hash(data: Data(rpId.utf8))) + [flags] + withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        if attested {
            data += Data(count: 16) + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId
            data += CBOREncoder.encode(coseKey)
        }
        return data
    }

    func sign(_ message: Data) throws -> Data {
        switch algorithm {
        case .es256: try p256.signature(for: message).derRepresentation
        case .edDSA: try ed25519.signature(for: message)
        }
    }

    /// Answers `passkeyEnrollment:start`'s options: a `none` attestation of this passkey (flags UP|UV|AT by
    /// default). `rpId`/`origin`/`type` override what a faithful authenticator would write.
    public mutating func register(_ options: PasskeyCreationOptions, origin: String, rpId: String? = nil, flags: UInt8 = 0x45,
                                  type: String = "webauthn.create") throws -> PasskeyRegistrationResponse {
        guard let challenge = PasskeyBytes.decode(options.challenge), let handle = PasskeyBytes.decode(options.user.id) else {
            throw WebAuthnError.invalidAuthenticatorData("options with a challenge that is not base64")
        }
        userHandle = Data(handle)
        self.rpId = options.rp.id
        let clientData = Self.clientData(type, challenge: Data(challenge), origin: origin)
        let authData = authenticatorData(rpId: rpId ?? options.rp.id, flags: flags, counter: counter, attested: true)
        let attestation = CBOREncoder.encode(.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))]))
        return PasskeyRegistrationResponse(id: id, rawId: id, response: .init(
            clientDataJSON: clientData.base64URLEncodedString(), attestationObject: attestation.base64URLEncodedString(), transports: ["internal"]))
    }

    /// Answers request options (`passkeySignIn:start`, `mfaSignIn:start`'s passkey challenge): an assertion whose
    /// counter is one more than the last (or `counter` when given), flags UP|UV by default. `tamper` flips a bit
    /// of the signature.
    public mutating func assert(_ options: PasskeyRequestOptions, origin: String, rpId: String? = nil, flags: UInt8 = 0x05,
                                counter: UInt32? = nil, userHandle: Data? = nil, crossOrigin: Bool = false, tamper: Bool = false,
                                type: String = "webauthn.get") throws -> PasskeyAuthenticationResponse {
        guard let challenge = PasskeyBytes.decode(options.challenge) else { throw WebAuthnError.invalidAuthenticatorData("options with a challenge that is not base64") }
        if let counter { self.counter = counter } else if counterCounts { self.counter += 1 }
        let clientData = Self.clientData(type, challenge: Data(challenge), origin: origin, crossOrigin: crossOrigin)
        let authData = authenticatorData(rpId: rpId ?? options.rpId, flags: flags, counter: self.counter, attested: false)
        var signature = try sign(authData + Data(SHA256.hash(data: clientData)))
        if tamper { signature[signature.count / 2] ^= 0x01 }
        return PasskeyAuthenticationResponse(id: id, rawId: id, response: .init(
            clientDataJSON: clientData.base64URLEncodedString(), authenticatorData: authData.base64URLEncodedString(),
            signature: signature.base64URLEncodedString(), userHandle: (userHandle ?? self.userHandle)?.base64URLEncodedString()))
    }

    /// Whether the authenticator counts signatures (a passkey made with counter 0 and never told otherwise: yes).
    public var counterCounts = true
}
