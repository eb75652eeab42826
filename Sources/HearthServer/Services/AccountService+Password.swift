import Logging
import Foundation
import HearthCore
import HearthStore
import HearthWire

extension AccountService {
    /// `accounts:signUp`: an email/password user, or an anonymous one when neither is given. With an `idToken`,
    /// the email and password are linked to that user (Firebase's Apple SDK links an email credential this way):
    /// an anonymous user is upgraded; a user without a password (federated, custom) gets one only after a recent
    /// sign-in, and its other sessions end; a user who has a password already is refused
    /// (`PROVIDER_ALREADY_LINKED`) — changing it is `accounts:update`'s job, with its recent-login rule.
    public func signUp(_ request: SignUpRequest, in scope: Scope) async throws -> SignUpResponse {
        let config = try await scope.config()
        let hasEmail = !(request.email ?? "").isEmpty
        let hasPassword = !(request.password ?? "").isEmpty
        try Self.checkProfile(displayName: request.displayName, photoUrl: nil)

        if let idToken = request.idToken {
            return try await linkPassword(request, idToken: idToken, config: config, in: scope)
        }
        if config.userSignupDisabled {
            throw HearthAPIError(.adminOnlyOperation, "sign-up is disabled for this project; an administrator creates accounts")
        }
        var user = newUser()
        user.displayName = request.displayName
        let provider: String
        if hasEmail || hasPassword {
            guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
            let email = try Self.normalizedEmail(request.email)
            guard let password = request.password, hasPassword else { throw HearthAPIError(.missingPassword) }
            try Self.checkPasswordStrength(password)
            user.email = email
            user.passwordHash = try await hashPassword(password)
            user.passwordUpdatedAt = user.createdAt
            provider = "password"
        } else {
            guard config.anonymousSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "anonymous sign-in is disabled") }
            provider = "anonymous"
        }
        // The project's blocking functions may change the new user (a name, claims) or disable it.
        let created = try await createAccount(user, origin: .signUp(provider: provider), in: scope)
        let end = try await finishSignIn(created.user, provider: provider, created.signIn(), in: scope)
        return SignUpResponse(localId: created.user.localId, email: created.user.email, displayName: created.user.displayName, tokens: end.tokens)
    }

    /// `accounts:signUp` with an `idToken`: links an email and password to the signed-in user (see ``signUp(_:)``).
    func linkPassword(_ request: SignUpRequest, idToken: String, config: ProjectConfig, in scope: Scope) async throws -> SignUpResponse {
        let (claims, current) = try await authenticate(idToken: idToken, in: scope)
        guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
        let email = try Self.normalizedEmail(request.email)
        guard let password = request.password, !password.isEmpty else { throw HearthAPIError(.missingPassword) }
        try Self.checkPasswordStrength(password)
        if current.passwordHash != nil {
            // Firebase: a credential of a kind the user has already. A new password or email is accounts:update's
            // (recent sign-in, sessions revoked): signUp must not become a way around that rule.
            throw HearthAPIError(.providerAlreadyLinked, "the user has a password already; change it with accounts:update")
        }
        let upgrade = current.isAnonymous
        // Adding a credential to an account that has one (a federated identity, a custom-token account) is a
        // credential change: it needs a recent sign-in and ends the user's other sessions. An anonymous account has
        // nothing to protect, and its upgrade keeps its session.
        if !upgrade { try requireRecentLogin(claims) }
        if let existing = try await scope.store.user(email: email), existing.localId != current.localId {
            throw HearthAPIError(.emailExists)
        }
        let hash = try await hashPassword(password)
        let moment = now
        let updated = try await modifyUser(localId: current.localId, revokingSessions: !upgrade, in: scope) { user in
            guard user.passwordHash == nil else {
                throw HearthAPIError(.providerAlreadyLinked, "the user has a password already; change it with accounts:update")
            }
            if user.email != email {
                user.email = email
                user.emailVerified = false
            }
            user.passwordHash = hash
            user.passwordUpdatedAt = moment
            if let name = request.displayName { user.displayName = name }
            if !upgrade { user.validSince = revocationMoment }
        }
        let end: SignInEnd
        if upgrade {
            end = try await finishSignIn(updated, provider: "password", .continuing(claims), in: scope)
        } else {
            // A credential change with a recent sign-in (checked above): every earlier token ends, the caller's
            // included (a session that keeps an older auth_time would read as revoked to the Admin SDKs'
            // checkRevoked), and the caller goes on with a new session.
            logger.info("password linked; other sessions revoked", metadata: ["uid": "\(updated.localId)"])
            end = try await finishSignIn(updated, provider: "password", .afterRevocation, in: scope)
        }
        return SignUpResponse(localId: updated.localId, email: updated.email, displayName: updated.displayName, tokens: end.tokens)
    }

    /// `accounts:signInWithPassword`. Unknown email and wrong password give the same
    /// `INVALID_LOGIN_CREDENTIALS` after the same scrypt work; attempts are throttled per account and address, each
    /// reserved before the password is checked (``LoginThrottle``), so a parallel burst is held to the limit.
    public func signInWithPassword(_ request: SignInWithPasswordRequest, clientAddress: String, in scope: Scope) async throws -> SignInWithPasswordResponse {
        let config = try await scope.config()
        guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
        let email = try Self.normalizedEmail(request.email, missing: .invalidEmail)
        guard let password = request.password, !password.isEmpty else { throw HearthAPIError(.missingPassword) }
        // The attempt is reserved (counted) before the password is checked, atomically with the limit check.
        guard let attempt = try await throttle.reserve(account: scope.throttleAccount(email), address: clientAddress) else {
            logger.notice("sign-in throttled", metadata: ["client": "\(clientAddress)"])
            throw HearthAPIError(.tooManyAttempts, "Access to this account has been temporarily disabled due to many failed login attempts. Try again later.")
        }
        let user = try await metrics.timeStore("userByEmail") { try await scope.store.user(email: email) }
        var matches = false
        if password.utf8.count <= PasswordHasher.maximumByteCount {
            matches = try await verifyPassword(password, against: user?.passwordHash)
        }
        guard let user, matches else { throw HearthAPIError(.invalidLoginCredentials) }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        try await throttle.succeeded(attempt)
        var rehash: PasswordRehash?
        if user.mfa.factors.isEmpty, let current = user.passwordHash, hasher.needsRehash(current) {
            rehash = PasswordRehash(old: current, new: try await hashPassword(password))
        }
        let end = try await finishSignIn(user, provider: "password", .firstFactor(passwordRehash: rehash), in: scope)
        var answer = SignInWithPasswordResponse(localId: end.user.localId, email: end.user.email, displayName: end.user.displayName,
                                                photoUrl: end.user.photoUrl, tokens: nil)
        answer.set(end)
        return answer
    }
}

extension SignUpRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .signUp
    static let signInKind: SignInKind? = .signUp
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignUpResponse { try await call.accounts.signUp(request, in: call.scope) }
}

extension SignInWithPasswordRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .signInWithPassword
    static let signInKind: SignInKind? = .password
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignInWithPasswordResponse {
        try await call.accounts.signInWithPassword(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}
