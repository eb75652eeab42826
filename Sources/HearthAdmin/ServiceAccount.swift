import Foundation
import HearthWire
import JWTKit

/// A Google-format service-account key file (`hearth service-accounts create` writes one): signs custom tokens
/// and the JWT-bearer assertions that obtain admin access tokens.
public struct ServiceAccount: Sendable {
    public let projectId: String?
    public let clientEmail: String
    public let privateKeyId: String
    /// The OAuth 2 token endpoint (`<Hearth public URL>/oauth2.googleapis.com/token`).
    public let tokenURI: String
    private let keys: JWTKeyCollection

    struct File: Decodable {
        var type: String?
        var project_id: String?
        var private_key_id: String
        var private_key: String
        var client_email: String
        var token_uri: String?
    }

    /// Errors reading a key file.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Reads the JSON key file's contents.
    public init(json: Data) async throws {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: json)
        } catch {
            throw Error(description: "not a service-account key file (private_key, private_key_id and client_email are required)")
        }
        guard file.type == nil || file.type == "service_account" else { throw Error(description: "the file's type is not service_account") }
        let key: Insecure.RSA.PrivateKey
        do {
            key = try Insecure.RSA.PrivateKey(pem: file.private_key)
        } catch {
            throw Error(description: "private_key is not an RSA private key in PEM")
        }
        projectId = file.project_id
        clientEmail = file.client_email
        privateKeyId = file.private_key_id
        tokenURI = file.token_uri ?? "https://oauth2.googleapis.com/token"
        keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: file.private_key_id))
    }

    /// Reads a JSON key file.
    public init(contentsOf path: String) async throws {
        try await self.init(json: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A custom token for `uid` (RS256, `kid` = the key id, one hour), for `signInWithCustomToken`.
    /// `claims` must not use reserved names (`sub`, `iss`, `firebase`, …). With `tenantId`, the token carries it as
    /// `tenant_id` (as the Admin SDKs' tenant-aware `createCustomToken`) and signs in to that tenant only — with
    /// `Auth.tenantID` set to it; `tenantId` follows ``AdminClient/forTenant(_:)``'s rules (not empty, no control or
    /// format characters).
    public func createCustomToken(uid: String, claims: [String: JSONValue]? = nil, tenantId: String? = nil,
                                  now: Date = Date()) async throws -> String {
        guard !uid.isEmpty, uid.utf8.count <= 128 else { throw Error(description: "a uid is 1 to 128 characters") }
        if let name = claims?.keys.sorted().first(where: CustomTokenClaims.reservedClaimNames.contains) {
            throw Error(description: "'\(name)' is a reserved claim")
        }
        if let tenantId {
            do { try AdminClient.checkTenantId(tenantId) } catch { throw Error(description: error.message) }
        }
        var payload = CustomTokenClaims(serviceAccount: clientEmail, uid: uid, claims: claims, issuedAt: now)
        payload.tenantId = tenantId
        return try await keys.sign(CustomToken(claims: payload), kid: JWKIdentifier(string: privateKeyId), header: ["typ": "JWT"])
    }

    /// The JWT-bearer assertion (RFC 7523) for the token endpoint.
    func assertion(scope: String, now: Date) async throws -> String {
        let iat = Int64(now.timeIntervalSince1970)
        return try await keys.sign(Assertion(iss: clientEmail, aud: tokenURI, scope: scope, iat: iat, exp: iat + 3600),
                                   kid: JWKIdentifier(string: privateKeyId), header: ["typ": "JWT"])
    }

    /// HearthWire's ``CustomTokenClaims`` as a JWT payload to sign (the format is defined once, there).
    struct CustomToken: JWTPayload {
        var claims: CustomTokenClaims
        init(claims: CustomTokenClaims) { self.claims = claims }
        init(from decoder: any Decoder) throws { claims = try CustomTokenClaims(from: decoder) }
        func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct Assertion: JWTPayload {
        var iss: String
        var aud: String
        var scope: String
        var iat: Int64
        var exp: Int64
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
