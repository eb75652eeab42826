import Foundation
import HearthCore

/// The fields of an OpenID Provider's discovery document Hearth uses.
public struct DiscoveryDocument: Codable, Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var userinfoEndpoint: String?
    /// The scopes the provider advertises (`offline_access` means it gives refresh tokens for it).
    public var scopesSupported: [String]?
    /// How the token endpoint authenticates clients (absent: `client_secret_basic`, OpenID Connect Discovery's default).
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// The token revocation endpoint (RFC 7009), when the provider publishes one.
    public var revocationEndpoint: String? = nil

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case scopesSupported = "scopes_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpoint = "revocation_endpoint"
    }
}

/// Discovery documents, cached for an hour per URL.
actor DiscoveryCache {
    private let http: UpstreamHTTP
    private let clock: WallClock
    private var entries: [String: (document: DiscoveryDocument, fetchedAt: Date)] = [:]
    private let lifetime: TimeInterval = 3600

    init(http: UpstreamHTTP, clock: WallClock) {
        self.http = http
        self.clock = clock
    }

    func document(at url: String) async throws -> DiscoveryDocument {
        let now = clock.now()
        if let entry = entries[url], now.timeIntervalSince(entry.fetchedAt) < lifetime, entry.fetchedAt <= now {
            return entry.document
        }
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.get(url)
        } catch {
            throw RelyingPartyError(.discovery, "the provider's discovery document could not be fetched (\(UpstreamHTTP.describe(error, url: url)))")
        }
        guard reply.status == 200 else {
            throw RelyingPartyError(.discovery, "the provider's discovery document could not be fetched (HTTP: \(url) answered \(reply.status))")
        }
        guard let document = try? JSONDecoder().decode(DiscoveryDocument.self, from: reply.body) else {
            throw RelyingPartyError(.discovery, "the provider's discovery document is unusable (HTTP \(reply.status))")
        }
        entries[url] = (document, now)
        return document
    }
}
