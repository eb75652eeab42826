import Foundation
import HearthCore
import HearthWire

/// A result row of either engine (GRDB's `Row`, postgres-nio's `PostgresRandomAccessRow`), read by column name.
/// The row-to-record mappings below are written once against it.
package protocol SQLRow {
    func string(_ column: String) throws -> String?
    func int(_ column: String) throws -> Int?
    func double(_ column: String) throws -> Double?
    /// False when NULL.
    func bool(_ column: String) throws -> Bool
}

extension SQLRow {
    package func date(_ column: String) throws -> Date? { try double(column).map { Date(timeIntervalSince1970: $0) } }

    /// A JSON object column; empty when NULL or not an object.
    package func jsonObject(_ column: String) throws -> [String: JSONValue] {
        guard let text = try string(column),
              case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return [:] }
        return object
    }

    /// A JSON column decoded as `type`; throws when it is NULL or does not decode.
    package func json<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
        try StoreJSON.decode(type, try string(column))
    }

    /// The `tenant_id` column as a model holds it: nil for the project's own rows ('').
    package func tenant() throws -> String? { try string("tenant_id").flatMap { $0.isEmpty ? nil : $0 } }

    fileprivate func time(_ column: String) throws -> Date { try date(column) ?? Date(timeIntervalSince1970: 0) }
    fileprivate func text(_ column: String) throws -> String { try string(column) ?? "" }
}

/// JSON stored in text columns: sorted keys, so equal values store equal text.
package enum StoreJSON {
    package static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    package static func decode<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw StoreError.backend("missing JSON column") }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}

// MARK: Row → record, once for both engines

extension UserRecord {
    /// A `users` row with the user's identities (read separately or aggregated, as each engine prefers).
    package init(row: some SQLRow, identities: [ProviderIdentity]) throws {
        self.init(
            localId: try row.text("local_id"), email: try row.string("email"), emailVerified: try row.bool("email_verified"),
            displayName: try row.string("display_name"), photoUrl: try row.string("photo_url"),
            passwordHash: try row.string("password_hash"), passwordUpdatedAt: try row.date("password_updated_at"),
            disabled: try row.bool("disabled"), createdAt: try row.time("created_at"),
            lastLoginAt: try row.date("last_login_at"), lastRefreshAt: try row.date("last_refresh_at"),
            validSince: try row.time("valid_since"), customClaims: try row.jsonObject("custom_claims"),
            customAuth: try row.bool("custom_auth"), identities: identities, version: try row.int("version") ?? 0,
            emailLinkSignIn: try row.bool("email_link_signin"))
        if let mfa = try row.string("mfa") { self.mfa = try StoreJSON.decode(UserMultiFactor.self, mfa) }
        tenantId = try row.tenant()
    }
}

extension ProviderIdentity {
    /// A `provider_identities` row.
    package init(row: some SQLRow) throws {
        self.init(providerId: try row.text("provider_id"), federatedId: try row.text("federated_id"), email: try row.string("email"),
                  displayName: try row.string("display_name"), photoUrl: try row.string("photo_url"))
    }
}

extension RefreshTokenRecord {
    /// A `refresh_tokens` row.
    package init(row: some SQLRow) throws {
        self.init(
            tokenHash: try row.text("token_hash"), familyId: try row.text("family_id"), localId: try row.text("local_id"),
            authTime: try row.time("auth_time"), signInProvider: try row.text("sign_in_provider"),
            createdAt: try row.time("created_at"), rotatedAt: try row.date("rotated_at"), revoked: try row.bool("revoked"),
            sessionClaims: try row.jsonObject("session_claims"))
        tenantId = try row.tenant()
    }
}

extension SigningKey {
    /// A `signing_keys` row.
    package init(row: some SQLRow) throws {
        self.init(generation: try row.int("generation") ?? 0, kid: try row.text("kid"), privateKeyPEM: try row.text("private_key_pem"),
                  certificatePEM: try row.text("certificate_pem"), createdAt: try row.time("created_at"),
                  activatesAt: try row.time("activates_at"))
    }
}

extension ServiceAccountKey {
    /// A `service_account_keys` row.
    package init(row: some SQLRow) throws {
        self.init(clientEmail: try row.text("client_email"), keyId: try row.text("key_id"), publicKeyPEM: try row.text("public_key_pem"),
                  createdAt: try row.time("created_at"))
    }
}

extension AuditEntry {
    /// An `audit_log` row.
    package init(row: some SQLRow) throws {
        self.init(id: Int64(try row.int("id") ?? 0), time: try row.time("time"), actor: try row.text("actor"),
                  action: try row.text("action"), target: try row.text("target"), detail: try row.string("detail"))
    }
}

extension ConsoleAdmin {
    /// A `console_admins` row.
    package init(row: some SQLRow) throws {
        self.init(name: try row.text("name"), passwordHash: try row.text("password_hash"), createdAt: try row.time("created_at"))
    }
}

extension ConsoleSession {
    /// A `console_sessions` row.
    package init(row: some SQLRow) throws {
        self.init(idHash: try row.text("id_hash"), adminName: try row.text("admin_name"), csrfToken: try row.text("csrf_token"),
                  createdAt: try row.time("created_at"), lastSeenAt: try row.time("last_seen_at"))
    }
}

extension DailyCount {
    /// A `daily_counts` row.
    package init(row: some SQLRow) throws {
        self.init(day: try row.text("day"), kind: try row.text("kind"), key: try row.text("key"), count: try row.int("count") ?? 0)
    }
}

extension ProviderTokenRecord {
    /// A `provider_tokens` row.
    package init(row: some SQLRow) throws {
        self.init(localId: try row.text("local_id"), providerId: try row.text("provider_id"), federatedId: try row.text("federated_id"),
                  keyId: try row.text("key_id"), sealed: try row.text("sealed"), accessTokenExpiresAt: try row.date("access_expires_at"),
                  updatedAt: try row.date("updated_at") ?? .distantPast)
    }
}

extension AuthorizationSession {
    /// An `authorization_sessions` row; nil when its redirect target is not one this version knows.
    package init?(row: some SQLRow) throws {
        guard let redirect = RedirectTarget(kind: try row.text("redirect_kind"), value: try row.text("redirect_value")) else { return nil }
        self.init(
            state: try row.text("state"), providerId: try row.text("provider_id"), nonce: try row.text("nonce"),
            codeVerifier: try row.string("code_verifier"), sessionIdHash: try row.text("session_id_hash"),
            eventId: try row.text("event_id"), authType: try row.text("auth_type"), entraTenantOrHostedDomain: try row.string("tenant"),
            redirect: redirect, redirectUri: try row.text("redirect_uri"),
            scopes: (try? row.json([String].self, "scopes")) ?? [],
            createdAt: try row.date("created_at") ?? .distantPast, expiresAt: try row.date("expires_at") ?? .distantPast,
            callbackAt: try row.date("callback_at"), consumedAt: try row.date("consumed_at"))
        tenantId = try row.tenant()
    }
}

extension PendingCredential {
    /// A `pending_credentials` row.
    package init(row: some SQLRow) throws {
        self.init(tokenHash: try row.text("token_hash"), identity: try row.json(ProviderIdentity.self, "identity_json"),
                  emailVerified: try row.bool("email_verified"), rawUserInfo: try row.string("raw_user_info"),
                  createdAt: try row.date("created_at") ?? .distantPast, expiresAt: try row.date("expires_at") ?? .distantPast)
        tenantId = try row.tenant()
    }
}

extension MultiFactorSessionRecord {
    /// An `mfa_sessions` row.
    package init(row: some SQLRow) throws {
        guard let kind = Kind(rawValue: try row.string("kind") ?? "") else { throw StoreError.backend("unknown kind in mfa_sessions") }
        self.init(idHash: try row.text("id_hash"), kind: kind, localId: try row.text("local_id"),
                  payload: try StoreJSON.decode(Payload.self, try row.string("payload")),
                  createdAt: try row.time("created_at"), expiresAt: try row.time("expires_at"))
    }
}

extension PasskeyCredential {
    /// A `passkeys` row.
    package init(row: some SQLRow) throws {
        self.init(credentialId: try row.text("credential_id"), localId: try row.text("local_id"), userHandle: try row.text("user_handle"),
                  publicKey: try row.text("public_key"), algorithm: try row.int("algorithm") ?? 0,
                  signCount: Int64(try row.int("sign_count") ?? 0), name: try row.string("name"),
                  transports: (try row.string("transports"))?.split(separator: ",").map(String.init) ?? [],
                  backupEligible: try row.bool("backup_eligible"), backedUp: try row.bool("backed_up"),
                  createdAt: try row.time("created_at"), lastUsedAt: try row.date("last_used_at"))
    }
}

extension PasskeyChallenge {
    /// A `passkey_challenges` row.
    package init(row: some SQLRow) throws {
        guard let kind = Kind(rawValue: try row.string("kind") ?? "") else { throw StoreError.backend("unknown kind in passkey_challenges") }
        self.init(challengeHash: try row.text("challenge_hash"), kind: kind, localId: try row.string("local_id"),
                  userHandle: try row.string("user_handle"), createdAt: try row.time("created_at"), expiresAt: try row.time("expires_at"))
    }
}

extension TenantRecord {
    /// A `tenants` row.
    package init(row: some SQLRow) throws {
        self.init(id: try row.text("tenant_id"), displayName: try row.text("display_name"),
                  settings: try row.json(TenantSettings.self, "config_json"), createdAt: try row.time("created_at"))
    }
}
