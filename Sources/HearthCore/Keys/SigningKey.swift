import Crypto
import CryptoExtras
import Foundation
import HearthWire
import JWTKit
import SwiftASN1
import X509

/// An RS256 ID-token signing key as stored: the private key, its self-signed certificate (published in the
/// x509 map) and when it becomes the active signer.
public struct SigningKey: Sendable, Equatable {
    /// Increases by one per key; the store's primary key (two replicas cannot both add generation n).
    public var generation: Int
    public var kid: String
    /// PKCS#8 PEM. Stored in the database: protect the data directory (see docs/security.md).
    public var privateKeyPEM: String
    public var certificatePEM: String
    public var createdAt: Date
    public var activatesAt: Date

    public init(generation: Int, kid: String, privateKeyPEM: String, certificatePEM: String, createdAt: Date, activatesAt: Date) {
        self.generation = generation
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.certificatePEM = certificatePEM
        self.createdAt = createdAt
        self.activatesAt = activatesAt
    }

    /// Generates a new 2048-bit RSA key with a self-signed certificate valid until `validUntil`.
    public static func generate(generation: Int, now: Date, activatesAt: Date, validUntil: Date) throws -> SigningKey {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = Data(SHA256.hash(data: privateKey.publicKey.derRepresentation)).prefix(20).hexString
        let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
        let certificateKey = Certificate.PrivateKey(privateKey)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: validUntil,
            issuer: name,
            subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
            },
            issuerPrivateKey: certificateKey
        )
        return SigningKey(
            generation: generation, kid: kid, privateKeyPEM: privateKey.pkcs8PEMRepresentation,
            certificatePEM: try certificate.serializeAsPEM().pemString, createdAt: now, activatesAt: activatesAt)
    }

    /// The jwt-kit private key.
    public func jwtPrivateKey() throws -> JWTKit.Insecure.RSA.PrivateKey {
        try JWTKit.Insecure.RSA.PrivateKey(pem: privateKeyPEM)
    }

    /// The public half as a JWK (`kty`, `alg`, `use`, `kid`, `n`, `e`).
    public func publicJWK() throws -> [String: String] {
        let key = try JWTKit.Insecure.RSA.PublicKey(certificatePEM: certificatePEM)
        let (modulus, exponent) = try key.getKeyPrimitives()
        return ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                "n": modulus.base64URLEncodedString(), "e": exponent.base64URLEncodedString()]
    }
}

/// When to add, activate and retire signing keys.
///
/// A new key is published `prepublish` before it signs anything, and the public-key endpoints are cached for at
/// most `prepublish`, so a verifier that cached the keys always knows the signer. A replaced key stays published
/// until every token it signed has expired (`tokenLifetime` + `leeway` after its successor took over).
public struct KeyRotationPolicy: Sendable, Equatable {
    /// How long a key signs before the next one takes over.
    public var rotationInterval: TimeInterval
    /// How long a key is published before it signs.
    public var prepublish: TimeInterval
    /// ID-token lifetime.
    public var tokenLifetime: TimeInterval
    /// Extra time a retired key stays published (clock skew of verifiers).
    public var leeway: TimeInterval

    public init(rotationInterval: TimeInterval = 86_400, prepublish: TimeInterval = 3_600, tokenLifetime: TimeInterval = 3_600, leeway: TimeInterval = 300) {
        self.rotationInterval = max(rotationInterval, prepublish * 2)
        self.prepublish = prepublish
        self.tokenLifetime = tokenLifetime
        self.leeway = leeway
    }

    /// What the ring must do now.
    public struct Plan: Sendable, Equatable {
        /// The key that signs now (nil only when there is no key at all).
        public var active: SigningKey?
        /// A key to generate: its generation and activation time.
        public var generate: (generation: Int, activatesAt: Date)?
        /// Generations that may be deleted: no unexpired token was signed by them.
        public var remove: [Int]
        /// Keys to publish.
        public var published: [SigningKey]

        public static func == (lhs: Plan, rhs: Plan) -> Bool {
            lhs.active == rhs.active && lhs.remove == rhs.remove && lhs.published == rhs.published
                && lhs.generate?.generation == rhs.generate?.generation && lhs.generate?.activatesAt == rhs.generate?.activatesAt
        }
    }

    /// The certificate lifetime for a key activating at `activatesAt`.
    public func certificateExpiry(activatesAt: Date) -> Date {
        activatesAt.addingTimeInterval(rotationInterval * 2 + tokenLifetime + leeway + 86_400)
    }

    /// Decides the active key, a key to add and keys to drop, for `keys` at `now`.
    public func plan(keys: [SigningKey], now: Date) -> Plan {
        let sorted = keys.sorted { $0.generation < $1.generation }
        guard let newest = sorted.last else {
            return Plan(active: nil, generate: (1, now), remove: [], published: [])
        }
        let activeKeys = sorted.filter { $0.activatesAt <= now }
        let active = activeKeys.last ?? sorted.first!
        var generate: (Int, Date)?
        let hasPending = newest.activatesAt > now
        if !hasPending, now >= active.activatesAt.addingTimeInterval(rotationInterval - prepublish) {
            let activation = max(now.addingTimeInterval(prepublish), active.activatesAt.addingTimeInterval(rotationInterval))
            generate = (newest.generation + 1, activation)
        }
        var remove: [Int] = []
        for (index, key) in sorted.enumerated() where key.generation < active.generation {
            let successor = sorted[index + 1]
            if now >= successor.activatesAt.addingTimeInterval(tokenLifetime + leeway) {
                remove.append(key.generation)
            }
        }
        let published = sorted.filter { !remove.contains($0.generation) }
        return Plan(active: active, generate: generate, remove: remove, published: published)
    }
}
