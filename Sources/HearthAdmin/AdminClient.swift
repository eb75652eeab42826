import AsyncHTTPClient
import Foundation
import HearthWire
import NIOCore
import NIOHTTP1

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
public actor AdminClient {
    /// How calls are authorized.
    public enum Credentials: Sendable {
        /// OAuth 2 access tokens obtained with the service account's key.
        case serviceAccount(ServiceAccount)
        /// `Authorization: Bearer owner` (demo-* projects, or servers run with `--emulator-admin`).
        case emulatorOwner
    }

    public let projectId: String
    private let baseURL: String
    private let credentials: Credentials
    private let httpClient: HTTPClient
    private var accessToken: (token: String, expiresAt: Date)?

    /// - Parameter baseURL: the server, e.g. `https://auth.example.com` (Google: `https://identitytoolkit.googleapis.com`
    ///   is reached as `https://identitytoolkit.googleapis.com` with paths starting `/v1`; give Hearth's base URL here).
    public init(baseURL: String, projectId: String, credentials: Credentials, httpClient: HTTPClient = .shared) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.projectId = projectId
        self.credentials = credentials
        self.httpClient = httpClient
    }

    // MARK: Users

    /// The user, or nil when there is none.
    public func getUser(uid: String) async throws -> UserInfo? {
        try await send(.POST, WirePaths.adminAccounts(projectId: projectId, "lookup"), AdminLookupRequest(localId: [uid]),
                       as: AdminLookupResponse.self).users?.first
    }

    public func getUser(email: String) async throws -> UserInfo? {
        try await send(.POST, WirePaths.adminAccounts(projectId: projectId, "lookup"), AdminLookupRequest(email: [email]),
                       as: AdminLookupResponse.self).users?.first
    }

    /// Creates a user; returns its uid.
    @discardableResult
    public func createUser(_ request: AdminCreateUserRequest) async throws -> String {
        try await send(.POST, WirePaths.adminAccounts(projectId: projectId), request, as: SignUpResponse.self).localId
    }

    /// Changes admin fields of a user (`localId` must be set).
    public func updateUser(_ request: AdminUpdateRequest) async throws {
        _ = try await send(.POST, WirePaths.adminAccounts(projectId: projectId, "update"), request, as: AdminUpdateResponse.self)
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
        _ = try await send(.POST, WirePaths.adminAccounts(projectId: projectId, "delete"), AdminDeleteRequest(localId: uid), as: AdminDeleteResponse.self)
    }

    /// One page of users ordered by uid; pass the returned token to get the next page (nil: last page).
    public func listUsers(maxResults: Int = 1000, pageToken: String? = nil) async throws -> (users: [UserInfo], nextPageToken: String?) {
        var path = WirePaths.adminAccounts(projectId: projectId, "batchGet") + "?maxResults=\(maxResults)"
        if let pageToken { path += "&nextPageToken=\(pageToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? pageToken)" }
        let page = try await send(.GET, path, Optional<EmptyResponse>.none, as: BatchGetResponse.self)
        return (page.users ?? [], page.nextPageToken)
    }

    /// A session cookie for a fresh ID token, valid `duration` (5 minutes to 14 days).
    public func createSessionCookie(idToken: String, duration: TimeInterval) async throws -> String {
        try await send(.POST, "\(WirePaths.identityToolkitV1)/projects/\(projectId):createSessionCookie",
                       CreateSessionCookieRequest(idToken: idToken, validDuration: Int64(duration)), as: CreateSessionCookieResponse.self).sessionCookie
    }

    // MARK: Transport

    private func authorization() async throws -> String {
        switch credentials {
        case .emulatorOwner: return "Bearer owner"
        case .serviceAccount(let account):
            if let cached = accessToken, cached.expiresAt > Date().addingTimeInterval(60) { return "Bearer \(cached.token)" }
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
            accessToken = (value, Date().addingTimeInterval(TimeInterval(token?.expires_in ?? 3600)))
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
