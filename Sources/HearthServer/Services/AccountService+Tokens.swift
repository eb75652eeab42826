import Logging
import Foundation
import HearthCore
import HearthStore
import HearthWire
import HTTPTypes
import Hummingbird
import JWTKit

extension AccountService {
    /// The refresh grant: rotates the refresh token, answers a new ID token. Unknown tokens are
    /// `INVALID_REFRESH_TOKEN`; revoked ones, reused ones (theft: the family is revoked) and sessions older
    /// than the user's `validSince` are `TOKEN_EXPIRED`.
    public func refresh(_ request: GrantTokenRequest, in scope: Scope) async throws -> GrantTokenResponse {
        try await refresh(request, in: scope, resolving: true)
    }

    /// `resolving`: a token of another tenant than `scope`'s is refreshed in that tenant's scope (the refresh
    /// request names no tenant; the token's own row does), once.
    private func refresh(_ request: GrantTokenRequest, in scope: Scope, resolving: Bool) async throws -> GrantTokenResponse {
        guard let grantType = request.grantType, !grantType.isEmpty else { throw HearthAPIError(.missingGrantType) }
        guard grantType == "refresh_token" else { throw HearthAPIError(.invalidGrantType) }
        guard let token = request.refreshToken, !token.isEmpty else { throw HearthAPIError(.missingRefreshToken) }
        guard token.utf8.count <= 512 else { throw HearthAPIError(.invalidRefreshToken) }
        let moment = now
        let (newToken, replacement) = RefreshTokenRecord.issue(localId: "", authTime: moment, signInProvider: "", now: moment)
        // One write transaction: checks (token, reuse, user disabled, validSince), rotation, lastRefreshAt.
        let outcome = try await metrics.timeStore("refreshSession") {
            try await scope.store.refreshSession(presentedHash: RefreshTokenRecord.hash(token), replacement: replacement, now: moment,
                                           graceWindow: configuration.refreshGraceWindow)
        }
        let previous: RefreshTokenRecord
        let user: UserRecord
        switch outcome {
        case .unknown: throw HearthAPIError(.invalidRefreshToken)
        case .revoked, .sessionExpired: throw HearthAPIError(.tokenExpired)
        case .reuseDetected:
            metrics.count(.refreshReuseDetections)
            logger.warning("refresh token reuse detected; session family revoked")
            throw HearthAPIError(.tokenExpired)
        case .userNotFound: throw HearthAPIError(.userNotFound)
        case .userDisabled: throw HearthAPIError(.userDisabled)
        case .inTenant(let tenantId):
            // A deleted tenant's tokens are gone with it; one deleted meanwhile is not found.
            guard resolving else { throw HearthAPIError(.invalidRefreshToken) }
            let tenantScope: Scope
            do {
                tenantScope = try await scopes.resolve(tenantId: tenantId)
            } catch let refusal as HearthAPIError where refusal.code == .operationNotAllowed {
                throw HearthAPIError(.userDisabled)  // disableAuth: the tenant's users are disabled
            } catch {
                throw HearthAPIError(.invalidRefreshToken)
            }
            return try await refresh(request, in: tenantScope, resolving: false)
        case .refreshed(let record, let stored):
            previous = record
            user = stored
        }
        let idToken = try await mintIDToken(for: user, signInProvider: previous.signInProvider, authTime: previous.authTime,
                                            sessionClaims: previous.sessionClaims, in: scope)
        return GrantTokenResponse(idToken: idToken, refreshToken: newToken, expiresIn: expiresIn,
                                  userId: user.localId, projectId: scope.projectId)
    }

    /// `accounts:signInWithCustomToken`: verifies a custom token signed by a registered service-account key,
    /// creates the user on first use.
    /// `allowUnsigned`: accept the Admin SDKs' emulator-mode tokens (`alg: none`, empty signature), decided by
    /// the caller from the configuration and the client's address.
    public func signInWithCustomToken(_ request: SignInWithCustomTokenRequest, allowUnsigned: Bool = false,
                                      in scope: Scope) async throws -> SignInWithCustomTokenResponse {
        guard let token = request.token, !token.isEmpty else { throw HearthAPIError(.missingCustomToken) }
        let claims = try await verifyCustomToken(token, allowUnsigned: allowUnsigned)
        // A tenant's "alice" must not sign in as the scope's "alice".
        try scope.admit(tenantId: claims.tenantId, in: "the custom token")
        if let extra = claims.claims, (try? WireJSON.encoder.encode(extra))?.count ?? 0 > 1000 {
            throw HearthAPIError(.claimsTooLarge, "the custom token's developer claims must be at most 1000 bytes of JSON")
        }
        let sessionClaims = claims.claims ?? [:]
        var existing = try await scope.store.user(localId: claims.uid)
        if existing == nil {
            var user = newUser(localId: claims.uid)
            user.customAuth = true
            do {
                try await createAccount(user, origin: .signUp(provider: "custom"), in: scope)
                let end = try await finishSignIn(user, provider: "custom", .newAccount(sessionClaims: sessionClaims), in: scope)
                return SignInWithCustomTokenResponse(tokens: end.tokens, isNewUser: true)
            } catch StoreError.duplicateLocalId {
                // Created concurrently by another sign-in with the same uid: sign in to it.
                existing = try await scope.store.user(localId: claims.uid)
            }
        }
        guard let user = existing else {
            // The uid is taken, but not in this scope: another tenant's or the project's user holds it.
            throw HearthAPIError(.userNotFound, "uid \(Scope.shown(claims.uid)) belongs to a user outside \(Scope.describe(scope.tenantId)) (another tenant's or the project's): uids are unique across a Hearth server's tenants, unlike Identity Platform's; mint the custom token with a uid of its own")
        }
        // The app's backend vouches for the user: no second factor is asked (as at Firebase).
        let end = try await finishSignIn(user, provider: "custom", .firstFactor(bothFactors: true, sessionClaims: sessionClaims), in: scope)
        return SignInWithCustomTokenResponse(tokens: end.tokens, isNewUser: false)
    }

    func verifyCustomToken(_ token: String, allowUnsigned: Bool = false) async throws -> CustomTokenClaims {
        guard let header = JWTHeaderFields(token: token) else { throw HearthAPIError(.invalidCustomToken, "not a JWT") }
        if header.alg == "none", allowUnsigned {
            return try unsignedEmulatorCustomToken(token)
        }
        guard header.alg == "RS256" else {
            throw HearthAPIError(.invalidCustomToken, "custom tokens must be signed with RS256 (unsigned emulator-mode tokens are accepted only for demo-* projects or with --emulator-admin)")
        }
        let unverified: CustomTokenClaims
        do {
            unverified = try DefaultJWTParser().parse([UInt8](token.utf8), as: CustomTokenClaims.self).payload
        } catch {
            throw HearthAPIError(.invalidCustomToken, "the claims are not those of a custom token")
        }
        if unverified.aud != CustomTokenClaims.audience {
            throw HearthAPIError(.credentialMismatch, "the custom token's audience is not the Identity Toolkit audience")
        }
        var keys = try await store.serviceAccountKeys(clientEmail: unverified.iss)
        if let kid = header.kid { keys = keys.filter { $0.keyId == kid } }
        guard !keys.isEmpty else {
            throw HearthAPIError(.invalidCustomToken, "the signer is not a service account registered with this project")
        }
        var verified: CustomTokenClaims?
        for key in keys {
            guard let collection = await serviceAccountVerifiers.collection(for: key) else { continue }
            if let claims = try? await collection.verify(token, as: CustomTokenClaims.self) {
                verified = claims
                break
            }
        }
        guard let verified else { throw HearthAPIError(.invalidCustomToken, "the signature does not verify") }
        do {
            try verified.validate(now: now)
        } catch .expired {
            throw HearthAPIError(.invalidCustomToken, "the custom token has expired")
        } catch .wrongAudience {
            throw HearthAPIError(.credentialMismatch)
        } catch .reservedClaim(let name) {
            throw HearthAPIError(.invalidClaims, "'\(name)' is a reserved claim")
        } catch {
            throw HearthAPIError(.invalidCustomToken, "\(error)")
        }
        return verified
    }

    /// An Admin SDK's emulator-mode custom token: `alg: none`, empty signature, the usual claims.
    private func unsignedEmulatorCustomToken(_ token: String) throws -> CustomTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty, let data = Data(base64URLEncoded: String(parts[1])),
              let claims = try? JSONDecoder().decode(CustomTokenClaims.self, from: data)
        else { throw HearthAPIError(.invalidCustomToken, "an unsigned custom token has an empty signature and the custom-token claims") }
        do {
            try claims.validate(now: now)
        } catch .wrongAudience {
            throw HearthAPIError(.credentialMismatch)
        } catch .reservedClaim(let name) {
            throw HearthAPIError(.invalidClaims, "'\(name)' is a reserved claim")
        } catch {
            throw HearthAPIError(.invalidCustomToken, "\(error)")
        }
        return claims
    }
}

extension SignInWithCustomTokenRequest: ServedRPC {
    static let signInKind: SignInKind? = .custom
    /// Unsigned (emulator-mode) custom tokens only where the emulator credential is accepted from this client, and,
    /// for a `demo-*` project, from a web page on this machine whose origin is on one of the project's authorized
    /// domains: the Firebase emulator accepts them from web apps (firebase-admin mints them in emulator mode and the
    /// app's page signs in with them), while a page on any other site the developer visits is still refused.
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignInWithCustomTokenResponse {
        let configuration = call.services.configuration
        let emulator = configuration.emulatorAdminEnabled
            && (configuration.emulatorAdminAllowRemote || AdminAuthorizer.isLocalClient(call.request, context: call.context))
        guard !emulator, configuration.emulatorAdminEnabled, let token = request.token,
              JWTHeaderFields(token: token)?.alg == "none" else {
            return try await call.accounts.signInWithCustomToken(request, allowUnsigned: emulator, in: call.scope)
        }
        // An unsigned token the emulator credential's rule refuses: a web page's (Origin), or another machine's.
        let demo = call.scope.projectId.hasPrefix("demo-")
        if demo, let origin = call.request.headers[.origin],
           AdminAuthorizer.isLocalClient(call.request, context: call.context, allowingOrigin: true) {
            let domains = try await call.scope.config().authorizedDomains
            let shown = origin.count > 200 ? String(origin.prefix(200)) + "…" : origin
            // The rule of web sign-in (the handler's redirectUrl, the iframe's frame-ancestors).
            guard let components = URLComponents(string: origin), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
                  let host = components.host?.lowercased(), !host.isEmpty else {
                throw HearthAPIError(.invalidCustomToken, "an unsigned (emulator-mode) custom token is accepted from a web page only when the page is on an authorized domain of project \(call.scope.projectId); the request's Origin \(shown) is not an http(s) origin")
            }
            guard AuthorizedDomains.allows(host: host, in: domains) else {
                throw HearthAPIError(.invalidCustomToken, "an unsigned (emulator-mode) custom token is accepted from a web page only when the page is on an authorized domain of project \(call.scope.projectId); \(shown) is not (add \(host) with hearth project domains --add \(host), or in the console's Settings)")
            }
            return try await call.accounts.signInWithCustomToken(request, allowUnsigned: true, in: call.scope)
        }
        throw HearthAPIError(.invalidCustomToken, "an unsigned (emulator-mode) custom token is accepted only from programs on this machine that reach the server as localhost or 127.0.0.1 directly (no proxy headers)" + (demo ? ", and from web pages there on an authorized domain" : "; from web pages only for demo-* projects") + "; see --emulator-admin-allow-remote")
    }
}

extension GrantTokenRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> GrantTokenResponse {
        var grant = request
        // Some clients put the grant in the query string.
        let query = FormQuery(call.request.uri.query)
        if grant.grantType == nil { grant.grantType = query.get("grant_type") ?? query.get("grantType") }
        if grant.refreshToken == nil { grant.refreshToken = query.get("refresh_token") ?? query.get("refreshToken") }
        return try await call.accounts.refresh(grant, in: call.scope)
    }
}
