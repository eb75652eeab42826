import Foundation
import HearthCore
import HearthStore
import JWTKit
import Logging

/// The ID-token signing keys: signs with the active key, verifies against every published key, renders the
/// x509 map and the JWKS, and rotates keys per ``KeyRotationPolicy``. State lives in the store, so replicas
/// share keys; this actor caches it for `reloadInterval`.
public actor KeyRing {
    private let store: any SigningKeyStore
    private let policy: KeyRotationPolicy
    private let clock: WallClock
    private let logger: Logger
    private let reloadInterval: TimeInterval

    private var keys: [SigningKey] = []
    private var collection = JWTKeyCollection()
    private var loadedAt: Date?
    private var publishedKIDs: Set<String> = []

    public init(store: any SigningKeyStore, policy: KeyRotationPolicy, clock: WallClock, logger: Logger, reloadInterval: TimeInterval = 30) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.reloadInterval = reloadInterval
    }

    /// The published keys and how long clients may cache them.
    public struct Published: Sendable {
        public var keys: [SigningKey]
        public var maxAge: Int
    }

    /// Loads keys and applies the rotation plan (generate, delete) until nothing is left to do.
    @discardableResult
    public func maintain(force: Bool = false) async throws -> KeyRotationPolicy.Plan {
        let now = clock.now()
        if force || loadedAt.map({ now.timeIntervalSince($0) >= reloadInterval || $0 > now }) ?? true {
            try await reload()
        }
        for _ in 0..<4 {
            let plan = policy.plan(keys: keys, now: clock.now())
            var changed = false
            if let next = plan.generate {
                let key = try SigningKey.generate(generation: next.generation, now: clock.now(), activatesAt: next.activatesAt,
                                                  validUntil: policy.certificateExpiry(activatesAt: next.activatesAt))
                do {
                    try await store.insertSigningKey(key)
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
            try await reload()
        }
        return policy.plan(keys: keys, now: clock.now())
    }

    private func reload() async throws {
        keys = try await store.signingKeys()
        loadedAt = clock.now()
        let kids = Set(keys.map(\.kid))
        if kids != publishedKIDs {
            let fresh = JWTKeyCollection()
            for key in keys {
                await fresh.add(rsa: try key.jwtPrivateKey(), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
            }
            collection = fresh
            publishedKIDs = kids
        }
    }

    /// Signs `claims` with the active key (RS256, `kid` header).
    public func sign(_ claims: IDTokenClaims) async throws -> String {
        let plan = try await maintain()
        guard let active = plan.active else { throw StoreError.backend("no signing key") }
        return try await collection.sign(claims, kid: JWKIdentifier(string: active.kid), header: ["typ": "JWT"])
    }

    /// Signs any payload with the active key (RS256, `kid` header): session cookies, admin access tokens.
    public func sign<Payload: JWTPayload>(payload: Payload) async throws -> String {
        let plan = try await maintain()
        guard let active = plan.active else { throw StoreError.backend("no signing key") }
        return try await collection.sign(payload, kid: JWKIdentifier(string: active.kid), header: ["typ": "JWT"])
    }

    /// Verifies the signature of a token signed by ``sign(payload:)`` and decodes it; the caller checks its
    /// issuer, audience and times.
    public func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws(TokenValidationError) -> Payload {
        guard let header = Self.header(of: token) else { throw .malformed }
        guard header["alg"] == "RS256" else { throw .badSignature }
        guard let kid = header["kid"] else { throw .unknownKey }
        if !publishedKIDs.contains(kid) {
            _ = try? await maintain(force: true)
            guard publishedKIDs.contains(kid) else { throw .unknownKey }
        }
        do {
            return try await collection.verify(token, as: Payload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
    }

    /// Verifies the signature of one of Hearth's own ID tokens and decodes it. Only RS256 with a published `kid`
    /// is accepted. Issuer, audience and time are checked by the caller (`IDTokenClaims.validate`).
    public func verify(_ token: String) async throws(TokenValidationError) -> IDTokenClaims {
        guard let header = Self.header(of: token) else { throw .malformed }
        guard header["alg"] == "RS256" else { throw .badSignature }
        guard let kid = header["kid"] else { throw .unknownKey }
        if !publishedKIDs.contains(kid) {
            _ = try? await maintain(force: true)
            guard publishedKIDs.contains(kid) else { throw .unknownKey }
        }
        do {
            return try await collection.verify(token, as: IDTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
    }

    /// The keys to publish, and the cache lifetime for the key endpoints.
    public func published() async throws -> Published {
        let plan = try await maintain()
        return Published(keys: plan.published, maxAge: Int(policy.prepublish))
    }

    /// Decodes a JWT header's string fields without verifying anything.
    nonisolated static func header(of token: String) -> [String: String]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Data(base64URL: String(parts[0])),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object.compactMapValues { $0 as? String }
    }
}

extension Data {
    /// Decodes base64url with or without padding.
    init?(base64URL: String) {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text.append("=") }
        self.init(base64Encoded: text)
    }
}
