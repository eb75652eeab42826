import Foundation
import HearthCore
import HearthStore
import HearthWire
import JWTKit
import Logging
import NIOPosix

/// The accounts and token logic behind the v1/v3 endpoints, independent of HTTP. Every failure is a
/// ``HearthAPIError`` carrying the string Firebase clients expect.
public struct AccountService: Sendable {
    public let configuration: HearthServerConfiguration
    public let store: any HearthStore
    public let keyRing: KeyRing
    let throttle: LoginThrottle
    let serviceAccountVerifiers = ServiceAccountVerifiers()
    let hasher: PasswordHasher
    /// The console overview's sign-in figures and the sign-in metrics.
    let stats: SignInStats
    let logger: Logger
    /// Revokes deleted users' Sign in with Apple grants (nil: this service does not, e.g. offline commands).
    let appleRevocation: AppleGrantRevocation?
    /// Resolves the scope of a call (the project; a tenant is refused there).
    public let scopes: Scopes
    /// The project's blocking functions (issue 39): the exits and the mail path call them.
    public let blockingFunctions: BlockingFunctions
    /// Text messages (issue 40): the dev sink and the SMS outbox.
    public let sms: SmsMessenger

    public init(configuration: HearthServerConfiguration, store: any HearthStore, keyRing: KeyRing, logger: Logger,
                appleRevocation: AppleGrantRevocation? = nil) {
        self.configuration = configuration
        self.store = store
        self.keyRing = keyRing
        self.throttle = LoginThrottle(configuration: configuration.throttle, clock: configuration.clock, store: store)
        self.hasher = PasswordHasher(parameters: configuration.passwordParameters)
        self.stats = SignInStats(store: store, clock: configuration.clock, metrics: configuration.metrics)
        self.logger = logger
        self.appleRevocation = appleRevocation
        self.scopes = Scopes(configuration: configuration, store: store)
        self.blockingFunctions = BlockingFunctions(configuration: configuration, keyRing: keyRing, logger: logger)
        self.sms = SmsMessenger(configuration: configuration, store: store, logger: logger)
    }

    var now: Date { configuration.clock.now() }
    /// This server's metrics (``HearthServerConfiguration/metrics``).
    var metrics: HearthMetrics { configuration.metrics }
    var expiresIn: String { String(Int(configuration.idTokenLifetime)) }

    // MARK: Sessions

    /// The `validSince` of a revocation made now: the next whole second. ID tokens carry whole seconds (`iat`,
    /// `auth_time`), so every token, session and pending second-factor sign-in minted before this moment — in the
    /// same second included — is older than it and dies exactly; whatever is minted for the user afterwards waits
    /// for it (``waitForValidSince(_:)``, at most a second, only right after a revocation).
    var revocationMoment: Date { Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down) + 1) }

    /// Returns once the clock has reached `user`'s `validSince` (at once, but in the second after a revocation).
    /// A `validSince` further ahead (an administrator's explicit choice) is not waited for.
    func waitForValidSince(_ user: UserRecord) async {
        let gap = user.validSince.timeIntervalSince(now)
        if gap > 0, gap <= 1 { await configuration.clock.sleep(until: user.validSince) }
    }

    /// The token is the scope's: its project, and its tenant as `firebase.tenant`.
    func mintIDToken(for user: UserRecord, signInProvider: String, authTime: Date, sessionClaims: [String: JSONValue],
                     in scope: Scope) async throws -> String {
        await waitForValidSince(user)
        var user = user
        user.tenantId = scope.tenantId
        let claims = IDTokenClaims(projectId: scope.projectId, user: user, signInProvider: signInProvider,
                                   authTime: authTime, issuedAt: now, lifetime: configuration.idTokenLifetime,
                                   sessionClaims: sessionClaims)
        return try await keyRing.sign(claims)
    }

    /// Verifies one of Hearth's ID tokens and loads its user: `MISSING_ID_TOKEN`, `INVALID_ID_TOKEN`,
    /// `TOKEN_EXPIRED` (expired, or issued before the user's `validSince`), `USER_NOT_FOUND`, `USER_DISABLED`.
    public func authenticate(idToken: String?, in scope: Scope) async throws -> (IDTokenClaims, UserRecord) {
        let claims = try await verifiedClaims(idToken: idToken, in: scope)
        let user = try await metrics.timeStore("userById", { try await scope.store.user(localId: claims.subject) })
        return (claims, try admitted(user, claims: claims))
    }

    /// ``authenticate(idToken:in:)`` with the user's passkeys read in the same store access (`accounts:lookup`).
    func authenticateWithPasskeys(idToken: String?, in scope: Scope) async throws -> (UserRecord, [PasskeyCredential]) {
        let claims = try await verifiedClaims(idToken: idToken, in: scope)
        let found = try await metrics.timeStore("userById", { try await scope.store.userWithPasskeys(localId: claims.subject) })
        return (try admitted(found?.user, claims: claims), found?.passkeys ?? [])
    }

    /// The claims of a valid ID token of `scope`: `MISSING_ID_TOKEN`, `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`, `TENANT_ID_MISMATCH`.
    private func verifiedClaims(idToken: String?, in scope: Scope) async throws -> IDTokenClaims {
        guard let idToken, !idToken.isEmpty else { throw HearthAPIError(.missingIdToken) }
        let claims: IDTokenClaims
        do {
            claims = try await keyRing.verify(idToken)
            try claims.validate(projectId: scope.projectId, now: now)
        } catch .expired {
            throw HearthAPIError(.tokenExpired)
        } catch {
            throw HearthAPIError(.invalidIdToken)
        }
        // The route took the scope from this token's tenant unless the request named one: a token of another tenant
        // (or of the project in a tenant) is refused, never looked up there.
        guard claims.firebase.tenant == scope.tenantId else {
            throw HearthAPIError(.tenantIdMismatch, "the ID token belongs to \(Scope.describe(claims.firebase.tenant)), the request to \(Scope.describe(scope.tenantId))")
        }
        return claims
    }

    /// The token's user, unless absent (`USER_NOT_FOUND`), disabled (`USER_DISABLED`) or revoked since the token
    /// was issued (`TOKEN_EXPIRED`).
    private func admitted(_ user: UserRecord?, claims: IDTokenClaims) throws -> UserRecord {
        guard let user else { throw HearthAPIError(.userNotFound) }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        if claims.issuedAt < Int64(user.validSince.timeIntervalSince1970) { throw HearthAPIError(.tokenExpired) }
        return user
    }

    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the session's sign-in is recent.
    func requireRecentLogin(_ claims: IDTokenClaims) throws {
        if now.timeIntervalSince1970 - Double(claims.authTime) > configuration.recentLoginWindow {
            throw HearthAPIError(.credentialTooOldLoginAgain)
        }
    }

    /// Re-reads and updates a user until the optimistic version check passes (concurrent writers lose nothing).
    /// `revokingSessions` is read after `change` ran: when true, the user's sessions end in the same transaction.
    @discardableResult
    func modifyUser(localId: String, revokingSessions revokes: @autoclosure () -> Bool = false, in scope: Scope,
                    _ change: (inout UserRecord) async throws -> Void) async throws -> UserRecord {
        for _ in 0..<5 {
            guard var user = try await scope.store.user(localId: localId) else { throw HearthAPIError(.userNotFound) }
            let validBefore = user.validSince
            try await change(&user)
            do {
                let changed = user
                // A change that moves `validSince` forward is a revocation: the sessions and pending second-factor
                // sign-ins end in the same transaction, exactly (not by a whole-second comparison later).
                let revoking = revokes() || user.validSince > validBefore
                return try await metrics.timeStore("updateUser") { try await scope.store.updateUser(changed, revokingSessions: revoking) }
            } catch StoreError.conflict {
                continue
            }
        }
        throw HearthAPIError(StoreError.conflict)
    }

    /// scrypt off the cooperative pool.
    func hashPassword(_ password: String) async throws -> String {
        let hasher = hasher
        return try await NIOThreadPool.singleton.runIfActive { try hasher.hash(password) }
    }

    func verifyPassword(_ password: String, against encoded: String?) async throws -> Bool {
        let hasher = hasher
        return try await NIOThreadPool.singleton.runIfActive {
            guard let encoded else {
                hasher.verifyDummy(password)
                return false
            }
            return (try? hasher.verify(password, against: encoded)) ?? false
        }
    }

    static func checkPasswordStrength(_ password: String) throws {
        if password.count < PasswordHasher.minimumLength {
            throw HearthAPIError(.weakPassword, "Password should be at least \(PasswordHasher.minimumLength) characters")
        }
        if password.utf8.count > PasswordHasher.maximumByteCount {
            throw HearthAPIError(.weakPassword, "Password should be at most \(PasswordHasher.maximumByteCount) bytes")
        }
    }

    static func normalizedEmail(_ raw: String?, missing: ServerErrorCode = .missingEmail, invalid: ServerErrorCode = .invalidEmail) throws -> String {
        guard let raw, !raw.trimmingCharacters(in: .whitespaces).isEmpty else { throw HearthAPIError(missing) }
        guard let email = EmailAddress.normalize(raw) else { throw HearthAPIError(invalid) }
        return email
    }

    static func checkProfile(displayName: String?, photoUrl: String?) throws {
        if let displayName, displayName.count > 256 { throw HearthAPIError(.invalidDisplayName, "at most 256 characters") }
        if let photoUrl, !photoUrl.isEmpty {
            guard photoUrl.count <= 2048, let url = URL(string: photoUrl), let scheme = url.scheme?.lowercased(),
                  ["http", "https"].contains(scheme), url.host != nil
            else { throw HearthAPIError(.invalidPhotoUrl, "an http(s) URL is expected") }
        }
    }
}
