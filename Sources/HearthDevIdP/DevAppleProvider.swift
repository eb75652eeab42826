import Crypto
import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird
import JWTKit
import Logging
import Synchronization

/// A Sign in with Apple-shaped development provider under `/__dev/apple`, behaving as Apple does where a relying
/// party can tell: `response_mode=form_post` (required when `name` or `email` is asked for) answered by a page that
/// POSTs to the redirect URI by itself (and a button without JavaScript); the `user` form field with the name only
/// on a person's first authorization of the client; private-relay addresses (`…@privaterelay.appleid.com`) when the
/// person ticks "Hide My Email"; `email_verified` and `is_private_email` as the strings "true"/"false"; and a token
/// endpoint that accepts only an ES256 client secret signed with the `.p8` key it was configured with (it holds the
/// public half), with the right `kid`, `iss` (team id), `sub` (client id), `aud` (its base) and a life of at most six
/// months. Codes are single use and expire; PKCE is checked when the request had a challenge; refresh tokens can be
/// revoked at `/auth/revoke`.
public final class DevAppleProvider: Sendable {
    /// What a developer gets from Apple: the services id, the team id, a key (its id and the `.p8` text) and the
    /// apps' bundle ids.
    public struct Credentials: Sendable, Equatable, Codable {
        public var servicesId: String
        public var teamId: String
        public var keyId: String
        /// The `.p8` private key (PKCS#8 PEM). Only its public half stays in the provider.
        public var privateKeyPEM: String
        public var bundleIds: [String]

        public init(servicesId: String, teamId: String, keyId: String, privateKeyPEM: String, bundleIds: [String]) {
            self.servicesId = servicesId
            self.teamId = teamId
            self.keyId = keyId
            self.privateKeyPEM = privateKeyPEM
            self.bundleIds = bundleIds
        }

        /// Fresh random credentials with a new P-256 key.
        public static func random() -> Credentials {
            Credentials(servicesId: "dev.hearth.signin.\(RandomID.alphanumeric(count: 8).lowercased())",
                        teamId: RandomID.alphanumeric(count: 10).uppercased(), keyId: RandomID.alphanumeric(count: 10).uppercased(),
                        privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, bundleIds: ["dev.hearth.app"])
        }
    }

    public static let path = "/__dev/apple"
    /// Apple's limit on a client secret's life.
    static let maximumSecretLifetime: TimeInterval = 15_777_000

    public let servicesId: String
    public let teamId: String
    public let keyId: String
    public let bundleIds: [String]
    let publicKey: P256.Signing.PublicKey
    let publicURL: PublicBaseURL
    let clock: WallClock
    let state: DevIdPState
    /// Seals refresh tokens (a random per-process key).
    let sealSecret = RandomID.token(byteCount: 32)
    /// `client id \n sub` of every person who authorized a client already (Apple sends the name only the first time).
    let authorized = Mutex<Set<String>>([])
    /// Refresh tokens revoked at `/auth/revoke`.
    let revoked = Mutex<Set<String>>([])

    /// A provider that checks client secrets against the public half of `credentials.privateKeyPEM`.
    public init(publicURL: PublicBaseURL, credentials: Credentials, clock: WallClock = .system) async throws {
        self.publicURL = publicURL
        self.clock = clock
        self.servicesId = credentials.servicesId
        self.teamId = credentials.teamId
        self.keyId = credentials.keyId
        self.bundleIds = credentials.bundleIds
        self.publicKey = try P256.Signing.PrivateKey(pemRepresentation: credentials.privateKeyPEM).publicKey
        self.state = try await DevIdPState(algorithm: "RS256")
    }

    /// The base that stands in for `https://appleid.apple.com` (`endpointBase`), also the issuer and the client
    /// secrets' audience.
    public var base: String { publicURL.url + Self.path }

    /// How many refresh tokens were revoked (tests of account deletion).
    public var revokedTokenCount: Int { revoked.withLock { $0.count } }

    /// Makes the provider misbehave (tests of the relying party's checks).
    public func setMisbehavior(_ misbehavior: DevMisbehavior) async { await state.setMisbehavior(misbehavior) }

    /// Adds the provider's routes.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        let p = Self.path
        router.get("\(p)/.well-known/openid-configuration") { _, _ in self.discovery() }
        router.get("\(p)/auth/authorize") { request, _ in try await self.authorizeForm(request) }
        router.post("\(p)/auth/authorize") { request, _ in try await self.authorizeSubmit(request) }
        router.post("\(p)/auth/token") { request, _ in try await self.token(request) }
        router.post("\(p)/auth/revoke") { request, _ in try await self.revoke(request) }
        router.get("\(p)/auth/keys") { _, _ in
            let keys = await self.state.jwks()
            return DevHTTP.json(["keys": .array(keys.map { .object($0.mapValues { .string($0) }) })], cacheControl: "public, max-age=3600")
        }
    }

    func discovery() -> Response {
        DevHTTP.json([
            "issuer": .string(base), "authorization_endpoint": .string("\(base)/auth/authorize"),
            "token_endpoint": .string("\(base)/auth/token"), "revocation_endpoint": .string("\(base)/auth/revoke"),
            "jwks_uri": .string("\(base)/auth/keys"),
            "response_types_supported": .array(["code", "code id_token"].map { .string($0) }),
            "response_modes_supported": .array(["query", "fragment", "form_post"].map { .string($0) }),
            "subject_types_supported": .array([.string("pairwise")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "scopes_supported": .array(["openid", "email", "name"].map { .string($0) }),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_post")]),
            "claims_supported": .array(["aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce",
                                        "nonce_supported", "real_user_status", "sub", "transfer_sub"].map { .string($0) }),
        ])
    }

    // MARK: Authorization

    /// The login form's checkbox: share a private relay address instead of the person's.
    static let hideMyEmail = Pages.Checkbox(name: "hide_email", label: "Hide My Email (share a private relay address)")

    func isClient(_ id: String) -> Bool { id == servicesId || bundleIds.contains(id) }

    func authorizeForm(_ request: Request) async throws -> Response {
        let query = FormQuery(request.uri.query)
        let clientId = query.get("client_id") ?? ""
        let redirectUri = query.get("redirect_uri") ?? ""
        // As Apple: problems with the client or the redirect URI are shown, never redirected.
        guard isClient(clientId) else { return DevPage.message("invalid_client", "The client_id \(clientId) is not registered.", status: .badRequest) }
        guard redirectUri == publicURL.authHandlerURL else {
            return DevPage.message("invalid_request", "Invalid web redirect url.", status: .badRequest)
        }
        let scope = query.get("scope") ?? ""
        let scopes = scope.split(separator: " ")
        let responseType = query.get("response_type") ?? ""
        let mode = query.get("response_mode") ?? (responseType.contains("id_token") ? "fragment" : "query")
        guard responseType == "code" || responseType == "code id_token" else {
            return DevPage.message("unsupported_response_type", "response_type must be code or code id_token.", status: .badRequest)
        }
        if (scopes.contains("name") || scopes.contains("email")), mode != "form_post" {
            return DevPage.message("invalid_request", "response_mode must be form_post when name or email scope is requested.", status: .badRequest)
        }
        guard mode == "form_post" || mode == "query" else {
            return DevPage.message("invalid_request", "The dev Apple provider answers with form_post or query.", status: .badRequest)
        }
        let challenge = query.get("code_challenge")
        if challenge != nil, query.get("code_challenge_method") != "S256" {
            return DevPage.message("invalid_request", "Only S256 code challenges are supported.", status: .badRequest)
        }
        let pending = DevIdPState.PendingRequest(clientId: clientId, redirectUri: redirectUri, state: query.get("state"), nonce: query.get("nonce"),
                                                 codeChallenge: challenge, scope: scope, entraTenant: nil, createdAt: clock.now(),
                                                 extra: ["response_mode": mode, "response_type": responseType])
        let id = await state.addPending(pending)
        return DevPage.login(provider: "Apple", action: request.uri.path, requestId: id, email: query.get("login_hint") ?? "", name: "",
                             entraTenant: nil, checkbox: Self.hideMyEmail, error: nil)
    }

    /// The answer to the redirect URI, in the request's response mode.
    func answer(_ pending: DevIdPState.PendingRequest, _ fields: [(String, String)]) -> Response {
        let all = fields + (pending.state.map { [("state", $0)] } ?? [])
        if pending.extra["response_mode"] == "form_post" { return DevHTTP.formPost(to: pending.redirectUri, all) }
        return DevHTTP.redirect(pending.redirectUri, Dictionary(all, uniquingKeysWith: { first, _ in first }).mapValues { Optional($0) })
    }

    func authorizeSubmit(_ request: Request) async throws -> Response {
        let form = try await DevHTTP.formFields(request)
        guard let id = form["request_id"], var pending = await state.takePending(id),
              clock.now().timeIntervalSince(pending.createdAt) < 900
        else { return DevPage.message("Sign-in expired", "Start the sign-in again from the application.", status: .badRequest) }
        if form["action"] == "cancel" {
            // Apple's answer when the person closes the sheet.
            return answer(pending, [("error", "user_cancelled_authorize")])
        }
        guard let email = EmailAddress.normalize(form["email"] ?? "") else {
            let again = await state.addPending(pending)
            return DevPage.login(provider: "Apple", action: request.uri.path, requestId: again, email: form["email"] ?? "", name: form["name"] ?? "",
                                 entraTenant: nil, checkbox: Self.hideMyEmail, error: "Enter a valid email address.", status: .badRequest)
        }
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let hide = form["hide_email"] != nil
        let sub = Self.subject(email: email, teamId: teamId)
        let first = authorized.withLock { $0.insert("\(pending.clientId)\n\(sub)").inserted }
        pending.extra["hide_email"] = hide ? "true" : "false"
        let code = await state.issueCode(pending, email: email, name: name, now: clock.now())
        var fields: [(String, String)] = [("code", code)]
        if pending.extra["response_type"] == "code id_token" {
            let issued = DevIdPState.IssuedCode(request: pending, email: email, name: name, expiresAt: clock.now(), used: true)
            fields.append(("id_token", try await state.sign(idTokenClaims(issued, now: clock.now()))))
        }
        // The `user` field: only on the first authorization, with what the scopes asked for.
        let scopes = pending.scope.split(separator: " ")
        if first, scopes.contains("name") || scopes.contains("email") {
            var user: [String: JSONValue] = [:]
            if scopes.contains("email") { user["email"] = .string(shownEmail(email, hide: hide)) }
            if scopes.contains("name"), !name.isEmpty {
                let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
                user["name"] = .object(["firstName": .string(parts[0]), "lastName": .string(parts.count > 1 ? parts[1] : "")])
            }
            let data = try WireJSON.encoder.encode(JSONValue.object(user))
            fields.append(("user", String(decoding: data, as: UTF8.self)))
        }
        return answer(pending, fields)
    }

    // MARK: Identities

    /// Apple's user identifier shape (`000123.<32 hex>.0456`), stable per email and team.
    static func subject(email: String, teamId: String) -> String {
        let hex = Data(WireDigest.sha256("apple:\(teamId):\(email.lowercased())")).hexString
        let digits = hex.compactMap { $0.hexDigitValue }.map { String($0 % 10) }.joined()
        return "\(digits.prefix(6)).\(hex.prefix(32)).\(digits.dropFirst(6).prefix(4))"
    }

    /// The address Apple shows the app: the person's, or a private relay address stable per person and team.
    func shownEmail(_ email: String, hide: Bool) -> String {
        guard hide else { return email }
        let local = Data(WireDigest.sha256("relay:\(teamId):\(email.lowercased())")).hexString.prefix(10)
        return "\(local)@privaterelay.appleid.com"
    }

    func idTokenClaims(_ issued: DevIdPState.IssuedCode, now: Date) -> [String: JSONValue] {
        let iat = now.timeIntervalSince1970.rounded(.down)
        let hide = issued.request.extra["hide_email"] == "true"
        var claims: [String: JSONValue] = [
            "iss": .string(base), "aud": .string(issued.request.clientId), "iat": .number(iat), "exp": .number(iat + 600),
            "sub": .string(Self.subject(email: issued.email, teamId: teamId)), "auth_time": .number(iat), "nonce_supported": .bool(true),
        ]
        if let nonce = issued.request.nonce { claims["nonce"] = .string(nonce) }
        if issued.request.scope.split(separator: " ").contains("email") {
            claims["email"] = .string(shownEmail(issued.email, hide: hide))
            // Apple sends these two as strings.
            claims["email_verified"] = .string("true")
            claims["is_private_email"] = .string(hide ? "true" : "false")
        }
        if bundleIds.contains(issued.request.clientId) { claims["real_user_status"] = .number(2) }
        return claims
    }

    // MARK: Token and revocation

    func error(_ code: String, status: HTTPResponse.Status = .badRequest) -> Response {
        // Apple answers with the OAuth error alone.
        DevHTTP.json(["error": .string(code)], status: status)
    }

    /// Why `secret` is not a client secret for `clientId` signed with the configured key (nil: it is one).
    func clientSecretProblem(_ secret: String, clientId: String) async -> String? {
        guard let header = JWTHeaderFields(token: secret) else { return "not a JWT" }
        guard header.alg == "ES256" else { return "not ES256" }
        guard header.kid == keyId else { return "unknown key id" }
        let keys = JWTKeyCollection()
        guard let key = try? ES256PublicKey(backing: publicKey) else { return "unusable key" }
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
        guard let claims = try? await keys.verify(secret, as: DevClaims.self).values else { return "bad signature" }
        let now = clock.now().timeIntervalSince1970
        let audiences: [String] = switch claims["aud"] {
        case .string(let value)?: [value]
        case .array(let values)?: values.compactMap(\.stringValue)
        default: []
        }
        guard claims["iss"]?.stringValue == teamId else { return "wrong iss" }
        guard claims["sub"]?.stringValue == clientId else { return "wrong sub" }
        guard audiences.contains(base) else { return "wrong aud" }
        guard case .number(let iat)? = claims["iat"], case .number(let exp)? = claims["exp"] else { return "no iat or exp" }
        guard iat <= now + 60, exp > now else { return "expired" }
        guard exp - iat <= Self.maximumSecretLifetime else { return "lives longer than six months" }
        return nil
    }

    func token(_ request: Request) async throws -> Response {
        let form = try await DevHTTP.formFields(request)
        guard let clientId = form["client_id"], isClient(clientId) else { return error("invalid_client") }
        guard let secret = form["client_secret"], await clientSecretProblem(secret, clientId: clientId) == nil else {
            return error("invalid_client")
        }
        let now = clock.now()
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"] else { return error("invalid_request") }
            guard case .ok(let issued) = await state.redeem(code, now: now), issued.request.clientId == clientId else {
                return error("invalid_grant")
            }
            // Apple checks the redirect URI of a web client's code.
            if clientId == servicesId, form["redirect_uri"] != issued.request.redirectUri { return error("invalid_grant") }
            if let challenge = issued.request.codeChallenge {
                guard let verifier = form["code_verifier"], WireDigest.pkceChallenge(verifier: verifier) == challenge else { return error("invalid_grant") }
            }
            let grant = DevRefreshGrant(email: issued.email, name: issued.name, clientId: clientId, scope: issued.request.scope,
                                        issuedAt: now.timeIntervalSince1970, expiresAt: now.timeIntervalSince1970 + 180 * 86_400)
            return DevHTTP.json([
                "access_token": .string("devat." + RandomID.token(byteCount: 24)), "token_type": .string("Bearer"),
                "expires_in": .number(3600), "refresh_token": .string(try grant.seal(secret: sealSecret)),
                "id_token": .string(try await state.sign(idTokenClaims(issued, now: now))),
            ])
        case "refresh_token":
            guard let presented = form["refresh_token"], let grant = DevRefreshGrant.open(presented, secret: sealSecret),
                  grant.clientId == clientId, !revoked.withLock({ $0.contains(presented) })
            else { return error("invalid_grant") }
            let request = DevIdPState.PendingRequest(clientId: clientId, redirectUri: "", state: nil, nonce: nil, codeChallenge: nil,
                                                     scope: grant.scope, entraTenant: nil, createdAt: now)
            let issued = DevIdPState.IssuedCode(request: request, email: grant.email, name: grant.name, expiresAt: now, used: true)
            // Apple renews the access and ID tokens and keeps the refresh token.
            return DevHTTP.json([
                "access_token": .string("devat." + RandomID.token(byteCount: 24)), "token_type": .string("Bearer"),
                "expires_in": .number(3600), "id_token": .string(try await state.sign(idTokenClaims(issued, now: now))),
            ])
        default:
            return error("unsupported_grant_type")
        }
    }

    /// `/auth/revoke`: `client_id`, `client_secret`, `token`, `token_type_hint`. Apple answers 200 with an empty body
    /// for any token once the client is authenticated.
    func revoke(_ request: Request) async throws -> Response {
        let form = try await DevHTTP.formFields(request)
        guard let clientId = form["client_id"], isClient(clientId) else { return error("invalid_client") }
        guard let secret = form["client_secret"], await clientSecretProblem(secret, clientId: clientId) == nil else {
            return error("invalid_client")
        }
        guard let token = form["token"], !token.isEmpty else { return error("invalid_request") }
        if let grant = DevRefreshGrant.open(token, secret: sealSecret), grant.clientId == clientId {
            revoked.withLock { _ = $0.insert(token) }
        }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }
}
