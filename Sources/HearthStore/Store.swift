import Foundation
import HearthCore

/// Errors every store implementation reports the same way, so the server maps them to one wire error.
public enum StoreError: Error, Equatable, Sendable {
    /// Another user already has this email.
    case emailExists
    /// Another user already holds this `(providerId, federatedId)`.
    case federatedIdTaken(providerId: String)
    /// A user with this `localId` exists already.
    case duplicateLocalId
    /// The user changed since it was read (optimistic concurrency): read again and retry.
    case conflict
    /// No such user.
    case notFound
    /// A signing key with this generation exists (another replica rotated first).
    case duplicateKeyGeneration
    /// A tenant with that id exists.
    case tenantExists
    /// A text value holds U+0000, which neither engine stores faithfully (SQLite cuts the text there, PostgreSQL
    /// refuses it): refused before it reaches the database, whatever the caller checked.
    case textWithNUL
    /// The database cannot be reached now (down, refusing connections, not answering in time, disk full or
    /// read-only): the request may succeed later. Answered `503 UNAVAILABLE`. The message never holds secrets.
    case unavailable(String)
    /// The backing database failed; the message never holds secrets.
    case backend(String)

    /// Whether `text` can be stored: it holds no U+0000.
    public static func storable(_ text: String) -> Bool { !text.utf8.contains(0) }
}

/// A password hash to swap in on sign-in (stronger parameters) if the stored one is still `old`.
public struct PasswordRehash: Sendable, Equatable {
    public var old: String
    public var new: String

    public init(old: String, new: String) {
        self.old = old
        self.new = new
    }
}

/// What ``RefreshTokenStore/refreshSession(presentedHash:replacement:now:graceWindow:)`` did.
public enum RefreshSessionOutcome: Sendable, Equatable {
    /// No such token.
    case unknown
    /// The token (or its family) was revoked.
    case revoked
    /// A rotated token came back after the grace window: the whole family is now revoked.
    case reuseDetected
    /// The token's user no longer exists (nothing written).
    case userNotFound
    /// The user is disabled (nothing written).
    case userDisabled
    /// The session began before the user's `validSince` (nothing written).
    case sessionExpired
    /// Rotated: the presented record and the user with its new `lastRefreshAt`.
    case refreshed(previous: RefreshTokenRecord, user: UserRecord)
    /// The token belongs to another tenant's user (nil: the project's): nothing written; refresh it with the store
    /// bound to that tenant (the refresh request names no tenant, so the token decides it).
    case inTenant(String?)
}

/// Users and their linked identities.
public protocol UserStore: Sendable {
    /// Inserts a new user with its identities, atomically.
    /// Throws ``StoreError/emailExists``, ``StoreError/federatedIdTaken(providerId:)`` or ``StoreError/duplicateLocalId``.
    func createUser(_ user: UserRecord) async throws
    func user(localId: String) async throws -> UserRecord?
    /// The user with this normalized email, if any.
    func user(email: String) async throws -> UserRecord?
    func user(providerId: String, federatedId: String) async throws -> UserRecord?
    /// Replaces the user (and its identities) if its stored `version` still equals `user.version`; returns the
    /// stored record with the bumped version. Throws ``StoreError/conflict`` when it changed meanwhile,
    /// ``StoreError/notFound``, ``StoreError/emailExists`` or ``StoreError/federatedIdTaken(providerId:)``.
    /// Provider tokens (token vault) of identities the update unlinks are deleted in the same write. With
    /// `revokingSessions`, the user's refresh tokens are revoked, its provider tokens and pending second-factor
    /// sign-ins deleted in the same transaction (a password change never lands without ending the old sessions).
    @discardableResult
    func updateUser(_ user: UserRecord, revokingSessions: Bool) async throws -> UserRecord
    /// A sign-in, in one write that touches only what changes: sets `lastLoginAt`, refreshes the profile of the
    /// linked `identity` (matched by provider and federated id) when it differs, replaces the password hash with
    /// `passwordRehash.new` if it still equals `passwordRehash.old`, stores `refreshToken`, bumps the version, and
    /// counts the sign-in in the daily counts (kind `signIn`, key the token's sign-in provider) in the same write.
    /// Returns the updated user; nil when it does not exist. A disabled user is returned unchanged (nothing written).
    func recordSignIn(localId: String, at: Date, identity: ProviderIdentity?, passwordRehash: PasswordRehash?,
                      refreshToken: RefreshTokenRecord?) async throws -> UserRecord?
    /// Deletes the user, its identities, its refresh tokens and its provider tokens. Returns whether it existed.
    @discardableResult
    func deleteUser(localId: String) async throws -> Bool
    /// Number of users (for status output and tests).
    func userCount() async throws -> Int
    /// Rewrites stored emails that are not in ``EmailAddress/canonical(_:)`` form (older versions kept the bytes a
    /// client sent, NFD included). Returns the rewritten count and the uids left as they are because another
    /// account holds the canonical form already (an administrator decides between the two).
    func canonicalizeStoredEmails() async throws -> (rewritten: Int, conflicts: [String])
}

/// Refresh tokens, stored hashed.
public protocol RefreshTokenStore: Sendable {
    func insertRefreshToken(_ record: RefreshTokenRecord) async throws
    /// The refresh grant in one write transaction: looks the presented hash up (unknown, revoked; a rotated token
    /// presented after `graceWindow` since its rotation revokes its whole family: reuse — within it, concurrent
    /// refreshes still rotate), then — before any other write — the user must exist, be enabled and the session must
    /// not predate the user's `validSince` (whole seconds). Only then the token is marked rotated, `replacement`
    /// stored in its family (its `familyId`, `localId`, `authTime`, `signInProvider` and session claims are taken
    /// from the presented record) and the user's `lastRefreshAt` set to `now`; returns the presented record and the
    /// updated user.
    func refreshSession(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshSessionOutcome
    /// Revokes every refresh token of a user and deletes the user's provider tokens (token vault).
    func revokeRefreshTokens(localId: String) async throws
    func refreshToken(hash: String) async throws -> RefreshTokenRecord?
    /// Deletes tokens that can never be used again and were rotated or revoked before `cutoff` (a replay of one
    /// of them is then simply unknown, still refused). Live tokens are kept. Returns how many were deleted.
    @discardableResult
    func pruneRefreshTokens(before cutoff: Date) async throws -> Int
}

/// ID-token signing keys.
public protocol SigningKeyStore: Sendable {
    func signingKeys() async throws -> [SigningKey]
    /// Throws ``StoreError/duplicateKeyGeneration`` when the generation exists.
    func insertSigningKey(_ key: SigningKey) async throws
    func deleteSigningKeys(generations: [Int]) async throws
}

/// Project settings and the service accounts allowed to sign custom tokens.
public protocol ProjectStore: Sendable {
    func projectConfig(projectId: String) async throws -> ProjectConfig?
    func saveProjectConfig(_ config: ProjectConfig) async throws
    func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey]
    func allServiceAccountKeys() async throws -> [ServiceAccountKey]
    /// Inserts or replaces the key `(clientEmail, keyId)`.
    func saveServiceAccountKey(_ key: ServiceAccountKey) async throws
    @discardableResult
    func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool
}

/// Upstream identity providers, registered apps.
public protocol FederationConfigStore: Sendable {
    func idpConfig(providerId: String) async throws -> IdPConfig?
    func idpConfigs() async throws -> [IdPConfig]
    /// Inserts or replaces the provider's configuration.
    func saveIdPConfig(_ config: IdPConfig) async throws
    @discardableResult
    func deleteIdPConfig(providerId: String) async throws -> Bool
    func apps() async throws -> [AppRegistration]
    func saveApp(_ app: AppRegistration) async throws
    @discardableResult
    func deleteApp(id: String) async throws -> Bool
}

/// Sign-ins in progress and pending credentials: short-lived, single-use records.
public protocol FlowStore: Sendable {
    func insertAuthorizationSession(_ session: AuthorizationSession) async throws
    func authorizationSession(state: String) async throws -> AuthorizationSession?
    /// Marks the provider's callback as received, once: false when unknown, expired or already called back.
    /// Marks the provider's callback of `state` once (false: unknown, used, expired or called back already);
    /// `sessionIdHash` replaces the session's (web sign-ins get their session id at the callback).
    func markCallback(state: String, now: Date, sessionIdHash: String?) async throws -> Bool
    /// Consumes the session once, if `sessionIdHash` matches (a mismatch burns it).
    func consumeAuthorizationSession(state: String, sessionIdHash: String, now: Date) async throws -> SessionConsumeOutcome
    func insertPendingCredential(_ credential: PendingCredential) async throws
    /// Returns and deletes the pending credential if it exists and has not expired.
    func takePendingCredential(tokenHash: String, now: Date) async throws -> PendingCredential?
    /// Records that a provider ID token (identified by `keyHash`, a hash of its issuer, subject and nonce or token
    /// id) was used to sign in, until `expiresAt`: true the first time; false when it was recorded already and has
    /// not expired (a replay). Atomic across replicas.
    func markIDTokenUsed(keyHash: String, expiresAt: Date, now: Date) async throws -> Bool
    /// Takes a use back: the sign-in it was recorded for gave no session (refused, or an account to confirm first),
    /// so the same token may complete it later (a link after `needConfirmation`, a retry after a 503).
    func forgetIDTokenUse(keyHash: String) async throws
    /// Deletes expired sessions, pending credentials, second-factor sessions, used-token records and old password
    /// attempts.
    func pruneExpiredFlows(now: Date) async throws
    /// Stores an enrollment or a sign-in waiting for its second factor.
    func insertMultiFactorSession(_ session: MultiFactorSessionRecord) async throws
    /// The session, expired or not, until it is pruned.
    func mfaSession(idHash: String) async throws -> MultiFactorSessionRecord?
    /// Deletes the session: true for the one caller that deleted it (it completes once across replicas).
    func deleteMultiFactorSession(idHash: String) async throws -> Bool
    /// Deletes every second-factor session of the user (its factors changed).
    func deleteMultiFactorSessions(localId: String) async throws
}

extension FlowStore {
    /// ``markCallback(state:now:sessionIdHash:)`` keeping the session id the handler stored.
    public func markCallback(state: String, now: Date) async throws -> Bool {
        try await markCallback(state: state, now: now, sessionIdHash: nil)
    }
}

/// Everything the server keeps: one database, any replica can serve any step.
extension UserStore {
    /// ``updateUser(_:revokingSessions:)`` that leaves the sessions alone.
    @discardableResult
    public func updateUser(_ user: UserRecord) async throws -> UserRecord { try await updateUser(user, revokingSessions: false) }
}

public protocol HearthStore: UserStore, RefreshTokenStore, SigningKeyStore, ProjectStore, FederationConfigStore, FlowStore,
    AdminUserStore, AuditLogStore, ConsoleStore, DailyCountStore, ProviderTokenStore, RateLimitStore, SignInThrottleStore,
    ClientSecretStore, EmailActionStore, PasskeyStore, TenantStore, PhoneVerificationStore {
    /// Closes connections; the store is unusable afterwards.
    func close() async throws
    /// The Identity Platform tenant this store is bound to; nil: the project's own users. Every user, identity,
    /// provider configuration, action code and audit query of the store filters on it, every insert of a
    /// ``TenantOwned`` record carries it, and taking a provider sign-in or a pending credential refuses another
    /// tenant's — so code written against a scope's store cannot reach another tenant's rows. Reads by a random key
    /// that must find the row before its tenant is known (a provider callback's `state`, a refresh token's hash)
    /// return any tenant's row, which names its tenant.
    var tenantId: String? { get }
    /// The same database (connections, vault keys), bound to `tenantId` (nil: the project's own users). Project-wide
    /// rows (signing keys, service accounts, apps, console, settings) are the same through every binding.
    func bound(toTenant tenantId: String?) -> any HearthStore
}

/// A record a tenant owns: the store that writes it sets its tenant from the store's binding (``HearthStore/tenantId``).
public protocol TenantOwned {
    var tenantId: String? { get set }
}

extension UserRecord: TenantOwned {}
extension RefreshTokenRecord: TenantOwned {}
extension OobCodeRecord: TenantOwned {}
extension AuthorizationSession: TenantOwned {}
extension PendingCredential: TenantOwned {}
