import Foundation
import HearthCore
import HearthStore
import HearthWire
import PostgresNIO

extension PostgresStore {
    // MARK: Users

    /// A user with its identities in one row (identities as a JSON array): a lookup is one statement, one round
    /// trip, one consistent snapshot.
    static let userSelect: SQLStatement = """
        SELECT u.local_id, u.email, u.email_verified, u.display_name, u.photo_url, u.password_hash, u.password_updated_at,
            u.disabled, u.created_at, u.last_login_at, u.last_refresh_at, u.valid_since, u.custom_claims, u.custom_auth, u.version, u.email_link_signin, u.mfa, u.tenant_id,
            (SELECT json_agg(json_build_object('providerId', i.provider_id, 'federatedId', i.federated_id, 'email', i.email,
                    'displayName', i.display_name, 'photoUrl', i.photo_url) ORDER BY i.provider_id)::text
             FROM provider_identities i WHERE i.local_id = u.local_id) AS identities
        FROM users u
        """

    public func createUser(_ user: UserRecord) async throws {
        let user = stamped(user)
        try await transaction { [self] db in
            // ON CONFLICT on the key only: a taken localId is reported first (as in SQLite); a taken email still
            // raises the unique violation, which decides between two replicas inserting the same email.
            let inserted = try await Self.uniqueChecked {
                try await db.execute(StoreSQL.insertUsers([user]) + " ON CONFLICT (local_id) DO NOTHING")
            }
            if inserted == 0 { throw StoreError.duplicateLocalId }
            try await writeIdentities(user, db: db)
        }
    }

    public func user(localId: String) async throws -> UserRecord? {
        try await single { [self] db in try await db.row("\(Self.userSelect) WHERE u.local_id = \(localId) AND u.tenant_id = \(tenantKey)").map(Self.userRecord) }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await single { [self] db in
            for form in StoreSQL.emailLookupForms(email) {
                if let row = try await db.row("\(Self.userSelect) WHERE u.tenant_id = \(tenantKey) AND u.email = \(form)") { return try Self.userRecord(row) }
            }
            return nil
        }
    }

    public func user(providerId: String, federatedId: String) async throws -> UserRecord? {
        try await single { [self] db in
            let holder = StoreSQL.identityHolder(providerId: providerId, federatedId: federatedId, tenant: tenantKey)
            return try await db.row("\(Self.userSelect) WHERE u.local_id = (\(holder)) AND u.tenant_id = \(tenantKey)").map(Self.userRecord)
        }
    }

    public func updateUser(_ user: UserRecord, revokingSessions: Bool) async throws -> UserRecord {
        let user = stamped(user)
        return try await transaction { [self] db in
            // The row lock makes the version check and the write one step against any other replica.
            guard let current = try await db.row(StoreSQL.userVersion(localId: user.localId, tenant: tenantKey) + " FOR UPDATE") else {
                throw StoreError.notFound
            }
            guard try current.int("version") == user.version else { throw StoreError.conflict }
            let version = try await Self.uniqueChecked {
                try await db.row(StoreSQL.updateUser(user, tenant: tenantKey) + " RETURNING version")?.int("version")
            }
            try await db.execute(StoreSQL.deleteIdentities(localId: user.localId))
            try await writeIdentities(user, db: db)
            try await db.execute(StoreSQL.deleteUnlinkedProviderTokens(localId: user.localId))
            if revokingSessions { for statement in StoreSQL.revokeSessions(localId: user.localId) { try await db.execute(statement) } }
            var stored = user
            stored.version = version ?? user.version + 1
            return stored
        }
    }

    public func recordSignIn(localId: String, at moment: Date, identity: ProviderIdentity?, passwordRehash: PasswordRehash?,
                             refreshToken: RefreshTokenRecord?) async throws -> UserRecord? {
        try await transaction { [self] db in
            // Locked: the rehash compare-and-swap and the version bump see the latest row.
            guard let user = try await db.row("\(Self.userSelect) WHERE u.local_id = \(localId) AND u.tenant_id = \(tenantKey) FOR UPDATE OF u").map(Self.userRecord)
            else { return nil }
            if user.disabled { return user }
            let rehash = passwordRehash.flatMap { user.passwordHash == $0.old ? $0.new : nil }
            let version = try await db.row(StoreSQL.recordSignIn(localId: localId, at: moment, passwordHash: rehash) + " RETURNING version")?
                .int("version")
            let changed = StoreSQL.changedIdentity(identity, of: user).flatMap { index in identity.map { (index: index, value: $0) } }
            if let changed { try await db.execute(StoreSQL.updateIdentityProfile(changed.value, localId: localId)) }
            if let refreshToken {
                try await db.execute(StoreSQL.insertRefreshToken(stamped(refreshToken)))
                try await db.execute(StoreSQL.countSignIn(provider: refreshToken.signInProvider, at: moment))
            }
            return StoreSQL.signedIn(user, at: moment, identity: changed, rehashedTo: rehash, version: version)
        }
    }

    public func deleteUser(localId: String) async throws -> Bool {
        try await transaction { [self] db in
            // Only a user of this store's tenant (its rows are found by the user's key).
            guard try await db.row(StoreSQL.userVersion(localId: localId, tenant: tenantKey) + " FOR UPDATE") != nil else { return false }
            try await db.execute(StoreSQL.deleteRefreshTokens(localId: localId))
            // Identities and provider tokens go with the user (ON DELETE CASCADE).
            return try await db.execute(StoreSQL.deleteUser(localId: localId)) > 0
        }
    }

    public func canonicalizeStoredEmails() async throws -> (rewritten: Int, conflicts: [String]) {
        try await transaction { db in
            var rewritten = 0
            var conflicts: [String] = []
            // Only addresses with a non-ASCII character can differ from their NFC form.
            for row in try await db.rows("SELECT local_id, email, tenant_id FROM users WHERE email ~ '[^ -~]' FOR UPDATE") {
                guard let localId = try row.string("local_id"), let canonical = try row.string("email").flatMap(StoreSQL.canonicalRewrite)
                else { continue }
                if try await db.row(StoreSQL.emailTaken(canonical, byOtherThan: localId, tenant: try row.string("tenant_id") ?? "")) != nil {
                    conflicts.append(localId)
                    continue
                }
                try await db.execute(StoreSQL.setEmail(canonical, localId: localId))
                rewritten += 1
            }
            return (rewritten, conflicts)
        }
    }

    public func userCount() async throws -> Int {
        try await single { [self] db in try await db.row(StoreSQL.countUsers("WHERE tenant_id = \(tenantKey)"))?.int("n") ?? 0 }
    }

    /// Runs `body`, turning unique violations into the store's errors: the constraints do the uniqueness work.
    @discardableResult
    static func uniqueChecked<T>(providerId: String? = nil, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            switch uniqueViolation(error) {
            case "users_email"?: throw StoreError.emailExists
            case "users_pkey"?: throw StoreError.duplicateLocalId
            case "provider_identities_federated"?: throw StoreError.federatedIdTaken(providerId: providerId ?? "")
            case "signing_keys_pkey"?: throw StoreError.duplicateKeyGeneration
            default: throw error
            }
        }
    }

    func writeIdentities(_ user: UserRecord, db: SQLConnection) async throws {
        for identity in user.identities {
            try await Self.uniqueChecked(providerId: identity.providerId) {
                try await db.execute(StoreSQL.insertIdentity(identity, localId: user.localId, tenant: tenantKey))
            }
        }
    }

    private struct IdentityRow: Decodable {
        var providerId: String
        var federatedId: String
        var email: String?
        var displayName: String?
        var photoUrl: String?
    }

    /// A ``userSelect`` row: the user's columns and its identities aggregated as JSON.
    static func userRecord(_ row: PostgresStoreRow) throws -> UserRecord {
        let identities = try row.string("identities").map { try StoreJSON.decode([IdentityRow].self, $0) } ?? []
        return try UserRecord(row: row, identities: identities.map {
            ProviderIdentity(providerId: $0.providerId, federatedId: $0.federatedId, email: $0.email, displayName: $0.displayName,
                             photoUrl: $0.photoUrl)
        })
    }

    // MARK: Refresh tokens

    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await single { [self] db in try await db.execute(StoreSQL.insertRefreshToken(stamped(record))) }
    }

    public func refreshSession(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshSessionOutcome {
        try await transaction { [self] db in
            // Locked: a concurrent refresh of the same token, on any replica, waits and then sees it rotated.
            let presented: RefreshTokenRecord
            switch StoreSQL.presented(try await db.row(StoreSQL.refreshToken(hash: presentedHash) + " FOR UPDATE").map(RefreshTokenRecord.init(row:)),
                                      now: now, graceWindow: graceWindow) {
            case .refused(let outcome): return outcome
            case .reused(let familyId):
                try await db.execute(StoreSQL.revokeFamily(familyId))
                return .reuseDetected
            case .usable(let record): presented = record
            }
            // A token of another tenant is refreshed by that tenant's store (the caller resolves its scope).
            if presented.tenantId != tenantId { return .inTenant(presented.tenantId) }
            // Every check before any write: a refused refresh changes nothing.
            let user = try await db.row("\(Self.userSelect) WHERE u.local_id = \(presented.localId) AND u.tenant_id = \(tenantKey)").map(Self.userRecord)
            if let refusal = StoreSQL.refusal(of: presented, user: user) { return refusal }
            guard var user else { return .userNotFound }
            // Rotation, the replacement and `last_refresh_at` in one statement: one round trip instead of three.
            let version = try await db.row("""
                WITH rotated AS (\(StoreSQL.markRotated(hash: presented.tokenHash, at: now))),
                inserted AS (\(StoreSQL.insertRefreshToken(StoreSQL.successor(of: presented, replacement))))
                \(StoreSQL.recordRefresh(localId: user.localId, at: now)) RETURNING version
                """)?.int("version")
            user.lastRefreshAt = now
            user.version = version ?? user.version + 1
            return .refreshed(previous: presented, user: user)
        }
    }

    public func revokeRefreshTokens(localId: String) async throws {
        try await transaction { db in
            for statement in StoreSQL.revokeSessions(localId: localId) { try await db.execute(statement) }
        }
    }

    /// Deletes in chunks of ``StoreSQL/pruneChunkSize``, one statement (its own transaction) each: no transaction
    /// holds the row locks of the whole clean-up (issue 41).
    public func pruneRefreshTokens(before cutoff: Date) async throws -> Int {
        var pruned = 0
        for rotated in [true, false] {
            while true {
                let deleted = try await single { db in try await db.execute(StoreSQL.pruneRefreshTokenChunk(rotated: rotated, before: cutoff)) }
                pruned += deleted
                if deleted < StoreSQL.pruneChunkSize { break }
            }
        }
        return pruned
    }

    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await single { db in try await db.row(StoreSQL.refreshToken(hash: hash)).map(RefreshTokenRecord.init(row:)) }
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKey] {
        try await single { db in try await db.rows(StoreSQL.signingKeys).map(SigningKey.init(row:)) }
    }

    /// The primary key decides which replica's rotation wins; the other gets ``StoreError/duplicateKeyGeneration``.
    public func insertSigningKey(_ key: SigningKey) async throws {
        try await single { db in try await Self.uniqueChecked { try await db.execute(StoreSQL.insertSigningKey(key)) } }
    }

    public func deleteSigningKeys(generations: [Int]) async throws {
        guard !generations.isEmpty else { return }
        try await transaction { db in
            for generation in generations { try await db.execute(StoreSQL.deleteSigningKey(generation: generation)) }
        }
    }

    // MARK: Project

    public func projectConfig(projectId: String) async throws -> ProjectConfig? {
        try await single { db in try await db.row(StoreSQL.projectConfig(projectId: projectId)).map { try $0.json(ProjectConfig.self, "config_json") } }
    }

    public func saveProjectConfig(_ config: ProjectConfig) async throws {
        let statement = try StoreSQL.saveProjectConfig(config)
        try await single { db in try await db.execute(statement) }
    }

    public func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey] {
        try await single { db in try await db.rows(StoreSQL.serviceAccountKeys(clientEmail: clientEmail)).map(ServiceAccountKey.init(row:)) }
    }

    public func allServiceAccountKeys() async throws -> [ServiceAccountKey] {
        try await single { db in try await db.rows(StoreSQL.serviceAccountKeys(clientEmail: nil)).map(ServiceAccountKey.init(row:)) }
    }

    public func saveServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await single { db in try await db.execute(StoreSQL.saveServiceAccountKey(key)) }
    }

    public func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool {
        try await single { db in try await db.execute(StoreSQL.deleteServiceAccountKey(clientEmail: clientEmail, keyId: keyId)) > 0 }
    }
}
