import AsyncHTTPClient
import Foundation
import HearthWire
import NIOCore
import NIOHTTP1
import Synchronization

/// An error answered by the admin API: `code` is the Firebase error code (`USER_NOT_FOUND`, `EMAIL_EXISTS`, …).
public struct AdminError: Error, Sendable, CustomStringConvertible {
    public let httpStatus: Int
    public let code: String
    public let message: String
    public var description: String { "\(httpStatus) \(message)" }
}

/// The admin API of a Hearth server (or of Google's Identity Toolkit): users, claims, revocation, session
/// cookies. Authenticates with a service account (access tokens from its `token_uri`, cached until a minute
/// before expiry) or, against a `demo-*` project, with the emulator credential.
///
/// A client made with ``forTenant(_:)`` manages the users of one Identity Platform tenant (the Admin SDKs'
/// `auth_for_tenant` / `TenantAwareAuth`): its calls go to `projects/{p}/tenants/{t}/accounts…` and
/// `projects/{p}/tenants/{t}:createSessionCookie`, and its custom tokens carry `tenant_id`.
public actor AdminClient {
    /// How calls are authorized.
    public enum Credentials: Sendable {
        /// OAuth 2 access tokens obtained with the service account's key.
        case serviceAccount(ServiceAccount)
        /// `Authorization: Bearer owner` (demo-* projects, or servers run with `--emulator-admin`).
        case emulatorOwner
    }

    public let projectId: String
    /// The tenant whose users this client manages; nil: the project's own users.
    public nonisolated let tenantId: String?
    private let baseURL: String
    private let credentials: Credentials
    private let httpClient: HTTPClient
    /// The access token, shared with the clients ``forTenant(_:)`` makes.
    private let accessToken: AccessTokenCache

    private final class AccessTokenCache: Sendable {
        let value = Mutex<(token: String, expiresAt: Date)?>(nil)
    }

    /// - Parameter baseURL: the server, e.g. `https://auth.example.com` (Google: `https://identitytoolkit.googleapis.com`
    ///   is reached as `https://identitytoolkit.googleapis.com` with paths starting `/v1`; give Hearth's base URL here).
    public init(baseURL: String, projectId: String, credentials: Credentials, httpClient: HTTPClient = .shared) {
        self.init(baseURL: baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL, projectId: projectId, tenantId: nil,
                  credentials: credentials, httpClient: httpClient, accessToken: AccessTokenCache())
    }

    private init(baseURL: String, projectId: String, tenantId: String?, credentials: Credentials, httpClient: HTTPClient,
                 accessToken: AccessTokenCache) {
        self.baseURL = baseURL
        self.projectId = projectId
        self.tenantId = tenantId
        self.credentials = credentials
        self.httpClient = httpClient
        self.accessToken = accessToken
    }

    // MARK: Tenants

    /// A client for the users of tenant `tenantId` of this project (the Admin SDKs' `auth_for_tenant`), with the same
    /// server, credentials and cached access token. Throws `INVALID_TENANT_ID` (``AdminError/httpStatus`` 0, no
    /// request made) for an empty id, one over 128 bytes, or one with control or format characters (NUL, line
    /// breaks, bidi overrides); any other id is sent percent-encoded, and a tenant the server does not have is its
    /// `TENANT_NOT_FOUND`. A client already bound to a tenant makes one for the other tenant.
    public nonisolated func forTenant(_ tenantId: String) throws -> AdminClient {
        try Self.checkTenantId(tenantId)
        return AdminClient(baseURL: baseURL, projectId: projectId, tenantId: tenantId, credentials: credentials, httpClient: httpClient,
                           accessToken: accessToken)
    }

    static func checkTenantId(_ tenantId: String) throws(AdminError) {
        guard !tenantId.isEmpty else {
            throw AdminError(httpStatus: 0, code: "INVALID_TENANT_ID", message: "a tenant id is not empty: pass the tenant's id (e.g. acme-x7k2p)")
        }
        guard tenantId.utf8.count <= 128 else {
            throw AdminError(httpStatus: 0, code: "INVALID_TENANT_ID", message: "a tenant id is at most 128 bytes")
        }
        let refused: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        guard !tenantId.unicodeScalars.contains(where: { refused.contains($0.properties.generalCategory) }) else {
            throw AdminError(httpStatus: 0, code: "INVALID_TENANT_ID",
                             message: "a tenant id has no control or format characters (NUL, line breaks, bidi overrides)")
        }
    }

    /// `…/v1/projects/{p}/accounts[:method]`, or `…/v1/projects/{p}/tenants/{t}/accounts[:method]` for a tenant.
    private func accountsPath(_ method: String? = nil) -> String {
        guard let tenantId else { return WirePaths.adminAccounts(projectId: projectId, method) }
        return "\(WirePaths.identityToolkitV1)/projects/\(projectId)/tenants/\(Self.pathSegment(tenantId))/accounts" + (method.map { ":\($0)" } ?? "")
    }

    /// A path segment: everything but RFC 3986's unreserved characters percent-encoded (a `/`, `?` or `:` in a
    /// tenant id cannot change the path).
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }

    // MARK: Users

    /// The user, or nil when there is none.
    public func getUser(uid: String) async throws -> UserInfo? {
        try await send(.POST, accountsPath("lookup"), AdminLookupRequest(localId: [uid]), as: AdminLookupResponse.self).users?.first
    }

    public func getUser(email: String) async throws -> UserInfo? {
        try await send(.POST, accountsPath("lookup"), AdminLookupRequest(email: [email]), as: AdminLookupResponse.self).users?.first
    }

    /// Creates a user; returns its uid.
    @discardableResult
    public func createUser(_ request: AdminCreateUserRequest) async throws -> String {
        try await send(.POST, accountsPath(), request, as: SignUpResponse.self).localId
    }

    /// Changes admin fields of a user (`localId` must be set).
    public func updateUser(_ request: AdminUpdateRequest) async throws {
        _ = try await send(.POST, accountsPath("update"), request, as: AdminUpdateResponse.self)
    }

    /// Replaces the user's custom claims (nil clears them).
    public func setCustomClaims(uid: String, _ claims: [String: JSONValue]?) async throws {
        var request = AdminUpdateRequest(localId: uid)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        request.customAttributes = String(decoding: try encoder.encode(claims ?? [:]), as: UTF8.self)
        try await updateUser(request)
    }

    /// Ends every session of the user: tokens issued before now are refused.
    public func revokeRefreshTokens(uid: String, now: Date = Date()) async throws {
        var request = AdminUpdateRequest(localId: uid)
        request.validSince = FlexibleInt(Int64(now.timeIntervalSince1970))
        try await updateUser(request)
    }

    public func deleteUser(uid: String) async throws {
        _ = try await send(.POST, accountsPath("delete"), AdminDeleteRequest(localId: uid), as: AdminDeleteResponse.self)
    }

    /// One page of users ordered by uid; pass the returned token to get the next page (nil: last page).
    public func listUsers(maxResults: Int = 1000, pageToken: String? = nil) async throws -> (users: [UserInfo], nextPageToken: String?) {
        var path = accountsPath("batchGet") + "?maxResults=\(maxResults)"
        if let pageToken { path += "&nextPageToken=\(pageToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? pageToken)" }
        let page = try await send(.GET, path, Optional<EmptyResponse>.none, as: BatchGetResponse.self)
        return (page.users ?? [], page.nextPageToken)
    }

    /// A session cookie for a fresh ID token, valid `duration` (5 minutes to 14 days). A tenant's client refuses an
    /// ID token of another tenant or of the project (`TENANT_ID_MISMATCH`, ``AdminError/httpStatus`` 0) before
    /// sending it, as the Admin SDKs' tenant-aware `createSessionCookie` does; the server checks it again.
    public func createSessionCookie(idToken: String, duration: TimeInterval) async throws -> String {
        var path = "\(WirePaths.identityToolkitV1)/projects/\(projectId):createSessionCookie"
        if let tenantId {
            // The claim is only read to refuse early, never to accept: the server verifies the token.
            let tokenTenant = Self.unverifiedTenant(ofIDToken: idToken)
            guard let tokenTenant, tokenTenant.utf8.elementsEqual(tenantId.utf8) else {
                throw AdminError(httpStatus: 0, code: "TENANT_ID_MISMATCH",
                                 message: "the ID token is not of tenant '\(TenantRequirement.printable(tenantId))': sign the user in to that tenant")
            }
            path = "\(WirePaths.identityToolkitV1)/projects/\(projectId)/tenants/\(Self.pathSegment(tenantId)):createSessionCookie"
        }
        return try await send(.POST, path, CreateSessionCookieRequest(idToken: idToken, validDuration: Int64(duration)),
                              as: CreateSessionCookieResponse.self).sessionCookie
    }

    /// `firebase.tenant` of an ID token, unverified (nil: none, or not a readable JWT).
    static func unverifiedTenant(ofIDToken idToken: String) -> String? {
        let parts = Array(idToken.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        struct Claims: Decodable {
            struct Firebase: Decodable { var tenant: String? }
            var firebase: Firebase?
        }
        guard parts.count == 3, let payload = TokenVerifier.base64URL(parts[1]),
              let claims = try? JSONDecoder().decode(Claims.self, from: payload)
        else { return nil }
        return claims.firebase?.tenant.flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: Custom tokens

    /// A custom token for `uid` signed with the client's service account (``ServiceAccount/createCustomToken(uid:claims:tenantId:now:)``),
    /// carrying this client's tenant as `tenant_id`: it signs in only with `Auth.tenantID` set to that tenant.
    /// Needs ``Credentials/serviceAccount(_:)``.
    public func createCustomToken(uid: String, claims: [String: JSONValue]? = nil, now: Date = Date()) async throws -> String {
        guard case .serviceAccount(let account) = credentials else {
            throw AdminError(httpStatus: 0, code: "INVALID_CREDENTIAL", message: "custom tokens are signed with a service account's key: use .serviceAccount")
        }
        return try await account.createCustomToken(uid: uid, claims: claims, tenantId: tenantId, now: now)
    }

    // MARK: Transport

    private func authorization() async throws -> String {
        switch credentials {
        case .emulatorOwner: return "Bearer owner"
        case .serviceAccount(let account):
            if let cached = accessToken.value.withLock({ $0 }), cached.expiresAt > Date().addingTimeInterval(60) { return "Bearer \(cached.token)" }
            let assertion = try await account.assertion(scope: "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/identitytoolkit", now: Date())
            var request = HTTPClientRequest(url: account.tokenURI)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
            let response = try await httpClient.execute(request, timeout: .seconds(30))
            let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            struct Token: Decodable {
                var access_token: String?
                var expires_in: Int?
                var error: String?
                var error_description: String?
            }
            let token = try? JSONDecoder().decode(Token.self, from: body)
            guard response.status == .ok, let value = token?.access_token else {
                throw AdminError(httpStatus: Int(response.status.code), code: token?.error ?? "invalid_grant",
                                 message: token?.error_description ?? "the token endpoint refused the service account")
            }
            let expiresAt = Date().addingTimeInterval(TimeInterval(token?.expires_in ?? 3600))
            accessToken.value.withLock { $0 = (value, expiresAt) }
            return "Bearer \(value)"
        }
    }

    private func send<Body: Encodable, Output: Decodable>(_ method: HTTPMethod, _ path: String, _ body: Body?, as output: Output.Type) async throws -> Output {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: try await authorization())
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        }
        let response = try await httpClient.execute(request, timeout: .seconds(30))
        let data = Data(try await response.body.collect(upTo: 32 << 20).readableBytesView)
        guard response.status == .ok else {
            let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: data)
            throw AdminError(httpStatus: Int(response.status.code), code: envelope?.errorCode ?? "UNKNOWN",
                             message: envelope?.error.message ?? "HTTP \(response.status.code)")
        }
        return try JSONDecoder().decode(Output.self, from: data)
    }
}
