import Crypto
import Foundation
import HearthCore
import JWTKit

/// Why a Sign in with Apple private key (`.p8`) or its identifiers were refused. The messages name the problem and
/// never contain any part of the key.
public enum AppleKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a PEM block (`-----BEGIN PRIVATE KEY-----` … `-----END PRIVATE KEY-----`).
    case notPEM
    /// The PEM block is a public key or a certificate, not the private key Apple lets you download once.
    case publicKey
    /// The PEM block holds an RSA key; Apple's keys are P-256 (ES256).
    case rsaKey
    /// The PEM block holds an elliptic-curve key on another curve than P-256.
    case notP256
    /// The PEM block could not be read as a P-256 private key.
    case unreadable
    /// An identifier (key id, team id, services id) is empty or malformed.
    case invalidIdentifier(String)
    /// The requested lifetime is not between one minute and six months (Apple's maximum, 15 777 000 seconds).
    case invalidLifetime

    public var description: String {
        switch self {
        case .notPEM:
            "the Apple private key is not a PEM file: upload the .p8 file Apple gave you (it starts with -----BEGIN PRIVATE KEY-----)"
        case .publicKey:
            "the file holds a public key or certificate: upload the private key (.p8) downloaded from Certificates, Identifiers & Profiles → Keys"
        case .rsaKey:
            "the file holds an RSA key: Sign in with Apple keys are P-256 elliptic-curve keys (.p8)"
        case .notP256:
            "the file holds an elliptic-curve key on another curve: Sign in with Apple keys are P-256 (.p8)"
        case .unreadable:
            "the file could not be read as a P-256 private key (PKCS#8): upload the .p8 file exactly as Apple gave it"
        case .invalidIdentifier(let field):
            "the Apple \(field) is missing or malformed"
        case .invalidLifetime:
            "an Apple client secret lives between one minute and six months (15777000 seconds)"
        }
    }
}

/// A Sign in with Apple key: the developer's `.p8` private key (P-256) with its key id, the team id and the
/// services id (the web client id) it signs client secrets for.
public struct AppleSigningKey: Sendable {
    /// The key's identifier (10 characters, shown beside the key at Apple), the JWT header's `kid`.
    public let keyId: String
    /// The Apple Developer team id, the client secret's `iss`.
    public let teamId: String
    /// The services id (or bundle id) the client secret is for, its `sub` (the token request's `client_id`).
    public let clientId: String
    let privateKey: P256.Signing.PrivateKey

    /// Reads `p8` (PKCS#8 PEM; SEC1 `EC PRIVATE KEY` PEM is accepted too) and checks the identifiers.
    public init(p8 pem: String, keyId: String, teamId: String, clientId: String) throws(AppleKeyError) {
        self.privateKey = try Self.parse(p8: pem)
        func checked(_ value: String, _ field: String) throws(AppleKeyError) -> String {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 256,
                  trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { throw .invalidIdentifier(field) }
            return trimmed
        }
        self.keyId = try checked(keyId, "key id")
        self.teamId = try checked(teamId, "team id")
        self.clientId = try checked(clientId, "services id")
    }

    /// The public half, PEM (what a provider checking the client secret holds; the dev Apple provider gets it).
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// The public half.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// A P-256 private key from a `.p8` PEM text, with a precise reason when it is not one.
    public static func parse(p8 pem: String) throws(AppleKeyError) -> P256.Signing.PrivateKey {
        let text = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let begin = text.range(of: "-----BEGIN "), let dashes = text.range(of: "-----", range: begin.upperBound..<text.endIndex),
              text.range(of: "-----END ") != nil
        else { throw .notPEM }
        let label = String(text[begin.upperBound..<dashes.lowerBound])
        switch label {
        case "PUBLIC KEY", "CERTIFICATE", "EC PUBLIC KEY", "RSA PUBLIC KEY": throw .publicKey
        case "RSA PRIVATE KEY": throw .rsaKey
        case "PRIVATE KEY", "EC PRIVATE KEY": break
        case "ENCRYPTED PRIVATE KEY": throw .unreadable
        default: throw .notPEM
        }
        // The algorithm inside a PKCS#8 block, for a precise message (the parse below is the real check).
        // `isNewline`: a pasted key arrives with CRLF from a form, and "\r\n" is one Character.
        let body = text[dashes.upperBound...].split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body.trimmingCharacters(in: .whitespacesAndNewlines), options: .ignoreUnknownCharacters) else {
            throw .notPEM
        }
        let bytes = [UInt8](der)
        if contains(bytes, Self.rsaEncryptionOID) { throw .rsaKey }
        if contains(bytes, Self.ecPublicKeyOID) || label == "EC PRIVATE KEY", !contains(bytes, Self.prime256v1OID) { throw .notP256 }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw .unreadable
        }
    }

    // DER-encoded object identifiers (tag, length, value).
    static let rsaEncryptionOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKeyOID: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let prime256v1OID: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { start in bytes[start..<(start + pattern.count)].elementsEqual(pattern) }
    }
}

/// The claims of the client secret Apple's token and revoke endpoints want.
struct AppleClientSecretClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Mints Apple's `client_secret`: an ES256 JWT (header `kid`; claims `iss` team id, `sub` client id, `aud`
/// `https://appleid.apple.com`, `iat`, `exp`) signed with the developer's `.p8` key. A minted secret is kept and
/// handed out again until less than a tenth of its lifetime (at least a minute) is left, then a new one is minted.
public actor AppleClientSecret {
    /// Apple's maximum client secret lifetime: six months, in seconds.
    public static let maximumLifetime: TimeInterval = 15_777_000
    /// Apple's audience for client secrets.
    public static let appleAudience = "https://appleid.apple.com"

    public let key: AppleSigningKey
    /// The `aud` claim: Apple's, or the `endpointBase` that stands in for Apple (a dev or test provider).
    public let audience: String
    public let lifetime: TimeInterval
    private let clock: WallClock
    private let signer: JWTKeyCollection
    private var cached: (secret: String, expiresAt: Date)?

    /// A minter for `key`; `lifetime` defaults to one hour and must not exceed six months.
    public init(key: AppleSigningKey, audience: String = AppleClientSecret.appleAudience, lifetime: TimeInterval = 3600,
                clock: WallClock = .system) async throws(AppleKeyError) {
        guard lifetime >= 60, lifetime <= Self.maximumLifetime else { throw .invalidLifetime }
        self.key = key
        self.audience = audience
        self.lifetime = lifetime
        self.clock = clock
        let signer = JWTKeyCollection()
        // A P-256 key always makes a valid jwt-kit key.
        await signer.add(ecdsa: try! ES256PrivateKey(backing: key.privateKey), kid: JWKIdentifier(string: key.keyId))
        self.signer = signer
    }

    /// The current client secret (minted now, or the cached one while it has enough life left).
    public func secret() async throws -> String {
        let now = clock.now()
        if let cached, cached.expiresAt.timeIntervalSince(now) > max(60, lifetime / 10), cached.expiresAt.timeIntervalSince(now) <= lifetime {
            return cached.secret
        }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt.addingTimeInterval(lifetime)
        let claims = AppleClientSecretClaims(iss: IssuerClaim(value: key.teamId), sub: SubjectClaim(value: key.clientId),
                                             aud: AudienceClaim(value: [audience]), iat: IssuedAtClaim(value: issuedAt),
                                             exp: ExpirationClaim(value: expiresAt))
        let secret = try await signer.sign(claims, kid: JWKIdentifier(string: key.keyId))
        cached = (secret, expiresAt)
        return secret
    }
}
