import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import HearthWire
import JWTKit
import NIOCore
import NIOHTTP1
import Synchronization

/// A verified Firebase ID token or session cookie.
public struct VerifiedToken: Sendable, Equatable {
    /// The user's uid (`sub`).
    public var uid: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var authTime: Date
    /// `firebase.sign_in_provider`: `password`, `custom`, `microsoft.com`, …
    public var signInProvider: String?
    public var email: String?
    /// `firebase.tenant`: the Identity Platform tenant the user belongs to; nil for the project's own users.
    public var tenant: String?
    /// The payload's JSON, as signed.
    public var payload: Data

    /// Every claim of the token, custom claims included (decoded from ``payload`` on each access).
    public var claims: [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: payload)) ?? [:]
    }
}

/// Why a token was refused. `description` says what to do; it never holds the token.
public struct TokenVerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case malformed, unknownKey, badSignature, wrongIssuer, wrongAudience, expired, notYetValid, revoked, userDisabled, keysUnavailable
        /// The token verifies but belongs to another tenant than the one required (the Admin SDKs'
        /// `auth/mismatching-tenant-id`), or to a tenant where only the project's users are accepted.
        case wrongTenant
    }
    public var reason: Reason
    public var description: String
    public init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}

/// Which Identity Platform tenant's tokens a verification accepts (`firebase.tenant` of the token).
public enum TenantRequirement: Sendable, Equatable, CustomStringConvertible {
    /// The project's own users and the users of any of its tenants, as the Admin SDKs' project-level
    /// `verifyIdToken` accepts them; ``VerifiedToken/tenant`` says which. The default.
    case any
    /// The project's own users only: a tenant's token is refused (`wrongTenant`).
    case projectOnly
    /// The users of this tenant only, as the Admin SDKs' tenant-aware verification (`auth_for_tenant`,
    /// `TenantAwareAuth`): a token of another tenant or of the project is refused (`wrongTenant`). Compared as
    /// exact UTF-8 bytes; an empty id accepts nothing.
    case tenant(String)

    public var description: String {
        switch self {
        case .any: "any tenant or the project"
        case .projectOnly: "the project's own users"
        case .tenant(let id): "tenant '\(TenantRequirement.printable(id))'"
        }
    }

    /// Throws `wrongTenant` unless a token of `tenant` (nil: the project's users) meets the requirement.
    func check(_ tenant: String?) throws(TokenVerificationError) {
        switch self {
        case .any:
            return
        case .projectOnly:
            guard let tenant else { return }
            throw TokenVerificationError(.wrongTenant, "the token belongs to tenant '\(Self.printable(tenant))'; only the project's own users are accepted here")
        case .tenant(let expected):
            guard !expected.isEmpty else {
                throw TokenVerificationError(.wrongTenant, "no tenant id was given: name the tenant (e.g. acme-x7k2p), or require .projectOnly or .any")
            }
            guard let tenant else {
                throw TokenVerificationError(.wrongTenant, "the token belongs to the project's own users, not to tenant '\(Self.printable(expected))'")
            }
            // Bytes, not Characters: Swift's String equality would take a decomposed "é" for a precomposed one.
            guard tenant.utf8.elementsEqual(expected.utf8) else {
                throw TokenVerificationError(.wrongTenant, "the token belongs to tenant '\(Self.printable(tenant))', not to '\(Self.printable(expected))'")
            }
        }
    }

    /// A tenant id for a message: at most 64 characters, control and format characters (NUL, bidi overrides) as
    /// `?`.
    static func printable(_ id: String) -> String {
        let scalars = id.unicodeScalars.prefix(64).map { scalar -> Character in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: "?"
            default: Character(scalar)
            }
        }
        return String(scalars) + (id.unicodeScalars.count > 64 ? "…" : "")
    }
}

/// Verifies Firebase ID tokens and session cookies issued by Hearth or by Google: RS256 with a published `kid`,
/// issuer, audience, times and subject, with the public keys fetched once and cached as their `Cache-Control`
/// allows (an unknown `kid` refetches, at most every `minimumRefetchInterval`). Tokens of the project's tenants
/// are checked against ``tenant`` (``TenantRequirement``); ``forTenant(_:)`` makes a verifier for one tenant that
/// shares this one's keys.
public final class TokenVerifier: Sendable {
    /// Where the public keys are published.
    public struct KeySource: Sendable, Equatable {
        /// The x509 certificate map (kid → PEM) for ID tokens.
        public var idTokenCertificatesURL: String
        /// The x509 certificate map for session cookies.
        public var sessionCookieCertificatesURL: String

        public init(idTokenCertificatesURL: String, sessionCookieCertificatesURL: String) {
            self.idTokenCertificatesURL = idTokenCertificatesURL
            self.sessionCookieCertificatesURL = sessionCookieCertificatesURL
        }

        /// A Hearth server at `baseURL` (e.g. `https://auth.example.com`).
        public static func hearth(_ baseURL: String) -> KeySource {
            let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            return KeySource(idTokenCertificatesURL: base + WirePaths.x509Certificates,
                             sessionCookieCertificatesURL: base + WirePaths.sessionCookieCertificates)
        }

        /// Google's Firebase Authentication.
        public static let google = KeySource(
            idTokenCertificatesURL: "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            sessionCookieCertificatesURL: "https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys")
    }

    public let projectId: String
    public let keySource: KeySource
    /// Whose tokens ``verifyIDToken(_:)`` and ``verifySessionCookie(_:)`` accept (default: ``TenantRequirement/any``).
    public let tenant: TenantRequirement
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private let leeway: TimeInterval
    private let minimumRefetchInterval: TimeInterval
    /// The fetched keys, shared by the verifiers ``forTenant(_:)`` and ``requiring(_:)`` make.
    private let cache: KeyCache

    private struct KeySet {
        var keys: [String: _RSA.Signing.PublicKey]
        var fetchedAt: Date
        var expiresAt: Date
    }

    private final class KeyCache: Sendable {
        /// Fetched key sets by URL; verification with a cached key never suspends.
        let keySets = Mutex<[String: KeySet]>([:])
        /// Header segments seen before → their `kid` (tokens of one key share the header): at most 64 entries.
        let headerKids = Mutex<[ArraySlice<UInt8>: String]>([:])
    }
    private let decoder = JSONDecoder()

    /// - Parameters:
    ///   - projectId: the Firebase project id (`aud`).
    ///   - tenant: whose tokens to accept: any (the project's users and its tenants', the default), the
    ///     project's users only, or one tenant's.
    ///   - leeway: clock skew tolerated on `exp`, `iat` and `auth_time`.
    public convenience init(projectId: String, keySource: KeySource, tenant: TenantRequirement = .any, httpClient: HTTPClient = .shared,
                            leeway: TimeInterval = 5, minimumRefetchInterval: TimeInterval = 30,
                            now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(projectId: projectId, keySource: keySource, tenant: tenant, httpClient: httpClient, leeway: leeway,
                  minimumRefetchInterval: minimumRefetchInterval, now: now, cache: KeyCache())
    }

    private init(projectId: String, keySource: KeySource, tenant: TenantRequirement, httpClient: HTTPClient, leeway: TimeInterval,
                 minimumRefetchInterval: TimeInterval, now: @escaping @Sendable () -> Date, cache: KeyCache) {
        self.projectId = projectId
        self.keySource = keySource
        self.tenant = tenant
        self.httpClient = httpClient
        self.leeway = leeway
        self.minimumRefetchInterval = minimumRefetchInterval
        self.now = now
        self.cache = cache
    }

    /// A verifier of the same project and keys (the cache is shared) that accepts `requirement`'s tokens.
    public func requiring(_ requirement: TenantRequirement) -> TokenVerifier {
        TokenVerifier(projectId: projectId, keySource: keySource, tenant: requirement, httpClient: httpClient, leeway: leeway,
                      minimumRefetchInterval: minimumRefetchInterval, now: now, cache: cache)
    }

    /// A verifier for the users of one tenant (the Admin SDKs' `auth_for_tenant(tenant_id)` /
    /// `tenantManager().authForTenant(tenantId)`): a token whose `firebase.tenant` is not `tenantId` is refused
    /// with `wrongTenant`. Shares this verifier's keys.
    public func forTenant(_ tenantId: String) -> TokenVerifier {
        requiring(.tenant(tenantId))
    }

    /// Verifies an ID token (`iss = https://securetoken.google.com/<project>`) of a user ``tenant`` accepts.
    public func verifyIDToken(_ token: String) async throws(TokenVerificationError) -> VerifiedToken {
        try await verifyIDToken(token, tenant: tenant)
    }

    /// Verifies an ID token of a user `tenant` accepts (instead of the verifier's own ``tenant``).
    public func verifyIDToken(_ token: String, tenant: TenantRequirement) async throws(TokenVerificationError) -> VerifiedToken {
        let verified = try await verify(token, issuer: "https://securetoken.google.com/\(projectId)", keysURL: keySource.idTokenCertificatesURL)
        try tenant.check(verified.tenant)
        return verified
    }

    /// Verifies a session cookie (`iss = https://session.firebase.google.com/<project>`) of a user ``tenant`` accepts.
    public func verifySessionCookie(_ cookie: String) async throws(TokenVerificationError) -> VerifiedToken {
        try await verifySessionCookie(cookie, tenant: tenant)
    }

    /// Verifies a session cookie of a user `tenant` accepts (instead of the verifier's own ``tenant``).
    public func verifySessionCookie(_ cookie: String, tenant: TenantRequirement) async throws(TokenVerificationError) -> VerifiedToken {
        let verified = try await verify(cookie, issuer: "https://session.firebase.google.com/\(projectId)",
                                        keysURL: keySource.sessionCookieCertificatesURL)
        try tenant.check(verified.tenant)
        return verified
    }

    /// Verifies the token, then asks the admin API whether the user is disabled or its sessions were revoked
    /// after the token was issued (the user is looked up in the token's tenant).
    public func verifyIDToken(_ token: String, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        try await verifyIDToken(token, tenant: tenant, checkRevokedWith: admin)
    }

    /// ``verifyIDToken(_:tenant:)`` plus the revocation check.
    public func verifyIDToken(_ token: String, tenant: TenantRequirement, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        let verified = try await verifyIDToken(token, tenant: tenant)
        try await Self.checkRevoked(verified, admin: admin)
        return verified
    }

    /// ``verifySessionCookie(_:)`` plus the revocation check.
    public func verifySessionCookie(_ cookie: String, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        try await verifySessionCookie(cookie, tenant: tenant, checkRevokedWith: admin)
    }

    /// ``verifySessionCookie(_:tenant:)`` plus the revocation check.
    public func verifySessionCookie(_ cookie: String, tenant: TenantRequirement, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        let verified = try await verifySessionCookie(cookie, tenant: tenant)
        try await Self.checkRevoked(verified, admin: admin)
        return verified
    }

    /// Looks the token's user up in the token's tenant: through `admin` when it is bound to that tenant (or both
    /// are the project's), through a client for the tenant when `admin` is the project's; an `admin` bound to
    /// another tenant cannot see the user (`wrongTenant`).
    static func checkRevoked(_ token: VerifiedToken, admin: AdminClient) async throws {
        let lookup: AdminClient
        switch (admin.tenantId, token.tenant) {
        case (nil, nil): lookup = admin
        case (nil, let tenant?): lookup = try admin.forTenant(tenant)
        case (let bound?, let tenant):
            guard let tenant, tenant.utf8.elementsEqual(bound.utf8) else {
                throw TokenVerificationError(.wrongTenant, "the admin client is bound to tenant '\(TenantRequirement.printable(bound))' and cannot look up \(tenant.map { "a user of tenant '\(TenantRequirement.printable($0))'" } ?? "a user of the project")")
            }
            lookup = admin
        }
        guard let user = try await lookup.getUser(uid: token.uid) else {
            throw TokenVerificationError(.revoked, "the user no longer exists")
        }
        if user.disabled { throw TokenVerificationError(.userDisabled, "the user is disabled") }
        if let validSince = Int64(user.validSince), Int64(token.issuedAt.timeIntervalSince1970) < validSince {
            throw TokenVerificationError(.revoked, "the user's sessions were revoked after this token was issued")
        }
    }

    /// Parses, checks the RS256 signature with the cached key of its `kid` (swift-crypto, the keys parsed once),
    /// then decodes the claims the checks need.
    private func verify(_ token: String, issuer: String, keysURL: String) async throws(TokenVerificationError) -> VerifiedToken {
        let payloadData = try await signedPayload(token, keysURL: keysURL)
        let payload: FirebaseTokenPayload
        do {
            payload = try decoder.decode(FirebaseTokenPayload.self, from: payloadData)
        } catch {
            throw TokenVerificationError(.malformed, "the token could not be read (iss, aud, sub, iat and exp are required)")
        }
        guard payload.iss == issuer else { throw TokenVerificationError(.wrongIssuer, "the issuer is not \(issuer)") }
        guard payload.aud == projectId else { throw TokenVerificationError(.wrongAudience, "the audience is not \(projectId)") }
        guard !payload.sub.isEmpty, payload.sub.utf8.count <= 128 else {
            throw TokenVerificationError(.malformed, "sub must be 1 to 128 characters")
        }
        let authTime = payload.auth_time ?? payload.iat
        let moment = now().timeIntervalSince1970
        guard payload.exp + leeway > moment else { throw TokenVerificationError(.expired, "the token has expired") }
        guard payload.iat - leeway <= moment, authTime - leeway <= moment else {
            throw TokenVerificationError(.notYetValid, "the token is issued in the future")
        }
        // An empty `firebase.tenant` is the project's, as the server reads an empty `tenantId`.
        let tenant = payload.firebase?.tenant.flatMap { $0.isEmpty ? nil : $0 }
        return VerifiedToken(uid: payload.sub, issuedAt: Date(timeIntervalSince1970: payload.iat), expiresAt: Date(timeIntervalSince1970: payload.exp),
                             authTime: Date(timeIntervalSince1970: authTime), signInProvider: payload.firebase?.sign_in_provider,
                             email: payload.email, tenant: tenant, payload: payloadData)
    }

    /// The current time of this verifier's clock (blocking-function verification shares it).
    var currentDate: Date { now() }
    /// The clock skew tolerated on `exp` and `iat`.
    var clockLeeway: TimeInterval { leeway }

    /// Parses `token`, checks its RS256 signature with the published key of its `kid` from `keysURL` (fetched and
    /// cached as ``publicKey(_:kid:)`` does) and returns the payload's JSON bytes; no claim is checked. Any other
    /// `alg`, or no `kid`, is `malformed`.
    func signedPayload(_ token: String, keysURL: String) async throws(TokenVerificationError) -> Data {
        struct Header: Decodable {
            var alg: String?
            var kid: String?
        }
        // Bytes, not Characters: String.split by Character was a large part of the cost.
        let bytes = Array(token.utf8)
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
              let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[(second + 1)...].contains(UInt8(ascii: "."))
        else { throw TokenVerificationError(.malformed, "not a JWT") }
        let headerSegment = bytes[..<first]
        let kid: String
        if let known = cache.headerKids.withLock({ $0[headerSegment] }) {
            kid = known
        } else {
            guard let headerData = Self.base64URL(headerSegment),
                  let header = try? decoder.decode(Header.self, from: headerData), header.alg == "RS256", let headerKid = header.kid
            else { throw TokenVerificationError(.malformed, "not an RS256 JWT with a kid") }
            kid = headerKid
            cache.headerKids.withLock { kids in
                if kids.count >= 64 { kids.removeAll() }
                kids[headerSegment] = headerKid
            }
        }
        let key = try await publicKey(keysURL, kid: kid)
        guard let signature = Self.base64URL(bytes[(second + 1)...]), let payloadData = Self.base64URL(bytes[(first + 1)..<second]) else {
            throw TokenVerificationError(.malformed, "the token is not base64url")
        }
        let digest = bytes.withUnsafeBufferPointer { SHA256.hash(data: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[..<second]))) }
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest,
                                   padding: .insecurePKCS1v1_5)
        else { throw TokenVerificationError(.badSignature, "the signature does not verify") }
        return payloadData
    }

    /// The key `kid` from the set at `url`, fetched when missing, expired, or lacking the kid (rate-limited).
    private func publicKey(_ url: String, kid: String) async throws(TokenVerificationError) -> _RSA.Signing.PublicKey {
        let moment = now()
        let minimumRefetchInterval = minimumRefetchInterval
        let cached: Result<_RSA.Signing.PublicKey, TokenVerificationError>? = cache.keySets.withLock { sets in
            guard let set = sets[url], set.expiresAt > moment,
                  set.keys[kid] != nil || moment.timeIntervalSince(set.fetchedAt) < minimumRefetchInterval
            else { return nil }
            guard let key = set.keys[kid] else { return .failure(TokenVerificationError(.unknownKey, "no published key has kid \(kid)")) }
            return .success(key)
        }
        if let cached { return try cached.get() }
        let fresh = try await fetch(url)
        cache.keySets.withLock { $0[url] = fresh }
        guard let key = fresh.keys[kid] else { throw TokenVerificationError(.unknownKey, "no published key has kid \(kid)") }
        return key
    }

    private func fetch(_ url: String) async throws(TokenVerificationError) -> KeySet {
        do {
            let response = try await httpClient.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw TokenVerificationError(.keysUnavailable, "\(url) answered \(response.status.code)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            guard let map = try? JSONDecoder().decode([String: String].self, from: Data(body.readableBytesView)) else {
                throw TokenVerificationError(.keysUnavailable, "\(url) is not a kid → certificate map")
            }
            var keys: [String: _RSA.Signing.PublicKey] = [:]
            for (kid, pem) in map {
                // jwt-kit reads the certificate; swift-crypto verifies with the key's primitives.
                let (modulus, exponent) = try Insecure.RSA.PublicKey(certificatePEM: pem).getKeyPrimitives()
                keys[kid] = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
            }
            let maxAge = Self.maxAge(response.headers["cache-control"].first) ?? 0
            let moment = now()
            return KeySet(keys: keys, fetchedAt: moment, expiresAt: moment.addingTimeInterval(TimeInterval(maxAge)))
        } catch let error as TokenVerificationError {
            throw error
        } catch {
            throw TokenVerificationError(.keysUnavailable, "could not fetch the public keys from \(url)")
        }
    }

    /// `max-age` of a Cache-Control header.
    static func maxAge(_ header: String?) -> Int? {
        guard let header else { return nil }
        for part in header.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.hasPrefix("max-age="), let value = Int(item.dropFirst(8)) { return value }
        }
        return nil
    }

    /// Decodes base64url (padding optional) from the UTF-8 bytes directly: Foundation's string replacement made
    /// this the most expensive step of a verification.
    static func base64URL(_ text: ArraySlice<UInt8>) -> Data? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero padding (at most 4 bits).
        guard bits < 6, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return Data(output)
    }
}

/// The claims a verifier checks; the rest stays in ``VerifiedToken/payload``.
struct FirebaseTokenPayload: JWTPayload {
    var iss: String
    var aud: String
    var sub: String
    var iat: Double
    var exp: Double
    var auth_time: Double?
    var email: String?
    var firebase: Firebase?

    struct Firebase: Codable {
        var sign_in_provider: String?
        var tenant: String?
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
