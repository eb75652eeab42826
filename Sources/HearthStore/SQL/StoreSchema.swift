/// The tables both stores keep, written once per table and rendered for each engine (``SQLDialect``): dates are
/// seconds since 1970, JSON is text, so `hearth migrate` copies rows unchanged. Each engine's migration list
/// groups them under its own version numbers (the numbers databases already carry).
package struct StoreSchema: Sendable {
    let d: SQLDialect

    package init(_ dialect: SQLDialect) { d = dialect }

    package var users: String {
        """
        CREATE TABLE users (
            local_id TEXT\(d.bytewise) \(d.key),
            email TEXT\(d.bytewise),
            email_verified \(d.boolean),
            display_name TEXT\(d.bytewise),
            photo_url TEXT,
            password_hash TEXT,
            password_updated_at \(d.time),
            disabled \(d.boolean),
            created_at \(d.time) NOT NULL,
            last_login_at \(d.time),
            last_refresh_at \(d.time),
            valid_since \(d.time) NOT NULL,
            custom_claims TEXT,
            custom_auth \(d.boolean),
            version \(d.integer) NOT NULL DEFAULT 0
        )
        """
    }

    /// One account per email (the project's users live in this database): the constraint decides a race.
    package let usersEmail = "CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL"
    package let usersCreatedAt = "CREATE INDEX users_created_at ON users(created_at)"

    package var providerIdentities: String {
        let (federated, onePerProvider) = d == .sqlite ? ("", "") : ("CONSTRAINT provider_identities_federated ", "CONSTRAINT provider_identities_one_per_provider ")
        return """
            CREATE TABLE provider_identities (
                provider_id TEXT\(d.bytewise) NOT NULL,
                federated_id TEXT NOT NULL,
                local_id TEXT\(d.bytewise) NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                email TEXT,
                display_name TEXT,
                photo_url TEXT,
                \(federated)PRIMARY KEY (provider_id, federated_id),
                \(onePerProvider)UNIQUE (local_id, provider_id)
            )
            """
    }

    package var refreshTokens: [String] {
        [
            """
            CREATE TABLE refresh_tokens (
                token_hash TEXT\(d.bytewise) \(d.key),
                family_id TEXT NOT NULL,
                local_id TEXT\(d.bytewise) NOT NULL,
                auth_time \(d.time) NOT NULL,
                sign_in_provider TEXT NOT NULL,
                created_at \(d.time) NOT NULL,
                rotated_at \(d.time),
                revoked \(d.boolean),
                session_claims TEXT
            )
            """,
            "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
            "CREATE INDEX refresh_tokens_user ON refresh_tokens(local_id)",
        ]
    }

    package var signingKeys: String {
        """
        CREATE TABLE signing_keys (
            generation \(d.integer) \(d.key),
            kid TEXT NOT NULL UNIQUE,
            private_key_pem TEXT NOT NULL,
            certificate_pem TEXT NOT NULL,
            created_at \(d.time) NOT NULL,
            activates_at \(d.time) NOT NULL
        )
        """
    }

    package var projectConfig: String { "CREATE TABLE project_config (project_id TEXT \(d.key), config_json TEXT NOT NULL)" }

    package var serviceAccountKeys: String {
        """
        CREATE TABLE service_account_keys (
            client_email TEXT\(d.bytewise) NOT NULL,
            key_id TEXT\(d.bytewise) NOT NULL,
            public_key_pem TEXT NOT NULL,
            created_at \(d.time) NOT NULL,
            PRIMARY KEY (client_email, key_id)
        )
        """
    }

    package var idpConfigs: String { "CREATE TABLE idp_configs (provider_id TEXT\(d.bytewise) \(d.key), config_json TEXT NOT NULL)" }
    package var apps: String { "CREATE TABLE apps (id TEXT\(d.bytewise) \(d.key), app_json TEXT NOT NULL)" }

    package var authorizationSessions: [String] {
        [
            """
            CREATE TABLE authorization_sessions (
                state TEXT \(d.key),
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
                created_at \(d.time) NOT NULL,
                expires_at \(d.time) NOT NULL,
                callback_at \(d.time),
                consumed_at \(d.time)
            )
            """,
            "CREATE INDEX authorization_sessions_expiry ON authorization_sessions(expires_at)",
        ]
    }

    package var pendingCredentials: String {
        """
        CREATE TABLE pending_credentials (
            token_hash TEXT \(d.key),
            identity_json TEXT NOT NULL,
            email_verified \(d == .sqlite ? "INTEGER" : "BOOLEAN") NOT NULL,
            raw_user_info TEXT,
            created_at \(d.time) NOT NULL,
            expires_at \(d.time) NOT NULL
        )
        """
    }

    package var auditLog: String {
        """
        CREATE TABLE audit_log (
            id \(d == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
            time \(d.time) NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            detail TEXT
        )
        """
    }

    /// The web console (administrators, one-time login links, sessions) and the overview's daily counts.
    package var console: [String] {
        [
            "CREATE TABLE console_admins (name TEXT \(d.key), password_hash TEXT NOT NULL, created_at \(d.time) NOT NULL)",
            """
            CREATE TABLE console_sessions (
                id_hash TEXT \(d.key),
                admin_name TEXT NOT NULL,
                csrf_token TEXT NOT NULL,
                created_at \(d.time) NOT NULL,
                last_seen_at \(d.time) NOT NULL
            )
            """,
            "CREATE TABLE console_login_links (token_hash TEXT \(d.key), admin_name TEXT NOT NULL, expires_at \(d.time) NOT NULL)",
            """
            CREATE TABLE daily_counts (
                day TEXT NOT NULL,
                kind TEXT NOT NULL,
                key TEXT NOT NULL,
                count \(d.integer) NOT NULL,
                PRIMARY KEY (day, kind, key)
            )
            """,
        ]
    }

    /// Rate-limit counters: one row per key and fixed window.
    package var rateLimits: [String] {
        [
            """
            CREATE TABLE rate_limits (
                key TEXT NOT NULL,
                window_index \(d.integer) NOT NULL,
                count \(d.integer) NOT NULL,
                expires_at \(d.time) NOT NULL,
                PRIMARY KEY (key, window_index)
            )
            """,
            "CREATE INDEX rate_limits_expiry ON rate_limits(expires_at)",
        ]
    }

    /// The provider token vault: sealed upstream tokens, one row per user and provider.
    package var providerTokens: [String] {
        [
            """
            CREATE TABLE provider_tokens (
                local_id TEXT\(d.bytewise) NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                provider_id TEXT\(d.bytewise) NOT NULL,
                federated_id TEXT NOT NULL,
                key_id TEXT NOT NULL,
                sealed TEXT NOT NULL,
                access_expires_at \(d.time),
                updated_at \(d.time) NOT NULL,
                PRIMARY KEY (local_id, provider_id)
            )
            """,
            "CREATE INDEX provider_tokens_provider ON provider_tokens(provider_id)",
        ]
    }

    /// Provider ID tokens already used to sign in (native ID-token replay), until they expire.
    package var usedIDTokens: [String] {
        [
            "CREATE TABLE used_id_tokens (key_hash TEXT\(d.bytewise) \(d.key), expires_at \(d.time) NOT NULL)",
            "CREATE INDEX used_id_tokens_expiry ON used_id_tokens(expires_at)",
        ]
    }
}

extension StoreSchema {
    /// Email action codes (hashed) and the mail outbox; the users' email-link flag.
    package var emailActions: [String] {
        [
            "ALTER TABLE users ADD COLUMN email_link_signin \(d.boolean)",
            """
            CREATE TABLE oob_codes (
                code_hash TEXT\(d.bytewise) \(d.key),
                request_type TEXT NOT NULL,
                local_id TEXT\(d.bytewise),
                email TEXT NOT NULL,
                new_email TEXT,
                continue_url TEXT,
                created_at \(d.time) NOT NULL,
                expires_at \(d.time) NOT NULL,
                used_at \(d.time)
            )
            """,
            "CREATE INDEX oob_codes_user ON oob_codes(local_id)",
            "CREATE INDEX oob_codes_expiry ON oob_codes(expires_at)",
            """
            CREATE TABLE mail_outbox (
                id TEXT\(d.bytewise) \(d.key),
                recipient TEXT NOT NULL,
                message_json TEXT NOT NULL,
                created_at \(d.time) NOT NULL,
                next_attempt_at \(d.time) NOT NULL,
                lease_until \(d.time),
                attempts \(d.integer) NOT NULL,
                expires_at \(d.time) NOT NULL,
                last_error TEXT
            )
            """,
            "CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at)",
        ]
    }
}

extension StoreSchema {
    /// Second factors (a JSON column of the user, changed with its version check) and the enrollments and
    /// sign-ins waiting for a code.
    package var multiFactor: [String] {
        [
            "ALTER TABLE users ADD COLUMN mfa TEXT",
            """
            CREATE TABLE mfa_sessions (
                id_hash TEXT\(d.bytewise) \(d.key),
                kind TEXT NOT NULL,
                local_id TEXT\(d.bytewise) NOT NULL,
                payload TEXT NOT NULL,
                created_at \(d.time) NOT NULL,
                expires_at \(d.time) NOT NULL
            )
            """,
            "CREATE INDEX mfa_sessions_expiry ON mfa_sessions(expires_at)",
        ]
    }
}

extension StoreSchema {
    /// Passkeys (WebAuthn credentials; deleted with their user) and the challenges of ceremonies in progress.
    package var passkeys: [String] {
        [
            """
            CREATE TABLE passkeys (
                credential_id TEXT\(d.bytewise) \(d.key),
                local_id TEXT\(d.bytewise) NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                user_handle TEXT NOT NULL,
                public_key TEXT NOT NULL,
                algorithm \(d.integer) NOT NULL,
                sign_count \(d.integer) NOT NULL,
                name TEXT,
                transports TEXT,
                backup_eligible \(d.boolean),
                backed_up \(d.boolean),
                created_at \(d.time) NOT NULL,
                last_used_at \(d.time)
            )
            """,
            "CREATE INDEX passkeys_user ON passkeys(local_id)",
            """
            CREATE TABLE passkey_challenges (
                challenge_hash TEXT\(d.bytewise) \(d.key),
                kind TEXT NOT NULL,
                local_id TEXT\(d.bytewise),
                user_handle TEXT,
                created_at \(d.time) NOT NULL,
                expires_at \(d.time) NOT NULL
            )
            """,
            "CREATE INDEX passkey_challenges_expiry ON passkey_challenges(expires_at)",
        ]
    }
}


extension StoreSchema {
    /// Identity Platform tenants: the `tenants` table, and `tenant_id` ('' for the project's own users) on every row
    /// a tenant owns that is found by something other than a user's key — users, federated identities, provider
    /// configurations, action codes, refresh tokens, provider sign-in flows, pending credentials, audit entries. An
    /// email is unique per tenant, a federated account is one user per tenant, a provider is configured per tenant.
    /// Rows found through a user's key (factors, passkeys, vault tokens, second-factor sessions) follow their user.
    package var tenants: [String] {
        let column = "tenant_id TEXT\(d.bytewise) NOT NULL DEFAULT ''"
        var statements = [
            """
            CREATE TABLE tenants (
                tenant_id TEXT\(d.bytewise) \(d.key),
                display_name TEXT NOT NULL,
                config_json TEXT NOT NULL,
                created_at \(d.time) NOT NULL
            )
            """,
            "ALTER TABLE users ADD COLUMN \(column)",
            "DROP INDEX users_email",
            "CREATE UNIQUE INDEX users_email ON users(tenant_id, email) WHERE email IS NOT NULL",
            "CREATE INDEX users_tenant ON users(tenant_id, local_id)",
        ]
        statements += ["oob_codes", "refresh_tokens", "authorization_sessions", "pending_credentials", "audit_log"].map {
            "ALTER TABLE \($0) ADD COLUMN \(column)"
        }
        statements.append("CREATE INDEX oob_codes_tenant ON oob_codes(tenant_id)")
        if d == .sqlite {
            // SQLite changes a primary key by rebuilding the table.
            statements += [
                """
                CREATE TABLE provider_identities_by_tenant (
                    \(column),
                    provider_id TEXT NOT NULL,
                    federated_id TEXT NOT NULL,
                    local_id TEXT NOT NULL REFERENCES users(local_id) ON DELETE CASCADE,
                    email TEXT,
                    display_name TEXT,
                    photo_url TEXT,
                    PRIMARY KEY (tenant_id, provider_id, federated_id),
                    UNIQUE (local_id, provider_id)
                )
                """,
                """
                INSERT INTO provider_identities_by_tenant (provider_id, federated_id, local_id, email, display_name, photo_url)
                SELECT provider_id, federated_id, local_id, email, display_name, photo_url FROM provider_identities
                """,
                "DROP TABLE provider_identities",
                "ALTER TABLE provider_identities_by_tenant RENAME TO provider_identities",
                "CREATE TABLE idp_configs_by_tenant (\(column), provider_id TEXT NOT NULL, config_json TEXT NOT NULL, PRIMARY KEY (tenant_id, provider_id))",
                "INSERT INTO idp_configs_by_tenant (provider_id, config_json) SELECT provider_id, config_json FROM idp_configs",
                "DROP TABLE idp_configs",
                "ALTER TABLE idp_configs_by_tenant RENAME TO idp_configs",
            ]
        } else {
            statements += [
                "ALTER TABLE provider_identities ADD COLUMN \(column)",
                "ALTER TABLE provider_identities DROP CONSTRAINT provider_identities_federated",
                "ALTER TABLE provider_identities ADD CONSTRAINT provider_identities_federated PRIMARY KEY (tenant_id, provider_id, federated_id)",
                "ALTER TABLE idp_configs ADD COLUMN \(column)",
                "ALTER TABLE idp_configs DROP CONSTRAINT idp_configs_pkey",
                "ALTER TABLE idp_configs ADD CONSTRAINT idp_configs_pkey PRIMARY KEY (tenant_id, provider_id)",
            ]
        }
        return statements
    }
}

extension StoreSchema {
    /// Issue 41 (a million users): indexes for what is read or cleaned up at scale.
    /// - `refresh_tokens_rotated`, `refresh_tokens_revoked`: the hourly refresh-token clean-up finds its rows by range,
    ///   not by scanning the table (``StoreSQL/pruneRefreshTokenChunk(rotated:before:limit:)``).
    /// - `users_created_at` becomes `(tenant_id, created_at, local_id)`: the console's newest-first list and the
    ///   overview's recent users read one range of one tenant, paged by key.
    /// - `users_mfa`: only users holding second factors (the sealed-secret census at start-up reads them, not every user).
    /// - The other hourly clean-ups' expiry columns that had no index on this engine.
    package var scale: [String] {
        var statements = [
            "CREATE INDEX refresh_tokens_rotated ON refresh_tokens(rotated_at) WHERE rotated_at IS NOT NULL",
            "CREATE INDEX refresh_tokens_revoked ON refresh_tokens(created_at) WHERE revoked = TRUE",
            "DROP INDEX users_created_at",
            "CREATE INDEX users_created_at ON users(tenant_id, created_at, local_id)",
            "CREATE INDEX users_mfa ON users(local_id) WHERE mfa IS NOT NULL",
        ]
        if d == .sqlite {
            statements += [
                "CREATE INDEX pending_credentials_expiry ON pending_credentials(expires_at)",
                "CREATE INDEX throttle_attempts_at ON throttle_attempts(at)",
            ]
        }
        return statements
    }
}
