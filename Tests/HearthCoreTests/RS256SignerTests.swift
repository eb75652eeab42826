import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthWire
import JWTKit
import Testing

/// Hearth's RS256 signers: OpenSSL 3 (loaded at run time) and swift-crypto must give the same PKCS#1 v1.5 bytes
/// (the scheme is deterministic), tokens from either verify with jwt-kit, and the OpenSSL context pool holds up
/// under concurrent signing. (google-auth and firebase-admin verify tokens of both in Tests/e2e/rs256_signers.py.)
@Suite struct RS256SignerTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    @Test func autoPicksOpenSSLWhereLibcryptoIsInstalled() throws {
        // Debian's libssl3 is on every machine that runs this suite (curl needs it).
        let made = try RS256Signers.make(pem: Self.key.pemRepresentation, preference: .auto)
        #expect(made.fallbackReason == nil)
        #expect(made.signer.implementation.hasPrefix("openssl 3."))
        let forced = try RS256Signers.make(pem: Self.key.pemRepresentation, preference: .swiftCrypto)
        #expect(forced.signer.implementation == "swift-crypto")
    }

    @Test func bothImplementationsGiveTheSameBytesAndTheyVerify() throws {
        let openssl = try OpenSSLRS256Signer(pem: Self.key.pemRepresentation)
        let reference = try SwiftCryptoRS256Signer(pem: Self.key.pemRepresentation)
        for length in [0, 1, 55, 64, 600, 4096] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let digest = SHA256.hash(data: message)
            let signature = try openssl.sign(digest: digest)
            #expect(signature.count == 256)
            #expect(signature == (try reference.sign(digest: digest)))
            #expect(Self.key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                                         padding: .insecurePKCS1v1_5))
            // Another message's digest does not verify with it.
            let other = SHA256.hash(data: message + [1])
            #expect(!Self.key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: other,
                                                          padding: .insecurePKCS1v1_5))
        }
    }

    struct Claims: JWTPayload, Equatable {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var name: String
        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    @Test(arguments: [RSASignerPreference.openssl, .swiftCrypto])
    func tokensVerifyWithJWTKit(preference: RSASignerPreference) async throws {
        let signer = try RS256TokenSigner(kid: "kid-1", signer: RS256Signers.make(pem: Self.key.pemRepresentation, preference: preference).signer)
        let claims = Claims(sub: "user-1", exp: ExpirationClaim(value: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 600).rounded())), name: "Zoë \u{1F600} \"quoted\"")
        let token = try signer.sign(claims)
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PublicKey(pem: Self.key.publicKey.pemRepresentation), digestAlgorithm: .sha256,
                       kid: JWKIdentifier(string: "kid-1"))
        let verified = try await keys.verify(token, as: Claims.self)
        #expect(verified == claims)
        let header = try JSONSerialization.jsonObject(with: Data(base64URLEncoded: String(token.split(separator: ".")[0]))!) as? [String: String]
        #expect(header == ["alg": "RS256", "kid": "kid-1", "typ": "JWT"])
        // One byte of the payload changed: the signature no longer holds.
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Data(try JSONEncoder().encode(["sub": "user-2"])).base64URLEncodedString()
        await #expect(throws: (any Error).self) { try await keys.verify(parts.joined(separator: "."), as: Claims.self) }
    }

    @Test func concurrentSigningThroughTheContextPool() async throws {
        let openssl = try OpenSSLRS256Signer(pem: Self.key.pemRepresentation)
        let reference = try SwiftCryptoRS256Signer(pem: Self.key.pemRepresentation)
        let digests = (0..<64).map { SHA256.hash(data: Array("message \($0)".utf8)) }
        let expected = try digests.map { try reference.sign(digest: $0) }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<32 {
                group.addTask {
                    var bad = 0
                    for round in 0..<8 {
                        let index = (worker * 8 + round) % digests.count
                        if try openssl.sign(digest: digests[index]) != expected[index] { bad += 1 }
                    }
                    return bad
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func refusesWhatIsNotAnRSAPrivateKey() throws {
        let ec = P256.Signing.PrivateKey().pemRepresentation
        #expect(throws: RS256SignerError.self) { try OpenSSLRS256Signer(pem: ec) }
        #expect(throws: RS256SignerError.self) { try OpenSSLRS256Signer(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: RS256SignerError.self) { try OpenSSLRS256Signer(pem: "") }
        #expect(throws: RS256SignerError.self) { try OpenSSLRS256Signer(pem: "\u{0}garbage") }
        // The public half alone cannot sign.
        #expect(throws: RS256SignerError.self) { try OpenSSLRS256Signer(pem: Self.key.publicKey.pemRepresentation) }
        // `make` refuses it too, with either preference.
        #expect(throws: (any Error).self) { try RS256Signers.make(pem: ec, preference: .auto) }
    }

    @Test func errorsLeaveNothingInOpenSSLsQueue() throws {
        // A failed parse drains the thread's error queue, so a later good call is not blamed for it.
        _ = try? OpenSSLRS256Signer(pem: "not a key")
        let signer = try OpenSSLRS256Signer(pem: Self.key.pemRepresentation)
        #expect(try signer.sign(digest: SHA256.hash(data: [1, 2, 3])).count == 256)
    }
}
