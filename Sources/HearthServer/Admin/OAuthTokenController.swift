import Foundation
import HTTPTypes
import HearthCore
import HearthStore
import HearthWire
import Hummingbird
import JWTKit
import Logging

/// `POST /oauth2.googleapis.com/token`: the OAuth 2 JWT-bearer grant (RFC 7523) that google-auth and
/// golang/oauth2 run with a service-account file whose `token_uri` points here. The assertion must be signed by
/// a registered service-account key. Errors are RFC 6749 bodies (`{"error", "error_description"}`).
struct OAuthTokenController {
    let configuration: HearthServerConfiguration
    let store: any HearthStore
    let keyRing: KeyRing
    let logger: Logger

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    struct GrantRequest: Decodable, Sendable {
        var grantType: String?
        var assertion: String?
        enum CodingKeys: String, CodingKey {
            case grantType = "grant_type"
            case assertion
        }
    }

    struct TokenResponse: Encodable, Sendable {
        var accessToken: String
        var expiresIn: Int
        var tokenType = "Bearer"
        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    struct OAuthError: Error, Encodable, Sendable {
        var error: String
        var errorDescription: String
        var status: HTTPResponse.Status = .badRequest
        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    /// The unverified claims of an assertion.
    struct AssertionClaims: JWTPayload {
        var iss: String
        var aud: String?
        var scope: String?
        var iat: Int64
        var exp: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    func register(on router: Router<HearthRequestContext>) {
        router.post(RouterPath(WirePaths.oauth2Token)) { request, context -> Response in
            do {
                let grant = try await RequestBody.decode(GrantRequest.self, from: request, context: context, limit: 64 * 1024)
                let token = try await issue(grant)
                return try JSONResponse(token).response(from: request, context: context)
            } catch let error as OAuthError {
                return try JSONResponse(error, status: error.status).response(from: request, context: context)
            } catch let error as HearthAPIError {
                return try JSONResponse(OAuthError(error: "invalid_request", errorDescription: error.description), status: .badRequest)
                    .response(from: request, context: context)
            }
        }
    }

    /// The audiences accepted in an assertion: Google's token URLs (google-auth always sends the first) and
    /// this endpoint on the public URL (golang/oauth2 sends `token_uri`).
    func acceptedAudiences() -> Set<String> {
        ["https://oauth2.googleapis.com/token", "https://www.googleapis.com/oauth2/v4/token",
         "https://accounts.google.com/o/oauth2/token", configuration.publicURL.url + WirePaths.oauth2Token]
    }

    func issue(_ grant: GrantRequest) async throws -> TokenResponse {
        guard let grantType = grant.grantType, !grantType.isEmpty else {
            throw OAuthError(error: "invalid_request", errorDescription: "grant_type is required")
        }
        guard grantType == Self.grantType else {
            throw OAuthError(error: "unsupported_grant_type", errorDescription: "only \(Self.grantType) is supported")
        }
        guard let assertion = grant.assertion, !assertion.isEmpty, assertion.utf8.count < 16 * 1024 else {
            throw OAuthError(error: "invalid_request", errorDescription: "assertion is required")
        }
        func invalid(_ why: String) -> OAuthError { OAuthError(error: "invalid_grant", errorDescription: why) }
        guard let header = KeyRing.header(of: assertion) else { throw invalid("the assertion is not a JWT") }
        guard header["alg"] == "RS256" else { throw invalid("the assertion must be signed with RS256") }
        let unverified: AssertionClaims
        do {
            unverified = try DefaultJWTParser().parse([UInt8](assertion.utf8), as: AssertionClaims.self).payload
        } catch {
            throw invalid("the assertion's claims are unreadable (iss, aud, iat, exp are required)")
        }
        var keys = try await store.serviceAccountKeys(clientEmail: unverified.iss)
        if let kid = header["kid"] { keys = keys.filter { $0.keyId == kid } }
        guard !keys.isEmpty else {
            logger.notice("token grant refused: unregistered service-account key", metadata: ["iss": "\(unverified.iss)"])
            throw invalid("Invalid JWT Signature: the signing key is not registered with this server (hearth service-accounts)")
        }
        var matched: (ServiceAccountKey, AssertionClaims)?
        for key in keys {
            guard let publicKey = key.rsaPublicKey else { continue }
            let collection = JWTKeyCollection()
            await collection.add(rsa: publicKey, digestAlgorithm: .sha256)
            if let claims = try? await collection.verify(assertion, as: AssertionClaims.self) {
                matched = (key, claims)
                break
            }
        }
        guard let (key, claims) = matched else { throw invalid("Invalid JWT Signature.") }
        guard let audience = claims.aud, acceptedAudiences().contains(audience) else {
            throw invalid("Invalid JWT: the audience must be this server's token URL")
        }
        let now = configuration.clock.now().timeIntervalSince1970
        guard Double(claims.exp) + 5 > now else { throw invalid("Invalid JWT: the assertion has expired") }
        guard Double(claims.iat) - 300 <= now, claims.exp > claims.iat, claims.exp - claims.iat <= 3600 + 5 else {
            throw invalid("Invalid JWT: iat and exp must be a lifetime of at most one hour around the current time")
        }
        let scopes = Set((claims.scope ?? "").split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: AdminAuthorizer.adminScopes) else {
            throw OAuthError(error: "invalid_scope", errorDescription: "ask for an admin scope: \(AdminAuthorizer.adminScopes.sorted().joined(separator: ", "))")
        }
        let issuedAt = Int64(now)
        let lifetime = Int64(configuration.adminAccessTokenLifetime)
        let access = AdminAccessTokenClaims(
            iss: AdminAccessTokenClaims.issuer, aud: AdminAccessTokenClaims.audience, sub: key.clientEmail, keyId: key.keyId,
            scope: scopes.sorted().joined(separator: " "), iat: issuedAt, exp: issuedAt + lifetime)
        let token = try await keyRing.sign(payload: access)
        logger.info("admin access token issued", metadata: ["service_account": "\(key.clientEmail)", "key_id": "\(key.keyId)"])
        return TokenResponse(accessToken: token, expiresIn: Int(lifetime))
    }
}
