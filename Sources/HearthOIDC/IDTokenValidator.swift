import Foundation
import HearthCore
import HearthWire
import JWTKit

/// The claims of an upstream ID token, as decoded JSON.
struct UpstreamClaims: JWTPayload {
    var values: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        // Checked by `IDTokenValidator` with the expected issuer, audience, nonce and an injectable clock.
    }
}

/// How the `iss` claim is checked.
public enum IssuerRule: Sendable, Equatable {
    /// The issuer must equal this string.
    case exact(String)
    /// Microsoft's multi-tenant template (`…/{tenantid}/v2.0`): `{tenantid}` is replaced by the token's `tid`,
    /// which must be a GUID; `excludedEntraTenant` (the consumer tenant, for `organizations`) is refused.
    case microsoftTemplate(String, excludedEntraTenant: String?)
    /// Microsoft with the administrator's tenant allow-list: the token's `tid` must be allowed, then the
    /// wrapped rule applies. Every Microsoft ID token Hearth accepts is checked here (code exchange, link,
    /// reauthentication, and any other path that validates with the resolved provider's rule).
    indirect case entraTenantAllowList(IssuerRule, EntraTenantAllowList)
    /// The issuer must be one of these exact strings (Google signs with `https://accounts.google.com` and
    /// `accounts.google.com`).
    case oneOf([String])

    func expectedIssuer(claims: [String: JSONValue]) throws -> String {
        switch self {
        case .entraTenantAllowList(let rule, let list):
            guard let tid = claims["tid"]?.stringValue, UUID(uuidString: tid) != nil else {
                throw RelyingPartyError.idToken("the ID token has no valid tenant id (tid)")
            }
            guard list.allows(tid: tid) else {
                throw RelyingPartyError(.entraTenantNotAllowed, "accounts of Microsoft tenant \(tid.lowercased()) are not allowed to sign in to this app")
            }
            return try rule.expectedIssuer(claims: claims)
        case .exact(let issuer): return issuer
        case .oneOf(let issuers):
            guard let issuer = claims["iss"]?.stringValue, issuers.contains(issuer) else {
                throw RelyingPartyError.idToken("the ID token's issuer is not the provider's")
            }
            return issuer
        case .microsoftTemplate(let template, let excluded):
            guard let tid = claims["tid"]?.stringValue, UUID(uuidString: tid) != nil else {
                throw RelyingPartyError.idToken("the ID token has no valid tenant id (tid)")
            }
            if let excluded, tid.lowercased() == excluded.lowercased() {
                throw RelyingPartyError.idToken("accounts of tenant \(tid) are not allowed for this request")
            }
            return template.replacingOccurrences(of: "{tenantid}", with: tid)
        }
    }
}

/// How an ID token's `nonce` is checked.
enum NonceRule: Sendable, Equatable {
    /// The relying party's own sign-in: the token's nonce must be this one.
    case exact(String)
    /// A natively obtained token: when the app sent a raw nonce, the token's nonce must be its SHA-256 (hex);
    /// a token that carries a nonce needs the raw nonce it was made from (a token from someone else's sign-in —
    /// Hearth's own code flow hands its ID token to the app — is then not a bearer credential). A token without
    /// a nonce is accepted without one (replays are caught by the used-token record).
    case rawNonce(String?)
    /// A token Hearth received straight from the provider's token endpoint for a code the app obtained natively:
    /// the nonce is the app's own business and is not checked (the token is not a credential there; it only says
    /// whose grant the code was).
    case notChecked
}

extension RelyingParty {
    /// The prefix of every nonce Hearth sends in its own code flow: a token carrying one is never accepted as a
    /// native credential, whatever the app sends with it.
    public static let ownFlowNoncePrefix = "hearth-flow."

    /// A fresh nonce for one of Hearth's own sign-ins.
    public static func ownFlowNonce() -> String { ownFlowNoncePrefix + RandomID.token(byteCount: 24) }
}

/// Validates an upstream provider's ID token: signature from the provider's JWKS (RS256/ES256 only, never
/// `none` or HMAC), exact issuer, audience (and `azp` with several audiences), `exp`/`iat` with a small skew,
/// `sub`, and `nonce`.
struct IDTokenValidator: Sendable {
    let jwks: JWKSCache
    let clock: WallClock
    /// Clock skew allowed on `exp`, `iat` and `nbf`.
    static let skewAllowance: TimeInterval = 300
    let skew: TimeInterval = IDTokenValidator.skewAllowance
    let maximumAge: TimeInterval = 86_400

    static let allowedAlgorithms: [String: String] = ["RS256": "RSA", "ES256": "EC"]

    func validate(_ token: String, jwksURI: String, issuer rule: IssuerRule, clientId: String, nonce: String) async throws -> [String: JSONValue] {
        try await validate(token, jwksURI: jwksURI, issuer: rule, audiences: [clientId], nonce: .exact(nonce))
    }

    /// Validates `token` for any of `audiences` (the provider's client ID first, then allowed native client IDs),
    /// with the nonce checked by `nonce`.
    func validate(_ token: String, jwksURI: String, issuer rule: IssuerRule, audiences allowed: [String], nonce: NonceRule) async throws -> [String: JSONValue] {
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            throw RelyingPartyError.idToken("the ID token is not a JWT")
        }
        guard let header = JWTHeaderFields(token: token), let alg = header.alg else {
            throw RelyingPartyError.idToken("the ID token is not a JWT")
        }
        guard let keyType = Self.allowedAlgorithms[alg] else {
            throw RelyingPartyError.idToken("the ID token's algorithm \(alg) is not accepted")
        }
        let key = try await jwks.key(uri: jwksURI, kid: header.kid)
        let jwk = key.jwk
        guard jwk["kty"]?.stringValue == keyType else { throw RelyingPartyError.idToken("the ID token's algorithm does not match its key") }
        if let keyAlg = jwk["alg"]?.stringValue, keyAlg != alg { throw RelyingPartyError.idToken("the ID token's algorithm does not match its key") }
        let claims: [String: JSONValue]
        do {
            guard let verifier = key.verifier else { throw RelyingPartyError.idToken("the provider's key is unusable") }
            claims = try await verifier.verify(token, as: UpstreamClaims.self).values
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw RelyingPartyError.idToken("the ID token's signature is invalid")
        } catch {
            throw RelyingPartyError.idToken("the ID token could not be verified")
        }

        let expectedIssuer = try rule.expectedIssuer(claims: claims)
        guard claims["iss"]?.stringValue == expectedIssuer else { throw RelyingPartyError.idToken("the ID token's issuer is not the provider's") }
        if let keyIssuer = jwk["issuer"]?.stringValue, keyIssuer.replacingOccurrences(of: "{tenantid}", with: claims["tid"]?.stringValue ?? "") != expectedIssuer {
            throw RelyingPartyError.idToken("the signing key belongs to another issuer")
        }
        let audiences: [String] = switch claims["aud"] {
        case .string(let audience)?: [audience]
        case .array(let list)?: list.compactMap(\.stringValue)
        default: []
        }
        guard let clientId = allowed.first(where: { audiences.contains($0) }) else {
            throw RelyingPartyError.idToken("the ID token was issued to another client")
        }
        if audiences.count > 1, claims["azp"]?.stringValue != clientId {
            throw RelyingPartyError.idToken("the ID token's authorized party is another client")
        }
        let now = clock.now().timeIntervalSince1970
        guard case .number(let exp)? = claims["exp"], case .number(let iat)? = claims["iat"] else {
            throw RelyingPartyError.idToken("the ID token lacks exp or iat")
        }
        guard exp + skew > now else { throw RelyingPartyError.idToken("the ID token has expired") }
        guard iat - skew <= now, now - iat <= maximumAge else { throw RelyingPartyError.idToken("the ID token's issue time is not plausible") }
        if case .number(let nbf)? = claims["nbf"], nbf - skew > now { throw RelyingPartyError.idToken("the ID token is not valid yet") }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else { throw RelyingPartyError.idToken("the ID token has no subject") }
        switch nonce {
        case .notChecked:
            break
        case .exact(let expected):
            guard let tokenNonce = claims["nonce"]?.stringValue, tokenNonce == expected else {
                throw RelyingPartyError.idToken("the ID token's nonce does not match the sign-in request")
            }
        case .rawNonce(let raw):
            if let tokenNonce = claims["nonce"]?.stringValue, tokenNonce.hasPrefix(RelyingParty.ownFlowNoncePrefix) {
                throw RelyingPartyError(.nonce, "the ID token comes from a sign-in through Hearth's auth handler: it is not a credential; sign in through the auth handler again")
            }
            if let raw {
                // Firebase's rule: the token carries the SHA-256 (lower-case hex) of the raw nonce the app sent.
                guard let tokenNonce = claims["nonce"]?.stringValue, tokenNonce == WireDigest.sha256Hex(raw) else {
                    throw RelyingPartyError(.nonce, "the ID token's nonce is not the SHA-256 of the nonce the app sent")
                }
            } else if claims["nonce"] != nil {
                throw RelyingPartyError(.nonce, "the ID token carries a nonce: send the raw nonce it was made from (nonce in postBody; the token carries its SHA-256)")
            }
        }
        return claims
    }
}
