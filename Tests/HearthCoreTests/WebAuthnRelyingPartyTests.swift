import Crypto
import Foundation
import HearthCore
import Testing

/// The relying party's checks against a software authenticator written here (swift-crypto keys, CBOR by
/// `CBOREncoder`): the happy paths, and each attack of issue 23 failing.
@Suite struct WebAuthnRelyingPartyTests {
    static let origin = "http://localhost:8080"
    static let rp = WebAuthnRelyingParty(rpId: "localhost", allowedOrigins: [origin])

    /// One authenticator with one ES256 credential.
    struct Authenticator {
        let key = P256.Signing.PrivateKey()
        let credentialId = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        var counter: UInt32 = 0

        static func clientData(_ type: String, _ challenge: Data, origin: String = WebAuthnRelyingPartyTests.origin, crossOrigin: Bool = false) -> Data {
            Data(#"{"type":"\#(type)","challenge":"\#(challenge.base64URLEncodedString())","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
        }

        func authData(flags: UInt8, counter: UInt32, rpId: String = "localhost", attested: Bool) -> Data {
            var data = Data(SHA256.hash(data: Data(rpId.utf8))) + [flags] + withUnsafeBytes(of: counter.bigEndian) { Data($0) }
            if attested {
                data += Data(count: 16) + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId
                data += CBOREncoder.encode(WebAuthnParsingTests.es256Key(key.publicKey))
            }
            return data
        }

        func register(_ challenge: Data, flags: UInt8 = 0x45, origin: String = WebAuthnRelyingPartyTests.origin, rpId: String = "localhost",
                      type: String = "webauthn.create") -> (clientData: Data, attestation: Data) {
            let clientData = Self.clientData(type, challenge, origin: origin)
            let attestation = WebAuthnParsingTests.attestation("none", .map([]), authData(flags: flags, counter: counter, rpId: rpId, attested: true))
            return (clientData, attestation)
        }

        mutating func assert(_ challenge: Data, flags: UInt8 = 0x05, origin: String = WebAuthnRelyingPartyTests.origin,
                             crossOrigin: Bool = false) throws -> (clientData: Data, authData: Data, signature: Data) {
            counter += 1
            let clientData = Self.clientData("webauthn.get", challenge, origin: origin, crossOrigin: crossOrigin)
            let authData = authData(flags: flags, counter: counter, attested: false)
            let signature = try key.signature(for: authData + Data(SHA256.hash(data: clientData))).derRepresentation
            return (clientData, authData, signature)
        }
    }

    static func challenge() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    @Test func registrationAndSignInVerify() throws {
        var device = Authenticator()
        let challenge = Self.challenge()
        let created = device.register(challenge)
        let registration = try Self.rp.verifyRegistration(clientDataJSON: created.clientData, attestationObject: created.attestation, expectedChallenge: challenge)
        #expect(registration.credentialId == device.credentialId)
        #expect(registration.algorithm == .es256 && registration.userVerified && registration.attestation == .noStatement)
        let signIn = Self.challenge()
        let got = try device.assert(signIn)
        let assertion = try Self.rp.verifyAssertion(clientDataJSON: got.clientData, authenticatorData: got.authData, signature: got.signature,
                                                    expectedChallenge: signIn, publicKeyBytes: registration.publicKeyBytes, storedSignCount: 0)
        #expect(assertion.signCount == 1 && !assertion.backedUp && assertion.userVerified)
    }

    @Test func registrationAttacksAreRefused() throws {
        let device = Authenticator()
        let challenge = Self.challenge()
        func refusal(_ made: (clientData: Data, attestation: Data), expected: Data = challenge) -> WebAuthnRelyingParty.Refusal? {
            do {
                _ = try Self.rp.verifyRegistration(clientDataJSON: made.clientData, attestationObject: made.attestation, expectedChallenge: expected)
                return nil
            } catch { return error }
        }
        #expect(refusal(device.register(challenge), expected: Self.challenge()) == .challengeMismatch)
        #expect(refusal(device.register(challenge, origin: "https://evil.example")) == .originNotAllowed("https://evil.example"))
        #expect(refusal(device.register(challenge, rpId: "evil.example")) == .rpIdMismatch)
        #expect(refusal(device.register(challenge, flags: 0x41)) == .userVerificationMissing)
        #expect(refusal(device.register(challenge, flags: 0x44)) == .userNotPresent)
        #expect(refusal(device.register(challenge, flags: 0x55)) == .backupStateInvalid)
        #expect(refusal(device.register(challenge, type: "webauthn.get")) == .wrongType("webauthn.get"))
        #expect(refusal((Data("{}".utf8), Data()))?.isMalformed == true)
        let lenient = WebAuthnRelyingParty(rpId: "localhost", allowedOrigins: [Self.origin], requireUserVerification: false, algorithms: [.edDSA])
        let made = device.register(challenge, flags: 0x41)
        #expect(throws: WebAuthnRelyingParty.Refusal.algorithmNotAllowed(-7)) {
            try lenient.verifyRegistration(clientDataJSON: made.clientData, attestationObject: made.attestation, expectedChallenge: challenge)
        }
    }

    @Test func signInAttacksAreRefused() throws {
        var device = Authenticator()
        let publicKey = CBOREncoder.encode(WebAuthnParsingTests.es256Key(device.key.publicKey))
        let challenge = Self.challenge()
        func refusal(_ got: (clientData: Data, authData: Data, signature: Data), expected: Data = challenge, stored: UInt32 = 0,
                     key: Data = publicKey) -> WebAuthnRelyingParty.Refusal? {
            do {
                _ = try Self.rp.verifyAssertion(clientDataJSON: got.clientData, authenticatorData: got.authData, signature: got.signature,
                                                expectedChallenge: expected, publicKeyBytes: key, storedSignCount: stored)
                return nil
            } catch { return error }
        }
        // Replayed challenge (another one was issued), wrong origin, cross-origin iframe, UV missing.
        #expect(refusal(try device.assert(challenge), expected: Self.challenge()) == .challengeMismatch)
        #expect(refusal(try device.assert(challenge, origin: "http://localhost:9999")) == .originNotAllowed("http://localhost:9999"))
        #expect(refusal(try device.assert(challenge, crossOrigin: true)) == .crossOrigin)
        #expect(refusal(try device.assert(challenge, flags: 0x01)) == .userVerificationMissing)
        // A tampered signature, and another user's key.
        var tampered = try device.assert(challenge)
        tampered.signature[tampered.signature.count - 3] ^= 0x01
        #expect(refusal(tampered) == .signatureInvalid)
        let other = CBOREncoder.encode(WebAuthnParsingTests.es256Key(P256.Signing.PrivateKey().publicKey))
        #expect(refusal(try device.assert(challenge), key: other) == .signatureInvalid)
        // A clone: the counter does not go past the stored one.
        let fresh = try device.assert(challenge)
        #expect(refusal(fresh, stored: device.counter) == .counterNotIncreased(stored: device.counter, presented: device.counter))
        #expect(refusal(fresh, stored: device.counter - 1) == nil)
        // Tampered authenticator data (UV bit set after signing) breaks the signature.
        var flipped = try device.assert(challenge, flags: 0x01)
        flipped.authData[32] |= 0x04
        #expect(refusal(flipped) == .signatureInvalid)
    }
}

extension WebAuthnRelyingParty.Refusal {
    var isMalformed: Bool { if case .malformed = self { true } else { false } }
}
