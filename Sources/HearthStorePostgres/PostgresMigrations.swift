import HearthStore

/// The PostgreSQL schema, as ordered migrations; each runs once, inside the migration transaction that holds the
/// advisory lock, recorded in `schema_migrations`. The tables are written once for both stores (``StoreSchema``):
/// dates are DOUBLE PRECISION seconds since 1970, JSON is text, so `hearth migrate` copies rows unchanged. Sortable
/// text keys use the "C" collation: byte order, as SQLite sorts, whatever the database's locale — so `listUsers`
/// pages in the same order on both stores. The versions are this engine's own.
enum PostgresMigrations {
    static let all: [(version: Int, statements: [String])] = {
        let schema = StoreSchema(.postgres)
        return [
            (1, [schema.users, schema.usersEmail, schema.usersCreatedAt, schema.providerIdentities] + schema.refreshTokens
                + [schema.signingKeys, schema.projectConfig, schema.serviceAccountKeys, schema.idpConfigs, schema.apps]
                + schema.authorizationSessions
                + [schema.pendingCredentials, "CREATE INDEX pending_credentials_expiry ON pending_credentials(expires_at)", schema.auditLog]),
            (2, [
                // Failed password sign-ins, shared by the replicas (`account:<email>`, `address:<client>`).
                "CREATE TABLE throttle_failures (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
                "CREATE INDEX throttle_failures_key ON throttle_failures(key, at)",
                "CREATE INDEX throttle_failures_at ON throttle_failures(at)",
            ]),
            (3, schema.console),
            (4, schema.rateLimits),
            (5, schema.providerTokens),
            (6, [
                // Password attempts are reserved before the check and taken back on success (by attempt id).
                "ALTER TABLE throttle_failures ADD COLUMN attempt_id TEXT",
                "CREATE INDEX throttle_failures_attempt ON throttle_failures(attempt_id)",
            ] + schema.usedIDTokens),
            (7, schema.emailActions),
            (8, schema.multiFactor),
            (9, schema.passkeys),
            (10, schema.tenants),
            (11, schema.phone),
            // Issue 41: the indexes reading and cleaning up at a million users need.
            (12, schema.scale),
        ]
    }()
}
