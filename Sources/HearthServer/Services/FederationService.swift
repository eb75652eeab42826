import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import Hummingbird
import Logging

/// Federated sign-in: the auth handler's authorization sessions and `accounts:signInWithIdp` (sign in, link,
/// reauthenticate, needConfirmation and pending credentials), over the relying party.
public struct FederationService: Sendable {
    let accounts: AccountService
    let relyingParty: RelyingParty
    let logger: Logger
    /// Providers the dev IdPs serve for this process (`--dev`), never stored.
    let devProviders: (any DevelopmentProviders)?
    /// A demo project in `--dev` accepts any app and loopback redirect: a setting of this process, never stored.
    let devAcceptsAnyApp: Bool
    /// Provider refreshes in flight (token vault), one per user and provider.
    let refreshes = ProviderTokenRefreshes()

    var store: any HearthStore { accounts.store }
    var configuration: HearthServerConfiguration { accounts.configuration }
    var now: Date { accounts.configuration.clock.now() }

    public init(accounts: AccountService, relyingParty: RelyingParty, logger: Logger, devProviders: (any DevelopmentProviders)? = nil) {
        self.accounts = accounts
        self.relyingParty = relyingParty
        self.logger = logger
        self.devProviders = devProviders
        self.devAcceptsAnyApp = devProviders != nil && accounts.configuration.projectId.hasPrefix("demo-")
    }

    /// Whether the project accepts any app: a person's choice, else its setting or (a demo project in `--dev`) yes.
    func acceptsAnyApp(_ project: ProjectConfig) -> Bool {
        project.acceptAnyAppChosen ? project.acceptAnyApp : (project.acceptAnyApp || devAcceptsAnyApp)
    }

    /// The enabled configuration of `providerId`, or `OPERATION_NOT_ALLOWED`. A provider configured by a person
    /// (stored) always wins; the dev IdPs serve only providers nobody configured.
    func enabledProvider(_ providerId: String, in scope: Scope) async throws -> IdPConfig {
        guard IdPConfig.kind(forProviderId: providerId) != nil else { throw HearthAPIError(.invalidProviderId, "\(providerId) is not a supported provider") }
        if let stored = try await scope.store.idpConfig(providerId: providerId), !stored.isDevLeftover {
            guard stored.enabled else { throw HearthAPIError(.operationNotAllowed, "\(providerId) sign-in is disabled for this project") }
            if let keyId = ProviderTokenKeys.sealingKeyId(stored.clientSecret) {
                // Sealed at rest with a vault key this server was not given (or that does not open it).
                logger.error("provider client secret cannot be opened", metadata: ["provider": "\(providerId)", "key": "\(keyId)"])
                throw HearthAPIError(.operationNotAllowed, "\(providerId)'s client secret is sealed with vault key \(keyId), which this server does not have: give the server its vault keys (--vault-keys-file)")
            }
            return stored
        }
        if let dev = devProviders?.config(providerId) { return dev }
        throw HearthAPIError(.operationNotAllowed, "\(providerId) sign-in is not enabled for this project")
    }

    /// `createAuthUri` with a `providerId`: `OPERATION_NOT_ALLOWED` unless the provider is enabled (configured or
    /// served by a dev IdP), else where its sign-in starts. Clients use it to check a provider before opening a browser.
    public func createAuthUri(providerId: String, sessionId: String?, appId: String? = nil, in scope: Scope) async throws -> CreateAuthUriResponse {
        let config = try await enabledProvider(providerId.lowercased(), in: scope)
        if let appId, !appId.isEmpty, try await !desktopAppAccepted(appId, in: scope) {
            throw HearthAPIError(.appNotAuthorized, Self.unregisteredDesktopApp(appId))
        }
        return CreateAuthUriResponse(registered: nil, allProviders: nil, signinMethods: nil,
                                     sessionId: sessionId ?? RandomID.alphanumeric(count: 27), providerId: config.providerId,
                                     authUri: configuration.publicURL.authHandlerURL)
    }

    /// Whether the auth handler hands results to the desktop app `appId` (registered, or any app accepted).
    func desktopAppAccepted(_ appId: String, in scope: Scope) async throws -> Bool {
        acceptsDesktopApp(appId, project: try await scope.config(), apps: try await scope.store.apps())
    }

    /// The rule itself, for callers that have the project and the apps at hand.
    func acceptsDesktopApp(_ appId: String, project: ProjectConfig, apps: [AppRegistration]) -> Bool {
        acceptsAnyApp(project) || apps.contains { $0.kind == .desktop && $0.id == appId }
    }

    /// What to do about an unregistered desktop app, with the exact command.
    static func unregisteredDesktopApp(_ appId: String) -> String {
        let shown = String(appId.prefix(100))
        return "no desktop application '\(shown)' is registered for this project: register it with hearth apps add-desktop --id \(shown) (or the console's Apps page)"
    }

    /// Where each provider comes from: stored (configured by a person, enabled or not) or the dev IdPs.
    public func providerSources(in scope: Scope) async throws -> [ProviderSource] {
        var result: [ProviderSource] = []
        var seen = Set<String>()
        for config in try await scope.store.idpConfigs() where !config.isDevLeftover {
            seen.insert(config.providerId)
            result.append(ProviderSource(providerId: config.providerId, kind: config.enabled ? .configured : .disabled, clientId: config.clientId))
        }
        for config in devProviders?.providerConfigs() ?? [] where !seen.contains(config.providerId) {
            result.append(ProviderSource(providerId: config.providerId, kind: .devIdP, clientId: config.clientId))
        }
        return result.sorted { $0.providerId < $1.providerId }
    }

    // MARK: signInWithIdp

    /// `accounts:signInWithIdp`.
    public func signInWithIdp(_ request: SignInWithIdpRequest, in scope: Scope) async throws -> SignInWithIdpResponse {
        let returnCredential = request.returnIdpCredential ?? false
        if let pendingToken = request.pendingToken, !pendingToken.isEmpty, !Self.hasCode(request.requestUri) {
            return try await linkPending(pendingToken, request: request, returnCredential: returnCredential, in: scope)
        }
        guard let requestUri = request.requestUri, !requestUri.isEmpty else { throw HearthAPIError(.missingRequestUri) }
        guard let components = URLComponents(string: requestUri), components.scheme != nil else { throw HearthAPIError(.invalidRequestUri) }
        // Form semantics (`+` is a space), as every query Hearth reads.
        var parameters = FormQuery(components.percentEncodedQuery).fields
        if let fragment = components.fragment { for (key, value) in FormEncoding.decode(fragment) { parameters[key] = value } }
        var postBody: [String: String] = [:]
        for (key, value) in FormEncoding.decode(request.postBody ?? "") { postBody[key] = value }
        // Percent-encoded inside a JSON string, a NUL escapes the body's check: refused here, as everywhere.
        if (parameters.contains { $0.key.contains("\0") || $0.value.contains("\0") })
            || (postBody.contains { $0.key.contains("\0") || $0.value.contains("\0") }) {
            throw HearthAPIError(.invalidIdpResponse, "the requestUri or postBody holds a NUL character (%00), which no field accepts")
        }

        // A natively obtained provider ID token (MSAL, Yahoo's SDK): accepted only after the checks of
        // `signInWithNativeIDToken` (signature, issuer, audience, times, nonce).
        if let nativeToken = postBody["id_token"], !nativeToken.isEmpty, parameters["code"] == nil {
            return try await signInWithNativeIDToken(nativeToken, postBody: postBody, request: request, returnCredential: returnCredential, in: scope)
        }
        // Otherwise only the server's own code exchange counts: a bare access token's audience cannot be checked,
        // so a token issued to another application would sign into this one.
        let bareToken = ["id_token", "access_token", "oauth_token"].first { parameters[$0] != nil || postBody[$0] != nil }
        if let bareToken {
            throw HearthAPIError(.invalidIdpResponse, "a bare \(bareToken) is not accepted as a credential: sign in through the auth handler, Hearth exchanges the authorization code itself")
        }
        guard let state = parameters["state"], !state.isEmpty else {
            throw HearthAPIError(.invalidIdpResponse, "the requestUri is not an auth handler result (no state)")
        }
        if parameters["error"] != nil {
            // The provider the client names, only when it is one this server serves (a metrics label must stay bounded).
            var claimed: String?
            if let named = postBody["providerId"]?.lowercased(), (try? await enabledProvider(named, in: scope)) != nil { claimed = named }
            let info = ProviderErrorInfo.parse(providerId: claimed, query: parameters)
            throw diagnostics.refusal(RelyingPartyError(.tokenExchange, "the provider answered \(info.error ?? "an error")", providerError: info),
                                      providerId: claimed ?? "unknown")
        }
        guard let code = parameters["code"], !code.isEmpty else { throw HearthAPIError(.invalidIdpResponse, "the requestUri has no authorization code") }
        guard let sessionId = request.sessionId, !sessionId.isEmpty else { throw HearthAPIError(.missingSessionId) }

        let session: AuthorizationSession
        switch try await scope.store.consumeAuthorizationSession(state: state, sessionIdHash: sessionId.sha256Hex, now: now) {
        case .consumed(let value): session = value
        case .unknown: throw HearthAPIError(.invalidIdpResponse, "unknown sign-in (state)")
        case .alreadyUsed: throw HearthAPIError(.invalidIdpResponse, "this sign-in was already completed")
        case .expired: throw HearthAPIError(.invalidIdpResponse, "this sign-in has expired; start again")
        case .sessionMismatch:
            logger.notice("signInWithIdp with a wrong session id; sign-in session burned")
            throw HearthAPIError(.invalidIdpResponse, "the sessionId does not match the sign-in")
        }
        if let claimed = postBody["providerId"], !claimed.isEmpty, claimed.lowercased() != session.providerId {
            throw HearthAPIError(.invalidIdpResponse, "the sign-in was started for another provider")
        }
        let config = try await enabledProvider(session.providerId, in: scope)
        // A web sign-in (Firebase JS SDK) says what it is for in its authType, kept with the session: a link needs the
        // user's idToken and a sign-in or reauthentication must not carry one; a reauthentication creates nothing.
        var request = request
        let webReauth = session.authType.hasPrefix("reauth") && AuthHandlerProtocol.webAuthTypes.contains(session.authType)
        if AuthHandlerProtocol.webAuthTypes.contains(session.authType) {
            let hasToken = request.idToken?.isEmpty == false
            if session.authType.hasPrefix("link") {
                guard hasToken else { throw HearthAPIError(.invalidIdpResponse, "this sign-in was started to link (\(session.authType)): send the user's idToken") }
            } else if hasToken {
                throw HearthAPIError(.invalidIdpResponse, "this sign-in was started as \(session.authType), not to link an account")
            }
            if webReauth { request.autoCreate = false }
        }
        let signIn: FederatedSignIn
        do {
            let provider = try await relyingParty.resolve(config, entraTenantOrHostedDomain: session.entraTenantOrHostedDomain)
            // Apple's `user` field (posted with the code on the first authorization) names the person.
            signIn = try await relyingParty.complete(provider, code: code, redirectUri: session.redirectUri,
                                                     codeVerifier: session.codeVerifier, nonce: session.nonce,
                                                     userField: config.kind == .apple ? parameters["user"] : nil)
        } catch let error as RelyingPartyError {
            throw diagnostics.refusal(error, providerId: config.providerId)
        }
        let answer: SignInWithIdpResponse
        do {
            answer = try await finish(signIn, request: request, returnCredential: returnCredential, in: scope)
        } catch let error as HearthAPIError where webReauth && error.code == .userNotFound {
            // The JS SDK reads USER_NOT_FOUND as an expired session and signs the user out; EMAIL_NOT_FOUND is its
            // user-mismatch, which is what this is.
            throw HearthAPIError(.emailNotFound, "this \(session.providerId) account is not linked to any user: reauthenticate with a provider the user has")
        }
        await keepProviderTokens(signIn, answer: answer, config: config, entraTenantOrHostedDomain: session.entraTenantOrHostedDomain)
        return answer
    }

    static func hasCode(_ requestUri: String?) -> Bool {
        guard let requestUri, let components = URLComponents(string: requestUri) else { return false }
        return components.queryItems?.contains { $0.name == "code" } ?? false
    }

    /// The account rules, once the provider identity is verified.
    func finish(_ signIn: FederatedSignIn, request: SignInWithIdpRequest, returnCredential: Bool, in scope: Scope) async throws -> SignInWithIdpResponse {
        let identity = signIn.identity
        let holder = try await scope.store.user(providerId: identity.providerId, federatedId: identity.federatedId)
        if let idToken = request.idToken, !idToken.isEmpty {
            let (claims, user) = try await accounts.authenticate(idToken: idToken, in: scope)
            if request.autoCreate == false {
                // A reauthentication of the signed-in user (the SDKs send none with an idToken, but a client that
                // does must not link or create anything): the identity must already be that user's. Firebase's
                // SDKs turn USER_NOT_FOUND into userMismatch.
                guard let holder, holder.localId == user.localId else { throw HearthAPIError(.userNotFound) }
                return try await signInExisting(holder, signIn, in: scope)
            }
            return try await link(signIn, to: (claims, user), returnCredential: returnCredential, in: scope)
        }
        if request.autoCreate == false {
            guard let holder else { throw HearthAPIError(.userNotFound) }
            return try await signInExisting(holder, signIn, in: scope)
        }
        if let holder { return try await signInExisting(holder, signIn, in: scope) }
        let project = try await scope.config()
        // An Apple private-relay address is never used to find another account (it would let whoever controls a
        // relay mailbox reach that account's methods): a new account is created instead.
        if let email = identity.email, !project.allowDuplicateEmails, !signIn.emailIsPrivateRelay, let existing = try await scope.store.user(email: email) {
            return try await needConfirmation(signIn, existing: existing, in: scope)
        }
        return try await createUser(signIn, project: project, in: scope)
    }

    func signInExisting(_ holder: UserRecord, _ signIn: FederatedSignIn, in scope: Scope) async throws -> SignInWithIdpResponse {
        // One write: lastLoginAt, the identity's fresh profile, the new refresh token (or the second factor asked for).
        let end = try await accounts.finishSignIn(holder, provider: signIn.identity.providerId,
                                                  .firstFactor(identity: signIn.identity, signIn: Self.blockingSignIn(signIn)), in: scope)
        var answer = response(signIn, user: end.user, tokens: nil, isNewUser: false)
        answer.set(end)
        return answer
    }

    func createUser(_ signIn: FederatedSignIn, project: ProjectConfig, in scope: Scope) async throws -> SignInWithIdpResponse {
        var email = signIn.identity.email
        if let address = email, project.allowDuplicateEmails || signIn.emailIsPrivateRelay, try await scope.store.user(email: address) != nil {
            // Several accounts may share the email (or a private-relay address another account has): it stays on
            // the identity only.
            email = nil
        }
        var user = accounts.newUser()
        user.email = email
        user.emailVerified = email != nil && signIn.emailVerified
        user.displayName = signIn.identity.displayName
        user.photoUrl = signIn.identity.photoUrl
        user.identities = [signIn.identity]
        let created: AccountService.CreatedAccount
        do {
            created = try await accounts.createAccount(user, origin: .signUp(provider: signIn.identity.providerId),
                                                       signIn: Self.blockingSignIn(signIn), in: scope)
        } catch StoreError.federatedIdTaken, StoreError.emailExists {
            // A concurrent sign-in created the account or took the email: apply the rules again.
            if let holder = try await scope.store.user(providerId: signIn.identity.providerId, federatedId: signIn.identity.federatedId) {
                return try await signInExisting(holder, signIn, in: scope)
            }
            if let address = signIn.identity.email, !signIn.emailIsPrivateRelay, let existing = try await scope.store.user(email: address) {
                return try await needConfirmation(signIn, existing: existing, in: scope)
            }
            throw HearthAPIError(.internalError, "the account is being created concurrently; try again", httpStatus: 409)
        }
        let end = try await accounts.finishSignIn(created.user, provider: signIn.identity.providerId, created.signIn(), in: scope)
        return response(signIn, user: created.user, tokens: end.tokens, isNewUser: true)
    }

    /// Another account has the email: no session, but a pending credential the client links after signing in
    /// to that account (never merged on the provider's word alone).
    func needConfirmation(_ signIn: FederatedSignIn, existing: UserRecord, in scope: Scope) async throws -> SignInWithIdpResponse {
        let token = "hpt1." + RandomID.token(byteCount: 32)
        let moment = now
        try await scope.store.insertPendingCredential(PendingCredential(
            tokenHash: RefreshTokenRecord.hash(token), identity: signIn.identity, emailVerified: signIn.emailVerified,
            rawUserInfo: JSONValue.object(signIn.rawUserInfo).compactJSONString, createdAt: moment,
            expiresAt: moment.addingTimeInterval(configuration.pendingCredentialLifetime)))
        var answer = response(signIn, user: nil, tokens: nil, isNewUser: nil)
        answer.needConfirmation = true
        answer.pendingToken = token
        answer.email = signIn.identity.email
        // The existing account's methods help the person pick the right sign-in; with email enumeration protection
        // they are named only to someone the provider vouched for as the email's owner (an unverified email —
        // one a work tenant's administrator typed — learns nothing about the account).
        let protected = try await scope.config().emailEnumerationProtection
        if signIn.emailVerified || !protected {
            answer.verifiedProvider = existing.providerUserInfo.map(\.providerId)
        }
        return answer
    }

    /// Links the identity to the signed-in session's user. A new way into the account: it needs a recent sign-in
    /// (but on an anonymous account, which has nothing to protect), and the answered session keeps the session's
    /// sign-in time and second factor (it is the same sign-in, with one more credential).
    func link(_ signIn: FederatedSignIn, to session: (claims: IDTokenClaims, user: UserRecord), returnCredential: Bool,
              in scope: Scope) async throws -> SignInWithIdpResponse {
        let (claims, current) = session
        if !current.isAnonymous { try accounts.requireRecentLogin(claims) }
        let identity = signIn.identity
        if let holder = try await scope.store.user(providerId: identity.providerId, federatedId: identity.federatedId), holder.localId != current.localId {
            return try linkError(.federatedUserIdAlreadyLinked, signIn, returnCredential: returnCredential)
        }
        if current.identities.contains(where: { $0.providerId == identity.providerId && $0.federatedId != identity.federatedId }) {
            throw HearthAPIError(.providerAlreadyLinked, "the user already has another \(identity.providerId) account linked")
        }
        let project = try await scope.config()
        if let email = identity.email, !project.allowDuplicateEmails, let other = try await scope.store.user(email: email), other.localId != current.localId {
            return try linkError(.emailExists, signIn, returnCredential: returnCredential)
        }
        // The project's beforeSignIn function sees the account as the link makes it, and decides before it is written.
        let emailVerified = signIn.emailVerified
        let applyLink: @Sendable (inout UserRecord) -> Void = { user in
            user.identities.removeAll { $0.providerId == identity.providerId }
            user.identities.append(identity)
            if user.email == nil, let email = identity.email, emailVerified {
                user.email = email
                user.emailVerified = true
            }
        }
        var linked = current
        applyLink(&linked)
        let end: AccountService.SignInEnd
        do {
            end = try await accounts.finishSignIn(linked, provider: identity.providerId, .linked(claims, signIn: Self.blockingSignIn(signIn), write: {
                [accounts] change in
                try await accounts.modifyUser(localId: current.localId, in: scope) { user in
                    applyLink(&user)
                    change(&user)
                }
            }), in: scope)
        } catch StoreError.federatedIdTaken {
            return try linkError(.federatedUserIdAlreadyLinked, signIn, returnCredential: returnCredential)
        }
        logger.info("provider linked", metadata: ["uid": "\(end.user.localId)", "provider": "\(identity.providerId)"])
        return response(signIn, user: end.user, tokens: end.tokens, isNewUser: false)
    }

    /// `FEDERATED_USER_ID_ALREADY_LINKED` / `EMAIL_EXISTS`: with `returnIdpCredential`, HTTP 200 with
    /// `errorMessage` and the provider's tokens (so the client can build the updated credential).
    func linkError(_ code: ServerErrorCode, _ signIn: FederatedSignIn, returnCredential: Bool) throws -> SignInWithIdpResponse {
        guard returnCredential else { throw HearthAPIError(code) }
        var answer = response(signIn, user: nil, tokens: nil, isNewUser: nil)
        answer.errorMessage = code.rawValue
        answer.email = signIn.identity.email
        return answer
    }

    func linkPending(_ pendingToken: String, request: SignInWithIdpRequest, returnCredential: Bool, in scope: Scope) async throws -> SignInWithIdpResponse {
        guard let idToken = request.idToken, !idToken.isEmpty else {
            throw HearthAPIError(.invalidPendingToken, "a pending credential is linked to a signed-in user: send the user's idToken")
        }
        let (claims, user) = try await accounts.authenticate(idToken: idToken, in: scope)
        if !user.isAnonymous { try accounts.requireRecentLogin(claims) }
        guard let pending = try await scope.store.takePendingCredential(tokenHash: RefreshTokenRecord.hash(pendingToken), now: now) else {
            throw HearthAPIError(.invalidPendingToken)
        }
        _ = try await enabledProvider(pending.identity.providerId, in: scope)
        var rawUserInfo: [String: JSONValue] = [:]
        if let text = pending.rawUserInfo, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
            rawUserInfo = object
        }
        let signIn = FederatedSignIn(identity: pending.identity, emailVerified: pending.emailVerified, firstName: nil, lastName: nil,
                                     rawUserInfo: rawUserInfo, oauthAccessToken: "", oauthIdToken: nil, oauthExpiresIn: nil, oauthRefreshToken: nil)
        return try await link(signIn, to: (claims, user), returnCredential: returnCredential, in: scope)
    }

    /// A federated sign-in as the project's blocking functions see it: the provider as sign_in_method, its profile
    /// (`raw_user_info`) and tokens (forwarded only when the project's configuration allows).
    static func blockingSignIn(_ signIn: FederatedSignIn) -> BlockingSignIn {
        BlockingSignIn(method: signIn.identity.providerId, rawUserInfo: signIn.rawUserInfo,
                       oauthIdToken: signIn.oauthIdToken, oauthAccessToken: signIn.oauthAccessToken.isEmpty ? nil : signIn.oauthAccessToken,
                       oauthRefreshToken: signIn.oauthRefreshToken, oauthExpiresIn: signIn.oauthExpiresIn,
                       signInAttributes: signIn.signInAttributes.map(JSONValue.object))
    }

    func response(_ signIn: FederatedSignIn, user: UserRecord?, tokens: SessionTokens?, isNewUser: Bool?) -> SignInWithIdpResponse {
        var answer = SignInWithIdpResponse()
        answer.federatedId = signIn.identity.federatedId
        answer.providerId = signIn.identity.providerId
        answer.localId = user?.localId
        answer.email = user?.email ?? signIn.identity.email
        answer.emailVerified = user.map { $0.email != nil && $0.emailVerified } ?? signIn.emailVerified
        answer.displayName = signIn.identity.displayName
        answer.fullName = signIn.identity.displayName
        answer.firstName = signIn.firstName
        answer.lastName = signIn.lastName
        answer.photoUrl = signIn.identity.photoUrl
        answer.rawUserInfo = JSONValue.object(signIn.rawUserInfo).compactJSONString
        answer.oauthAccessToken = signIn.oauthAccessToken.isEmpty ? nil : signIn.oauthAccessToken
        answer.oauthIdToken = signIn.oauthIdToken
        answer.oauthExpireIn = signIn.oauthExpiresIn
        answer.idToken = tokens?.idToken
        answer.refreshToken = tokens?.refreshToken
        answer.expiresIn = tokens?.expiresIn
        answer.isNewUser = isNewUser
        return answer
    }
}

/// Where a provider's settings come from.
public struct ProviderSource: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Stored by `hearth providers enable`: a real registration.
        case configured
        /// Stored but disabled.
        case disabled
        /// Served by the built-in dev IdP for this process (`--dev`).
        case devIdP = "dev IdP"
    }

    public var providerId: String
    public var kind: Kind
    public var clientId: String
}

extension IdPConfig {
    /// Settings an earlier Hearth version stored for its dev IdPs (named "Microsoft (dev)" / "Yahoo (dev)" and
    /// pointing at `/__dev/…`): never a person's.
    var isDevLeftover: Bool {
        ["Microsoft (dev)", "Yahoo (dev)"].contains(displayName ?? "")
            && ((endpointBase ?? "").contains("/__dev/microsoft") || (endpointBase ?? "").contains("/__dev/yahoo"))
    }
}

extension SignInWithIdpRequest: ServedRPC {
    static let signInKind: SignInKind? = .idp
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignInWithIdpResponse { try await call.federation.signInWithIdp(request, in: call.scope) }
}
