import Foundation
import HearthWire

/// The entry point: sign in, sign out, the current user and its changes. Instances made with the same
/// configuration share their state, so `Auth()` and `Auth.auth()` see the same user.
public final class Auth: Sendable {
    let core: AuthCore

    private static let registry = LockedValue<(default: AuthConfiguration?, cores: [String: AuthCore])>((nil, [:]))

    /// An `Auth` for `configuration` (shares state with other instances of the same server, key and project).
    public init(configuration: AuthConfiguration) {
        core = Self.registry.withLock { registry in
            if let existing = registry.cores[configuration.identity] { return existing }
            let core = AuthCore(configuration: configuration)
            registry.cores[configuration.identity] = core
            return core
        }
    }

    /// The instance over an existing core (what the SDK hands out, e.g. in `MultiFactorResolver.auth`).
    init(core: AuthCore) {
        self.core = core
    }

    /// The default instance (see `configure(_:)`).
    public convenience init() {
        self.init(configuration: Self.defaultConfiguration)
    }

    /// Sets the configuration `Auth.auth()` uses. Without it, `AuthConfiguration.fromEnvironment()` is used.
    public static func configure(_ configuration: AuthConfiguration) {
        registry.withLock { $0.default = configuration }
    }

    static var defaultConfiguration: AuthConfiguration {
        registry.withLock { $0.default } ?? .fromEnvironment()
    }

    /// The default instance.
    public static func auth() -> Auth { Auth() }

    /// Points this instance at a server on `host:port` (http), as Firebase's emulator setting does.
    public func useEmulator(withHost host: String, port: Int) {
        core.useEmulator(host: host, port: port)
    }

    /// The signed-in user, or nil.
    public var currentUser: User? { core.currentUser }

    /// The configuration in use.
    public var configuration: AuthConfiguration { core.configuration }

    // MARK: State changes

    /// Calls `listener` now and whenever the user signs in or out. Keep the handle to remove it.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping @Sendable (Auth, User?) -> Void) -> AuthStateDidChangeListenerHandle {
        let id = core.addListener { [self] user in listener(self, user) }
        return AuthStateDidChangeListenerHandle(id: id)
    }

    public func removeStateDidChangeListener(_ handle: AuthStateDidChangeListenerHandle) {
        core.removeListener(handle.id)
    }

    /// The current user, then every change, as an async sequence.
    public var authStateChanges: AsyncStream<User?> { core.stateStream() }

    // MARK: Sign-in

    /// Signs in with a credential from `OAuthProvider.credential(with:)`. `accountExistsWithDifferentCredential`
    /// (with `AuthErrorUserInfoEmailKey` and `AuthErrorUserInfoUpdatedCredentialKey`) when another account has
    /// the email.
    /// An `EmailAuthProvider` credential signs in with its password or email link. `secondFactorRequired` (with a
    /// `MultiFactorResolver` in `userInfo[AuthErrorUserInfoMultiFactorResolverKey]`) when the user has a second factor.
    /// A `PhoneAuthCredential` signs in with the SMS code (a new number makes an account: `isNewUser`), or with the
    /// proof of a `credentialAlreadyInUse` error; `unsupportedFirstFactor` when the account has an SMS second factor.
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        if let email = credential as? EmailAuthCredential { return try await core.completeEmail(email) }
        if let phone = credential as? PhoneAuthCredential { return try await core.completePhone(phone) }
        guard let oauth = credential as? OAuthCredential else { throw AuthErrorUtils.error(.invalidCredential) }
        return try await core.completeFederated(oauth, idToken: nil, autoCreate: nil, linkingUser: nil)
    }

    /// Firebase's `signIn(with:uiDelegate:)`: runs `provider`'s web sign-in and signs in, in one call. With the
    /// loopback listener (desktop apps), the browser's page says how it ended: signed in, an existing account to
    /// link first, refused, or cancelled.
    public func signIn(with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws -> AuthDataResult {
        try await provider.run(uiDelegate) { [core] credential in
            try await core.completeFederated(credential, idToken: nil, autoCreate: nil, linkingUser: nil)
        }
    }

    /// Signs in with an email and password. `secondFactorRequired` (with a `MultiFactorResolver` in
    /// `userInfo[AuthErrorUserInfoMultiFactorResolverKey]`) when the user has a second factor.
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        try await core.completeEmail(EmailAuthCredential(email: email, secret: .password(password)))
    }

    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let answer = try await core.send(SignUpRequest(email: email, password: password), tenantID: core.tenantID)
        return try await sessionResult(answer.idToken, answer.refreshToken, answer.expiresIn, provider: "password", isNewUser: true)
    }

    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = currentUser, user.isAnonymous {
            return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: "", profile: nil, username: nil, isNewUser: false), credential: nil)
        }
        let answer = try await core.send(SignUpRequest(), tenantID: core.tenantID)
        return try await sessionResult(answer.idToken, answer.refreshToken, answer.expiresIn, provider: "", isNewUser: true)
    }

    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        let answer = try await core.send(SignInWithCustomTokenRequest(token: token), tenantID: core.tenantID)
        return try await sessionResult(answer.idToken, answer.refreshToken, answer.expiresIn, provider: "", isNewUser: answer.isNewUser)
    }

    package func sessionResult(_ idToken: String?, _ refreshToken: String?, _ expiresIn: String?, provider: String, isNewUser: Bool) async throws -> AuthDataResult {
        guard let idToken, let refreshToken else { throw AuthErrorUtils.error(.internalError, message: "The server returned no tokens.") }
        let user = try await core.signedIn(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
        return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: provider, profile: nil, username: nil, isNewUser: isNewUser),
                              credential: nil)
    }

    /// The sign-in methods of an email (`password`, `microsoft.com`, …); empty with email enumeration protection.
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        let answer = try await core.send(CreateAuthUriRequest(identifier: email, continueUri: "http://www.google.com/"), tenantID: core.tenantID)
        return answer.signinMethods ?? []
    }

    /// Signs out locally (the stored user is removed).
    public func signOut() throws {
        try core.signOut()
    }

    /// On Apple platforms with a custom `AuthUIDelegate`: pass the URLs your app opens; returns true when the URL
    /// completes a pending web sign-in.
    @discardableResult
    public func canHandle(_ url: URL) -> Bool {
        WebSignInFlow.deliver(url, to: core)
    }

    // MARK: Completion-handler forms

    public func signIn(with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await signIn(with: credential), nil) } catch { completion?(nil, error) } }
    }

    public func signIn(withEmail email: String, password: String, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await signIn(withEmail: email, password: password), nil) } catch { completion?(nil, error) } }
    }

    public func createUser(withEmail email: String, password: String, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await createUser(withEmail: email, password: password), nil) } catch { completion?(nil, error) } }
    }

    public func signInAnonymously(completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await signInAnonymously(), nil) } catch { completion?(nil, error) } }
    }

    public func signIn(withCustomToken token: String, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await signIn(withCustomToken: token), nil) } catch { completion?(nil, error) } }
    }

    public func fetchSignInMethods(forEmail email: String, completion: (@Sendable ([String]?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await fetchSignInMethods(forEmail: email), nil) } catch { completion?(nil, error) } }
    }
}

/// The handle of a state listener.
public final class AuthStateDidChangeListenerHandle: Sendable {
    let id: UUID
    init(id: UUID) { self.id = id }
}
