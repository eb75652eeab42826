import Foundation
import HTTPTypes
import HearthCore
import HearthStore
import HearthWire
import Hummingbird
import JWTKit
import Logging
import NIOCore

/// Who made an admin call: recorded in the audit log.
public struct AdminPrincipal: Sendable, Equatable {
    /// `serviceAccount:<email>` or `emulator:owner`.
    public let actor: String

    /// The Admin SDKs' emulator credential (`Authorization: Bearer owner`).
    public static let emulatorOwner = AdminPrincipal(actor: "emulator:owner")
}

/// The claims of an admin API access token issued by Hearth's token endpoint: RS256 with the ID-token keys, but
/// with its own issuer and audience, so it can never pass for an ID token (nor an ID token for it).
struct AdminAccessTokenClaims: JWTPayload, Equatable {
    static let issuer = "hearth-oauth2"
    static let audience = "hearth-admin-api"

    var iss: String
    var aud: String
    /// The service account's email.
    var sub: String
    /// The service-account key that signed the grant: the token dies with the key.
    var keyId: String
    var scope: String
    var iat: Int64
    var exp: Int64

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, scope, iat, exp
        case keyId = "sa_kid"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        // Checked with the server's clock by `AdminAuthorizer`.
    }
}

/// Decides whether a request may call the admin API: an access token from ``OAuthTokenController`` (production),
/// or the emulator credential `Bearer owner` where the configuration allows it.
struct AdminAuthorizer: Sendable {
    let configuration: HearthServerConfiguration
    let store: any HearthStore
    let keyRing: KeyRing

    /// Scopes any of which grants the admin API.
    static let adminScopes: Set<String> = [
        "https://www.googleapis.com/auth/identitytoolkit",
        "https://www.googleapis.com/auth/firebase",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    func authorize(_ request: Request, context: HearthRequestContext) async throws -> AdminPrincipal {
        guard let header = request.headers[.authorization] else {
            throw HearthAPIError(.unauthenticated, "Request is missing required authentication credential. Expected an OAuth 2 access token from \(WirePaths.oauth2Token) (service-account JWT-bearer grant)")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw HearthAPIError(.unauthenticated, "expected 'Authorization: Bearer <access token>'")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        if token.lowercased() == "owner" {
            return try authorizeEmulatorOwner(request, context: context)
        }
        return try await authorizeAccessToken(token)
    }

    /// `INVALID_PROJECT_ID` unless `projectId` is the project this server serves.
    func checkProject(_ projectId: String) throws {
        guard projectId == configuration.projectId else {
            throw HearthAPIError(.invalidProjectId, "this server serves project \(configuration.projectId), not \(projectId)")
        }
    }

    /// Whether `Bearer owner` and unsigned custom tokens are accepted from this client.
    func emulatorCredentialsAllowed(_ request: Request, context: HearthRequestContext) -> Bool {
        configuration.emulatorAdminEnabled && (configuration.emulatorAdminAllowRemote || Self.isLocalClient(request, context: context))
    }

    private func authorizeEmulatorOwner(_ request: Request, context: HearthRequestContext) throws -> AdminPrincipal {
        guard configuration.emulatorAdminEnabled else {
            throw HearthAPIError(.unauthenticated, "'Bearer owner' is the Firebase emulator credential: it is accepted only for demo-* projects or when the server runs with --emulator-admin")
        }
        guard configuration.emulatorAdminAllowRemote || Self.isLocalClient(request, context: context) else {
            throw HearthAPIError(.insufficientPermission, "the emulator credential is accepted only from programs on this machine that reach the server as localhost or 127.0.0.1 directly (no browser Origin, no proxy headers); see --emulator-admin-allow-remote")
        }
        return .emulatorOwner
    }

    private func authorizeAccessToken(_ token: String) async throws -> AdminPrincipal {
        let claims: AdminAccessTokenClaims
        do {
            claims = try await keyRing.verify(token, as: AdminAccessTokenClaims.self)
        } catch {
            throw HearthAPIError(.unauthenticated, "Request had invalid authentication credentials. Expected an OAuth 2 access token from \(WirePaths.oauth2Token)")
        }
        let now = configuration.clock.now().timeIntervalSince1970
        guard claims.iss == AdminAccessTokenClaims.issuer, claims.aud == AdminAccessTokenClaims.audience else {
            throw HearthAPIError(.unauthenticated, "the token is not an access token of this server")
        }
        guard Double(claims.exp) > now, Double(claims.iat) - 5 <= now else {
            throw HearthAPIError(.unauthenticated, "the access token has expired; fetch a new one")
        }
        let scopes = Set(claims.scope.split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: Self.adminScopes) else {
            throw HearthAPIError(.insufficientPermission, "the access token lacks an admin scope (identitytoolkit, firebase or cloud-platform)")
        }
        // The key may have been removed since the token was issued.
        let keys = try await store.serviceAccountKeys(clientEmail: claims.sub)
        guard keys.contains(where: { $0.keyId == claims.keyId }) else {
            throw HearthAPIError(.unauthenticated, "the service-account key of this access token is no longer registered")
        }
        return AdminPrincipal(actor: "serviceAccount:\(claims.sub)")
    }

    /// A client on this machine: a loopback peer that is not a reverse proxy forwarding someone else's request
    /// (`Forwarded` / `X-Forwarded-For` present).
    /// A client on this machine talking to Hearth directly, as the Admin SDKs do: a loopback peer, no proxy header
    /// (a same-host proxy forwards other machines' requests), a loopback `Host` (DNS rebinding makes a web page's
    /// requests reach 127.0.0.1 under another name) and no `Origin` (a web page the developer visits is a loopback
    /// peer too; the Admin SDKs never send one).
    /// `allowingOrigin`: a browser page on this machine counts too (its `Origin` is the caller's to check): the
    /// unsigned custom tokens of a demo project, which the Firebase emulator accepts from web apps.
    static func isLocalClient(_ request: Request, context: HearthRequestContext, allowingOrigin: Bool = false) -> Bool {
        guard isLoopback(context.remoteAddress) else { return false }
        let proxyHeaders = ["Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-IP", "Via"] + (allowingOrigin ? [] : ["Origin"])
        guard proxyHeaders.allSatisfy({ request.headers[HTTPField.Name($0)!] == nil }) else { return false }
        guard let host = request.head.authority else { return false }
        return isLoopbackHostName(host)
    }

    /// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
    static func isLoopbackHostName(_ authority: String) -> Bool {
        var host = authority.lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let ip = address?.ipAddress else { return false }
        return ip == "::1" || ip.hasPrefix("127.") || ip.hasPrefix("::ffff:127.")
    }
}
