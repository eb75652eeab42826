import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthWire
import JWTKit

/// Deliberate protocol violations a test can switch on in-process, to show the relying party refusing them.
/// Not reachable over HTTP or from the CLI.
public struct DevMisbehavior: Sendable {
    /// Changes the ID token's claims before signing (wrong `aud`, `iss`, `nonce`, `tid`, expired `exp`, ...).
    public var mutateClaims: (@Sendable (inout [String: JSONValue]) -> Void)?
    /// Signs ID tokens with a key the JWKS never publishes.
    public var signWithUnpublishedKey = false
    /// Sends `alg: none` ID tokens.
    public var unsignedTokens = false
    /// Corrupts the ID token's signature.
    public var corruptSignature = false
    /// Answers UserInfo / Graph with another subject.
    public var profileSubject: String?

    public init() {}
}

/// The state of one dev provider: pending login forms, codes, access tokens and signing keys.
actor DevIdPState {
    struct PendingRequest: Sendable {
        var clientId: String
        var redirectUri: String
        var state: String?
        var nonce: String?
        var codeChallenge: String?
        var scope: String
        var entraTenant: String?
        var createdAt: Date
        /// Provider-specific parts of the request and the login (Apple's `response_mode`, "hide my email", ...).
        var extra: [String: String] = [:]
    }

    struct IssuedCode: Sendable {
        var request: PendingRequest
        var email: String
        var name: String
        var expiresAt: Date
        var used: Bool
    }

    /// An access token's contents: the token is this, sealed (``grant(email:name:clientId:now:lifetime:)``).
    struct Grant: Codable, Sendable {
        var email: String
        var name: String
        var clientId: String
        var expiresAt: Date
    }

    struct SigningKey: Sendable {
        var kid: String
        var keys: JWTKeyCollection
        var jwk: [String: String]
        /// RSA keys sign with Hearth's own RS256 signer (OpenSSL 3 when present), as Hearth's tokens do.
        var rs256: RS256TokenSigner?
    }

    let algorithm: String
    private(set) var signingKeys: [SigningKey] = []
    private var pending: [String: PendingRequest] = [:]
    private var codes: [String: IssuedCode] = [:]
    /// When each form and code may go, in the order they were made (see ``ExpiryQueue``).
    private var pendingExpiry = ExpiryQueue()
    private var codeExpiry = ExpiryQueue()
    /// How long an unsubmitted login form is kept.
    static let pendingLifetime: TimeInterval = 900
    /// How long a code is redeemable.
    static let codeLifetime: TimeInterval = 600
    /// Seals access tokens (a random per-process key): a token carries its own grant, so none is kept in memory
    /// for its hour (thousands of sign-ins a minute would otherwise pile up for an hour).
    private let accessTokenKey = SymmetricKey(size: .bits256)
    /// Refresh tokens issued at or before this are refused.
    private var refreshTokensRevokedBefore: TimeInterval = 0
    /// Refresh grants answered.
    private(set) var refreshGrants = 0
    var misbehavior = DevMisbehavior()

    init(algorithm: String) async throws {
        self.algorithm = algorithm
        try await rotateKeys()
    }

    /// Adds a new signing key; the previous ones stay published.
    func rotateKeys() async throws {
        signingKeys.insert(try await Self.makeKey(algorithm: algorithm), at: 0)
        if signingKeys.count > 3 { signingKeys.removeLast() }
    }

    static func makeKey(algorithm: String) async throws -> SigningKey {
        let kid = RandomID.alphanumeric(count: 16)
        let keys = JWTKeyCollection()
        let jwk: [String: String]
        var rs256: RS256TokenSigner?
        if algorithm == "ES256" {
            let key = P256.Signing.PrivateKey()
            let raw = key.publicKey.rawRepresentation
            try await keys.add(ecdsa: ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
            jwk = ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                   "x": Data(raw.prefix(32)).base64URLEncodedString(), "y": Data(raw.suffix(32)).base64URLEncodedString()]
        } else {
            let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let key = try Insecure.RSA.PrivateKey(backing: backing)
            rs256 = try RS256TokenSigner(kid: kid, signer: RS256Signers.make(pem: backing.pemRepresentation, preference: .auto).signer)
            let (n, e) = try key.publicKey.getKeyPrimitives()
            await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            // Microsoft's keys carry no `alg`.
            jwk = ["kty": "RSA", "use": "sig", "kid": kid, "n": n.base64URLEncodedString(), "e": e.base64URLEncodedString()]
        }
        return SigningKey(kid: kid, keys: keys, jwk: jwk, rs256: rs256)
    }

    func setMisbehavior(_ value: DevMisbehavior) { misbehavior = value }

    func addPending(_ request: PendingRequest) -> String {
        // Forms never submitted and expired codes (used or not: either way they are refused) do not pile up.
        // Removed in place: copying both dictionaries on every authorize cost O(codes) per sign-in, and the copies'
        // changing sizes grew the malloc arenas by 18–42 MB once codes began to expire in the soak.
        pendingExpiry.removeExpired(at: request.createdAt) { pending.removeValue(forKey: $0) }
        codeExpiry.removeExpired(at: request.createdAt) { codes.removeValue(forKey: $0) }
        let id = RandomID.token(byteCount: 16)
        pending[id] = request
        pendingExpiry.append(id, expiresAt: request.createdAt.addingTimeInterval(Self.pendingLifetime))
        return id
    }

    /// Forms and codes held (the tests' view of the pruning).
    var heldCounts: (pending: Int, codes: Int) { (pending.count, codes.count) }

    func takePending(_ id: String) -> PendingRequest? {
        pending.removeValue(forKey: id)
    }

    func issueCode(_ request: PendingRequest, email: String, name: String, now: Date) -> String {
        let code = "devcode." + RandomID.token(byteCount: 24)
        let expiresAt = now.addingTimeInterval(Self.codeLifetime)
        codes[code] = IssuedCode(request: request, email: email, name: name, expiresAt: expiresAt, used: false)
        codeExpiry.append(code, expiresAt: expiresAt)
        return code
    }

    enum Redemption {
        case ok(IssuedCode)
        case unknown
        case redeemed
        case expired
    }

    /// Single use: a second redemption fails (and so would the tokens of a stolen code).
    func redeem(_ code: String, now: Date) -> Redemption {
        guard var issued = codes[code] else { return .unknown }
        if issued.used { return .redeemed }
        issued.used = true
        codes[code] = issued
        return issued.expiresAt > now ? .ok(issued) : .expired
    }

    /// A new access token: the grant sealed with AES-GCM under this provider's per-process key.
    func grant(email: String, name: String, clientId: String, now: Date, lifetime: TimeInterval) throws -> String {
        let grant = Grant(email: email, name: name, clientId: clientId, expiresAt: now.addingTimeInterval(lifetime))
        guard let sealed = try AES.GCM.seal(JSONEncoder().encode(grant), using: accessTokenKey).combined else { throw DevRefreshGrantError() }
        return "devat." + sealed.base64URLEncodedString()
    }

    func revokeRefreshTokens(before moment: Date) { refreshTokensRevokedBefore = moment.timeIntervalSince1970 }

    func refreshTokenUsable(issuedAt: TimeInterval) -> Bool { issuedAt > refreshTokensRevokedBefore }

    func countRefreshGrant() { refreshGrants += 1 }

    func grant(for token: String, now: Date) -> Grant? {
        guard token.hasPrefix("devat."), token.utf8.count < 4096, let data = Data(base64URLEncoded: token.dropFirst(6)),
              let box = try? AES.GCM.SealedBox(combined: data), let plaintext = try? AES.GCM.open(box, using: accessTokenKey),
              let grant = try? JSONDecoder().decode(Grant.self, from: plaintext), grant.expiresAt > now
        else { return nil }
        return grant
    }

    /// Signs `claims` with the current key (or misbehaves as told).
    func sign(_ claims: [String: JSONValue]) async throws -> String {
        var claims = claims
        misbehavior.mutateClaims?(&claims)
        let payload = DevClaims(values: claims)
        if misbehavior.unsignedTokens {
            let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URLEncodedString()
            let body = try JSONEncoder().encode(JSONValue.object(claims)).base64URLEncodedString()
            return "\(header).\(body)."
        }
        let key = misbehavior.signWithUnpublishedKey ? try await Self.makeKey(algorithm: algorithm) : signingKeys[0]
        var token = if let rs256 = key.rs256 { try rs256.sign(payload) }
            else { try await key.keys.sign(payload, kid: JWKIdentifier(string: key.kid), header: ["typ": "JWT"]) }
        if misbehavior.corruptSignature {
            let flipped: Character = token.last == "A" ? "B" : "A"
            token = String(token.dropLast(4)) + String(repeating: flipped, count: 4)
        }
        return token
    }

    func jwks() -> [[String: String]] { signingKeys.map(\.jwk) }
}

/// A dev ID token's claims.
struct DevClaims: JWTPayload {
    var values: [String: JSONValue]

    init(values: [String: JSONValue]) { self.values = values }

    init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// What a dev refresh token carries, sealed (AES-GCM) under a key derived from the client secret: no state on the
/// provider, so a refresh token outlives a restart of the server as the real providers' do.
struct DevRefreshGrant: Codable, Sendable {
    var email: String
    var name: String
    var clientId: String
    var scope: String
    var issuedAt: TimeInterval
    var expiresAt: TimeInterval

    static func key(secret: String) -> SymmetricKey {
        SymmetricKey(data: WireDigest.sha256("hearth.dev-idp.refresh-token\u{0}\(secret)"))
    }

    func seal(secret: String) throws -> String {
        let box = try AES.GCM.seal(try JSONEncoder().encode(self), using: Self.key(secret: secret))
        guard let combined = box.combined else { throw DevRefreshGrantError() }
        return "devrt." + combined.base64URLEncodedString()
    }

    static func open(_ token: String, secret: String) -> DevRefreshGrant? {
        guard token.hasPrefix("devrt."), let data = Data(base64URLEncoded: token.dropFirst(6)),
              let box = try? AES.GCM.SealedBox(combined: data), let plaintext = try? AES.GCM.open(box, using: key(secret: secret))
        else { return nil }
        return try? JSONDecoder().decode(DevRefreshGrant.self, from: plaintext)
    }
}

struct DevRefreshGrantError: Error {}

/// Keys in the order they were made, each with the moment it may be dropped. Every entry of one queue has the same
/// lifetime, so making order is expiry order and pruning pops from the front: O(1) amortized, nothing copied. An
/// entry that is not yet due stops the pass, so a clock that steps back only delays pruning, never drops early.
struct ExpiryQueue {
    private var entries: [(key: String, expiresAt: Date)] = []
    private var head = 0

    /// Entries queued and not yet popped (including those whose key is already gone from its dictionary).
    var count: Int { entries.count - head }

    mutating func append(_ key: String, expiresAt: Date) {
        entries.append((key, expiresAt))
    }

    /// Pops every entry due at or before `now`, oldest first, handing each key to `remove`.
    mutating func removeExpired(at now: Date, _ remove: (String) -> Void) {
        while head < entries.count, entries[head].expiresAt <= now {
            remove(entries[head].key)
            head += 1
        }
        // Compact once the popped prefix is most of the array, so memory follows the live entries.
        if head >= 64, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
