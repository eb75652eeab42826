/// The PostgreSQL schema, as ordered migrations; each runs once, inside the migration transaction that holds the
/// advisory lock, recorded in `schema_migrations`. The tables mirror the SQLite store's, column for column (dates
/// are DOUBLE PRECISION seconds since 1970, JSON is text), so `hearth migrate` copies rows unchanged. Sortable text
/// keys use the "C" collation: byte order, as SQLite sorts, whatever the database's locale — so `listUsers`
/// pages in the same order on both stores.
enum PostgresMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE users (
                local_id TEXT COLLATE "C" PRIMARY KEY,
                email TEXT COLLATE "C",
                email_verified BOOLEAN NOT NULL DEFAULT FALSE,
                display_name TEXT COLLATE "C",
                photo_url TEXT,
                password_hash TEXT,
                password_updated_at DOUBLE PRECISION,
                disabled BOOLEAN NOT NULL DEFAULT FALSE,
                created_at DOUBLE PRECISION NOT NULL,
                last_login_at DOUBLE PRECISION,
                last_refresh_at DOUBLE PRECISION,
                valid_since DOUBLE PRECISION NOT NULL,
                custom_claims TEXT,
                custom_auth BOOLEAN NOT NULL DEFAULT FALSE,
                version BIGINT NOT NULL DEFAULT 0
            )
            """,
            // One account per email (the project's users live in this database): the constraint decides a race.
            "CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL",
            "CREATE INDEX users_created_at ON users(created_at)",
            """
            CREATE TABLE provider_identities (
                provider_id TEXT COLLATE "C" NOT NULL,
                federated_id TEXT NOT NULL,
                local_id TEXT COLLATE "C" NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                email TEXT,
                display_name TEXT,
                photo_url TEXT,
                CONSTRAINT provider_identities_federated PRIMARY KEY (provider_id, federated_id),
                CONSTRAINT provider_identities_one_per_provider UNIQUE (local_id, provider_id)
            )
            """,
            """
            CREATE TABLE refresh_tokens (
                token_hash TEXT COLLATE "C" PRIMARY KEY,
                family_id TEXT NOT NULL,
                local_id TEXT COLLATE "C" NOT NULL,
                auth_time DOUBLE PRECISION NOT NULL,
                sign_in_provider TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                rotated_at DOUBLE PRECISION,
                revoked BOOLEAN NOT NULL DEFAULT FALSE,
                session_claims TEXT
            )
            """,
            "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
            "CREATE INDEX refresh_tokens_user ON refresh_tokens(local_id)",
            """
            CREATE TABLE signing_keys (
                generation BIGINT PRIMARY KEY,
                kid TEXT NOT NULL UNIQUE,
                private_key_pem TEXT NOT NULL,
                certificate_pem TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                activates_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE TABLE project_config (project_id TEXT PRIMARY KEY, config_json TEXT NOT NULL)",
            """
            CREATE TABLE service_account_keys (
                client_email TEXT COLLATE "C" NOT NULL,
                key_id TEXT COLLATE "C" NOT NULL,
                public_key_pem TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (client_email, key_id)
            )
            """,
            "CREATE TABLE idp_configs (provider_id TEXT COLLATE \"C\" PRIMARY KEY, config_json TEXT NOT NULL)",
            "CREATE TABLE apps (id TEXT COLLATE \"C\" PRIMARY KEY, app_json TEXT NOT NULL)",
            """
            CREATE TABLE authorization_sessions (
                state TEXT PRIMARY KEY,
                provider_id TEXT NOT NULL,
                nonce TEXT NOT NULL,
                code_verifier TEXT,
                session_id_hash TEXT NOT NULL,
                event_id TEXT NOT NULL,
                auth_type TEXT NOT NULL,
                tenant TEXT,
                redirect_kind TEXT NOT NULL,
                redirect_value TEXT NOT NULL,
                redirect_uri TEXT NOT NULL,
                scopes TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                callback_at DOUBLE PRECISION,
                consumed_at DOUBLE PRECISION
            )
            """,
            "CREATE INDEX authorization_sessions_expiry ON authorization_sessions(expires_at)",
            """
            CREATE TABLE pending_credentials (
                token_hash TEXT PRIMARY KEY,
                identity_json TEXT NOT NULL,
                email_verified BOOLEAN NOT NULL,
                raw_user_info TEXT,
                created_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX pending_credentials_expiry ON pending_credentials(expires_at)",
            """
            CREATE TABLE audit_log (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                time DOUBLE PRECISION NOT NULL,
                actor TEXT NOT NULL,
                action TEXT NOT NULL,
                target TEXT NOT NULL,
                detail TEXT
            )
            """,
        ]),
        (2, [
            // Failed password sign-ins, shared by the replicas (`account:<email>`, `address:<client>`).
            "CREATE TABLE throttle_failures (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX throttle_failures_key ON throttle_failures(key, at)",
            "CREATE INDEX throttle_failures_at ON throttle_failures(at)",
        ]),
        (3, [
            // The web console (administrators, one-time login links, sessions) and the overview's daily counts.
            "CREATE TABLE console_admins (name TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)",
            """
            CREATE TABLE console_sessions (
                id_hash TEXT PRIMARY KEY,
                admin_name TEXT NOT NULL,
                csrf_token TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                last_seen_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE TABLE console_login_links (token_hash TEXT PRIMARY KEY, admin_name TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
            """
            CREATE TABLE daily_counts (
                day TEXT NOT NULL,
                kind TEXT NOT NULL,
                key TEXT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (day, kind, key)
            )
            """,
        ]),
        (4, PostgresStore.rateLimitMigrationStatements),
        (5, [
            // The provider token vault: sealed upstream tokens, one row per user and provider (see the SQLite store).
            """
            CREATE TABLE provider_tokens (
                local_id TEXT COLLATE "C" NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                provider_id TEXT COLLATE "C" NOT NULL,
                federated_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                sealed TEXT NOT NULL,
                access_expires_at DOUBLE PRECISION,
                updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (local_id, provider_id)
            )
            """,
            "CREATE INDEX provider_tokens_provider ON provider_tokens(provider_id)",
        ]),
        (6, [
            // Password attempts are reserved before the check and taken back on success (by attempt id).
            "ALTER TABLE throttle_failures ADD COLUMN attempt_id TEXT",
            "CREATE INDEX throttle_failures_attempt ON throttle_failures(attempt_id)",
            // Provider ID tokens already used to sign in (native ID-token replay), until they expire.
            "CREATE TABLE used_id_tokens (key_hash TEXT COLLATE \"C\" PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX used_id_tokens_expiry ON used_id_tokens(expires_at)",
        ]),
    ]
}
