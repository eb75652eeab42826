import HearthCore
import HearthWire
import Hummingbird

/// The ID-token verification keys: the x509 certificate map (what the Firebase admin SDKs read) and a JWKS,
/// both with `Cache-Control: public, max-age=…` no longer than the key pre-publication time. Session cookies are
/// signed with the same keys, published again where Google publishes the session-cookie keys.
struct PublicKeysController {
    let keyRing: KeyRing

    struct JWKSet: Encodable, Sendable {
        var keys: [[String: String]]
    }

    func register(on router: Router<HearthRequestContext>) {
        let certificates: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<[String: String]> = { _, _ in
            let published = try await keyRing.published()
            let map = Dictionary(uniqueKeysWithValues: published.keys.map { ($0.kid, $0.certificatePEM) })
            return JSONResponse(map, cacheControl: "public, max-age=\(published.maxAge), must-revalidate, no-transform")
        }
        let jwks: @Sendable (Request, HearthRequestContext) async throws -> JSONResponse<JWKSet> = { _, _ in
            let published = try await keyRing.published()
            return JSONResponse(JWKSet(keys: try published.keys.map { try $0.publicJWK() }),
                                cacheControl: "public, max-age=\(published.maxAge), must-revalidate, no-transform")
        }
        for path in [WirePaths.x509Certificates, WirePaths.sessionCookieCertificates] { router.get(RouterPath(path), use: certificates) }
        for path in [WirePaths.jwks, WirePaths.wellKnownJWKS, WirePaths.sessionCookieJWKS] { router.get(RouterPath(path), use: jwks) }
    }
}
