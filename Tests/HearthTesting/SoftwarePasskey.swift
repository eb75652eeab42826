import Crypto
import Foundation
import HearthCore
import Synchronization

/// A software passkey authenticator for tests: one ES256 credential (swift-crypto), `none` attestation, the flags
/// asked for (UP + UV + AT by default), a signature counter that grows with each assertion, and the user handle the
/// registration stored. The client data is written as a browser or Apple's platform would (`type`, base64url
/// `challenge`, `origin`).
public final class SoftwarePasskey: Sendable {
    /// The credential id (16 random bytes unless given).
    public let credentialId: Data
    private let keyBytes: Data
    private let state: Mutex<(userHandle: Data?, counter: UInt32)>

    /// A new credential.
    public init(credentialId: Data = Data((0..<16).map { _ in UInt8.random(in: 0...255) })) {
        self.credentialId = credentialId
        self.keyBytes = P256.Signing.PrivateKey().rawRepresentation
        self.state = Mutex((nil, 0))
    }

    private var key: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: keyBytes) }

    /// The user handle stored at registration.
    public var userHandle: Data? { state.withLock { $0.userHandle } }

    /// `clientDataJSON` as a browser writes it.
    public static func clientData(_ type: String, challenge: Data, origin: String) -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(challenge.base64URLEncodedString())","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// The COSE form of the credential's public key.
    public var publicKeyCOSE: CBORValue {
        let point = key.publicKey.x963Representation
        return .map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                     (.int(-2), .bytes(point.subdata(in: 1..<33))), (.int(-3), .bytes(point.subdata(in: 33..<65)))])
    }

    private func authenticatorData(rpId: String, flags: UInt8, counter: UInt32, attested: Bool) -> Data {
        var data = Data(SHA256.hash(data: Data(rpId.utf8))) + [flags] + withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        if attested {
            data += Data(count: 16) + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId
            data += CBOREncoder.encode(publicKeyCOSE)
        }
        return data
    }

    /// Creates the credential for `rpId` and `userHandle` answering `challenge` (`navigator.credentials.create`):
    /// flags `0x45` (UP, UV, AT) unless told.
    public func register(rpId: String, challenge: Data, userHandle: Data, origin: String, flags: UInt8 = 0x45)
        -> (credentialId: Data, clientDataJSON: Data, attestationObject: Data) {
        state.withLock { $0.userHandle = userHandle }
        let authData = authenticatorData(rpId: rpId, flags: flags, counter: 0, attested: true)
        let attestation = CBOREncoder.encode(.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))]))
        return (credentialId, Self.clientData("webauthn.create", challenge: challenge, origin: origin), attestation)
    }

    /// Signs `challenge` for `rpId` (`navigator.credentials.get`): the counter grows by one; flags `0x05` (UP, UV)
    /// unless told.
    public func assert(rpId: String, challenge: Data, origin: String, flags: UInt8 = 0x05) throws
        -> (credentialId: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        let (counter, handle) = state.withLock { state -> (UInt32, Data?) in
            state.counter += 1
            return (state.counter, state.userHandle)
        }
        let clientData = Self.clientData("webauthn.get", challenge: challenge, origin: origin)
        let authData = authenticatorData(rpId: rpId, flags: flags, counter: counter, attested: false)
        let signature = try key.signature(for: authData + Data(SHA256.hash(data: clientData))).derRepresentation
        return (credentialId, clientData, authData, signature, handle)
    }
}
