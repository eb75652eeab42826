import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// A Google-shaped development OpenID provider under `/__dev/google`: discovery, `/o/oauth2/v2/auth`, `/token`,
/// `/oauth2/v3/certs`, `/v1/userinfo` and `/revoke`, with Google's claims — a numeric `sub`, `email_verified`
/// (false when the person ticks "address not verified", as for a consumer account on a non-Gmail address never
/// confirmed), `hd` for accounts outside gmail.com/googlemail.com (a Workspace domain), `azp`. As at Google, the
/// `hd` authorization parameter is a hint only: the token carries the account's real domain, so the relying party
/// must check the claim. The web client authenticates with its secret (`client_secret_post` or Basic); native
/// clients (iOS/Android ids) are public and must use PKCE. Codes are single use; `access_type=offline` brings a
/// refresh token.
public final class DevGoogleProvider: Sendable {
    public static let path = "/__dev/google"
    /// Consumer Google domains: accounts there carry no `hd`.
    static let consumerDomains: Set<String> = ["gmail.com", "googlemail.com"]
    /// The login form's checkbox: the address is not verified (`email_verified: false`; ignored for Gmail addresses).
    static let unverifiedEmail = Pages.Checkbox(name: "unverified", label: "Email address not verified")

    /// The web client (`….apps.googleusercontent.com` and its secret).
    public let client: DevIdentityProviders.Client
    /// Native (iOS/Android) client ids: public clients.
    public let nativeClientIds: [String]
    let publicURL: PublicBaseURL
    let clock: WallClock
    let state: DevIdPState

    public init(publicURL: PublicBaseURL, client: DevIdentityProviders.Client = DevGoogleProvider.randomClient(),
                nativeClientIds: [String] = [], clock: WallClock = .system) async throws {
        self.publicURL = publicURL
        self.client = client
        self.nativeClientIds = nativeClientIds
        self.clock = clock
        self.state = try await DevIdPState(algorithm: "RS256")
    }

    /// A client shaped like Google's (`<digits>-<random>.apps.googleusercontent.com`, `GOCSPX-…`).
    public static func randomClient() -> DevIdentityProviders.Client {
        let digits = Data(WireDigest.sha256(RandomID.token(byteCount: 8))).hexString.compactMap(\.hexDigitValue).map { String($0 % 10) }.joined()
        return DevIdentityProviders.Client(id: "\(digits.prefix(12))-\(RandomID.alphanumeric(count: 16).lowercased()).apps.googleusercontent.com",
                                           secret: "GOCSPX-" + RandomID.alphanumeric(count: 28))
    }

    /// The base that stands in for Google's hosts (`endpointBase`), also the issuer.
    public var base: String { publicURL.url + Self.path }

    /// Makes the provider misbehave (tests of the relying party's checks).
    public func setMisbehavior(_ misbehavior: DevMisbehavior) async { await state.setMisbehavior(misbehavior) }

    /// Adds the provider's routes.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        let p = Self.path
        router.get("\(p)/.well-known/openid-configuration") { _, _ in self.discovery() }
        router.get("\(p)/o/oauth2/v2/auth") { request, _ in try await self.authorizeForm(request) }
        router.post("\(p)/o/oauth2/v2/auth") { request, _ in try await self.authorizeSubmit(request) }
        router.post("\(p)/token") { request, _ in try await self.token(request) }
        router.get("\(p)/oauth2/v3/certs") { _, _ in
            let keys = await self.state.jwks()
            return DevHTTP.json(["keys": .array(keys.map { .object($0.mapValues { .string($0) }) })], cacheControl: "public, max-age=3600")
        }
        router.get("\(p)/v1/userinfo") { request, _ in try await self.userinfo(request) }
        router.post("\(p)/revoke") { request, _ in
            let form = try await DevHTTP.formFields(request)
            return form["token"].map { _ in Response(status: .ok) } ?? DevHTTP.json(["error": .string("invalid_request")], status: .badRequest)
        }
    }

    func discovery() -> Response {
        DevHTTP.json([
            "issuer": .string(base), "authorization_endpoint": .string("\(base)/o/oauth2/v2/auth"),
            "token_endpoint": .string("\(base)/token"), "userinfo_endpoint": .string("\(base)/v1/userinfo"),
            "revocation_endpoint": .string("\(base)/revoke"), "jwks_uri": .string("\(base)/oauth2/v3/certs"),
            "response_types_supported": .array([.string("code")]),
            "subject_types_supported": .array([.string("public")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "scopes_supported": .array(["openid", "email", "profile"].map { .string($0) }),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_post"), .string("client_secret_basic")]),
            "code_challenge_methods_supported": .array([.string("plain"), .string("S256")]),
            "claims_supported": .array(["aud", "email", "email_verified", "exp", "family_name", "given_name", "hd", "iat", "iss",
                                        "name", "picture", "sub"].map { .string($0) }),
        ])
    }

    func isClient(_ id: String) -> Bool { id == client.id || nativeClientIds.contains(id) }

    func authorizeForm(_ request: Request) async throws -> Response {
        let query = FormQuery(request.uri.query)
        let clientId = query.get("client_id") ?? ""
        let redirectUri = query.get("redirect_uri") ?? ""
        guard isClient(clientId) else {
            return DevPage.message("Error 401: invalid_client", "The OAuth client was not found.", status: .unauthorized)
        }
        guard redirectUri == publicURL.authHandlerURL else {
            return DevPage.message("Error 400: redirect_uri_mismatch", "The redirect URI in the request does not match the ones authorized for the OAuth client.", status: .badRequest)
        }
        let state = query.get("state")
        func fail(_ error: String) -> Response { DevHTTP.redirect(redirectUri, ["error": error, "state": state]) }
        guard query.get("response_type") == "code" else { return fail("unsupported_response_type") }
        let scope = query.get("scope") ?? ""
        guard scope.split(separator: " ").contains("openid") else { return fail("invalid_scope") }
        let challenge = query.get("code_challenge")
        if challenge != nil, query.get("code_challenge_method") != "S256" { return fail("invalid_request") }
        if nativeClientIds.contains(clientId), challenge == nil { return fail("invalid_request") }
        var extra: [String: String] = [:]
        if query.get("access_type") == "offline" { extra["offline"] = "true" }
        let pending = DevIdPState.PendingRequest(clientId: clientId, redirectUri: redirectUri, state: state, nonce: query.get("nonce"),
                                                 codeChallenge: challenge, scope: scope, entraTenant: nil, createdAt: clock.now(), extra: extra)
        let id = await self.state.addPending(pending)
        let hint = query.get("hd").map { "This app asks for an account of \($0)." }
        return DevPage.login(provider: "Google", action: request.uri.path, requestId: id, email: query.get("login_hint") ?? "", name: "",
                             entraTenant: nil, note: hint, checkbox: Self.unverifiedEmail, error: nil)
    }

    func authorizeSubmit(_ request: Request) async throws -> Response {
        let form = try await DevHTTP.formFields(request)
        guard let id = form["request_id"], var pending = await state.takePending(id),
              clock.now().timeIntervalSince(pending.createdAt) < 900
        else { return DevPage.message("Sign-in expired", "Start the sign-in again from the application.", status: .badRequest) }
        if form["action"] == "cancel" { return DevHTTP.redirect(pending.redirectUri, ["error": "access_denied", "state": pending.state]) }
        guard let email = EmailAddress.normalize(form["email"] ?? "") else {
            let again = await state.addPending(pending)
            return DevPage.login(provider: "Google", action: request.uri.path, requestId: again, email: form["email"] ?? "", name: form["name"] ?? "",
                                 entraTenant: nil, checkbox: Self.unverifiedEmail, error: "Enter a valid email address.", status: .badRequest)
        }
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        // A Gmail address is always verified.
        let unverified = form["unverified"] != nil && !Self.consumerDomains.contains(DevUsers.domain(of: email).lowercased())
        pending.extra["email_verified"] = unverified ? "false" : "true"
        let code = await state.issueCode(pending, email: email, name: name.isEmpty ? String(email.split(separator: "@")[0]) : name, now: clock.now())
        return DevHTTP.redirect(pending.redirectUri, ["code": code, "state": pending.state])
    }

    /// Google's numeric subject (21 digits), stable per email.
    static func subject(email: String) -> String {
        let digits = Data(WireDigest.sha256("google:" + email.lowercased())).hexString.compactMap(\.hexDigitValue).map { String($0 % 10) }.joined()
        return "1" + digits.prefix(20)
    }

    func userClaims(email: String, name: String, verified: Bool) -> [String: JSONValue] {
        let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
        let sub = Self.subject(email: email)
        var claims: [String: JSONValue] = [
            "sub": .string(sub), "email": .string(email), "email_verified": .bool(verified), "name": .string(name),
            "picture": .string("\(base)/photos/\(sub).png"),
        ]
        if let first = parts.first { claims["given_name"] = .string(first) }
        if parts.count > 1 { claims["family_name"] = .string(parts[1]) }
        let domain = DevUsers.domain(of: email).lowercased()
        if !Self.consumerDomains.contains(domain) { claims["hd"] = .string(domain) }
        return claims
    }

    func idTokenClaims(_ issued: DevIdPState.IssuedCode, now: Date) -> [String: JSONValue] {
        let iat = now.timeIntervalSince1970.rounded(.down)
        var claims = userClaims(email: issued.email, name: issued.name, verified: issued.request.extra["email_verified"] != "false")
        claims["iss"] = .string(base)
        claims["aud"] = .string(issued.request.clientId)
        claims["azp"] = .string(issued.request.clientId)
        claims["iat"] = .number(iat)
        claims["exp"] = .number(iat + 3600)
        claims["at_hash"] = .string(RandomID.token(byteCount: 16))
        if let nonce = issued.request.nonce { claims["nonce"] = .string(nonce) }
        return claims
    }

    func error(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        DevHTTP.json(["error": .string(code), "error_description": .string(description)], status: status)
    }

    func token(_ request: Request) async throws -> Response {
        let form = try await DevHTTP.formFields(request)
        let (clientId, secret) = DevHTTP.clientCredentials(request, form: form)
        guard let clientId, isClient(clientId) else { return error("invalid_client", "The OAuth client was not found.", status: .unauthorized) }
        if clientId == client.id, secret != client.secret { return error("invalid_client", "Unauthorized", status: .unauthorized) }
        guard form["grant_type"] == "authorization_code" else { return error("unsupported_grant_type", "Invalid grant_type.") }
        guard let code = form["code"] else { return error("invalid_request", "Missing required parameter: code") }
        let now = clock.now()
        guard case .ok(let issued) = await state.redeem(code, now: now), issued.request.clientId == clientId else {
            return error("invalid_grant", "Malformed auth code.")
        }
        guard form["redirect_uri"] == issued.request.redirectUri else { return error("redirect_uri_mismatch", "Bad Request") }
        if let challenge = issued.request.codeChallenge {
            guard let verifier = form["code_verifier"], WireDigest.pkceChallenge(verifier: verifier) == challenge else {
                return error("invalid_grant", "Invalid code verifier.")
            }
        }
        let accessToken = try await state.grant(email: issued.email, name: issued.name, clientId: clientId, now: now, lifetime: 3600)
        var body: [String: JSONValue] = [
            "access_token": .string(accessToken), "expires_in": .number(3599), "token_type": .string("Bearer"),
            "scope": .string(issued.request.scope), "id_token": .string(try await state.sign(idTokenClaims(issued, now: now))),
        ]
        if issued.request.extra["offline"] == "true" {
            body["refresh_token"] = .string("1//dev." + RandomID.token(byteCount: 24))
        }
        return DevHTTP.json(body)
    }

    func userinfo(_ request: Request) async throws -> Response {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
              let grant = await state.grant(for: String(authorization.dropFirst(7)), now: clock.now())
        else { return error("invalid_request", "Invalid Credentials", status: .unauthorized) }
        // The grant does not remember the verification choice: UserInfo says what Google says for the account type.
        return DevHTTP.json(userClaims(email: grant.email, name: grant.name, verified: true))
    }
}
