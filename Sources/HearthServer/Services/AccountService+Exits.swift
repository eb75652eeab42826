import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// The two exits every sign-in and every new user go through: ``AccountService/createAccount(_:origin:signIn:in:)`` and
/// ``AccountService/finishSignIn(_:provider:_:in:)``. Whatever must happen at "every new user" or "every sign-in"
/// (a tenant's rule, a blocking function, an audit entry) goes here, and only here.
extension AccountService {
    // MARK: Every new user

    /// How a user came to be created (what a hook or a tenant rule may tell apart).
    enum AccountOrigin: Sendable, CustomStringConvertible {
        /// The person signing up with `provider` (`password`, `anonymous`, a provider id, `custom`); signs in now.
        case signUp(provider: String)
        /// An administrator (the admin API, the console, the CLI).
        case administrator
        /// An import (`accounts:batchCreate`, `hearth users import`): a user that existed elsewhere.
        case imported

        var description: String {
            switch self {
            case .signUp(let provider): provider
            case .administrator: "admin"
            case .imported: "import"
            }
        }
    }

    /// A new user's record: created and signed in now (`lastLoginAt` when `signsIn`), valid since the current second.
    func newUser(localId: String = RandomID.localId(), signsIn: Bool = true) -> UserRecord {
        let moment = now
        return UserRecord(localId: localId, createdAt: moment, lastLoginAt: signsIn ? moment : nil,
                          validSince: Date(timeIntervalSince1970: moment.timeIntervalSince1970.rounded(.down)))
    }

    /// A user just created by ``createAccount(_:origin:signIn:in:)``: the record as stored (a blocking function's answer
    /// applied) and the session claims its first session carries (the beforeSignIn answer's `sessionClaims`).
    struct CreatedAccount: Sendable {
        var user: UserRecord
        var sessionClaims: [String: JSONValue] = [:]

        /// The step that signs the new user in (``SignInStep/newAccount(sessionClaims:)``), with `extra` session claims
        /// (a custom token's) under the function's.
        func signIn(with extra: [String: JSONValue] = [:]) -> SignInStep {
            .newAccount(sessionClaims: extra.merging(sessionClaims) { _, function in function })
        }
    }

    /// Whether a sign-in or sign-up with `provider` goes through the project's blocking functions: every way but
    /// anonymous and custom-token sign-in (as at Firebase).
    static func firesBlockingFunctions(_ provider: String) -> Bool {
        provider != "anonymous" && provider != "custom"
    }

    /// The one way a user is created. A person signing up (``AccountOrigin/signUp(provider:)``, but anonymous and
    /// custom-token) goes through the project's beforeCreate function and then — creating a user signs it in — its
    /// beforeSignIn, both before anything is stored: a refusal (or a function that fails) stores nothing. `signIn`
    /// says how (sign_in_method, the provider's profile and tokens; default: the provider's id). Store refusals
    /// (`StoreError.emailExists`, `.federatedIdTaken`, `.duplicateLocalId`) pass to the caller, whose flow decides what a
    /// race means. A user a function disabled is stored disabled; its sign-in (``finishSignIn(_:provider:_:in:)``
    /// with ``CreatedAccount/signIn(with:)``) is then `USER_DISABLED`.
    @discardableResult
    func createAccount(_ user: UserRecord, origin: AccountOrigin, signIn: BlockingSignIn? = nil, in scope: Scope) async throws -> CreatedAccount {
        // The user is the scope's tenant's (the store writes it so; the tokens minted next carry it).
        var user = user
        user.tenantId = scope.tenantId
        var sessionClaims: [String: JSONValue] = [:]
        if case .signUp(let provider) = origin, Self.firesBlockingFunctions(provider) {
            let event = signIn ?? BlockingSignIn(method: provider)
            if let update = try await blockingFunctions.beforeCreate(user, signIn: event, in: scope) { update.apply(to: &user) }
            // A user the beforeCreate function disabled does not sign in: no beforeSignIn for it.
            if !user.disabled, let update = try await blockingFunctions.beforeSignIn(user, signIn: event, in: scope) {
                update.apply(to: &user)
                sessionClaims = update.sessionClaims ?? [:]
            }
        }
        try await metrics.timeStore("createUser") { [user] in try await scope.store.createUser(user) }
        if case .signUp(let provider) = origin { metrics.count(.signUps, [provider, scope.tenantId ?? ""]) }
        logger.info("user created", metadata: ["uid": "\(user.localId)", "provider": "\(origin)"])
        return CreatedAccount(user: user, sessionClaims: sessionClaims)
    }

    /// The batch form of ``createAccount(_:origin:signIn:in:)`` (issue 41), for imports (``AccountOrigin/imported``)
    /// and administrators, for whom no blocking function runs: `users`, stamped with the scope's tenant, are stored by
    /// the store's bulk path (``AdminUserStore/importUsers(_:)``: one transaction, users and identities), timed as
    /// the `importUsers` store operation, with one log line for the batch. When the batch conflicts (a uid, an email
    /// or a federated identity taken, within it or by a stored user) or the bulk path refuses it otherwise, nothing of
    /// it is stored and it is halved, each half tried the same way in order, down to a few users, who go through
    /// ``createAccount(_:origin:signIn:in:)`` one at a time: each user gets its own answer, exactly as one at a time
    /// in the batch's order (of two users with one email the first is created), while the conflict-free parts of the
    /// batch stay bulk writes. A sign-up origin always goes one at a time (its blocking functions).
    /// - Returns: in `users`' order, nil for a user created, else the error its ``createAccount(_:origin:signIn:in:)``
    ///   threw (`StoreError.duplicateLocalId`, `.emailExists`, `.federatedIdTaken`, …).
    ///   When the database cannot be reached, `StoreError.unavailable` is the answer of each user not stored.
    func createAccounts(_ users: [UserRecord], origin: AccountOrigin, in scope: Scope) async -> [(any Error)?] {
        guard !users.isEmpty else { return [] }
        let stamped = users.map { user in
            var user = user
            user.tenantId = scope.tenantId
            return user
        }
        var bulk = true
        if case .signUp = origin { bulk = false }
        let answers = await createAccounts(stamped[...], inBulk: bulk, origin: origin, in: scope)
        logger.info("users created", metadata: ["count": "\(answers.count { $0 == nil })", "of": "\(answers.count)", "provider": "\(origin)"])
        return answers
    }

    /// Below this many users, a batch that conflicted goes one user at a time.
    private static let oneAtATimeBelow = 8

    /// `users` in one bulk write when `inBulk`, else one at a time; a bulk write refused is halved (halves of at least
    /// ``oneAtATimeBelow`` users are tried in bulk again).
    private func createAccounts(_ users: ArraySlice<UserRecord>, inBulk: Bool, origin: AccountOrigin, in scope: Scope) async -> [(any Error)?] {
        if inBulk {
            do {
                try await metrics.timeStore("importUsers") { try await scope.store.importUsers(Array(users)) }
                return Array(repeating: nil, count: users.count)
            } catch StoreError.unavailable(let reason) {
                return Array(repeating: StoreError.unavailable(reason), count: users.count)
            } catch {
                // A conflict (or a value the bulk statement refused) somewhere in it: each half alone, in order.
                let middle = users.startIndex + users.count / 2
                let halves = [users[..<middle], users[middle...]]
                var answers: [(any Error)?] = []
                for half in halves where !half.isEmpty {
                    answers += await createAccounts(half, inBulk: half.count >= Self.oneAtATimeBelow, origin: origin, in: scope)
                }
                return answers
            }
        }
        var answers: [(any Error)?] = []
        answers.reserveCapacity(users.count)
        for user in users {
            do {
                try await createAccount(user, origin: origin, in: scope)
                answers.append(nil)
            } catch {
                answers.append(error)
            }
        }
        return answers
    }

    // MARK: Every sign-in

    /// How a sign-in reached its end.
    enum SignInStep: Sendable {
        /// A first factor proved the user (a password, an email link, a custom token, a provider, a passkey, a
        /// reauthentication): a user with a second factor gets a pending sign-in instead of tokens, unless
        /// `bothFactors` (a passkey that verified the user; a custom token, which the app's backend vouches for).
        /// `identity`: the provider profile to record; `passwordRehash`: a stronger hash of the password just checked.
        /// `signIn`: what the project's beforeSignIn function is told (default: the provider's id as sign_in_method).
        case firstFactor(identity: ProviderIdentity? = nil, passwordRehash: PasswordRehash? = nil, bothFactors: Bool = false,
                         sessionClaims: [String: JSONValue] = [:], signIn: BlockingSignIn? = nil)
        /// The user was just created by ``createAccount(_:origin:signIn:in:)`` (which ran the blocking functions) and
        /// signs in for the first time: take it from ``CreatedAccount/signIn(with:)``.
        case newAccount(sessionClaims: [String: JSONValue] = [:])
        /// A second factor (`kind`, the factor's id) completed a pending sign-in.
        case secondFactor(identity: ProviderIdentity?, kind: MultiFactorKind, factorId: String)
        /// The signed-in session goes on after a change to its account (a link, a factor enrolled or withdrawn, a
        /// passkey added or removed, an anonymous upgrade): its sign-in time stays, with `sessionClaims`.
        case sameSession(authTime: Date, sessionClaims: [String: JSONValue])
        /// A credential change ended every earlier session (password, email): the caller gets a new session, signed in now.
        case afterRevocation
        /// A provider identity linked to the session of `claims`: as at Firebase ("linking another identity provider
        /// re-triggers beforeSignIn"; not the email providers) the project's beforeSignIn function decides first. The
        /// user handed to ``finishSignIn(_:provider:_:in:)`` is the account as the link makes it (what the function
        /// sees); `write` stores the link, with `change` (the function's answer) applied in the same write, and returns
        /// the stored user — so a refusal links nothing. The session goes on as ``sameSession(authTime:sessionClaims:)``.
        case linked(IDTokenClaims, signIn: BlockingSignIn,
                    write: @Sendable (_ change: @escaping @Sendable (inout UserRecord) -> Void) async throws -> UserRecord)

        /// The session of `claims` goes on (``sameSession(authTime:sessionClaims:)``) with `sessionClaims` (nil: its
        /// second-factor claims).
        static func continuing(_ claims: IDTokenClaims, sessionClaims: [String: JSONValue]? = nil) -> SignInStep {
            .sameSession(authTime: Date(timeIntervalSince1970: Double(claims.authTime)),
                         sessionClaims: sessionClaims ?? AccountService.carriedSecondFactor(claims))
        }
    }

    /// How a sign-in ended: a session, or a second factor to ask for.
    enum SignInEnd: Sendable {
        case signedIn(UserRecord, SessionTokens)
        case secondFactorRequired(UserRecord, MFAPendingSignIn)

        var user: UserRecord {
            switch self {
            case .signedIn(let user, _), .secondFactorRequired(let user, _): user
            }
        }

        /// The tokens (nil when a second factor is asked for).
        var tokens: SessionTokens? {
            if case .signedIn(_, let tokens) = self { return tokens }
            return nil
        }
    }

    /// The one place a sign-in ends: runs the second-factor challenge and the project's beforeSignIn function (after
    /// the last factor; never for custom-token sign-ins), writes what the function changes (`USER_DISABLED` when it
    /// disables the user), records the sign-in (`lastLoginAt`, the provider profile, a rehash, the refresh token with
    /// the function's session claims, the sign-in figures) and mints the tokens. A function's refusal writes nothing.
    func finishSignIn(_ user: UserRecord, provider: String, _ step: SignInStep, in scope: Scope) async throws -> SignInEnd {
        switch step {
        case .firstFactor(let identity, let rehash, let bothFactors, let claims, let signIn):
            if user.disabled { throw HearthAPIError(.userDisabled) }
            if !bothFactors, let pending = try await secondFactorChallenge(for: user, signInProvider: provider, identity: identity, in: scope) {
                return .secondFactorRequired(user, pending)
            }
            let sessionClaims = try await beforeSignIn(user, provider: provider, signIn: signIn, sessionClaims: claims, in: scope)
            let (updated, tokens) = try await signInSession(localId: user.localId, signInProvider: provider, identity: identity,
                                                            passwordRehash: rehash, sessionClaims: sessionClaims, in: scope)
            return .signedIn(updated, tokens)
        case .secondFactor(let identity, let kind, let factorId):
            let sessionClaims = try await beforeSignIn(
                user, provider: provider, signIn: BlockingSignIn(method: provider, secondFactor: kind.rawValue),
                sessionClaims: IDTokenClaims.secondFactorSessionClaims(kind: kind.rawValue, enrollmentId: factorId), in: scope)
            let (updated, tokens) = try await signInSession(
                localId: user.localId, signInProvider: provider, identity: identity, sessionClaims: sessionClaims, in: scope)
            return .signedIn(updated, tokens)
        case .newAccount(let claims):
            // createAccount ran the functions; one of them may have disabled the new user.
            if user.disabled { throw HearthAPIError(.userDisabled) }
            return .signedIn(user, try await issueSession(for: user, signInProvider: provider, sessionClaims: claims, in: scope))
        case .sameSession(let authTime, let claims):
            return .signedIn(user, try await issueSession(for: user, signInProvider: provider, authTime: authTime, sessionClaims: claims, in: scope))
        case .afterRevocation:
            return .signedIn(user, try await issueSession(for: user, signInProvider: provider, in: scope))
        case .linked(let claims, let signIn, let write):
            let update = try await blockingFunctions.beforeSignIn(user, signIn: signIn, in: scope)
            let stored = try await write { user in update?.apply(to: &user) }
            if stored.disabled { throw HearthAPIError(.userDisabled) }
            let sessionClaims = Self.carriedSecondFactor(claims).merging(update?.sessionClaims ?? [:]) { _, function in function }
            return .signedIn(stored, try await issueSession(for: stored, signInProvider: provider,
                                                            authTime: Date(timeIntervalSince1970: Double(claims.authTime)),
                                                            sessionClaims: sessionClaims, in: scope))
        }
    }

    /// The project's beforeSignIn function for a returning user's sign-in with `provider` (none for custom tokens):
    /// the fields it changes are written before the sign-in is recorded (`USER_DISABLED` when it disables the user,
    /// then no session); answers `sessionClaims` with the function's session claims over them.
    private func beforeSignIn(_ user: UserRecord, provider: String, signIn: BlockingSignIn?, sessionClaims: [String: JSONValue],
                              in scope: Scope) async throws -> [String: JSONValue] {
        guard Self.firesBlockingFunctions(provider),
              let update = try await blockingFunctions.beforeSignIn(user, signIn: signIn ?? BlockingSignIn(method: provider), in: scope) else {
            return sessionClaims
        }
        var changed = user
        update.apply(to: &changed)
        if changed != user {
            let stored = try await modifyUser(localId: user.localId, in: scope) { update.apply(to: &$0) }
            if stored.disabled { throw HearthAPIError(.userDisabled) }
        }
        return sessionClaims.merging(update.sessionClaims ?? [:]) { _, function in function }
    }

    /// The second-factor claims of a session, for the new tokens of the same session.
    static func carriedSecondFactor(_ claims: IDTokenClaims) -> [String: JSONValue] {
        guard let kind = claims.firebase.signInSecondFactor, let id = claims.firebase.secondFactorIdentifier else { return [:] }
        return IDTokenClaims.secondFactorSessionClaims(kind: kind, enrollmentId: id)
    }

    // MARK: Sessions (only through finishSignIn)

    /// A first factor succeeded for `user`: when it has a second factor, the pending sign-in that
    /// `mfaSignIn:finalize` completes (nothing else is written); nil when the sign-in may go on.
    private func secondFactorChallenge(for user: UserRecord, signInProvider: String, identity: ProviderIdentity?, in scope: Scope) async throws -> MFAPendingSignIn? {
        guard !user.mfa.factors.isEmpty else { return nil }
        await waitForValidSince(user)
        let moment = now
        let token = "hmp1." + RandomID.token(byteCount: 32)
        try await scope.store.insertMultiFactorSession(MultiFactorSessionRecord(
            idHash: RefreshTokenRecord.hash(token), kind: .signIn, localId: user.localId,
            payload: .init(signInProvider: signInProvider, identity: identity),
            createdAt: moment, expiresAt: moment.addingTimeInterval(Self.mfaPendingLifetime)))
        metrics.count(.signIns, [signInProvider, "second_factor_required", scope.tenantId ?? ""])
        // SMS factors' numbers masked (`+*******0100`): the first factor alone must not reveal them.
        return MFAPendingSignIn(mfaPendingCredential: token, mfaInfo: user.mfa.maskedEnrollmentInfo)
    }

    /// Mints an ID token and a new refresh-token family for `user`.
    private func issueSession(for user: UserRecord, signInProvider: String, authTime: Date? = nil,
                              sessionClaims: [String: JSONValue] = [:], in scope: Scope) async throws -> SessionTokens {
        await waitForValidSince(user)
        let issuedAt = now
        let authTime = authTime ?? issuedAt
        let (refreshToken, record) = RefreshTokenRecord.issue(
            localId: user.localId, authTime: authTime, signInProvider: signInProvider, sessionClaims: sessionClaims, now: issuedAt)
        try await metrics.timeStore("insertRefreshToken") { try await scope.store.insertRefreshToken(record) }
        let idToken = try await mintIDToken(for: user, signInProvider: signInProvider, authTime: authTime, sessionClaims: sessionClaims,
                                            in: scope)
        await stats.countSignIn(provider: signInProvider, at: issuedAt)
        metrics.count(.signIns, [signInProvider, "success", scope.tenantId ?? ""])
        return SessionTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn)
    }

    /// A returning user's sign-in: one write (``UserStore/recordSignIn(localId:at:identity:passwordRehash:refreshToken:)``:
    /// `lastLoginAt`, the identity's profile, a rehash, the new refresh token), then the ID token.
    /// `USER_NOT_FOUND` or `USER_DISABLED` (then nothing is written).
    private func signInSession(localId: String, signInProvider: String, identity: ProviderIdentity? = nil,
                               passwordRehash: PasswordRehash? = nil, sessionClaims: [String: JSONValue] = [:],
                               in scope: Scope) async throws -> (UserRecord, SessionTokens) {
        let moment = now
        let (refreshToken, record) = RefreshTokenRecord.issue(
            localId: localId, authTime: moment, signInProvider: signInProvider, sessionClaims: sessionClaims, now: moment)
        let recorded = try await metrics.timeStore("recordSignIn") {
            try await scope.store.recordSignIn(localId: localId, at: moment, identity: identity, passwordRehash: passwordRehash, refreshToken: record)
        }
        guard let user = recorded else { throw HearthAPIError(.userNotFound) }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        if user.validSince > moment, user.validSince.timeIntervalSince(moment) <= 1 {
            // The account's sessions were revoked within this very second: the session just recorded is older than
            // the revocation and would not refresh. A new one once the revocation's second has passed.
            let tokens = try await issueSession(for: user, signInProvider: signInProvider, sessionClaims: sessionClaims, in: scope)
            return (user, tokens)
        }
        let idToken = try await mintIDToken(for: user, signInProvider: signInProvider, authTime: moment, sessionClaims: sessionClaims,
                                            in: scope)
        metrics.count(.signIns, [signInProvider, "success", scope.tenantId ?? ""])
        return (user, SessionTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn))
    }
}

/// An answer that ends a sign-in: the session's tokens, or the pending second factor (``AccountService/SignInEnd``).
protocol SignInAnswer {
    var idToken: String? { get set }
    var refreshToken: String? { get set }
    var expiresIn: String? { get set }
    var mfaPendingCredential: String? { get set }
    var mfaInfo: [MFAEnrollmentInfo]? { get set }
}

extension SignInAnswer {
    /// Fills the answer from how the sign-in ended.
    mutating func set(_ end: AccountService.SignInEnd) {
        switch end {
        case .signedIn(_, let tokens):
            idToken = tokens.idToken
            refreshToken = tokens.refreshToken
            expiresIn = tokens.expiresIn
        case .secondFactorRequired(_, let pending):
            mfaPendingCredential = pending.mfaPendingCredential
            mfaInfo = pending.mfaInfo
        }
    }
}

extension SignInWithPasswordResponse: SignInAnswer {}
extension SignInWithIdpResponse: SignInAnswer {}
extension SignInWithEmailLinkResponse: SignInAnswer {}
extension PasskeySessionResponse: SignInAnswer {}
