import Logging
import Foundation
import HearthCore
import HearthStore
import HearthWire

extension AccountService {
    /// `accounts:signUp`: an email/password user, or an anonymous one when neither is given. With an `idToken`
    /// of an anonymous user, the email and password are added to that user instead.
    public func signUp(_ request: SignUpRequest) async throws -> SignUpResponse {
        let config = try await projectConfig()
        let hasEmail = !(request.email ?? "").isEmpty
        let hasPassword = !(request.password ?? "").isEmpty
        try Self.checkProfile(displayName: request.displayName, photoUrl: nil)

        if let idToken = request.idToken {
            let (claims, current) = try await authenticate(idToken: idToken)
            guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
            let email = try Self.normalizedEmail(request.email)
            guard let password = request.password, hasPassword else { throw HearthAPIError(.missingPassword) }
            try Self.checkPasswordStrength(password)
            let hash = try await hashPassword(password)
            let moment = now
            let updated = try await modifyUser(localId: current.localId) { user in
                user.email = email
                user.emailVerified = false
                user.passwordHash = hash
                user.passwordUpdatedAt = moment
                if let name = request.displayName { user.displayName = name }
            }
            let tokens = try await issueSession(for: updated, signInProvider: "password", authTime: Date(timeIntervalSince1970: Double(claims.authTime)))
            return SignUpResponse(localId: updated.localId, email: updated.email, displayName: updated.displayName, tokens: tokens)
        }

        if config.userSignupDisabled {
            throw HearthAPIError(.adminOnlyOperation, "sign-up is disabled for this project; an administrator creates accounts")
        }
        let moment = now
        var user = UserRecord(localId: RandomID.localId(), displayName: request.displayName, createdAt: moment,
                              lastLoginAt: moment, validSince: Date(timeIntervalSince1970: moment.timeIntervalSince1970.rounded(.down)))
        let provider: String
        if hasEmail || hasPassword {
            guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
            let email = try Self.normalizedEmail(request.email)
            guard let password = request.password, hasPassword else { throw HearthAPIError(.missingPassword) }
            try Self.checkPasswordStrength(password)
            user.email = email
            user.passwordHash = try await hashPassword(password)
            user.passwordUpdatedAt = moment
            provider = "password"
        } else {
            guard config.anonymousSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "anonymous sign-in is disabled") }
            provider = "anonymous"
        }
        do {
            try await metrics.timeStore("createUser") { try await store.createUser(user) }
        } catch StoreError.emailExists {
            throw HearthAPIError(.emailExists)
        }
        logger.info("user created", metadata: ["uid": "\(user.localId)", "provider": "\(provider)"])
        let tokens = try await issueSession(for: user, signInProvider: provider)
        return SignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName, tokens: tokens)
    }

    /// `accounts:signInWithPassword`. Unknown email and wrong password give the same
    /// `INVALID_LOGIN_CREDENTIALS` after the same scrypt work; failures are throttled per account and address.
    public func signInWithPassword(_ request: SignInWithPasswordRequest, clientAddress: String) async throws -> SignInWithPasswordResponse {
        let config = try await projectConfig()
        guard config.passwordSignInEnabled else { throw HearthAPIError(.operationNotAllowed, "email/password sign-in is disabled") }
        let email = try Self.normalizedEmail(request.email, missing: .invalidEmail)
        guard let password = request.password, !password.isEmpty else { throw HearthAPIError(.missingPassword) }
        guard try await throttle.isAllowed(account: email, address: clientAddress) else {
            logger.notice("sign-in throttled", metadata: ["client": "\(clientAddress)"])
            throw HearthAPIError(.tooManyAttempts, "Access to this account has been temporarily disabled due to many failed login attempts. Try again later.")
        }
        let user = try await metrics.timeStore("userByEmail") { try await store.user(email: email) }
        var matches = false
        if password.utf8.count <= PasswordHasher.maximumByteCount {
            matches = try await verifyPassword(password, against: user?.passwordHash)
        }
        guard let user, matches else {
            try await throttle.recordFailure(account: email, address: clientAddress)
            throw HearthAPIError(.invalidLoginCredentials)
        }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        try await throttle.recordSuccess(account: email)
        var rehash: PasswordRehash?
        if let current = user.passwordHash, hasher.needsRehash(current) {
            rehash = PasswordRehash(old: current, new: try await hashPassword(password))
        }
        let (updated, tokens) = try await signInSession(localId: user.localId, signInProvider: "password", passwordRehash: rehash)
        return SignInWithPasswordResponse(localId: updated.localId, email: updated.email, displayName: updated.displayName,
                                          photoUrl: updated.photoUrl, tokens: tokens)
    }
}
