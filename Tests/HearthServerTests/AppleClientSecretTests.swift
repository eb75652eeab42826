import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthOIDC
import HearthTesting
import JWTKit
import Testing

/// Issue 21 item 1: the ES256 client secret Hearth mints for Apple from the developer's `.p8`, and the `.p8`
/// files it refuses (with messages that never repeat the key).
@Suite struct AppleClientSecretTests {
    struct SecretClaims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func signingKey(_ key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) throws -> AppleSigningKey {
        try AppleSigningKey(p8: key.pemRepresentation, keyId: "ABC123DEFG", teamId: "TEAM123456", clientId: "com.example.web")
    }

    static func verifier(_ key: P256.Signing.PublicKey, kid: String = "ABC123DEFG") async throws -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(backing: key), kid: JWKIdentifier(string: kid))
        return keys
    }

    @Test func mintedSecretVerifiesWithThePublicKeyAndCarriesApplesClaims() async throws {
        let clock = TestClock()
        let privateKey = P256.Signing.PrivateKey()
        let minter = try await AppleClientSecret(key: try Self.signingKey(privateKey), clock: clock.wallClock)
        let secret = try await minter.secret()
        let header = try #require(JWTHeaderFields(token: secret))
        #expect(header.alg == "ES256")
        #expect(header.kid == "ABC123DEFG")
        let claims = try await Self.verifier(privateKey.publicKey).verify(secret, as: SecretClaims.self)
        #expect(claims.iss.value == "TEAM123456")
        #expect(claims.sub.value == "com.example.web")
        #expect(claims.aud.value == ["https://appleid.apple.com"])
        #expect(claims.iat.value == clock.now)
        #expect(claims.exp.value == clock.now.addingTimeInterval(3600))

        // Another key (even with the same kid) does not verify it.
        await #expect(throws: (any Error).self) {
            _ = try await Self.verifier(P256.Signing.PrivateKey().publicKey).verify(secret, as: SecretClaims.self)
        }
        // The public half the dev provider is given is the key's.
        #expect(try Self.signingKey(privateKey).publicKeyPEM == privateKey.publicKey.pemRepresentation)
    }

    @Test func secretIsCachedAndMintedAgainBeforeItExpires() async throws {
        let clock = TestClock()
        let minter = try await AppleClientSecret(key: try Self.signingKey(), audience: "http://127.0.0.1:9/__dev/apple", lifetime: 3600, clock: clock.wallClock)
        let first = try await minter.secret()
        clock.advance(by: 600)
        #expect(try await minter.secret() == first)
        // Less than a tenth of its life left: a new one.
        clock.advance(by: 2700)
        let second = try await minter.secret()
        #expect(second != first)
        let payload = try #require(jwtPayload(second))
        #expect(payload["aud"] as? String == "http://127.0.0.1:9/__dev/apple" || (payload["aud"] as? [String]) == ["http://127.0.0.1:9/__dev/apple"])
        #expect((payload["exp"] as? Double).map { $0 - clock.now.timeIntervalSince1970 } == 3600)
    }

    @Test func lifetimeIsAtMostSixMonths() async throws {
        let key = try Self.signingKey()
        _ = try await AppleClientSecret(key: key, lifetime: AppleClientSecret.maximumLifetime)
        await #expect(throws: AppleKeyError.invalidLifetime) { _ = try await AppleClientSecret(key: key, lifetime: AppleClientSecret.maximumLifetime + 1) }
        await #expect(throws: AppleKeyError.invalidLifetime) { _ = try await AppleClientSecret(key: key, lifetime: 10) }
    }

    @Test func badKeysAreRefusedWithoutEchoingThem() throws {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        let cases: [(String, AppleKeyError)] = [
            ("MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg", .notPEM),
            ("", .notPEM),
            (P256.Signing.PrivateKey().publicKey.pemRepresentation, .publicKey),
            (rsa.pemRepresentation, .rsaKey),
            (rsa.pkcs8PEMRepresentation, .rsaKey),
            (p384, .notP256),
            ("-----BEGIN PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----", .unreadable),
        ]
        for (pem, expected) in cases {
            do {
                _ = try AppleSigningKey(p8: pem, keyId: "ABC123DEFG", teamId: "TEAM123456", clientId: "com.example.web")
                Issue.record("accepted a key that should be \(expected)")
            } catch {
                #expect(error == expected)
                // No line of the key's body appears in the message.
                let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 8 }
                #expect(body.allSatisfy { !error.description.contains($0) }, "\(error.description)")
            }
        }
        // A SEC1 P-256 key (`EC PRIVATE KEY`, as openssl ecparam writes it; a throwaway test key) is accepted too.
        let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIO2m0tcBR6jcFIYGaR+T2kUpQo5a93CMvY+pmZaUQh1VoAoGCCqGSM49
        AwEHoUQDQgAEfCc4CCVOB2KaBa3jAApI48qlWCgPcWMfjPmWiusVZxwlbAFja6pv
        wHwgYTWPZgHzTms5eYWSmVADnsY+bqPpMA==
        -----END EC PRIVATE KEY-----
        """
        #expect(try AppleSigningKey.parse(p8: sec1).publicKey.rawRepresentation.count == 64)
        // A key with surrounding whitespace is accepted.
        let p256 = P256.Signing.PrivateKey()
        #expect(try AppleSigningKey.parse(p8: "\n  " + p256.pemRepresentation + "\n\n").rawRepresentation == p256.rawRepresentation)
        #expect(throws: AppleKeyError.invalidIdentifier("key id")) {
            try AppleSigningKey(p8: p256.pemRepresentation, keyId: " ", teamId: "TEAM123456", clientId: "com.example.web")
        }
        #expect(throws: AppleKeyError.invalidIdentifier("team id")) {
            try AppleSigningKey(p8: p256.pemRepresentation, keyId: "ABC123DEFG", teamId: "TEAM 1", clientId: "com.example.web")
        }
    }
}
