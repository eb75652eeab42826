import Crypto
import Foundation
import HearthCore
import HearthWire
import Hummingbird
import Logging
import NIOCore

/// The built-in development identity providers (`hearth serve --dev`): a Microsoft-shaped and a Yahoo-shaped
/// OpenID provider with real keys and real checks (registered client and secret, exact `redirect_uri`,
/// single-use codes, PKCE, nonce). They live on the same server under `/__dev/microsoft` and `/__dev/yahoo`, and
/// Hearth's relying party reaches them over HTTP through the same configuration fields as the real providers.
///
/// Access tokens are short-lived (`accessTokenLifetime`, ten minutes by default). Refresh tokens come as the real
/// providers give them: Microsoft with the `offline_access` scope, Yahoo always; the `refresh_token` grant renews
/// the access token, and Microsoft rotates the refresh token on every use. Refresh tokens are sealed with a key
/// derived from the client secret, so they survive a restart of the server (the dev clients are kept on disk).
public final class DevIdentityProviders: Sendable {
    /// Which dev provider.
    public enum Provider: Sendable {
        case microsoft
        case yahoo
    }

    /// A registered OAuth client of a dev provider.
    public struct Client: Sendable, Equatable, Codable {
        public var id: String
        public var secret: String

        public init(id: String, secret: String) {
            self.id = id
            self.secret = secret
        }

        /// A random client.
        public static func random(prefix: String) -> Client {
            Client(id: "\(prefix)-\(RandomID.alphanumeric(count: 12).lowercased())", secret: RandomID.token(byteCount: 24))
        }
    }

    public static let microsoftPath = "/__dev/microsoft"
    public static let yahooPath = "/__dev/yahoo"

    public let microsoftClient: Client
    public let yahooClient: Client
    /// The Apple-shaped provider (`/__dev/apple`) and the credentials Hearth signs its client secrets with.
    public let apple: DevAppleProvider
    public let appleCredentials: DevAppleProvider.Credentials
    /// The Google-shaped provider (`/__dev/google`).
    public let google: DevGoogleProvider
    /// How long an access token works.
    public let accessTokenLifetime: TimeInterval
    let publicURL: PublicBaseURL
    /// The server whose auth handler is the registered redirect URI of the Microsoft and Yahoo clients: this
    /// same server (`publicURL`) unless another one was given (the benchmark serves the dev IdPs in a process of
    /// their own, so that their work is not counted as the measured server's).
    let relyingParty: PublicBaseURL
    let clock: WallClock
    let microsoft: DevIdPState
    let yahoo: DevIdPState
    let logger: Logger

    public init(publicURL: PublicBaseURL, clock: WallClock = .system, microsoftClient: Client = .random(prefix: "dev-ms"),
                yahooClient: Client = .random(prefix: "dev-yahoo"), appleCredentials: DevAppleProvider.Credentials = .random(),
                googleClient: Client = DevGoogleProvider.randomClient(), accessTokenLifetime: TimeInterval = 600,
                relyingParty: PublicBaseURL? = nil, logger: Logger = Logger(label: "hearth.devidp")) async throws {
        self.appleCredentials = appleCredentials
        self.apple = try await DevAppleProvider(publicURL: publicURL, credentials: appleCredentials, clock: clock)
        self.google = try await DevGoogleProvider(publicURL: publicURL, client: googleClient, nativeClientIds: [DevIdentityProviders.googleNativeClientId],
                                                  clock: clock)
        self.publicURL = publicURL
        self.relyingParty = relyingParty ?? publicURL
        self.accessTokenLifetime = accessTokenLifetime
        self.clock = clock
        self.microsoftClient = microsoftClient
        self.yahooClient = yahooClient
        self.microsoft = try await DevIdPState(algorithm: "RS256")
        self.yahoo = try await DevIdPState(algorithm: "ES256")
        self.logger = logger
    }

    /// Microsoft's authority base URL (what `IdPConfig.endpointBase` and `graphBase` point at).
    public var microsoftBase: String { publicURL.url + Self.microsoftPath }
    /// Yahoo's base URL and issuer.
    public var yahooBase: String { publicURL.url + Self.yahooPath }

    /// The native (iOS) client id the dev Google provider accepts beside its web client.
    public static let googleNativeClientId = "000000000000-devios.apps.googleusercontent.com"

    /// The provider configurations the dev IdPs stand in for (`microsoft.com`, `yahoo.com`, `apple.com`,
    /// `google.com`), with this process's dev clients: a server uses them where nothing is stored for the provider id.
    public func providerConfigs() -> [IdPConfig] {
        var apple = IdPConfig(providerId: "apple.com", kind: .apple, clientId: appleCredentials.servicesId,
                              clientSecret: appleCredentials.privateKeyPEM, endpointBase: self.apple.base, displayName: "Apple (dev IdP)")
        apple.appleTeamId = appleCredentials.teamId
        apple.appleKeyId = appleCredentials.keyId
        apple.appleBundleIds = appleCredentials.bundleIds
        var google = IdPConfig(providerId: "google.com", kind: .google, clientId: self.google.client.id, clientSecret: self.google.client.secret,
                               endpointBase: self.google.base, displayName: "Google (dev IdP)")
        google.nativeClientIds = self.google.nativeClientIds
        return [IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: microsoftClient.id, clientSecret: microsoftClient.secret,
                   endpointBase: microsoftBase, graphBase: microsoftBase, displayName: "Microsoft (dev IdP)"),
         IdPConfig(providerId: "yahoo.com", kind: .yahoo, clientId: yahooClient.id, clientSecret: yahooClient.secret,
                   endpointBase: yahooBase, displayName: "Yahoo (dev IdP)"),
         apple, google]
    }

    /// Rotates a provider's signing key (the old keys stay published).
    public func rotateKeys(_ provider: Provider) async throws {
        try await state(provider).rotateKeys()
    }

    /// Makes a provider misbehave (tests of the relying party's checks).
    public func setMisbehavior(_ provider: Provider, _ misbehavior: DevMisbehavior) async {
        await state(provider).setMisbehavior(misbehavior)
    }

    func state(_ provider: Provider) -> DevIdPState { provider == .microsoft ? microsoft : yahoo }

    /// Refuses every refresh token a provider issued until now (as when a user revokes the app's consent).
    public func revokeRefreshTokens(_ provider: Provider) async {
        await state(provider).revokeRefreshTokens(before: clock.now())
    }

    /// How many refresh grants a provider has answered (tests show the vault refreshing only when needed).
    public func refreshGrantCount(_ provider: Provider) async -> Int {
        await state(provider).refreshGrants
    }

    /// Adds the providers' routes.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        apple.register(on: router)
        google.register(on: router)
        let ms = Self.microsoftPath
        router.get("\(ms)/:tenant/v2.0/.well-known/openid-configuration") { _, context in
            try self.microsoftDiscovery(entraTenant: context.parameters.require("tenant"))
        }
        router.get("\(ms)/:tenant/oauth2/v2.0/authorize") { request, context in
            try await self.authorizeForm(.microsoft, request: request, entraTenant: context.parameters.require("tenant"))
        }
        router.post("\(ms)/:tenant/oauth2/v2.0/authorize") { request, context in
            try await self.authorizeSubmit(.microsoft, request: request, context: context)
        }
        router.post("\(ms)/:tenant/oauth2/v2.0/token") { request, context in
            try await self.token(.microsoft, request: request, context: context)
        }
        router.get("\(ms)/:tenant/discovery/v2.0/keys") { _, _ in try await self.jwks(.microsoft) }
        router.get("\(ms)/v1.0/me") { request, _ in try await self.profile(.microsoft, request: request) }

        let yh = Self.yahooPath
        router.get("\(yh)/.well-known/openid-configuration") { _, _ in try self.yahooDiscovery() }
        router.get("\(yh)/oauth2/request_auth") { request, _ in try await self.authorizeForm(.yahoo, request: request, entraTenant: nil) }
        router.post("\(yh)/oauth2/request_auth") { request, context in try await self.authorizeSubmit(.yahoo, request: request, context: context) }
        router.post("\(yh)/oauth2/get_token") { request, context in try await self.token(.yahoo, request: request, context: context) }
        router.get("\(yh)/openid/v1/certs") { _, _ in try await self.jwks(.yahoo) }
        router.get("\(yh)/openid/v1/userinfo") { request, _ in try await self.profile(.yahoo, request: request) }
        router.post("\(yh)/openid/v1/userinfo") { request, _ in try await self.profile(.yahoo, request: request) }
    }

    // MARK: Discovery and keys

    func microsoftDiscovery(entraTenant: String) throws -> Response {
        let base = microsoftBase
        let issuerEntraTenant: String = switch entraTenant {
        case "common", "organizations": "{tenantid}"
        case "consumers": DevUsers.entraConsumerTenant
        default: UUID(uuidString: entraTenant) != nil ? entraTenant.lowercased() : DevUsers.entraTenantId(forDomain: entraTenant)
        }
        return json([
            "issuer": .string("\(base)/\(issuerEntraTenant)/v2.0"),
            "authorization_endpoint": .string("\(base)/\(entraTenant)/oauth2/v2.0/authorize"),
            "token_endpoint": .string("\(base)/\(entraTenant)/oauth2/v2.0/token"),
            "jwks_uri": .string("\(base)/\(entraTenant)/discovery/v2.0/keys"),
            "userinfo_endpoint": .string("\(base)/oidc/userinfo"),
            "response_types_supported": .array([.string("code"), .string("id_token"), .string("code id_token")]),
            "response_modes_supported": .array([.string("query"), .string("fragment"), .string("form_post")]),
            "subject_types_supported": .array([.string("pairwise")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_post"), .string("client_secret_basic")]),
            "code_challenge_methods_supported": .array([.string("S256")]),
            "scopes_supported": .array([.string("openid"), .string("profile"), .string("email"), .string("offline_access")]),
        ])
    }

    func yahooDiscovery() throws -> Response {
        let base = yahooBase
        return json([
            "issuer": .string(base),
            "authorization_endpoint": .string("\(base)/oauth2/request_auth"),
            "token_endpoint": .string("\(base)/oauth2/get_token"),
            "jwks_uri": .string("\(base)/openid/v1/certs"),
            "userinfo_endpoint": .string("\(base)/openid/v1/userinfo"),
            "response_types_supported": .array([.string("code")]),
            "subject_types_supported": .array([.string("public")]),
            "id_token_signing_alg_values_supported": .array([.string("ES256"), .string("RS256")]),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_basic"), .string("client_secret_post")]),
            "scopes_supported": .array([.string("openid"), .string("profile"), .string("email")]),
            "claims_supported": .array(["sub", "email", "email_verified", "name", "given_name", "family_name", "locale", "picture"].map { .string($0) }),
        ])
    }

    func jwks(_ provider: Provider) async throws -> Response {
        let keys = await state(provider).jwks()
        return json(["keys": .array(keys.map { .object($0.mapValues { .string($0) }) })], cacheControl: "public, max-age=3600")
    }

    // MARK: Authorization

    func client(_ provider: Provider) -> Client { provider == .microsoft ? microsoftClient : yahooClient }
    func displayName(_ provider: Provider) -> String { provider == .microsoft ? "Microsoft" : "Yahoo" }

    func authorizeForm(_ provider: Provider, request: Request, entraTenant: String?) async throws -> Response {
        let query = FormQuery(request.uri.query)
        let clientId = query.get("client_id") ?? ""
        let redirectUri = query.get("redirect_uri") ?? ""
        // Errors about the client or the redirect URI are shown here, never redirected (no open redirect).
        guard clientId == client(provider).id else {
            return DevPage.message("Unknown application", "client_id \(clientId) is not registered with this provider.", status: .badRequest)
        }
        guard redirectUri == relyingParty.authHandlerURL else {
            return DevPage.message("Redirect URI mismatch", "The redirect_uri does not match the one registered for this application.", status: .badRequest)
        }
        let state = query.get("state")
        func fail(_ error: String, _ description: String) -> Response {
            redirect(redirectUri, ["error": error, "error_description": description, "state": state])
        }
        guard query.get("response_type") == "code" else { return fail("unsupported_response_type", "Only response_type=code is supported.") }
        let scope = query.get("scope") ?? ""
        guard scope.split(separator: " ").contains("openid") else { return fail("invalid_scope", "The openid scope is required.") }
        let nonce = query.get("nonce")
        if provider == .yahoo, nonce == nil { return fail("invalid_request", "nonce is required") }
        let challenge = query.get("code_challenge")
        if challenge != nil, query.get("code_challenge_method") != "S256" { return fail("invalid_request", "Only S256 code challenges are supported.") }
        if provider == .microsoft, let mode = query.get("response_mode"), mode != "query" {
            return fail("invalid_request", "The dev provider supports response_mode=query only.")
        }
        let pending = DevIdPState.PendingRequest(clientId: clientId, redirectUri: redirectUri, state: state, nonce: nonce,
                                                 codeChallenge: challenge, scope: scope, entraTenant: entraTenant, createdAt: clock.now())
        let id = await self.state(provider).addPending(pending)
        let hint = query.get("login_hint") ?? ""
        return DevPage.login(provider: displayName(provider), action: request.uri.path, requestId: id,
                             email: hint, name: "", entraTenant: entraTenant, error: nil)
    }

    func authorizeSubmit<Context: RequestContext>(_ provider: Provider, request: Request, context: Context) async throws -> Response {
        let form = try await formFields(request)
        guard let id = form["request_id"], let pending = await state(provider).takePending(id),
              clock.now().timeIntervalSince(pending.createdAt) < 900
        else {
            return DevPage.message("Sign-in expired", "Start the sign-in again from the application.", status: .badRequest)
        }
        if form["action"] == "cancel" {
            // As Microsoft does: `access_denied` with `error_subcode=cancel`.
            return redirect(pending.redirectUri, ["error": "access_denied", "error_subcode": "cancel",
                                                  "error_description": "The user cancelled the sign-in.", "state": pending.state])
        }
        guard let email = EmailAddress.normalize(form["email"] ?? "") else {
            let again = await state(provider).addPending(pending)
            return DevPage.login(provider: displayName(provider), action: request.uri.path, requestId: again,
                                 email: form["email"] ?? "", name: form["name"] ?? "", entraTenant: pending.entraTenant,
                                 error: "Enter a valid email address.", status: .badRequest)
        }
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
            ? String(email.split(separator: "@")[0]) : form["name"]!.trimmingCharacters(in: .whitespaces)
        if provider == .microsoft, let entraTenant = pending.entraTenant {
            let user = DevUsers.microsoft(email: email, name: name)
            let allowed: Bool = switch entraTenant {
            case "common": true
            case "organizations": !user.isPersonal
            case "consumers": user.isPersonal
            default: user.tid == (UUID(uuidString: entraTenant) != nil ? entraTenant.lowercased() : DevUsers.entraTenantId(forDomain: entraTenant))
            }
            guard allowed else {
                return redirect(pending.redirectUri, [
                    "error": "access_denied",
                    // As Microsoft writes it: the trace and correlation ids and the time follow the sentence.
                    "error_description": "AADSTS50020: User account '\(email)' does not exist in tenant '\(entraTenant)'. Trace ID: \(UUID().uuidString.lowercased()) Correlation ID: \(UUID().uuidString.lowercased()) Timestamp: \(clock.now().formatted(.iso8601))",
                    "state": pending.state,
                ])
            }
        }
        let code = await state(provider).issueCode(pending, email: email, name: name, now: clock.now())
        return redirect(pending.redirectUri, ["code": code, "state": pending.state])
    }

    // MARK: Token

    func token<Context: RequestContext>(_ provider: Provider, request: Request, context: Context) async throws -> Response {
        let form = try await formFields(request)
        let (clientId, secret) = DevHTTP.clientCredentials(request, form: form)
        guard clientId == client(provider).id else {
            // As Microsoft answers for an application id it does not know.
            return tokenError("unauthorized_client", "AADSTS700016: Application with identifier '\(clientId ?? "")' was not found in the directory.",
                              codes: [700016], status: .badRequest)
        }
        guard secret == client(provider).secret else {
            return tokenError("invalid_client", "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.",
                              codes: [7000215], status: .unauthorized)
        }
        if form["grant_type"] == "refresh_token" {
            return try await refresh(provider, form: form, clientId: clientId!)
        }
        guard form["grant_type"] == "authorization_code" else {
            return tokenError("unsupported_grant_type", "Only authorization_code and refresh_token are supported.")
        }
        guard let code = form["code"] else { return tokenError("invalid_request", "code is required.") }
        let issued: DevIdPState.IssuedCode
        switch await state(provider).redeem(code, now: clock.now()) {
        case .ok(let value): issued = value
        case .unknown: return tokenError("invalid_grant", "AADSTS9002313: Invalid request. Malformed or unknown code.", codes: [9002313])
        case .redeemed: return tokenError("invalid_grant", "AADSTS54005: OAuth2 Authorization code was already redeemed.", codes: [54005])
        case .expired: return tokenError("invalid_grant", "AADSTS70008: The provided authorization code has expired.", codes: [70008])
        }
        guard issued.request.clientId == clientId else { return tokenError("invalid_grant", "The code was issued to another client.") }
        guard form["redirect_uri"] == issued.request.redirectUri else {
            return tokenError("invalid_grant", "AADSTS50148: The redirect_uri does not match the one of the authorization request.", codes: [50148])
        }
        let verifier = form["code_verifier"]
        if let challenge = issued.request.codeChallenge {
            guard let verifier, WireDigest.pkceChallenge(verifier: verifier) == challenge else {
                return tokenError("invalid_grant", "AADSTS501481: The Code_Verifier does not match the code_challenge supplied in the authorization request.", codes: [501481])
            }
        } else if verifier != nil {
            return tokenError("invalid_grant", "A code_verifier was sent but the authorization request had no code_challenge.")
        }
        let now = clock.now()
        let accessToken = try await state(provider).grant(email: issued.email, name: issued.name, clientId: clientId!, now: now,
                                                      lifetime: accessTokenLifetime)
        let idToken = try await state(provider).sign(idTokenClaims(provider, issued: issued, now: now))
        var body: [String: JSONValue] = [
            "token_type": .string("Bearer"), "scope": .string(issued.request.scope), "expires_in": .number(accessTokenLifetime),
            "access_token": .string(accessToken), "id_token": .string(idToken),
        ]
        // Microsoft gives a refresh token only for `offline_access`; Yahoo always does.
        if provider == .yahoo || issued.request.scope.split(separator: " ").contains("offline_access") {
            let grant = DevRefreshGrant(email: issued.email, name: issued.name, clientId: clientId!, scope: issued.request.scope,
                                        issuedAt: now.timeIntervalSince1970, expiresAt: now.timeIntervalSince1970 + 90 * 86_400)
            body["refresh_token"] = .string(try grant.seal(secret: client(provider).secret))
        }
        if provider == .yahoo { body["xoauth_yahoo_guid"] = .string(DevUsers.yahooGuid(email: issued.email)) }
        return json(body)
    }

    /// The `refresh_token` grant: a new access token (and ID token); Microsoft also rotates the refresh token,
    /// Yahoo hands the same one back.
    func refresh(_ provider: Provider, form: [String: String], clientId: String) async throws -> Response {
        guard let presented = form["refresh_token"], !presented.isEmpty else { return tokenError("invalid_request", "refresh_token is required.") }
        let now = clock.now()
        guard let grant = DevRefreshGrant.open(presented, secret: client(provider).secret), grant.clientId == clientId else {
            return tokenError("invalid_grant", "AADSTS9002313: Invalid request. Malformed or invalid refresh token.", codes: [9002313])
        }
        guard grant.expiresAt > now.timeIntervalSince1970 else {
            return tokenError("invalid_grant", "AADSTS700082: The refresh token has expired due to inactivity.", codes: [700082])
        }
        guard await state(provider).refreshTokenUsable(issuedAt: grant.issuedAt) else {
            return tokenError("invalid_grant", "AADSTS50173: The provided grant has expired due to it being revoked.", codes: [50173])
        }
        await state(provider).countRefreshGrant()
        let accessToken = try await state(provider).grant(email: grant.email, name: grant.name, clientId: clientId, now: now,
                                                      lifetime: accessTokenLifetime)
        let request = DevIdPState.PendingRequest(clientId: clientId, redirectUri: "", state: nil, nonce: nil, codeChallenge: nil,
                                                 scope: grant.scope, entraTenant: nil, createdAt: now)
        let issued = DevIdPState.IssuedCode(request: request, email: grant.email, name: grant.name, expiresAt: now, used: true)
        let idToken = try await state(provider).sign(idTokenClaims(provider, issued: issued, now: now))
        var next = grant
        if provider == .microsoft {
            next.issuedAt = now.timeIntervalSince1970
            next.expiresAt = now.timeIntervalSince1970 + 90 * 86_400
        }
        return json([
            "token_type": .string("Bearer"), "scope": .string(grant.scope), "expires_in": .number(accessTokenLifetime),
            "access_token": .string(accessToken), "id_token": .string(idToken),
            "refresh_token": .string(provider == .microsoft ? try next.seal(secret: client(provider).secret) : presented),
        ])
    }

    func idTokenClaims(_ provider: Provider, issued: DevIdPState.IssuedCode, now: Date) -> [String: JSONValue] {
        let iat = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "aud": .string(issued.request.clientId), "iat": .number(iat), "exp": .number(iat + 3600), "name": .string(issued.name),
        ]
        if let nonce = issued.request.nonce { claims["nonce"] = .string(nonce) }
        let scopes = issued.request.scope.split(separator: " ")
        switch provider {
        case .microsoft:
            let user = DevUsers.microsoft(email: issued.email, name: issued.name)
            claims["ver"] = .string("2.0")
            claims["iss"] = .string("\(microsoftBase)/\(user.tid)/v2.0")
            claims["sub"] = .string(DevUsers.pairwiseSubject(clientId: issued.request.clientId, oid: user.oid))
            claims["oid"] = .string(user.oid)
            claims["tid"] = .string(user.tid)
            claims["nbf"] = .number(iat)
            claims["preferred_username"] = .string(issued.email)
            if scopes.contains("email") {
                claims["email"] = .string(issued.email)
                // Microsoft's optional "email domain owner verified" claim: work accounts whose tenant owns the domain.
                if DevUsers.domainOwnerVerified(user) { claims["xms_edov"] = .bool(true) }
            }
        case .yahoo:
            let guid = DevUsers.yahooGuid(email: issued.email)
            claims["iss"] = .string(yahooBase)
            claims["sub"] = .string(guid)
            claims["auth_time"] = .number(iat)
            if scopes.contains("email") {
                claims["email"] = .string(issued.email)
                claims["email_verified"] = .bool(true)
            }
        }
        return claims
    }

    // MARK: Profiles

    func profile(_ provider: Provider, request: Request) async throws -> Response {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
              let grant = await state(provider).grant(for: String(authorization.dropFirst(7)), now: clock.now())
        else {
            return json(["error": .object(["code": .string("InvalidAuthenticationToken"), "message": .string("Access token is empty or invalid.")])],
                        status: .unauthorized)
        }
        let misbehavior = await state(provider).misbehavior
        let parts = grant.name.split(separator: " ", maxSplits: 1).map(String.init)
        switch provider {
        case .microsoft:
            let user = DevUsers.microsoft(email: grant.email, name: grant.name)
            let id = user.isPersonal ? String(user.oid.dropFirst(19)).replacingOccurrences(of: "-", with: "") : user.oid
            return json([
                "@odata.context": .string("\(microsoftBase)/v1.0/$metadata#users/$entity"),
                "id": .string(misbehavior.profileSubject ?? id), "displayName": .string(grant.name),
                "givenName": parts.first.map { .string($0) } ?? .null, "surname": parts.count > 1 ? .string(parts[1]) : .null,
                "mail": .string(grant.email), "userPrincipalName": .string(grant.email), "jobTitle": .null, "mobilePhone": .null,
                "officeLocation": .null, "preferredLanguage": .string("en-US"), "businessPhones": .array([]),
            ])
        case .yahoo:
            let guid = DevUsers.yahooGuid(email: grant.email)
            return json([
                "sub": .string(misbehavior.profileSubject ?? guid), "name": .string(grant.name),
                "given_name": parts.first.map { .string($0) } ?? .null, "family_name": parts.count > 1 ? .string(parts[1]) : .null,
                "locale": .string("en-US"), "email": .string(grant.email), "email_verified": .bool(true),
                "picture": .string("\(yahooBase)/avatars/\(guid).png"), "preferred_username": .string(grant.email),
            ])
        }
    }

    // MARK: Helpers

    func formFields(_ request: Request) async throws -> [String: String] {
        try await DevHTTP.formFields(request)
    }

    func redirect(_ base: String, _ parameters: [String: String?]) -> Response {
        DevHTTP.redirect(base, parameters)
    }

    func tokenError(_ error: String, _ description: String, codes: [Int] = [], status: HTTPResponse.Status = .badRequest) -> Response {
        json(["error": .string(error), "error_description": .string(description), "error_codes": .array(codes.map { .number(Double($0)) }),
              "trace_id": .string(UUID().uuidString.lowercased()), "correlation_id": .string(UUID().uuidString.lowercased())],
             status: status)
    }

    func json(_ object: [String: JSONValue], status: HTTPResponse.Status = .ok, cacheControl: String = "no-store") -> Response {
        DevHTTP.json(object, status: status, cacheControl: cacheControl)
    }
}
