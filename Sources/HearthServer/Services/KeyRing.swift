import Foundation
import HearthCore
import HearthStore
import HearthWire
import JWTKit
import Logging
import Synchronization

/// The ID-token signing keys: signs with the active key, verifies against every loaded key, renders the x509
/// map and the JWKS, and rotates keys per ``KeyRotationPolicy``. State lives in the store, so replicas share keys.
///
/// Requests read an immutable snapshot (keys and their built JWT key collection) behind a `Mutex`: signing and
/// verifying never wait for the store or for a rotation. ``maintain()`` — run at start and by the
/// background maintenance service — rotates, reloads and swaps the snapshot.
public final class KeyRing: Sendable {
    private let store: any SigningKeyStore
    private let policy: KeyRotationPolicy
    private let clock: WallClock
    private let logger: Logger
    private let metrics: HearthMetrics?
    /// At most one reload per this interval for tokens naming an unknown `kid` (forged kids cannot hammer the store).
    private let unknownKidReloadInterval: Duration
    /// Which RSA implementation signs (``RSASignerPreference``).
    private let signerPreference: RSASignerPreference
    private let snapshot = Mutex(Snapshot())
    private let lastUnknownKidReload = Mutex<ContinuousClock.Instant?>(nil)
    private let loggedSigner = Mutex(false)

    /// What requests read: replaced whole, never mutated.
    struct Snapshot: Sendable {
        var keys: [SigningKey] = []
        var kids: Set<String> = []
        var collection = JWTKeyCollection()
        /// The signer of each loaded key, by kid (OpenSSL 3 or swift-crypto, see ``RS256Signers``).
        var signers: [String: RS256TokenSigner] = [:]
        /// When the store read behind this snapshot started (an older read never replaces a newer one).
        var readAt: ContinuousClock.Instant?
    }

    public init(store: any SigningKeyStore, policy: KeyRotationPolicy, clock: WallClock, logger: Logger,
                unknownKidReloadInterval: Duration = .seconds(1), metrics: HearthMetrics? = nil,
                signer: RSASignerPreference = .auto) {
        self.store = store
        self.signerPreference = signer
        self.metrics = metrics
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.unknownKidReloadInterval = unknownKidReloadInterval
    }

    /// The published keys and how long clients may cache them.
    public struct Published: Sendable {
        public var keys: [SigningKey]
        public var maxAge: Int
    }

    /// Reloads the keys and applies the rotation plan (generate, delete) until nothing is left to do, then
    /// swaps the snapshot. Called at start and by the maintenance service, never on a request. It always reads
    /// the store (`force` is kept for source compatibility and has no effect).
    @discardableResult
    public func maintain() async throws -> KeyRotationPolicy.Plan {
        var keys = try await reload()
        for _ in 0..<4 {
            let plan = policy.plan(keys: keys, now: clock.now())
            var changed = false
            if let next = plan.generate {
                let key = try SigningKey.generate(generation: next.generation, now: clock.now(), activatesAt: next.activatesAt,
                                                  validUntil: policy.certificateExpiry(activatesAt: next.activatesAt))
                do {
                    try await store.insertSigningKey(key)
                    metrics?.count(.keyRotations)
                    logger.info("signing key added", metadata: ["kid": "\(key.kid)", "activates_at": "\(next.activatesAt)"])
                } catch StoreError.duplicateKeyGeneration {
                    // Another replica rotated first; take its key.
                }
                changed = true
            }
            if !plan.remove.isEmpty {
                try await store.deleteSigningKeys(generations: plan.remove)
                logger.info("retired signing keys removed", metadata: ["generations": "\(plan.remove)"])
                changed = true
            }
            if !changed { return plan }
            keys = try await reload()
        }
        return policy.plan(keys: keys, now: clock.now())
    }

    /// Reads the keys and installs a new snapshot when they changed. Returns the keys read.
    @discardableResult
    private func reload() async throws -> [SigningKey] {
        let started = ContinuousClock.now
        let keys = try await store.signingKeys()
        let kids = Set(keys.map(\.kid))
        let current = snapshot.withLock { $0 }
        var next = Snapshot(keys: keys, kids: kids, collection: current.collection, signers: current.signers, readAt: started)
        if kids != current.kids {
            let fresh = JWTKeyCollection()
            var signers: [String: RS256TokenSigner] = [:]
            for key in keys {
                await fresh.add(rsa: try key.jwtPrivateKey(), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
                let made = try RS256Signers.make(pem: key.privateKeyPEM, preference: signerPreference)
                if let reason = made.fallbackReason, !loggedSigner.withLock({ $0 }) {
                    logger.notice("RS256 tokens are signed with swift-crypto", metadata: ["why_not_openssl": "\(reason)"])
                }
                signers[key.kid] = try RS256TokenSigner(kid: key.kid, signer: made.signer)
            }
            if let any = signers.values.first, !loggedSigner.withLock({ logged in defer { logged = true }; return logged }) {
                logger.info("RS256 signer", metadata: ["implementation": "\(any.signer.implementation)"])
            }
            next.collection = fresh
            next.signers = signers
        }
        snapshot.withLock { installed in
            if let readAt = installed.readAt, readAt > started { return }
            installed = next
        }
        return keys
    }

    /// Loads the stored keys without rotating them (no key is made or removed): for a command that signs with the
    /// server's keys (`hearth project hooks test`), where ``maintain()`` would write.
    public func loadKeys() async throws {
        try await reload()
    }

    /// Whether a key that signs now is loaded (`GET /readyz`).
    public var hasActiveKey: Bool {
        let current = snapshot.withLock { $0 }
        return policy.plan(keys: current.keys, now: clock.now()).active != nil
    }

    /// Signs `claims` with the active key (RS256, `kid` header).
    public func sign(_ claims: IDTokenClaims) async throws -> String {
        try await sign(payload: claims)
    }

    /// Signs any payload with the active key (RS256, `kid` header): ID tokens, session cookies, admin access tokens.
    public func sign<Payload: JWTPayload>(payload: Payload) async throws -> String {
        let current = snapshot.withLock { $0 }
        guard let active = policy.plan(keys: current.keys, now: clock.now()).active else {
            throw HearthAPIError(.unavailable, "no signing key is active yet (the server is starting); try again shortly")
        }
        if let signer = current.signers[active.kid] { return try signer.sign(payload) }
        return try await current.collection.sign(payload, kid: JWKIdentifier(string: active.kid), header: ["typ": "JWT"])
    }

    /// Which RSA implementation signs with the active key: `openssl 3.0.19` or `swift-crypto` (nil before a key loads).
    public var signerImplementation: String? {
        let current = snapshot.withLock { $0 }
        guard let active = policy.plan(keys: current.keys, now: clock.now()).active else { return nil }
        return current.signers[active.kid]?.signer.implementation
    }

    /// Verifies the signature of one of Hearth's own ID tokens and decodes it. Only RS256 with a loaded `kid` is
    /// accepted. Issuer, audience and time are checked by the caller (`IDTokenClaims.validate`).
    public func verify(_ token: String) async throws(TokenValidationError) -> IDTokenClaims {
        try await verify(token, as: IDTokenClaims.self)
    }

    /// Verifies the signature of a token signed by ``sign(payload:)`` and decodes it; the caller checks its
    /// issuer, audience and times. Only RS256 with a loaded `kid` is accepted.
    public func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws(TokenValidationError) -> Payload {
        guard let header = JWTHeaderFields(token: token) else { throw .malformed }
        guard header.alg == "RS256" else { throw .badSignature }
        guard let kid = header.kid else { throw .unknownKey }
        var current = snapshot.withLock { $0 }
        if !current.kids.contains(kid) {
            // Another replica may have added a key: reload, at most once per interval.
            let now = ContinuousClock.now
            let due = lastUnknownKidReload.withLock { last in
                if let last, now - last < unknownKidReloadInterval { return false }
                last = now
                return true
            }
            if due { _ = try? await reload() }
            current = snapshot.withLock { $0 }
            guard current.kids.contains(kid) else { throw .unknownKey }
        }
        do {
            return try await current.collection.verify(token, as: Payload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
    }

    /// A JWT header's `alg`, `kid` and `typ` as strings (``JWTHeaderFields``, the one header parser); nothing verified.
    static func header(of token: String) -> [String: String]? {
        guard let header = JWTHeaderFields(token: token) else { return nil }
        return ["alg": header.alg, "kid": header.kid, "typ": header.typ].compactMapValues { $0 }
    }

    /// The keys to publish, and the cache lifetime for the key endpoints.
    public func published() async throws -> Published {
        let current = snapshot.withLock { $0 }
        return Published(keys: policy.plan(keys: current.keys, now: clock.now()).published, maxAge: Int(policy.prepublish))
    }
}
