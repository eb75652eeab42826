import Foundation
import HearthCore
import HearthStore
import HearthWire
import PostgresNIO

extension PostgresStore {
    // MARK: Users

    /// A user with its identities in one row (identities as a JSON array): a lookup is one statement, one round
    /// trip, one consistent snapshot.
    static let userSelect = """
        SELECT u.local_id, u.email, u.email_verified, u.display_name, u.photo_url, u.password_hash, u.password_updated_at,
            u.disabled, u.created_at, u.last_login_at, u.last_refresh_at, u.valid_since, u.custom_claims, u.custom_auth, u.version,
            (SELECT json_agg(json_build_object('providerId', i.provider_id, 'federatedId', i.federated_id, 'email', i.email,
                    'displayName', i.display_name, 'photoUrl', i.photo_url) ORDER BY i.provider_id)::text
             FROM provider_identities i WHERE i.local_id = u.local_id) AS identities
        FROM users u
        """

    public func createUser(_ user: UserRecord) async throws {
        try await transaction { db in
            // ON CONFLICT on the key only: a taken localId is reported first (as in SQLite); a taken email still
            // raises the unique violation, which decides between two replicas inserting the same email.
            let inserted = try await Self.uniqueChecked {
                try await db.execute("""
                    INSERT INTO users (local_id, email, email_verified, display_name, photo_url, password_hash,
                        password_updated_at, disabled, created_at, last_login_at, last_refresh_at, valid_since,
                        custom_claims, custom_auth, version)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                    ON CONFLICT (local_id) DO NOTHING RETURNING 1
                    """, Self.userBinds(user))
            }
            if inserted == 0 { throw StoreError.duplicateLocalId }
            try await Self.writeIdentities(user, db: db)
        }
    }

    public func user(localId: String) async throws -> UserRecord? {
        try await single { db in try await db.row("\(Self.userSelect) WHERE u.local_id = ?", [.text(localId)]).map(Self.userRecord) }
    }

    public func user(email: String) async throws -> UserRecord? {
        // The canonical form; then, for a row stored before emails were canonical (NFD), its decomposed form.
        let canonical = EmailAddress.canonical(email)
        let forms = canonical.unicodeScalars.allSatisfy(\.isASCII) ? [canonical] : [canonical, canonical.decomposedStringWithCanonicalMapping]
        return try await single { db in
            for form in forms {
                if let row = try await db.row("\(Self.userSelect) WHERE u.email = ?", [.text(form)]) { return try Self.userRecord(row) }
            }
            return nil
        }
    }

    public func user(providerId: String, federatedId: String) async throws -> UserRecord? {
        try await single { db in
            try await db.row("""
                \(Self.userSelect) WHERE u.local_id = (SELECT local_id FROM provider_identities WHERE provider_id = ? AND federated_id = ?)
                """, [.text(providerId), .text(federatedId)]).map(Self.userRecord)
        }
    }

    public func updateUser(_ user: UserRecord) async throws -> UserRecord {
        try await transaction { db in
            // The row lock makes the version check and the write one step against any other replica.
            guard let current = try await db.row("SELECT version FROM users WHERE local_id = ? FOR UPDATE", [.text(user.localId)]) else {
                throw StoreError.notFound
            }
            guard try current.int("version") == user.version else { throw StoreError.conflict }
            var binds = Array(Self.userBinds(user).dropFirst())
            binds.append(.text(user.localId))
            let version = try await Self.uniqueChecked {
                try await db.row("""
                    UPDATE users SET email = ?, email_verified = ?, display_name = ?, photo_url = ?, password_hash = ?,
                        password_updated_at = ?, disabled = ?, created_at = ?, last_login_at = ?, last_refresh_at = ?,
                        valid_since = ?, custom_claims = ?, custom_auth = ?, version = version + 1
                    WHERE local_id = ? RETURNING version
                    """, binds)?.int("version")
            }
            try await db.execute("DELETE FROM provider_identities WHERE local_id = ?", [.text(user.localId)])
            try await Self.writeIdentities(user, db: db)
            try await Self.deleteUnlinkedProviderTokens(localId: user.localId, db: db)
            var stored = user
            stored.version = version ?? user.version + 1
            return stored
        }
    }

    public func recordSignIn(localId: String, at moment: Date, identity: ProviderIdentity?, passwordRehash: PasswordRehash?,
                             refreshToken: RefreshTokenRecord?) async throws -> UserRecord? {
        try await transaction { db in
            // Locked: the rehash compare-and-swap and the version bump see the latest row.
            guard var user = try await db.row("\(Self.userSelect) WHERE u.local_id = ? FOR UPDATE OF u", [.text(localId)]).map(Self.userRecord)
            else { return nil }
            if user.disabled { return user }
            let rehash = passwordRehash.flatMap { user.passwordHash == $0.old ? $0 : nil }
            let version: Int?
            if let rehash {
                version = try await db.row("UPDATE users SET last_login_at = ?, password_hash = ?, version = version + 1 WHERE local_id = ? RETURNING version",
                                           [.date(moment), .text(rehash.new), .text(localId)])?.int("version")
            } else {
                version = try await db.row("UPDATE users SET last_login_at = ?, version = version + 1 WHERE local_id = ? RETURNING version",
                                           [.date(moment), .text(localId)])?.int("version")
            }
            if let identity, let index = user.identities.firstIndex(where: {
                $0.providerId == identity.providerId && $0.federatedId == identity.federatedId
            }), user.identities[index] != identity {
                try await db.execute("""
                    UPDATE provider_identities SET email = ?, display_name = ?, photo_url = ?
                    WHERE provider_id = ? AND federated_id = ? AND local_id = ?
                    """, [.optionalText(identity.email), .optionalText(identity.displayName), .optionalText(identity.photoUrl),
                          .text(identity.providerId), .text(identity.federatedId), .text(localId)])
                user.identities[index] = identity
            }
            if let refreshToken {
                try await Self.insertToken(refreshToken, db: db)
                try await Self.countSignIn(provider: refreshToken.signInProvider, at: moment, db: db)
            }
            user.lastLoginAt = moment
            if let rehash { user.passwordHash = rehash.new }
            user.version = version ?? user.version + 1
            return user
        }
    }

    public func deleteUser(localId: String) async throws -> Bool {
        try await transaction { db in
            try await db.execute("DELETE FROM refresh_tokens WHERE local_id = ?", [.text(localId)])
            // Identities and provider tokens go with the user (ON DELETE CASCADE).
            return try await db.execute("DELETE FROM users WHERE local_id = ? RETURNING 1", [.text(localId)]) > 0
        }
    }

    public func canonicalizeStoredEmails() async throws -> (rewritten: Int, conflicts: [String]) {
        try await transaction { db in
            var rewritten = 0
            var conflicts: [String] = []
            // Only addresses with a non-ASCII character can differ from their NFC form.
            for row in try await db.rows("SELECT local_id, email FROM users WHERE email ~ '[^ -~]' FOR UPDATE") {
                guard let localId = try row.string("local_id"), let email = try row.string("email") else { continue }
                let canonical = EmailAddress.canonical(email)
                guard !canonical.utf8.elementsEqual(email.utf8) else { continue }
                if try await db.row("SELECT 1 FROM users WHERE email = ? AND local_id <> ?", [.text(canonical), .text(localId)]) != nil {
                    conflicts.append(localId)
                    continue
                }
                try await db.execute("UPDATE users SET email = ?, version = version + 1 WHERE local_id = ?", [.text(canonical), .text(localId)])
                rewritten += 1
            }
            return (rewritten, conflicts)
        }
    }

    public func userCount() async throws -> Int {
        try await single { db in try await db.row("SELECT COUNT(*) AS n FROM users")?.int("n") ?? 0 }
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

    static func userBinds(_ user: UserRecord) -> [PGValue] {
        [
            .text(user.localId), .optionalText(user.email), .bool(user.emailVerified), .optionalText(user.displayName),
            .optionalText(user.photoUrl), .optionalText(user.passwordHash), .optionalDate(user.passwordUpdatedAt),
            .bool(user.disabled), .date(user.createdAt), .optionalDate(user.lastLoginAt), .optionalDate(user.lastRefreshAt),
            .date(user.validSince), .jsonObject(user.customClaims), .bool(user.customAuth),
        ]
    }

    static func writeIdentities(_ user: UserRecord, db: Executor) async throws {
        for identity in user.identities {
            try await uniqueChecked(providerId: identity.providerId) {
                try await db.execute("""
                    INSERT INTO provider_identities (provider_id, federated_id, local_id, email, display_name, photo_url)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, [.text(identity.providerId), .text(identity.federatedId), .text(user.localId),
                          .optionalText(identity.email), .optionalText(identity.displayName), .optionalText(identity.photoUrl)])
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

    static func userRecord(_ row: PostgresRandomAccessRow) throws -> UserRecord {
        let identities: [ProviderIdentity]
        if let json = try row.string("identities") {
            identities = try JSONDecoder().decode([IdentityRow].self, from: Data(json.utf8)).map {
                ProviderIdentity(providerId: $0.providerId, federatedId: $0.federatedId, email: $0.email,
                                 displayName: $0.displayName, photoUrl: $0.photoUrl)
            }
        } else {
            identities = []
        }
        return UserRecord(
            localId: try row.string("local_id") ?? "", email: try row.string("email"), emailVerified: try row.bool("email_verified"),
            displayName: try row.string("display_name"), photoUrl: try row.string("photo_url"),
            passwordHash: try row.string("password_hash"), passwordUpdatedAt: try row.date("password_updated_at"),
            disabled: try row.bool("disabled"), createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            lastLoginAt: try row.date("last_login_at"), lastRefreshAt: try row.date("last_refresh_at"),
            validSince: try row.date("valid_since") ?? Date(timeIntervalSince1970: 0), customClaims: try row.jsonObject("custom_claims"),
            customAuth: try row.bool("custom_auth"), identities: identities, version: try row.int("version") ?? 0)
    }

    // MARK: Refresh tokens

    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await single { db in try await Self.insertToken(record, db: db) }
    }

    public func rotateRefreshToken(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshRotationOutcome {
        try await transaction { db in
            switch try await Self.presentedToken(presentedHash, now: now, graceWindow: graceWindow, db: db) {
            case .failed(let outcome): return outcome
            case .usable(let presented):
                try await Self.rotate(presented, replacement: replacement, now: now, db: db)
                return .rotated(previous: presented)
            }
        }
    }

    public func refreshSession(presentedHash: String, replacement: RefreshTokenRecord, now: Date, graceWindow: TimeInterval) async throws -> RefreshSessionOutcome {
        try await transaction { db in
            let presented: RefreshTokenRecord
            switch try await Self.presentedToken(presentedHash, now: now, graceWindow: graceWindow, db: db) {
            case .failed(.unknown): return .unknown
            case .failed(.reuseDetected): return .reuseDetected
            case .failed: return .revoked
            case .usable(let record): presented = record
            }
            // Every check before any write: a refused refresh changes nothing.
            guard var user = try await db.row("\(Self.userSelect) WHERE u.local_id = ?", [.text(presented.localId)]).map(Self.userRecord)
            else { return .userNotFound }
            if user.disabled { return .userDisabled }
            if Int64(presented.authTime.timeIntervalSince1970) < Int64(user.validSince.timeIntervalSince1970) { return .sessionExpired }
            // Rotation, the replacement and `last_refresh_at` in one statement: one round trip instead of three.
            var next = replacement
            next.familyId = presented.familyId
            next.localId = presented.localId
            next.authTime = presented.authTime
            next.signInProvider = presented.signInProvider
            next.sessionClaims = presented.sessionClaims
            let version = try await db.row("""
                WITH rotated AS (
                    UPDATE refresh_tokens SET rotated_at = COALESCE(rotated_at, ?) WHERE token_hash = ?
                ), inserted AS (
                    INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked, session_claims)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                )
                UPDATE users SET last_refresh_at = ?, version = version + 1 WHERE local_id = ? RETURNING version
                """, [.date(now), .text(presented.tokenHash)] + Self.tokenBinds(next) + [.date(now), .text(user.localId)])?.int("version")
            user.lastRefreshAt = now
            user.version = version ?? user.version + 1
            return .refreshed(previous: presented, user: user)
        }
    }

    private enum Presented {
        case usable(RefreshTokenRecord)
        case failed(RefreshRotationOutcome)
    }

    /// Looks the presented token up and locks it (a concurrent refresh of the same token, on any replica, waits
    /// and then sees it rotated); a rotated one outside the grace window revokes its family (reuse).
    private static func presentedToken(_ hash: String, now: Date, graceWindow: TimeInterval, db: Executor) async throws -> Presented {
        guard let row = try await db.row("SELECT * FROM refresh_tokens WHERE token_hash = ? FOR UPDATE", [.text(hash)]) else {
            return .failed(.unknown)
        }
        let presented = try tokenRecord(row)
        if presented.revoked { return .failed(.revoked) }
        if let rotatedAt = presented.rotatedAt, now.timeIntervalSince(rotatedAt) > graceWindow {
            try await db.execute("UPDATE refresh_tokens SET revoked = TRUE WHERE family_id = ?", [.text(presented.familyId)])
            return .failed(.reuseDetected)
        }
        return .usable(presented)
    }

    /// Marks `presented` rotated (once) and stores `replacement` in its family.
    private static func rotate(_ presented: RefreshTokenRecord, replacement: RefreshTokenRecord, now: Date, db: Executor) async throws {
        if presented.rotatedAt == nil {
            try await db.execute("UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ?", [.date(now), .text(presented.tokenHash)])
        }
        var next = replacement
        next.familyId = presented.familyId
        next.localId = presented.localId
        next.authTime = presented.authTime
        next.signInProvider = presented.signInProvider
        next.sessionClaims = presented.sessionClaims
        try await insertToken(next, db: db)
    }

    public func revokeRefreshTokens(localId: String) async throws {
        try await transaction { db in
            try await db.execute("UPDATE refresh_tokens SET revoked = TRUE WHERE local_id = ?", [.text(localId)])
            try await db.execute("DELETE FROM provider_tokens WHERE local_id = ?", [.text(localId)])
        }
    }

    public func pruneRefreshTokens(before cutoff: Date) async throws -> Int {
        try await single { db in
            try await db.execute(
                "DELETE FROM refresh_tokens WHERE (rotated_at IS NOT NULL AND rotated_at < ?) OR (revoked AND created_at < ?) RETURNING 1",
                [.date(cutoff), .date(cutoff)])
        }
    }

    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await single { db in
            try await db.row("SELECT * FROM refresh_tokens WHERE token_hash = ?", [.text(hash)]).map(Self.tokenRecord)
        }
    }

    static func insertToken(_ record: RefreshTokenRecord, db: Executor) async throws {
        try await db.execute("""
            INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked, session_claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, tokenBinds(record))
    }

    static func tokenBinds(_ record: RefreshTokenRecord) -> [PGValue] {
        [.text(record.tokenHash), .text(record.familyId), .text(record.localId), .date(record.authTime),
         .text(record.signInProvider), .date(record.createdAt), .optionalDate(record.rotatedAt), .bool(record.revoked),
         .jsonObject(record.sessionClaims)]
    }

    static func tokenRecord(_ row: PostgresRandomAccessRow) throws -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: try row.string("token_hash") ?? "", familyId: try row.string("family_id") ?? "",
            localId: try row.string("local_id") ?? "", authTime: try row.date("auth_time") ?? Date(timeIntervalSince1970: 0),
            signInProvider: try row.string("sign_in_provider") ?? "",
            createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            rotatedAt: try row.date("rotated_at"), revoked: try row.bool("revoked"), sessionClaims: try row.jsonObject("session_claims"))
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [SigningKey] {
        try await single { db in
            try await db.rows("SELECT * FROM signing_keys ORDER BY generation").map { row in
                SigningKey(generation: try row.int("generation") ?? 0, kid: try row.string("kid") ?? "",
                           privateKeyPEM: try row.string("private_key_pem") ?? "", certificatePEM: try row.string("certificate_pem") ?? "",
                           createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0),
                           activatesAt: try row.date("activates_at") ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// The primary key decides which replica's rotation wins; the other gets ``StoreError/duplicateKeyGeneration``.
    public func insertSigningKey(_ key: SigningKey) async throws {
        try await single { db in
            try await Self.uniqueChecked {
                try await db.execute("""
                    INSERT INTO signing_keys (generation, kid, private_key_pem, certificate_pem, created_at, activates_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, [.int(key.generation), .text(key.kid), .text(key.privateKeyPEM), .text(key.certificatePEM),
                          .date(key.createdAt), .date(key.activatesAt)])
            }
        }
    }

    public func deleteSigningKeys(generations: [Int]) async throws {
        guard !generations.isEmpty else { return }
        try await transaction { db in
            for generation in generations {
                try await db.execute("DELETE FROM signing_keys WHERE generation = ?", [.int(generation)])
            }
        }
    }

    // MARK: Project

    public func projectConfig(projectId: String) async throws -> ProjectConfig? {
        let text = try await single { db in
            try await db.row("SELECT config_json FROM project_config WHERE project_id = ?", [.text(projectId)])?.string("config_json")
        }
        guard let text else { return nil }
        return try JSONDecoder().decode(ProjectConfig.self, from: Data(text.utf8))
    }

    public func saveProjectConfig(_ config: ProjectConfig) async throws {
        let json = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        try await single { db in
            try await db.execute("""
                INSERT INTO project_config (project_id, config_json) VALUES (?, ?)
                ON CONFLICT (project_id) DO UPDATE SET config_json = excluded.config_json
                """, [.text(config.projectId), .text(json)])
        }
    }

    public func serviceAccountKeys(clientEmail: String) async throws -> [ServiceAccountKey] {
        try await single { db in
            try await db.rows("SELECT * FROM service_account_keys WHERE client_email = ? ORDER BY key_id", [.text(clientEmail)])
                .map(Self.serviceAccountKey)
        }
    }

    public func allServiceAccountKeys() async throws -> [ServiceAccountKey] {
        try await single { db in
            try await db.rows("SELECT * FROM service_account_keys ORDER BY client_email, key_id").map(Self.serviceAccountKey)
        }
    }

    public func saveServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await single { db in
            try await db.execute("""
                INSERT INTO service_account_keys (client_email, key_id, public_key_pem, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (client_email, key_id) DO UPDATE SET public_key_pem = excluded.public_key_pem, created_at = excluded.created_at
                """, [.text(key.clientEmail), .text(key.keyId), .text(key.publicKeyPEM), .date(key.createdAt)])
        }
    }

    public func deleteServiceAccountKey(clientEmail: String, keyId: String) async throws -> Bool {
        try await single { db in
            try await db.execute("DELETE FROM service_account_keys WHERE client_email = ? AND key_id = ? RETURNING 1",
                                 [.text(clientEmail), .text(keyId)]) > 0
        }
    }

    private static func serviceAccountKey(_ row: PostgresRandomAccessRow) throws -> ServiceAccountKey {
        ServiceAccountKey(clientEmail: try row.string("client_email") ?? "", keyId: try row.string("key_id") ?? "",
                          publicKeyPEM: try row.string("public_key_pem") ?? "",
                          createdAt: try row.date("created_at") ?? Date(timeIntervalSince1970: 0))
    }
}
