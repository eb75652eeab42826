import Foundation
import HearthWire

/// A signed-in user: profile, providers and tokens. Operations (`link`, `reauthenticate`, `getIDToken`, …) talk to
/// the server through the `Auth` the user belongs to.
public final class User: UserInfo, Sendable {
    // The mutable profile lives in `state` (a lock-protected value), tokens in the `TokenManager` actor.
    struct Profile: Codable, Sendable, Equatable {
        var uid: String
        var email: String?
        var emailVerified: Bool
        var displayName: String?
        var photoURL: URL?
        var providerData: [ProviderUserInfo]
        var isAnonymous: Bool
        var metadata: UserMetadata
        /// The enrolled second factors (`mfaInfo` of the lookup); absent in users stored before MFA.
        var mfaInfo: [MFAEnrollmentInfo]? = nil
        /// The user's passkeys (`passkeyInfo` of the lookup); absent in users stored before passkeys.
        var passkeyInfo: [HearthWire.PasskeyInfo]? = nil
        /// The user's phone number (E.164); absent in users stored before phone sign-in.
        var phoneNumber: String? = nil
    }

    /// What persistence stores.
    struct Stored: Codable, Sendable {
        var profile: Profile
        var tokens: TokenManager.Tokens
    }

    let state: LockedValue<Profile>
    let tokens: TokenManager
    /// The Identity Platform tenant the user belongs to (its ID token's `firebase.tenant`); nil: the project's own
    /// users. A user never changes tenant; its requests carry this one.
    public let tenantID: String?
    let auth: AuthCore
    /// The passkey name of `startPasskeyEnrollment(withName:)`, sent by the `finalizePasskeyEnrollment` that follows.
    let pendingPasskeyName = LockedValue<String?>(nil)

    init(profile: Profile, tokens: TokenManager.Tokens, auth: AuthCore) {
        self.state = LockedValue(profile)
        self.auth = auth
        self.tenantID = AuthTenant.tenant(ofIDToken: tokens.idToken)
        let persist: @Sendable (TokenManager.Tokens) async -> Void = { [weak auth] _ in await auth?.persistIfCurrent() }
        self.tokens = TokenManager(tokens: tokens, backend: auth.backend, clock: auth.configuration.clock, onChange: persist)
    }

    var profile: Profile { state.withLock { $0 } }

    public var providerID: String { "firebase" }
    public var uid: String { profile.uid }
    public var email: String? { profile.email }
    public var emailVerified: Bool { profile.emailVerified }
    /// Firebase's Swift name of `emailVerified`.
    public var isEmailVerified: Bool { profile.emailVerified }
    public var displayName: String? { profile.displayName }
    public var photoURL: URL? { profile.photoURL }
    /// The phone number the user signs in with (E.164, `+15555550100`), or nil.
    public var phoneNumber: String? { profile.phoneNumber }
    /// The linked providers (`password`, `microsoft.com`, …).
    public var providerData: [any UserInfo] { profile.providerData }
    public var isAnonymous: Bool { profile.isAnonymous }
    public var metadata: UserMetadata { profile.metadata }
    /// The refresh token (treat it as a secret).
    public var refreshToken: String? { get async { await tokens.tokens.refreshToken } }

    // MARK: Tokens

    /// The ID token, refreshed when fewer than 5 minutes remain or when `forcingRefresh`.
    public func getIDToken(forcingRefresh: Bool = false) async throws -> String {
        do {
            return try await tokens.idToken(forcingRefresh: forcingRefresh)
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
    }

    /// A fresh access token of a linked provider (e.g. for Microsoft Graph with `"microsoft.com"`), from the
    /// server's provider token vault: Hearth keeps the provider's refresh token and renews the access token when it
    /// expired (or when `forcingRefresh`), so the app keeps working past the provider token's hour without a new
    /// sign-in. Fails with `providerTokenUnavailable` when nothing is kept (sign in with the provider again) and
    /// `providerTokenVaultDisabled` when the server keeps no tokens for the provider. Treat the token as a secret.
    public func providerAccessToken(for providerID: String, forcingRefresh: Bool = false) async throws -> String {
        let idToken = try await getIDToken()
        do {
            let answer = try await auth.backend.send(ProviderAccessTokenRequest(providerId: providerID, idToken: idToken,
                                                                                forceRefresh: forcingRefresh ? true : nil))
            return answer.accessToken
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
    }

    /// Completion-handler form of `providerAccessToken(for:forcingRefresh:)`.
    public func providerAccessToken(for providerID: String, forcingRefresh: Bool = false,
                                    completion: (@Sendable (String?, (any Error)?) -> Void)?) {
        Task {
            do { completion?(try await providerAccessToken(for: providerID, forcingRefresh: forcingRefresh), nil) } catch { completion?(nil, error) }
        }
    }

    /// Completion-handler form of `getIDToken(forcingRefresh:)`.
    public func getIDTokenForcingRefresh(_ forceRefresh: Bool, completion: (@Sendable (String?, (any Error)?) -> Void)? = nil) {
        Task { do { completion?(try await getIDToken(forcingRefresh: forceRefresh), nil) } catch { completion?(nil, error) } }
    }

    /// The decoded ID token (claims, sign-in provider, times).
    public func getIDTokenResult(forcingRefresh: Bool = false) async throws -> AuthTokenResult {
        try AuthTokenResult.parse(try await getIDToken(forcingRefresh: forcingRefresh))
    }

    // MARK: Account

    /// Reloads the profile from the server.
    public func reload() async throws {
        let token = try await getIDToken()
        try await refreshProfile(idToken: token)
    }

    func refreshProfile(idToken: String) async throws {
        let answer: LookupResponse
        do {
            answer = try await auth.backend.send(LookupRequest(idToken: idToken))
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
        guard let info = answer.users.first else { throw AuthErrorUtils.error(.internalError, message: "getAccountInfo answered no user.") }
        state.withLock { $0 = User.profile(from: info) }
        await auth.persistIfCurrent()
    }

    static func profile(from info: HearthWire.UserInfo) -> Profile {
        let providers = info.providerUserInfo.map {
            ProviderUserInfo(providerID: $0.providerId, uid: $0.rawId, displayName: $0.displayName,
                             photoURL: $0.photoUrl.flatMap(URL.init(string:)), email: $0.email, phoneNumber: $0.phoneNumber)
        }
        func date(_ ms: String?) -> Date? { ms.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) } }
        return Profile(uid: info.localId, email: info.email, emailVerified: info.emailVerified, displayName: info.displayName,
                       photoURL: info.photoUrl.flatMap(URL.init(string:)), providerData: providers,
                       isAnonymous: info.email == nil && info.phoneNumber == nil && providers.isEmpty && info.customAuth != true,
                       metadata: UserMetadata(creationDate: date(info.createdAt), lastSignInDate: date(info.lastLoginAt)),
                       mfaInfo: info.mfaInfo, passkeyInfo: info.passkeyInfo, phoneNumber: info.phoneNumber)
    }

    /// Links `credential` (e.g. Microsoft's, an `EmailAuthProvider` password or email link, or a
    /// `PhoneAuthCredential`) to this user. `providerAlreadyLinked` without a request when a provider of that kind is
    /// linked already. A number that belongs to another account fails with `credentialAlreadyInUse`, whose
    /// `userInfo[AuthErrorUserInfoUpdatedCredentialKey]` is a `PhoneAuthCredential` that signs in to that account
    /// (`Auth.signIn(with:)`) without a new SMS.
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        if profile.providerData.contains(where: { $0.providerID == credential.provider }) {
            throw AuthErrorUtils.error(.providerAlreadyLinked)
        }
        if let email = credential as? EmailAuthCredential { return try await auth.completeEmail(email, linkingUser: self) }
        if let phone = credential as? PhoneAuthCredential { return try await auth.completePhone(phone, linkingUser: self) }
        guard let oauth = credential as? OAuthCredential else { throw AuthErrorUtils.error(.invalidCredential) }
        let token = try await getIDToken()
        return try await auth.completeFederated(oauth, idToken: token, autoCreate: nil, linkingUser: self)
    }

    /// Firebase's `link(with:uiDelegate:)`: runs `provider`'s web sign-in and links it to this user, in one call
    /// (the loopback page says how it ended).
    public func link(with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws -> AuthDataResult {
        if profile.providerData.contains(where: { $0.providerID == provider.providerID }) {
            throw AuthErrorUtils.error(.providerAlreadyLinked)
        }
        return try await provider.run(uiDelegate, linking: true) { [self] credential in try await link(with: credential) }
    }

    /// Reauthenticates with a fresh credential (for sensitive operations). `userMismatch` when it belongs to
    /// another user (a `PhoneAuthCredential` is sent with `operation: REAUTH`: a number of no account makes none). A user with a second factor gets `secondFactorRequired`: the `MultiFactorResolver` in the
    /// error's `userInfo[AuthErrorUserInfoMultiFactorResolverKey]` completes it, and this user continues with the
    /// new tokens.
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        if let email = credential as? EmailAuthCredential { return try await auth.completeEmail(email, reauthenticating: self) }
        if let phone = credential as? PhoneAuthCredential { return try await auth.completePhone(phone, reauthenticating: self) }
        guard let oauth = credential as? OAuthCredential else { throw AuthErrorUtils.error(.invalidCredential) }
        do {
            return try await auth.completeFederated(oauth, idToken: nil, autoCreate: false, linkingUser: nil, reauthenticating: self)
        } catch let error as NSError where error.domain == AuthErrors.domain && error.code == AuthErrorCode.userNotFound.rawValue {
            throw AuthErrorUtils.error(.userMismatch)
        }
    }

    /// Unlinks a provider.
    public func unlink(fromProvider provider: String) async throws -> User {
        guard profile.providerData.contains(where: { $0.providerID == provider }) else { throw AuthErrorUtils.error(.noSuchProvider) }
        try await setAccountInfo(UpdateRequest(idToken: try await getIDToken(), deleteProvider: [provider]))
        return self
    }

    /// Changes the password (needs a recent sign-in).
    public func updatePassword(to password: String) async throws {
        try await setAccountInfo(UpdateRequest(idToken: try await getIDToken(), password: password))
    }

    /// Changes the email (needs a recent sign-in).
    public func updateEmail(to email: String) async throws {
        try await setAccountInfo(UpdateRequest(idToken: try await getIDToken(), email: email))
    }

    /// Starts a display name / photo change.
    public func createProfileChangeRequest() -> UserProfileChangeRequest { UserProfileChangeRequest(user: self) }

    /// Deletes the account and signs out (needs a recent sign-in).
    public func delete() async throws {
        let token = try await getIDToken()
        do {
            _ = try await auth.backend.send(DeleteAccountRequest(idToken: token))
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
        try auth.signOut()
    }

    func setAccountInfo(_ request: UpdateRequest) async throws {
        let answer: UpdateResponse
        do {
            answer = try await auth.send(request, tenantID: tenantID)
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
        if let idToken = answer.idToken, let refreshToken = answer.refreshToken {
            await tokens.replace(.init(idToken: idToken, refreshToken: refreshToken,
                                       expirationDate: auth.configuration.clock().addingTimeInterval(TimeInterval(answer.expiresIn ?? "3600") ?? 3600)))
        }
        try await refreshProfile(idToken: try await getIDToken())
    }

    // Completion-handler forms, as Firebase has them.

    public func link(with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await link(with: credential), nil) } catch { completion?(nil, error) } }
    }

    public func reauthenticate(with credential: AuthCredential, completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await reauthenticate(with: credential), nil) } catch { completion?(nil, error) } }
    }

    public func unlink(fromProvider provider: String, completion: (@Sendable (User?, (any Error)?) -> Void)?) {
        Task { do { completion?(try await unlink(fromProvider: provider), nil) } catch { completion?(nil, error) } }
    }

    public func delete(completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await delete(); completion?(nil) } catch { completion?(error) } }
    }
}

/// A pending change of display name and photo.
public final class UserProfileChangeRequest: Sendable {
    // The mutable fields live behind a lock.
    private let fields = LockedValue<(String?, URL?)>((nil, nil))
    let user: User

    init(user: User) { self.user = user }

    public var displayName: String? {
        get { fields.withLock { $0.0 } }
        set { fields.withLock { $0.0 = newValue } }
    }

    public var photoURL: URL? {
        get { fields.withLock { $0.1 } }
        set { fields.withLock { $0.1 = newValue } }
    }

    /// Sends the change.
    public func commitChanges() async throws {
        let (name, photo) = fields.withLock { $0 }
        try await user.setAccountInfo(UpdateRequest(idToken: try await user.getIDToken(), displayName: name, photoUrl: photo?.absoluteString))
    }
}
