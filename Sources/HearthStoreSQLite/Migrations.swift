/// The schema, as an ordered list of migrations; each runs once, in a transaction, recorded in `schema_migrations`.
enum Migrations {
    static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE users (
                local_id TEXT PRIMARY KEY NOT NULL,
                email TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                display_name TEXT,
                photo_url TEXT,
                password_hash TEXT,
                password_updated_at REAL,
                disabled INTEGER NOT NULL DEFAULT 0,
                created_at REAL NOT NULL,
                last_login_at REAL,
                last_refresh_at REAL,
                valid_since REAL NOT NULL,
                custom_claims TEXT,
                custom_auth INTEGER NOT NULL DEFAULT 0,
                version INTEGER NOT NULL DEFAULT 0
            )
            """,
            "CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL",
            """
            CREATE TABLE provider_identities (
                provider_id TEXT NOT NULL,
                federated_id TEXT NOT NULL,
                local_id TEXT NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                email TEXT,
                display_name TEXT,
                photo_url TEXT,
                PRIMARY KEY (provider_id, federated_id),
                UNIQUE (local_id, provider_id)
            )
            """,
            """
            CREATE TABLE refresh_tokens (
                token_hash TEXT PRIMARY KEY NOT NULL,
                family_id TEXT NOT NULL,
                local_id TEXT NOT NULL,
                auth_time REAL NOT NULL,
                sign_in_provider TEXT NOT NULL,
                created_at REAL NOT NULL,
                rotated_at REAL,
                revoked INTEGER NOT NULL DEFAULT 0,
                session_claims TEXT
            )
            """,
            "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
            "CREATE INDEX refresh_tokens_user ON refresh_tokens(local_id)",
            """
            CREATE TABLE signing_keys (
                generation INTEGER PRIMARY KEY NOT NULL,
                kid TEXT NOT NULL UNIQUE,
                private_key_pem TEXT NOT NULL,
                certificate_pem TEXT NOT NULL,
                created_at REAL NOT NULL,
                activates_at REAL NOT NULL
            )
            """,
            "CREATE TABLE project_config (project_id TEXT PRIMARY KEY NOT NULL, config_json TEXT NOT NULL)",
            """
            CREATE TABLE service_account_keys (
                client_email TEXT NOT NULL,
                key_id TEXT NOT NULL,
                public_key_pem TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (client_email, key_id)
            )
            """,
        ]),
        (2, [
            "CREATE TABLE idp_configs (provider_id TEXT PRIMARY KEY NOT NULL, config_json TEXT NOT NULL)",
            "CREATE TABLE apps (id TEXT PRIMARY KEY NOT NULL, app_json TEXT NOT NULL)",
            """
            CREATE TABLE authorization_sessions (
                state TEXT PRIMARY KEY NOT NULL,
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
                created_at REAL NOT NULL,
                expires_at REAL NOT NULL,
                callback_at REAL,
                consumed_at REAL
            )
            """,
            "CREATE INDEX authorization_sessions_expiry ON authorization_sessions(expires_at)",
            """
            CREATE TABLE pending_credentials (
                token_hash TEXT PRIMARY KEY NOT NULL,
                identity_json TEXT NOT NULL,
                email_verified INTEGER NOT NULL,
                raw_user_info TEXT,
                created_at REAL NOT NULL,
                expires_at REAL NOT NULL
            )
            """,
        ]),
        (3, SQLiteStore.adminMigrationStatements),
        (4, SQLiteStore.consoleMigrationStatements),
        (5, SQLiteStore.rateLimitMigrationStatements),
        (6, SQLiteStore.providerTokenMigrationStatements),
        (7, SQLiteStore.throttleMigrationStatements),
    ]
}
