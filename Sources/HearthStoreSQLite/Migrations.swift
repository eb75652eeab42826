import HearthStore

/// The schema, as an ordered list of migrations; each runs once, in a transaction, recorded in `schema_migrations`.
/// The tables are written once for both stores (``StoreSchema``); the versions are this engine's own.
enum Migrations {
    static let all: [(version: Int, statements: [String])] = {
        let schema = StoreSchema(.sqlite)
        return [
            (1, [schema.users, schema.usersEmail, schema.providerIdentities] + schema.refreshTokens
                + [schema.signingKeys, schema.projectConfig, schema.serviceAccountKeys]),
            (2, [schema.idpConfigs, schema.apps] + schema.authorizationSessions + [schema.pendingCredentials]),
            (3, [schema.auditLog, schema.usersCreatedAt]),
            (4, schema.console),
            (5, schema.rateLimits),
            (6, schema.providerTokens),
            // Password attempts, reserved before the check (see `SignInThrottleStore`).
            (7, schema.usedIDTokens + [
                "CREATE TABLE throttle_attempts (key TEXT NOT NULL, at REAL NOT NULL, attempt_id TEXT NOT NULL)",
                "CREATE INDEX throttle_attempts_key ON throttle_attempts(key, at)",
                "CREATE INDEX throttle_attempts_attempt ON throttle_attempts(attempt_id)",
            ]),
            (8, schema.emailActions),
            (9, schema.multiFactor),
            (10, schema.passkeys),
            (11, schema.tenants),
            (12, schema.phone),
            // Issue 41: the indexes reading and cleaning up at a million users need.
            (13, schema.scale),
        ]
    }()
}
