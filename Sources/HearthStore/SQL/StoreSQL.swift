import Foundation
import HearthCore
import HearthWire

/// The statements both stores run, written once with their binds beside them. An engine adds only its dialect
/// (`FOR UPDATE`, `RETURNING`, a CTE) and runs them in its own transaction wrapper.
package enum StoreSQL {
    // MARK: Users

    static let userColumns = """
        local_id, email, email_verified, display_name, photo_url, password_hash, password_updated_at, disabled, created_at,
        last_login_at, last_refresh_at, valid_since, custom_claims, custom_auth, version, email_link_signin, mfa, tenant_id
        """

    /// One user's `VALUES` tuple (version 0), in ``userColumns`` order.
    static func userValues(_ user: UserRecord) -> SQLStatement {
        """
        (\(user.localId), \(user.email), \(user.emailVerified), \(user.displayName), \(user.photoUrl), \(user.passwordHash), \
        \(user.passwordUpdatedAt), \(user.disabled), \(user.createdAt), \(user.lastLoginAt), \(user.lastRefreshAt), \
        \(user.validSince), \(json: user.customClaims), \(user.customAuth), 0, \(user.emailLinkSignIn), \(mfa: user.mfa), \(user.tenantId ?? ""))
        """
    }

    /// Inserts `users` (without their identities) in one statement.
    package static func insertUsers(_ users: some Collection<UserRecord>) -> SQLStatement {
        "INSERT INTO users (\(unescaped: userColumns)) VALUES \(SQLStatement.joined(users.map(userValues), separator: ", "))"
    }

    /// Rewrites every column of the user but its key and tenant, and bumps the version.
    package static func updateUser(_ user: UserRecord, tenant: String) -> SQLStatement {
        """
        UPDATE users SET email = \(user.email), email_verified = \(user.emailVerified), display_name = \(user.displayName),
            photo_url = \(user.photoUrl), password_hash = \(user.passwordHash), password_updated_at = \(user.passwordUpdatedAt),
            disabled = \(user.disabled), created_at = \(user.createdAt), last_login_at = \(user.lastLoginAt),
            last_refresh_at = \(user.lastRefreshAt), valid_since = \(user.validSince), custom_claims = \(json: user.customClaims),
            custom_auth = \(user.customAuth), email_link_signin = \(user.emailLinkSignIn), mfa = \(mfa: user.mfa),
            version = version + 1
        WHERE local_id = \(user.localId) AND tenant_id = \(tenant)
        """
    }

    /// The user's version, if the user is in `tenant` ('' for the project's own users).
    package static func userVersion(localId: String, tenant: String) -> SQLStatement {
        "SELECT version FROM users WHERE local_id = \(localId) AND tenant_id = \(tenant)"
    }

    /// The user's row, if the user is in `tenant`.
    package static func user(localId: String, tenant: String) -> SQLStatement {
        "SELECT * FROM users WHERE local_id = \(localId) AND tenant_id = \(tenant)"
    }

    package static func userExists(localId: String) -> SQLStatement { "SELECT 1 FROM users WHERE local_id = \(localId)" }

    /// Whether an account of `tenant` other than `localId` holds `email` (an email is unique per tenant).
    package static func emailTaken(_ email: String, byOtherThan localId: String, tenant: String) -> SQLStatement {
        "SELECT 1 FROM users WHERE tenant_id = \(tenant) AND email = \(email) AND local_id <> \(localId)"
    }

    package static func userId(email: String, tenant: String) -> SQLStatement {
        "SELECT local_id FROM users WHERE tenant_id = \(tenant) AND email = \(email)"
    }

    package static func setEmail(_ email: String, localId: String) -> SQLStatement {
        "UPDATE users SET email = \(email), version = version + 1 WHERE local_id = \(localId)"
    }

    /// A sign-in's own columns: `last_login_at`, the rehashed password when given, the version.
    package static func recordSignIn(localId: String, at moment: Date, passwordHash: String?) -> SQLStatement {
        let rehash: SQLStatement = passwordHash.map { ", password_hash = \($0)" } ?? ""
        return "UPDATE users SET last_login_at = \(moment)\(rehash), version = version + 1 WHERE local_id = \(localId)"
    }

    package static func recordRefresh(localId: String, at moment: Date) -> SQLStatement {
        "UPDATE users SET last_refresh_at = \(moment), version = version + 1 WHERE local_id = \(localId)"
    }

    package static func deleteUser(localId: String) -> SQLStatement { "DELETE FROM users WHERE local_id = \(localId)" }

    /// The email forms a lookup tries: the canonical one; then, for a row stored before emails were canonical
    /// (NFD), its decomposed form.
    package static func emailLookupForms(_ email: String) -> [String] {
        let canonical = EmailAddress.canonical(email)
        return canonical.unicodeScalars.allSatisfy(\.isASCII) ? [canonical] : [canonical, canonical.decomposedStringWithCanonicalMapping]
    }

    /// The canonical form of a stored email when it differs from it (byte for byte), else nil.
    package static func canonicalRewrite(_ email: String) -> String? {
        let canonical = EmailAddress.canonical(email)
        return canonical.utf8.elementsEqual(email.utf8) ? nil : canonical
    }

    // MARK: Identities

    package static func insertIdentity(_ identity: ProviderIdentity, localId: String, tenant: String) -> SQLStatement {
        """
        INSERT INTO provider_identities (tenant_id, provider_id, federated_id, local_id, email, display_name, photo_url)
        VALUES (\(tenant), \(identity.providerId), \(identity.federatedId), \(localId), \(identity.email), \(identity.displayName), \(identity.photoUrl))
        """
    }

    /// Inserts the identities of `users` (their phone numbers too: a number is the `phone` identity), at most
    /// `rowsPerStatement` rows a statement: the bulk path's (``insertUsers(_:)``) second half.
    package static func insertIdentities(of users: some Collection<UserRecord>, tenant: String, rowsPerStatement: Int = 500) -> [SQLStatement] {
        let rows: [SQLStatement] = users.flatMap { user in
            user.identities.map { identity -> SQLStatement in
                "(\(tenant), \(identity.providerId), \(identity.federatedId), \(user.localId), \(identity.email), \(identity.displayName), \(identity.photoUrl))"
            }
        }
        return stride(from: 0, to: rows.count, by: rowsPerStatement).map { start in
            """
            INSERT INTO provider_identities (tenant_id, provider_id, federated_id, local_id, email, display_name, photo_url) \
            VALUES \(SQLStatement.joined(Array(rows[start..<min(start + rowsPerStatement, rows.count)]), separator: ", "))
            """
        }
    }

    /// The users (of any tenant: a uid is unique across the server) holding one of `localIds`: `local_id`, `tenant_id`.
    package static func userTenants(localIds: [String]) -> SQLStatement {
        "SELECT local_id, tenant_id FROM users WHERE local_id IN (\(list: localIds))"
    }

    /// Refreshes the profile of a linked identity.
    package static func updateIdentityProfile(_ identity: ProviderIdentity, localId: String) -> SQLStatement {
        """
        UPDATE provider_identities SET email = \(identity.email), display_name = \(identity.displayName), photo_url = \(identity.photoUrl)
        WHERE provider_id = \(identity.providerId) AND federated_id = \(identity.federatedId) AND local_id = \(localId)
        """
    }

    /// The user of `tenant` the federated account is linked to (one user per tenant).
    package static func identityHolder(providerId: String, federatedId: String, tenant: String) -> SQLStatement {
        "SELECT local_id FROM provider_identities WHERE tenant_id = \(tenant) AND provider_id = \(providerId) AND federated_id = \(federatedId)"
    }

    package static func identities(localId: String) -> SQLStatement {
        "SELECT * FROM provider_identities WHERE local_id = \(localId) ORDER BY provider_id"
    }

    /// The identities of a page of users (``localId`` first, then provider): one statement for the whole page.
    package static func identities(localIds: some Collection<String>) -> SQLStatement {
        "SELECT * FROM provider_identities WHERE local_id IN (\(list: Array(localIds))) ORDER BY local_id, provider_id"
    }

    package static func deleteIdentities(localId: String) -> SQLStatement { "DELETE FROM provider_identities WHERE local_id = \(localId)" }

    /// The identity of a sign-in whose stored profile differs: its index in `user.identities`.
    package static func changedIdentity(_ identity: ProviderIdentity?, of user: UserRecord) -> Int? {
        guard let identity, let index = user.identities.firstIndex(where: {
            $0.providerId == identity.providerId && $0.federatedId == identity.federatedId
        }), user.identities[index] != identity else { return nil }
        return index
    }

    /// The user a sign-in returns: the new login time, the changed identity, the rehashed password, the version.
    package static func signedIn(_ user: UserRecord, at moment: Date, identity: (index: Int, value: ProviderIdentity)?,
                                 rehashedTo passwordHash: String?, version: Int?) -> UserRecord {
        var user = user
        user.lastLoginAt = moment
        if let identity { user.identities[identity.index] = identity.value }
        if let passwordHash { user.passwordHash = passwordHash }
        user.version = version ?? user.version + 1
        return user
    }

    // MARK: Admin queries

    /// The `WHERE` clause of a user query in `tenant`, on columns prefixed by `alias` (`"u."` or `""`).
    package static func userFilter(_ query: UserQuery, tenant: String, alias: String = "") -> SQLStatement {
        var conditions: [SQLStatement] = []
        if !query.emails.isEmpty { conditions.append("\(unescaped: alias)email IN (\(list: query.emails.map(EmailAddress.canonical)))") }
        if !query.localIds.isEmpty { conditions.append("\(unescaped: alias)local_id IN (\(list: query.localIds))") }
        if !query.phoneNumbers.isEmpty {
            conditions.append("""
                \(unescaped: alias)local_id IN (SELECT local_id FROM provider_identities WHERE tenant_id = \(tenant) \
                AND provider_id = 'phone' AND federated_id IN (\(list: query.phoneNumbers)))
                """)
        }
        var inTenant: SQLStatement = "WHERE \(unescaped: alias)tenant_id = \(tenant)"
        if let after = query.after, query.sortBy == .createdAt {
            // Keyset paging (issue 41): one range of `users_created_at` (tenant_id, created_at, local_id).
            inTenant = inTenant + """
                 AND (\(unescaped: alias)created_at, \(unescaped: alias)local_id) \(unescaped: query.ascending ? ">" : "<") (\(after.createdAt), \(after.localId))
                """
        }
        return conditions.isEmpty ? inTenant : inTenant + " AND (" + SQLStatement.joined(conditions, separator: " OR ") + ")"
    }

    /// The `ORDER BY … LIMIT … OFFSET …` of a user query (NULLs where SQLite puts them, on both engines).
    package static func userOrder(_ query: UserQuery, alias: String = "", dialect: SQLDialect) -> SQLStatement {
        let column = switch query.sortBy {
        case .userId: "local_id"
        case .name: "display_name"
        case .createdAt: "created_at"
        case .lastLoginAt: "last_login_at"
        case .userEmail: "email"
        }
        let direction = dialect.direction(ascending: query.ascending)
        // `local_id` and `created_at` are never NULL: a plain direction, which an index scan in either direction gives.
        let plain = query.ascending ? "ASC" : "DESC"
        // A filtered query is read through the filter's indexes (an email, a uid, a phone number) and sorted after: on
        // SQLite a `+` keeps the planner from walking the whole tenant in key order instead (issue 41).
        let sorted = !query.emails.isEmpty || !query.localIds.isEmpty || !query.phoneNumbers.isEmpty ? (dialect == .sqlite ? "+" : "") : ""
        let key = "\(sorted)\(alias)local_id \(plain)"
        let order = switch column {
        case "local_id": key
        case "created_at": "\(sorted)\(alias)created_at \(plain), \(key)"
        default: "\(alias)\(column) \(direction), \(key)"
        }
        let offset: SQLStatement = query.offset > 0 ? " OFFSET \(query.offset)" : ""
        return "ORDER BY \(unescaped: order) LIMIT \(max(0, query.limit))" + offset
    }

    /// How many users `filter` selects; `from` is `users` with the alias the filter uses.
    package static func countUsers(_ filter: SQLStatement, from: String = "users") -> SQLStatement {
        "SELECT COUNT(*) AS n FROM \(unescaped: from) \(filter)"
    }

    /// A page of `tenant`'s users by key, strictly after `afterLocalId` when given (one range of `users_tenant`).
    package static func userPage(after afterLocalId: String?, limit: Int, tenant: String, alias: String = "") -> SQLStatement {
        let after: SQLStatement = afterLocalId.map { "AND \(unescaped: alias)local_id > \($0) " } ?? ""
        return "WHERE \(unescaped: alias)tenant_id = \(tenant) \(after)ORDER BY \(unescaped: alias)local_id LIMIT \(max(0, limit))"
    }

    /// Everything hanging off `tenant`'s users, deleted before the users themselves (``deleteTenantUsers(tenant:)``).
    package static func deleteTenantUsersRows(tenant: String) -> [SQLStatement] {
        let users: SQLStatement = "SELECT local_id FROM users WHERE tenant_id = \(tenant)"
        return [
            "DELETE FROM refresh_tokens WHERE tenant_id = \(tenant)",
            "DELETE FROM oob_codes WHERE tenant_id = \(tenant)",
            "DELETE FROM provider_tokens WHERE local_id IN (\(users))",
            "DELETE FROM passkeys WHERE local_id IN (\(users))",
            "DELETE FROM passkey_challenges WHERE local_id IN (\(users))",
            "DELETE FROM mfa_sessions WHERE local_id IN (\(users))",
            "DELETE FROM provider_identities WHERE tenant_id = \(tenant)",
        ]
    }

    package static func deleteTenantUsers(tenant: String) -> SQLStatement { "DELETE FROM users WHERE tenant_id = \(tenant)" }

    // MARK: Tenants

    package static func tenant(id: String) -> SQLStatement { "SELECT * FROM tenants WHERE tenant_id = \(id)" }

    package static func tenants(after afterId: String?, limit: Int) -> SQLStatement {
        "SELECT * FROM tenants WHERE tenant_id > \(afterId ?? "") ORDER BY tenant_id LIMIT \(max(0, limit))"
    }

    package static func insertTenant(_ tenant: TenantRecord) throws -> SQLStatement {
        """
        INSERT INTO tenants (tenant_id, display_name, config_json, created_at)
        VALUES (\(tenant.id), \(tenant.displayName), \(try StoreJSON.encode(tenant.settings)), \(tenant.createdAt))
        """
    }

    package static func updateTenant(_ tenant: TenantRecord) throws -> SQLStatement {
        """
        UPDATE tenants SET display_name = \(tenant.displayName), config_json = \(try StoreJSON.encode(tenant.settings))
        WHERE tenant_id = \(tenant.id)
        """
    }

    /// What deleting a tenant deletes before its row (``deleteTenantRow(id:)``), in order.
    package static func deleteTenantData(id: String) -> [SQLStatement] {
        deleteTenantUsersRows(tenant: id) + [
            deleteTenantUsers(tenant: id),
            "DELETE FROM idp_configs WHERE tenant_id = \(id)",
            "DELETE FROM authorization_sessions WHERE tenant_id = \(id)",
            "DELETE FROM pending_credentials WHERE tenant_id = \(id)",
            "DELETE FROM phone_verifications WHERE tenant_id = \(id)",
        ]
    }

    package static func deleteTenantRow(id: String) -> SQLStatement { "DELETE FROM tenants WHERE tenant_id = \(id)" }

    // MARK: Refresh tokens

    package static func insertRefreshToken(_ record: RefreshTokenRecord) -> SQLStatement {
        """
        INSERT INTO refresh_tokens (token_hash, family_id, local_id, auth_time, sign_in_provider, created_at, rotated_at, revoked,
            session_claims, tenant_id)
        VALUES (\(record.tokenHash), \(record.familyId), \(record.localId), \(record.authTime), \(record.signInProvider), \
        \(record.createdAt), \(record.rotatedAt), \(record.revoked), \(json: record.sessionClaims), \(record.tenantId ?? ""))
        """
    }

    package static func refreshToken(hash: String) -> SQLStatement { "SELECT * FROM refresh_tokens WHERE token_hash = \(hash)" }

    package static func refreshTokens(after afterHash: String?, limit: Int) -> SQLStatement {
        "SELECT * FROM refresh_tokens WHERE token_hash > \(afterHash ?? "") ORDER BY token_hash LIMIT \(max(0, limit))"
    }

    package static func revokeFamily(_ familyId: String) -> SQLStatement {
        "UPDATE refresh_tokens SET revoked = \(true) WHERE family_id = \(familyId)"
    }

    package static func revokeRefreshTokens(localId: String) -> SQLStatement {
        "UPDATE refresh_tokens SET revoked = \(true) WHERE local_id = \(localId)"
    }

    /// Ends every session of a user: its refresh tokens revoked, its provider tokens (token vault) deleted, its
    /// pending second-factor sign-ins and enrollments deleted.
    package static func revokeSessions(localId: String) -> [SQLStatement] {
        [revokeRefreshTokens(localId: localId), deleteProviderTokens(localId: localId, providerId: nil), deleteMultiFactorSessions(localId: localId)]
    }

    /// Marks a token rotated at `now`, unless it was already.
    package static func markRotated(hash: String, at now: Date) -> SQLStatement {
        "UPDATE refresh_tokens SET rotated_at = COALESCE(rotated_at, \(now)) WHERE token_hash = \(hash)"
    }

    package static func deleteRefreshTokens(localId: String) -> SQLStatement { "DELETE FROM refresh_tokens WHERE local_id = \(localId)" }

    /// How many dead refresh tokens one transaction of the clean-up deletes: the write lock is held for one chunk,
    /// never for the whole table (issue 41).
    package static let pruneChunkSize = 1_000

    /// One chunk of the refresh-token clean-up: at most `limit` tokens rotated before `cutoff` (`rotated`), or revoked
    /// and created before it; each found by range in its partial index (`refresh_tokens_rotated`, `refresh_tokens_revoked`).
    package static func pruneRefreshTokenChunk(rotated: Bool, before cutoff: Date, limit: Int = pruneChunkSize) -> SQLStatement {
        let dead: SQLStatement = rotated ? "rotated_at < \(cutoff)" : "revoked = TRUE AND created_at < \(cutoff)"
        return "DELETE FROM refresh_tokens WHERE token_hash IN (SELECT token_hash FROM refresh_tokens WHERE \(dead) LIMIT \(max(1, limit)))"
    }

    /// What a presented refresh token allows, before any user check.
    package enum Presented: Sendable {
        case usable(RefreshTokenRecord)
        case refused(RefreshSessionOutcome)
        /// Rotated and presented again after the grace window: the family is to be revoked.
        case reused(familyId: String)
    }

    package static func presented(_ record: RefreshTokenRecord?, now: Date, graceWindow: TimeInterval) -> Presented {
        guard let record else { return .refused(.unknown) }
        if record.revoked { return .refused(.revoked) }
        if let rotatedAt = record.rotatedAt, now.timeIntervalSince(rotatedAt) > graceWindow { return .reused(familyId: record.familyId) }
        return .usable(record)
    }

    /// Why the user refuses a refresh of `presented` (nothing is written then), or nil.
    package static func refusal(of presented: RefreshTokenRecord, user: UserRecord?) -> RefreshSessionOutcome? {
        guard let user else { return .userNotFound }
        if user.disabled { return .userDisabled }
        // Compared exactly (not by whole seconds): a session begun in the second of a revocation but before it ends.
        if presented.authTime < user.validSince { return .sessionExpired }
        return nil
    }

    /// `replacement` in `presented`'s family: its user, sign-in time, provider and claims.
    package static func successor(of presented: RefreshTokenRecord, _ replacement: RefreshTokenRecord) -> RefreshTokenRecord {
        var next = replacement
        next.familyId = presented.familyId
        next.localId = presented.localId
        next.authTime = presented.authTime
        next.signInProvider = presented.signInProvider
        next.sessionClaims = presented.sessionClaims
        next.tenantId = presented.tenantId
        return next
    }

    // MARK: Signing keys

    package static let signingKeys: SQLStatement = "SELECT * FROM signing_keys ORDER BY generation"

    package static func signingKeyExists(generation: Int) -> SQLStatement { "SELECT 1 FROM signing_keys WHERE generation = \(generation)" }

    package static func insertSigningKey(_ key: SigningKey) -> SQLStatement {
        """
        INSERT INTO signing_keys (generation, kid, private_key_pem, certificate_pem, created_at, activates_at)
        VALUES (\(key.generation), \(key.kid), \(key.privateKeyPEM), \(key.certificatePEM), \(key.createdAt), \(key.activatesAt))
        """
    }

    package static func deleteSigningKey(generation: Int) -> SQLStatement { "DELETE FROM signing_keys WHERE generation = \(generation)" }

    // MARK: Project and service accounts

    package static func projectConfig(projectId: String) -> SQLStatement {
        "SELECT config_json FROM project_config WHERE project_id = \(projectId)"
    }

    package static let projectConfigs: SQLStatement = "SELECT config_json FROM project_config ORDER BY project_id"

    package static func saveProjectConfig(_ config: ProjectConfig) throws -> SQLStatement {
        """
        INSERT INTO project_config (project_id, config_json) VALUES (\(config.projectId), \(String(decoding: try JSONEncoder().encode(config), as: UTF8.self)))
        ON CONFLICT (project_id) DO UPDATE SET config_json = excluded.config_json
        """
    }

    package static func serviceAccountKeys(clientEmail: String?) -> SQLStatement {
        guard let clientEmail else { return "SELECT * FROM service_account_keys ORDER BY client_email, key_id" }
        return "SELECT * FROM service_account_keys WHERE client_email = \(clientEmail) ORDER BY key_id"
    }

    package static func saveServiceAccountKey(_ key: ServiceAccountKey) -> SQLStatement {
        """
        INSERT INTO service_account_keys (client_email, key_id, public_key_pem, created_at)
        VALUES (\(key.clientEmail), \(key.keyId), \(key.publicKeyPEM), \(key.createdAt))
        ON CONFLICT (client_email, key_id) DO UPDATE SET public_key_pem = excluded.public_key_pem, created_at = excluded.created_at
        """
    }

    package static func deleteServiceAccountKey(clientEmail: String, keyId: String) -> SQLStatement {
        "DELETE FROM service_account_keys WHERE client_email = \(clientEmail) AND key_id = \(keyId)"
    }

    // MARK: Identity providers and apps

    package static func idpConfig(providerId: String, tenant: String) -> SQLStatement {
        "SELECT config_json FROM idp_configs WHERE tenant_id = \(tenant) AND provider_id = \(providerId)"
    }

    package static func idpConfigs(tenant: String) -> SQLStatement {
        "SELECT config_json FROM idp_configs WHERE tenant_id = \(tenant) ORDER BY provider_id"
    }

    /// Every tenant's provider configurations (resealing client secrets under a new vault key).
    package static let allIdPConfigs: SQLStatement = "SELECT tenant_id, config_json FROM idp_configs ORDER BY tenant_id, provider_id"

    package static func saveIdPConfig(providerId: String, json: String, tenant: String) -> SQLStatement {
        """
        INSERT INTO idp_configs (tenant_id, provider_id, config_json) VALUES (\(tenant), \(providerId), \(json))
        ON CONFLICT (tenant_id, provider_id) DO UPDATE SET config_json = excluded.config_json
        """
    }

    package static func deleteIdPConfig(providerId: String, tenant: String) -> SQLStatement {
        "DELETE FROM idp_configs WHERE tenant_id = \(tenant) AND provider_id = \(providerId)"
    }

    package static let apps: SQLStatement = "SELECT app_json FROM apps ORDER BY id"

    package static func saveApp(_ app: AppRegistration) throws -> SQLStatement {
        """
        INSERT INTO apps (id, app_json) VALUES (\(app.id), \(try StoreJSON.encode(app)))
        ON CONFLICT (id) DO UPDATE SET app_json = excluded.app_json
        """
    }

    package static func deleteApp(id: String) -> SQLStatement { "DELETE FROM apps WHERE id = \(id)" }

    // MARK: Sign-in flows

    package static func insertAuthorizationSession(_ session: AuthorizationSession) throws -> SQLStatement {
        """
        INSERT INTO authorization_sessions (state, provider_id, nonce, code_verifier, session_id_hash, event_id, auth_type,
            tenant, redirect_kind, redirect_value, redirect_uri, scopes, created_at, expires_at, callback_at, consumed_at, tenant_id)
        VALUES (\(session.state), \(session.providerId), \(session.nonce), \(session.codeVerifier), \(session.sessionIdHash), \
        \(session.eventId), \(session.authType), \(session.entraTenantOrHostedDomain), \(session.redirect.kind), \(session.redirect.value), \
        \(session.redirectUri), \(try StoreJSON.encode(session.scopes)), \(session.createdAt), \(session.expiresAt), \
        \(session.callbackAt), \(session.consumedAt), \(session.tenantId ?? ""))
        """
    }

    package static func authorizationSession(state: String) -> SQLStatement {
        "SELECT * FROM authorization_sessions WHERE state = \(state)"
    }

    /// Changes one row only the first time, before expiry, while not consumed.
    /// Marks the provider's callback once; `sessionIdHash`, when given, becomes the session's (a web sign-in's raw
    /// session id is made at the callback and handed to the page only).
    package static func markCallback(state: String, now: Date, sessionIdHash: String? = nil) -> SQLStatement {
        let binding: SQLStatement = sessionIdHash.map { ", session_id_hash = \($0)" } ?? ""
        return """
        UPDATE authorization_sessions SET callback_at = \(now)\(binding)
        WHERE state = \(state) AND callback_at IS NULL AND consumed_at IS NULL AND expires_at > \(now)
        """
    }

    package static func markConsumed(state: String, now: Date) -> SQLStatement {
        "UPDATE authorization_sessions SET consumed_at = \(now) WHERE state = \(state)"
    }

    /// What consuming `session` answers; nil when it is consumed now (the caller marks it consumed in any case
    /// but ``SessionConsumeOutcome/alreadyUsed``).
    /// A session begun for another tenant than `tenantId` is unknown here (and burned: a tenant swapped mid-flow
    /// ends the sign-in).
    package static func consumption(of session: AuthorizationSession?, sessionIdHash: String, now: Date, tenantId: String?) -> SessionConsumeOutcome {
        guard let session, session.tenantId == tenantId else { return .unknown }
        if session.consumedAt != nil { return .alreadyUsed }
        if session.expiresAt <= now { return .expired }
        guard session.sessionIdHash == sessionIdHash else { return .sessionMismatch }
        var consumed = session
        consumed.consumedAt = now
        return .consumed(consumed)
    }

    package static func insertPendingCredential(_ credential: PendingCredential) throws -> SQLStatement {
        """
        INSERT INTO pending_credentials (token_hash, identity_json, email_verified, raw_user_info, created_at, expires_at, tenant_id)
        VALUES (\(credential.tokenHash), \(try StoreJSON.encode(credential.identity)), \(credential.emailVerified), \
        \(credential.rawUserInfo), \(credential.createdAt), \(credential.expiresAt), \(credential.tenantId ?? ""))
        """
    }

    package static func deletePendingCredential(tokenHash: String) -> SQLStatement {
        "DELETE FROM pending_credentials WHERE token_hash = \(tokenHash)"
    }

    /// Expired sign-in records; `throttleTable` names the engine's password-attempt table.
    package static func pruneExpiredFlows(now: Date, throttleTable: String) -> [SQLStatement] {
        [
            // Sessions are kept an hour past expiry so a late replay is still recognized as "used".
            "DELETE FROM authorization_sessions WHERE expires_at < \(now.addingTimeInterval(-3600))",
            "DELETE FROM pending_credentials WHERE expires_at < \(now)",
            "DELETE FROM mfa_sessions WHERE expires_at < \(now)",
            "DELETE FROM passkey_challenges WHERE expires_at < \(now)",
            "DELETE FROM used_id_tokens WHERE expires_at < \(now)",
            // Attempts of keys never seen again (the live ones are trimmed as they are recorded).
            "DELETE FROM \(unescaped: throttleTable) WHERE at < \(now.addingTimeInterval(-86_400))",
        ] + prunePhoneFlows(now: now)
    }

    package static func insertMultiFactorSession(_ session: MultiFactorSessionRecord) throws -> SQLStatement {
        """
        INSERT INTO mfa_sessions (id_hash, kind, local_id, payload, created_at, expires_at)
        VALUES (\(session.idHash), \(session.kind.rawValue), \(session.localId), \(try StoreJSON.encode(session.payload)), \
        \(session.createdAt), \(session.expiresAt))
        """
    }

    package static func mfaSession(idHash: String) -> SQLStatement { "SELECT * FROM mfa_sessions WHERE id_hash = \(idHash)" }

    /// Deletes the session: one row for the one caller that completes it.
    package static func deleteMultiFactorSession(idHash: String) -> SQLStatement { "DELETE FROM mfa_sessions WHERE id_hash = \(idHash)" }

    /// Every session of a user (its second factors changed: pending sign-ins and enrollments start again).
    package static func deleteMultiFactorSessions(localId: String) -> SQLStatement { "DELETE FROM mfa_sessions WHERE local_id = \(localId)" }

    package static func deleteExpiredIDTokenUse(keyHash: String, now: Date) -> SQLStatement {
        "DELETE FROM used_id_tokens WHERE key_hash = \(keyHash) AND expires_at < \(now)"
    }

    /// Inserts one row, or none when the token was recorded already (the key decides a race).
    package static func markIDTokenUsed(keyHash: String, expiresAt: Date) -> SQLStatement {
        "INSERT INTO used_id_tokens (key_hash, expires_at) VALUES (\(keyHash), \(expiresAt)) ON CONFLICT (key_hash) DO NOTHING"
    }

    package static func forgetIDTokenUse(keyHash: String) -> SQLStatement { "DELETE FROM used_id_tokens WHERE key_hash = \(keyHash)" }

    // MARK: Audit log

    package static func appendAuditEntry(_ entry: AuditEntry, tenant: String) -> SQLStatement {
        """
        INSERT INTO audit_log (time, actor, action, target, detail, tenant_id)
        VALUES (\(entry.time), \(entry.actor), \(entry.action), \(entry.target), \(entry.detail), \(tenant))
        """
    }

    package static func auditEntries(before beforeId: Int64?, limit: Int, tenant: String) -> SQLStatement {
        "SELECT * FROM audit_log WHERE tenant_id = \(tenant) AND id < \(beforeId ?? Int64.max) ORDER BY id DESC LIMIT \(max(0, limit))"
    }

    // MARK: Console

    package static func saveConsoleAdmin(_ admin: ConsoleAdmin) -> SQLStatement {
        """
        INSERT INTO console_admins (name, password_hash, created_at) VALUES (\(admin.name), \(admin.passwordHash), \(admin.createdAt))
        ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, created_at = excluded.created_at
        """
    }

    package static func consoleAdmin(name: String?) -> SQLStatement {
        guard let name else { return "SELECT * FROM console_admins ORDER BY name" }
        return "SELECT * FROM console_admins WHERE name = \(name)"
    }

    /// Deletes the administrator (its count says whether it existed), then its sessions and login links.
    package static func deleteConsoleAdmin(name: String) -> (admin: SQLStatement, rest: [SQLStatement]) {
        ("DELETE FROM console_admins WHERE name = \(name)",
         ["DELETE FROM console_sessions WHERE admin_name = \(name)", "DELETE FROM console_login_links WHERE admin_name = \(name)"])
    }

    package static func insertConsoleLoginLink(tokenHash: String, adminName: String, expiresAt: Date) -> SQLStatement {
        "INSERT INTO console_login_links (token_hash, admin_name, expires_at) VALUES (\(tokenHash), \(adminName), \(expiresAt))"
    }

    package static func consoleLoginLink(tokenHash: String) -> SQLStatement {
        "SELECT admin_name, expires_at FROM console_login_links WHERE token_hash = \(tokenHash)"
    }

    package static func deleteConsoleLoginLink(tokenHash: String) -> SQLStatement {
        "DELETE FROM console_login_links WHERE token_hash = \(tokenHash)"
    }

    /// The administrator a taken login link names, if it has not expired.
    package static func loginLinkAdmin<Row: SQLRow>(_ row: Row?, now: Date) throws -> String? {
        guard let row, let expiresAt = try row.date("expires_at"), expiresAt > now else { return nil }
        return try row.string("admin_name")
    }

    package static func insertConsoleSession(_ session: ConsoleSession) -> SQLStatement {
        """
        INSERT INTO console_sessions (id_hash, admin_name, csrf_token, created_at, last_seen_at)
        VALUES (\(session.idHash), \(session.adminName), \(session.csrfToken), \(session.createdAt), \(session.lastSeenAt))
        """
    }

    package static func consoleSession(idHash: String) -> SQLStatement { "SELECT * FROM console_sessions WHERE id_hash = \(idHash)" }

    package static func touchConsoleSession(idHash: String, at time: Date) -> SQLStatement {
        "UPDATE console_sessions SET last_seen_at = \(time) WHERE id_hash = \(idHash)"
    }

    package static func deleteConsoleSession(idHash: String) -> SQLStatement { "DELETE FROM console_sessions WHERE id_hash = \(idHash)" }

    package static func pruneConsoleSessions(idleBefore: Date, now: Date) -> [SQLStatement] {
        ["DELETE FROM console_sessions WHERE last_seen_at < \(idleBefore)", "DELETE FROM console_login_links WHERE expires_at <= \(now)"]
    }

    package static func incrementDailyCount(day: String, kind: String, key: String) -> SQLStatement {
        """
        INSERT INTO daily_counts (day, kind, key, count) VALUES (\(day), \(kind), \(key), 1)
        ON CONFLICT (day, kind, key) DO UPDATE SET count = daily_counts.count + 1
        """
    }

    /// A sign-in for the overview, inside the sign-in's own write.
    package static func countSignIn(provider: String, at time: Date) -> SQLStatement {
        incrementDailyCount(day: DailyCount.day(of: time), kind: "signIn", key: provider)
    }

    package static func dailyCounts(sinceDay: String) -> SQLStatement {
        "SELECT * FROM daily_counts WHERE day >= \(sinceDay) ORDER BY day, kind, key"
    }

    // MARK: Provider token vault

    /// Upserts the sealed tokens only while the identity is linked (an unlink or deletion that committed first
    /// wins); `lock` is the engine's row lock on that identity, if any.
    package static func saveProviderTokens(_ record: ProviderTokenRecord, lock: String = "") -> SQLStatement {
        """
        INSERT INTO provider_tokens (local_id, provider_id, federated_id, key_id, sealed, access_expires_at, updated_at)
        SELECT \(record.localId), \(record.providerId), \(record.federatedId), \(record.keyId), \(record.sealed), \
        \(record.accessTokenExpiresAt), \(record.updatedAt) WHERE EXISTS (
            SELECT 1 FROM provider_identities
            WHERE local_id = \(record.localId) AND provider_id = \(record.providerId) AND federated_id = \(record.federatedId)\(unescaped: lock))
        ON CONFLICT (local_id, provider_id) DO UPDATE SET federated_id = excluded.federated_id, key_id = excluded.key_id,
            sealed = excluded.sealed, access_expires_at = excluded.access_expires_at, updated_at = excluded.updated_at
        """
    }

    package static func providerTokens(localId: String, providerId: String) -> SQLStatement {
        "SELECT * FROM provider_tokens WHERE local_id = \(localId) AND provider_id = \(providerId)"
    }

    package static func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) -> SQLStatement {
        """
        UPDATE provider_tokens SET key_id = \(record.keyId), sealed = \(record.sealed),
            access_expires_at = \(record.accessTokenExpiresAt), updated_at = \(record.updatedAt)
        WHERE local_id = \(record.localId) AND provider_id = \(record.providerId) AND federated_id = \(record.federatedId)
            AND sealed = \(expectedSealed)
        """
    }

    package static func deleteProviderTokens(localId: String, providerId: String?) -> SQLStatement {
        guard let providerId else { return "DELETE FROM provider_tokens WHERE local_id = \(localId)" }
        return "DELETE FROM provider_tokens WHERE local_id = \(localId) AND provider_id = \(providerId)"
    }

    /// The vault tokens of `tenant`'s users from the provider (its configuration was deleted).
    package static func deleteProviderTokens(providerId: String, tenant: String) -> SQLStatement {
        """
        DELETE FROM provider_tokens WHERE provider_id = \(providerId)
            AND local_id IN (SELECT local_id FROM users WHERE tenant_id = \(tenant))
        """
    }

    package static func providerTokenRecords(after: ProviderTokenKey?, limit: Int) -> SQLStatement {
        let after: SQLStatement = after.map { "WHERE (local_id, provider_id) > (\($0.localId), \($0.providerId)) " } ?? ""
        return "SELECT * FROM provider_tokens \(after)ORDER BY local_id, provider_id LIMIT \(max(0, limit))"
    }

    /// After an update rewrote the identities: tokens whose identity is no longer linked go.
    package static func deleteUnlinkedProviderTokens(localId: String) -> SQLStatement {
        """
        DELETE FROM provider_tokens WHERE local_id = \(localId) AND NOT EXISTS (
            SELECT 1 FROM provider_identities i
            WHERE i.local_id = provider_tokens.local_id AND i.provider_id = provider_tokens.provider_id
                AND i.federated_id = provider_tokens.federated_id)
        """
    }

    // MARK: Rate limits and password attempts

    /// Counts a request in its window (one row per key and window).
    package static func countRateLimitedRequest(key: String, window: Int64, expiresAt: Date) -> SQLStatement {
        """
        INSERT INTO rate_limits (key, window_index, count, expires_at) VALUES (\(key), \(window), 1, \(expiresAt))
        ON CONFLICT (key, window_index) DO UPDATE SET count = rate_limits.count + 1
        """
    }

    package static func pruneRateLimits(now: Date) -> SQLStatement { "DELETE FROM rate_limits WHERE expires_at < \(now)" }

    /// Forgets `key`'s attempts older than the window, then records this one (`table`: the engine's attempt table).
    package static func recordThrottleAttempt(_ key: ThrottleKey, attemptId: String, at moment: Date, since: Date,
                                              table: String) -> [SQLStatement] {
        ["DELETE FROM \(unescaped: table) WHERE key = \(key.key) AND at < \(since)",
         "INSERT INTO \(unescaped: table) (key, at, attempt_id) VALUES (\(key.key), \(moment), \(attemptId))"]
    }

    package static func settleThrottleAttempt(attemptId: String, clearing key: String, table: String) -> SQLStatement {
        "DELETE FROM \(unescaped: table) WHERE attempt_id = \(attemptId) OR key = \(key)"
    }
}
