import AsyncHTTPClient
import Foundation
import HearthWire
import JWTKit
import NIOCore
import NIOHTTP1

/// A verified Firebase ID token or session cookie.
public struct VerifiedToken: Sendable, Equatable {
    /// The user's uid (`sub`).
    public var uid: String
    /// Every claim of the token, custom claims included.
    public var claims: [String: JSONValue]
    public var issuedAt: Date
    public var expiresAt: Date
    public var authTime: Date
    /// `firebase.sign_in_provider`: `password`, `custom`, `microsoft.com`, …
    public var signInProvider: String?
    public var email: String? { claims["email"]?.stringValue }
}

/// Why a token was refused. `description` says what to do; it never holds the token.
public struct TokenVerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case malformed, unknownKey, badSignature, wrongIssuer, wrongAudience, expired, notYetValid, revoked, userDisabled, keysUnavailable
    }
    public var reason: Reason
    public var description: String
    public init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}

/// Verifies Firebase ID tokens and session cookies issued by Hearth or by Google: RS256 with a published `kid`,
/// issuer, audience, times and subject, with the public keys fetched once and cached as their `Cache-Control`
/// allows (an unknown `kid` refetches, at most every `minimumRefetchInterval`).
public actor TokenVerifier {
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
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private let leeway: TimeInterval
    private let minimumRefetchInterval: TimeInterval

    private struct KeySet {
        var collection: JWTKeyCollection
        var kids: Set<String>
        var fetchedAt: Date
        var expiresAt: Date
    }
    private var keySets: [String: KeySet] = [:]

    /// - Parameters:
    ///   - projectId: the Firebase project id (`aud`).
    ///   - leeway: clock skew tolerated on `exp`, `iat` and `auth_time`.
    public init(projectId: String, keySource: KeySource, httpClient: HTTPClient = .shared, leeway: TimeInterval = 5,
                minimumRefetchInterval: TimeInterval = 30, now: @escaping @Sendable () -> Date = { Date() }) {
        self.projectId = projectId
        self.keySource = keySource
        self.httpClient = httpClient
        self.leeway = leeway
        self.minimumRefetchInterval = minimumRefetchInterval
        self.now = now
    }

    /// Verifies an ID token (`iss = https://securetoken.google.com/<project>`).
    public func verifyIDToken(_ token: String) async throws(TokenVerificationError) -> VerifiedToken {
        try await verify(token, issuer: "https://securetoken.google.com/\(projectId)", keysURL: keySource.idTokenCertificatesURL)
    }

    /// Verifies a session cookie (`iss = https://session.firebase.google.com/<project>`).
    public func verifySessionCookie(_ cookie: String) async throws(TokenVerificationError) -> VerifiedToken {
        try await verify(cookie, issuer: "https://session.firebase.google.com/\(projectId)", keysURL: keySource.sessionCookieCertificatesURL)
    }

    /// Verifies the token, then asks the admin API whether the user is disabled or its sessions were revoked
    /// after the token was issued.
    public func verifyIDToken(_ token: String, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        let verified = try await verifyIDToken(token)
        try await Self.checkRevoked(verified, admin: admin)
        return verified
    }

    /// ``verifySessionCookie(_:)`` plus the revocation check.
    public func verifySessionCookie(_ cookie: String, checkRevokedWith admin: AdminClient) async throws -> VerifiedToken {
        let verified = try await verifySessionCookie(cookie)
        try await Self.checkRevoked(verified, admin: admin)
        return verified
    }

    static func checkRevoked(_ token: VerifiedToken, admin: AdminClient) async throws {
        guard let user = try await admin.getUser(uid: token.uid) else {
            throw TokenVerificationError(.revoked, "the user no longer exists")
        }
        if user.disabled { throw TokenVerificationError(.userDisabled, "the user is disabled") }
        if let validSince = Int64(user.validSince), Int64(token.issuedAt.timeIntervalSince1970) < validSince {
            throw TokenVerificationError(.revoked, "the user's sessions were revoked after this token was issued")
        }
    }

    private func verify(_ token: String, issuer: String, keysURL: String) async throws(TokenVerificationError) -> VerifiedToken {
        guard let kid = Self.kid(of: token) else {
            throw TokenVerificationError(.malformed, "not an RS256 JWT with a kid")
        }
        let keys = try await keySet(keysURL, kid: kid)
        let payload: FirebaseTokenPayload
        do {
            payload = try await keys.verify(token, as: FirebaseTokenPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw TokenVerificationError(.badSignature, "the signature does not verify")
        } catch {
            throw TokenVerificationError(.malformed, "the token could not be read")
        }
        let claims = payload.claims
        guard claims["iss"]?.stringValue == issuer else { throw TokenVerificationError(.wrongIssuer, "the issuer is not \(issuer)") }
        guard claims["aud"]?.stringValue == projectId else { throw TokenVerificationError(.wrongAudience, "the audience is not \(projectId)") }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty, sub.utf8.count <= 128 else {
            throw TokenVerificationError(.malformed, "sub must be 1 to 128 characters")
        }
        guard case .number(let exp)? = claims["exp"], case .number(let iat)? = claims["iat"] else {
            throw TokenVerificationError(.malformed, "exp and iat are required")
        }
        let authTime: Double
        if case .number(let value)? = claims["auth_time"] { authTime = value } else { authTime = iat }
        let moment = now().timeIntervalSince1970
        guard exp + leeway > moment else { throw TokenVerificationError(.expired, "the token has expired") }
        guard iat - leeway <= moment, authTime - leeway <= moment else {
            throw TokenVerificationError(.notYetValid, "the token is issued in the future")
        }
        let provider = claims["firebase"]?.objectValue?["sign_in_provider"]?.stringValue
        return VerifiedToken(uid: sub, claims: claims, issuedAt: Date(timeIntervalSince1970: iat), expiresAt: Date(timeIntervalSince1970: exp),
                             authTime: Date(timeIntervalSince1970: authTime), signInProvider: provider)
    }

    /// The key set holding `kid`, fetched when missing, expired, or lacking the kid (rate-limited).
    private func keySet(_ url: String, kid: String) async throws(TokenVerificationError) -> JWTKeyCollection {
        let moment = now()
        if let cached = keySets[url], cached.expiresAt > moment,
           cached.kids.contains(kid) || moment.timeIntervalSince(cached.fetchedAt) < minimumRefetchInterval {
            guard cached.kids.contains(kid) else { throw TokenVerificationError(.unknownKey, "no published key has kid \(kid)") }
            return cached.collection
        }
        let fresh = try await fetch(url)
        keySets[url] = fresh
        guard fresh.kids.contains(kid) else { throw TokenVerificationError(.unknownKey, "no published key has kid \(kid)") }
        return fresh.collection
    }

    private func fetch(_ url: String) async throws(TokenVerificationError) -> KeySet {
        do {
            let response = try await httpClient.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw TokenVerificationError(.keysUnavailable, "\(url) answered \(response.status.code)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            guard let map = try? JSONDecoder().decode([String: String].self, from: Data(body.readableBytesView)) else {
                throw TokenVerificationError(.keysUnavailable, "\(url) is not a kid → certificate map")
            }
            let collection = JWTKeyCollection()
            for (kid, pem) in map {
                let key = try Insecure.RSA.PublicKey(certificatePEM: pem)
                await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            }
            let maxAge = Self.maxAge(response.headers["cache-control"].first) ?? 0
            let moment = now()
            return KeySet(collection: collection, kids: Set(map.keys), fetchedAt: moment, expiresAt: moment.addingTimeInterval(TimeInterval(maxAge)))
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

    /// The `kid` of an RS256 JWT header, else nil.
    static func kid(of token: String) -> String? {
        guard let dot = token.firstIndex(of: ".") else { return nil }
        var text = String(token[..<dot]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text.append("=") }
        guard let data = Data(base64Encoded: text),
              let header = try? JSONDecoder().decode([String: JSONValue].self, from: data),
              header["alg"]?.stringValue == "RS256"
        else { return nil }
        return header["kid"]?.stringValue
    }
}

/// Every claim of a Firebase token; checks are made by ``TokenVerifier`` with its clock.
struct FirebaseTokenPayload: JWTPayload {
    var claims: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        claims = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(claims)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
