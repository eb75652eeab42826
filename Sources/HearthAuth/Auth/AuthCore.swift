import Foundation
import HearthWire

/// The state and logic behind every `Auth` instance of one configuration.
final class AuthCore: Sendable {
    // All mutable state lives in `state`, a lock-protected box.
    struct State {
        var configuration: AuthConfiguration
        var backend: any AuthBackend
        var currentUser: User?
        var listeners: [UUID: @Sendable (User?) -> Void] = [:]
        var streams: [UUID: AsyncStream<User?>.Continuation] = [:]
        /// Web sign-ins waiting for `canHandle(_:)` (custom `AuthUIDelegate` on Apple platforms).
        var pendingWebSignIns: [String: CheckedContinuation<URL, any Error>] = [:]
        /// `Auth.tenantID` (never empty).
        var tenantID: String?
    }

    let state: LockedValue<State>

    init(configuration: AuthConfiguration) {
        let backend = configuration.backend ?? URLSessionAuthBackend(serverURL: configuration.serverURL, apiKey: configuration.apiKey,
                                                                     bundleId: configuration.bundleId, appId: configuration.appId)
        state = LockedValue(State(configuration: configuration, backend: backend))
        restoreUser()
    }

    var configuration: AuthConfiguration { state.withLock { $0.configuration } }
    var backend: any AuthBackend { state.withLock { $0.backend } }
    var currentUser: User? { state.withLock { $0.currentUser } }

    func useEmulator(host: String, port: Int) {
        state.withLock { state in
            let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            state.configuration.serverURL = URL(string: "http://\(hostPart):\(port)")!
            if state.configuration.backend == nil {
                state.backend = URLSessionAuthBackend(serverURL: state.configuration.serverURL, apiKey: state.configuration.apiKey,
                                                      bundleId: state.configuration.bundleId, appId: state.configuration.appId)
            }
        }
    }

    // MARK: Current user, listeners, persistence

    func setCurrentUser(_ user: User?) {
        let (listeners, streams) = state.withLock { state -> ([@Sendable (User?) -> Void], [AsyncStream<User?>.Continuation]) in
            state.currentUser = user
            return (Array(state.listeners.values), Array(state.streams.values))
        }
        for listener in listeners { listener(user) }
        for stream in streams { stream.yield(user) }
    }

    func addListener(_ listener: @escaping @Sendable (User?) -> Void) -> UUID {
        let id = UUID()
        let user = state.withLock { state -> User? in
            state.listeners[id] = listener
            return state.currentUser
        }
        listener(user)
        return id
    }

    func removeListener(_ id: UUID) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    func stateStream() -> AsyncStream<User?> {
        let (stream, continuation) = AsyncStream<User?>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        let user = state.withLock { state -> User? in
            state.streams[id] = continuation
            return state.currentUser
        }
        continuation.yield(user)
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.streams.removeValue(forKey: id) } }
        return stream
    }

    /// Writes the current user if it is still `user`'s turn (errors are ignored: the session continues in memory).
    func persistIfCurrent() async {
        try? await persistNow()
    }

    /// Writes the current user now (and waits for it).
    func persistNow() async throws {
        let (user, configuration) = state.withLock { ($0.currentUser, $0.configuration) }
        guard let user else {
            try configuration.persistence.remove(key: configuration.storageKey)
            return
        }
        let stored = User.Stored(profile: user.profile, tokens: await user.tokens.tokens)
        try configuration.persistence.save(try JSONEncoder().encode(stored), key: configuration.storageKey)
    }

    private func restoreUser() {
        let configuration = configuration
        guard let data = try? configuration.persistence.load(key: configuration.storageKey),
              let stored = try? JSONDecoder().decode(User.Stored.self, from: data)
        else { return }
        let user = User(profile: stored.profile, tokens: stored.tokens, auth: self)
        // As Firebase: the instance continues in the restored user's tenant.
        state.withLock {
            $0.currentUser = user
            $0.tenantID = user.tenantID
        }
    }

    func signOut() throws {
        setCurrentUser(nil)
        let configuration = configuration
        do {
            try configuration.persistence.remove(key: configuration.storageKey)
        } catch {
            throw AuthErrorUtils.error(.keychainError, message: "The signed-in user could not be removed from storage.")
        }
    }

    /// Signs out when the server says the user's tokens are no longer good (as Firebase does).
    func signOutIfTokenIsInvalid(_ error: any Error, user: User) {
        let error = error as NSError
        guard error.domain == AuthErrors.domain else { return }
        let codes: Set<Int> = [AuthErrorCode.userNotFound.rawValue, AuthErrorCode.userDisabled.rawValue,
                               AuthErrorCode.invalidUserToken.rawValue, AuthErrorCode.userTokenExpired.rawValue]
        if codes.contains(error.code), currentUser === user { try? signOut() }
    }

    // MARK: Sessions

    /// Builds the user for fresh session tokens (profile from `getAccountInfo`) and makes it current.
    /// `tenantIDMismatch` when the tokens belong to another tenant than `existing`'s (or, for a new sign-in,
    /// than `Auth.tenantID`).
    func signedIn(idToken: String, refreshToken: String, expiresIn: String?, replacing existing: User? = nil) async throws -> User {
        try Self.checkTenant(ofIDToken: idToken, expected: existing.map { $0.tenantID } ?? tenantID)
        let tokens = TokenManager.Tokens(idToken: idToken, refreshToken: refreshToken,
                                         expirationDate: configuration.clock().addingTimeInterval(TimeInterval(expiresIn ?? "3600") ?? 3600))
        let answer = try await backend.send(LookupRequest(idToken: idToken))
        guard let info = answer.users.first else { throw AuthErrorUtils.error(.internalError, message: "getAccountInfo answered no user.") }
        if let existing, existing.uid == info.localId {
            existing.state.withLock { $0 = User.profile(from: info) }
            await existing.tokens.replace(tokens)
            setCurrentUser(existing)
            await persistIfCurrent()
            return existing
        }
        let user = User(profile: User.profile(from: info), tokens: tokens, auth: self)
        setCurrentUser(user)
        await persistIfCurrent()
        return user
    }

    /// `verifyAssertion` for a federated credential: sign in, link (`idToken`), or reauthenticate.
    func completeFederated(_ credential: OAuthCredential, idToken: String?, autoCreate: Bool?, linkingUser: User?,
                           reauthenticating: User? = nil) async throws -> AuthDataResult {
        var request = SignInWithIdpRequest(
            requestUri: credential.requestURI ?? "http://localhost", postBody: "providerId=\(credential.provider)",
            sessionId: credential.sessionID, pendingToken: credential.pendingToken, idToken: idToken,
            returnSecureToken: true, returnIdpCredential: true, autoCreate: autoCreate)
        if credential.requestURI == nil, credential.pendingToken == nil {
            // A provider ID token the app obtained natively: the server checks it (signature, audience, nonce).
            // A credential with only an access token cannot sign in.
            guard let providerIdToken = credential.idToken, !providerIdToken.isEmpty else {
                throw AuthErrorUtils.error(.invalidCredential, message: "This credential holds no sign-in result. Use OAuthProvider.credential(with:), OAuthProvider.credential(providerID:idToken:rawNonce:), OAuthProvider.appleCredential(withIDToken:rawNonce:fullName:) or GoogleAuthProvider.credential(withIDToken:accessToken:) to sign in.")
            }
            request.postBody = credential.nativePostBody
        }
        let answer: SignInWithIdpResponse
        do {
            // A link or reauthentication acts in the user's tenant; a sign-in in `Auth.tenantID`'s.
            let tenant = (linkingUser ?? reauthenticating).map { $0.tenantID } ?? tenantID
            answer = try await send(request, tenantID: tenant)
        } catch {
            if let linkingUser { signOutIfTokenIsInvalid(error, user: linkingUser) }
            throw error
        }
        let providerID = answer.providerId ?? credential.provider
        let tokensCredential = OAuthCredential(providerID: providerID, accessToken: answer.oauthAccessToken, idToken: answer.oauthIdToken)
        if answer.needConfirmation == true {
            let pending = OAuthCredential(providerID: providerID, accessToken: answer.oauthAccessToken, idToken: answer.oauthIdToken,
                                          pendingToken: answer.pendingToken)
            var info: [String: any Sendable] = [AuthErrors.userInfoUpdatedCredentialKey: pending]
            if let email = answer.email { info[AuthErrors.userInfoEmailKey] = email }
            if let methods = answer.verifiedProvider, !methods.isEmpty { info[AuthErrors.userInfoSignInMethodsKey] = methods }
            throw AuthErrorUtils.error(.accountExistsWithDifferentCredential, userInfo: info)
        }
        if let message = answer.errorMessage {
            let name = message.split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? message
            let code = AuthErrorUtils.code(forServerError: name)
            var info: [String: any Sendable] = [AuthErrors.userInfoNameKey: name]
            if code == .credentialAlreadyInUse { info[AuthErrors.userInfoUpdatedCredentialKey] = tokensCredential }
            if code != .emailAlreadyInUse, let email = answer.email { info[AuthErrors.userInfoEmailKey] = email }
            throw AuthErrorUtils.error(code, userInfo: info)
        }
        var profile: [String: Any]?
        if let raw = answer.rawUserInfo?.data(using: .utf8) { profile = (try? JSONSerialization.jsonObject(with: raw)) as? [String: Any] }
        let additional = AdditionalUserInfo(providerID: providerID, profile: profile,
                                            username: profile?["preferred_username"] as? String ?? profile?["userPrincipalName"] as? String,
                                            isNewUser: answer.isNewUser ?? false)
        if answer.mfaPendingCredential != nil {
            // The user has a second factor: the answer carries a pending credential instead of tokens.
            if let reauthenticating, answer.localId != reauthenticating.uid { throw AuthErrorUtils.error(.userMismatch) }
            try checkSecondFactor(pendingCredential: answer.mfaPendingCredential, mfaInfo: answer.mfaInfo, email: answer.email,
                                  firstFactor: .init(additionalUserInfo: additional, credential: tokensCredential,
                                                     replacing: linkingUser ?? reauthenticating))
        }
        guard answer.providerId != nil, let newIdToken = answer.idToken, let refreshToken = answer.refreshToken else {
            throw AuthErrorUtils.error(.internalError, message: "Unexpected response from the server.")
        }
        if let reauthenticating, answer.localId != reauthenticating.uid {
            throw AuthErrorUtils.error(.userMismatch)
        }
        let user = try await signedIn(idToken: newIdToken, refreshToken: refreshToken, expiresIn: answer.expiresIn,
                                      replacing: linkingUser ?? reauthenticating)
        return AuthDataResult(user: user, additionalUserInfo: additional, credential: tokensCredential)
    }
}
