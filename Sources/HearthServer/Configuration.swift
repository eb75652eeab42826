import Foundation
import HearthCore
import HearthOIDC
import Metrics

/// Everything `buildApplication` needs, passed explicitly (nothing here reads the environment).
public struct HearthServerConfiguration: Sendable {
    /// The Firebase project id Hearth serves (`aud` of ID tokens).
    public var projectId: String
    /// Accepted API keys. Empty: any key (or none) is accepted when the project id starts with `demo-`, as the
    /// Firebase emulator does; for other projects every key is refused.
    public var apiKeys: Set<String>
    public var host: String
    public var port: Int
    /// ID-token lifetime (Firebase: one hour).
    public var idTokenLifetime: TimeInterval
    /// How a presented-again refresh token is treated as a concurrent refresh rather than theft.
    public var refreshGraceWindow: TimeInterval
    /// Sign-ins older than this must sign in again for sensitive changes (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`).
    public var recentLoginWindow: TimeInterval
    public var keyRotation: KeyRotationPolicy
    public var throttle: ThrottleConfiguration
    /// Request limits for sign-up, password sign-in, createAuthUri and the auth handler, per client address and
    /// per project (default: on, off for `demo-*` projects).
    public var rateLimits: RateLimitConfiguration
    /// Reverse proxies whose `X-Forwarded-For` gives the client address (default: none, the header is ignored).
    public var trustedProxies: TrustedProxies = .none
    /// Seconds a request may spend waiting for the store (all its store operations together) before it answers
    /// `503 UNAVAILABLE` (``StoreDeadline``); the default 5 keeps every answer well under a proxy's 60 s. The CLI's
    /// `store.timeout` setting.
    public var storeTimeout: TimeInterval = Self.defaultStoreTimeout
    /// ``storeTimeout``'s default, also the `store.timeout` setting's.
    public static let defaultStoreTimeout: TimeInterval = 5
    /// Which RSA implementation signs tokens (default: OpenSSL 3 when it loads, else swift-crypto).
    public var rsaSigner: RSASignerPreference = .auto
    public var passwordParameters: PasswordHasher.Parameters
    /// Largest accepted request body.
    public var maxBodySize: Int
    /// Initial project settings, used when the store has none yet.
    public var initialProjectConfig: ProjectConfig?
    /// The clock; tests move it.
    public var clock: WallClock
    /// This server's external base URL: the auth handler's `redirect_uri` is `<publicURL>/__/auth/handler`.
    public var publicURL: PublicBaseURL
    /// How long a sign-in may take between the auth handler and `signInWithIdp`.
    public var authorizationSessionLifetime: TimeInterval
    /// How long a `needConfirmation` pending credential can be linked.
    public var pendingCredentialLifetime: TimeInterval
    public var relyingParty: RelyingParty.Configuration
    /// `--emulator-admin` (the CLI's `emulator.admin` setting): accept the Admin SDKs' emulator credentials (`Authorization: Bearer owner`, unsigned
    /// custom tokens) for a project whose id does not start with `demo-`. Anyone who reaches the port is then an
    /// administrator.
    public var emulatorAdminFlag = false
    /// Accept the emulator credentials from non-loopback clients too (`--emulator-admin-allow-remote`, the CLI's
    /// `emulator.admin.allow.remote` setting).
    public var emulatorAdminAllowRemote = false
    /// Lifetime of the admin API's OAuth 2 access tokens (as Google's: one hour).
    public var adminAccessTokenLifetime: TimeInterval = 3600
    /// How long a web-console session may stay idle before it must sign in again (the CLI's `console.idle.timeout`).
    public var consoleIdleTimeout: TimeInterval = Self.defaultConsoleIdleTimeout
    /// ``consoleIdleTimeout``'s default, also the `console.idle.timeout` setting's: 30 minutes.
    public static let defaultConsoleIdleTimeout: TimeInterval = 30 * 60
    /// How long a console login link (`hearth console login-link`, the start-up link) stays usable.
    public var consoleLoginLinkLifetime: TimeInterval = 15 * 60
    /// The provider token vault's keys (`vault.keys` / `vault.keys.file`); nil: the vault is off and no provider
    /// refresh token is kept.
    public var providerTokenKeys: ProviderTokenKeys?
    /// Keys sealing TOTP secrets when there are no vault keys: the embedded store's own key file
    /// (`<data-dir>/totp-secrets.key`, made on first start). Secrets sealed with them still open once vault keys
    /// are added (new ones are then sealed with the vault keys).
    public var localSecretKeys: ProviderTokenKeys?
    /// The keys TOTP secrets are sealed with: the vault keys, else the local key file; nil: stored unsealed.
    public var secondFactorSealingKeys: ProviderTokenKeys? { providerTokenKeys ?? localSecretKeys }
    /// This server's metrics (`GET /metrics`); each configuration gets its own registry.
    public var metrics = HearthMetrics()
    /// Who may read `GET /metrics` (default: programs on this machine).
    public var metricsAccess: MetricsAccess = .local
    /// The bearer token `GET /metrics` wants when ``metricsAccess`` is `.token`.
    public var metricsToken: String?
    /// Email: the SMTP relay, the sender, the dev mailbox, the action codes' lifetimes.
    public var mail: MailConfiguration
    /// Text messages (issue 40): the gateway (`sms.url`), the dev sink, delivery attempts.
    public var sms: SmsConfiguration
    /// Blocking functions: which addresses a function URL may have (`hooks.allow.private.networks`, `--dev`) and
    /// the calls' deadline (issue 39).
    public var blockingFunctions = BlockingFunctionSettings()

    public init(projectId: String = "demo-hearth", apiKeys: Set<String> = [], host: String = "127.0.0.1", port: Int = 9099,
                idTokenLifetime: TimeInterval = 3600, refreshGraceWindow: TimeInterval = 30, recentLoginWindow: TimeInterval = 300,
                keyRotation: KeyRotationPolicy = KeyRotationPolicy(), throttle: ThrottleConfiguration = ThrottleConfiguration(),
                passwordParameters: PasswordHasher.Parameters = .default, maxBodySize: Int = 256 * 1024,
                initialProjectConfig: ProjectConfig? = nil, clock: WallClock = .system, publicURL: PublicBaseURL? = nil,
                authorizationSessionLifetime: TimeInterval = 600, pendingCredentialLifetime: TimeInterval = 3600,
                relyingParty: RelyingParty.Configuration = RelyingParty.Configuration()) {
        self.projectId = projectId
        self.apiKeys = apiKeys
        self.host = host
        self.port = port
        self.idTokenLifetime = idTokenLifetime
        self.refreshGraceWindow = refreshGraceWindow
        self.recentLoginWindow = recentLoginWindow
        self.keyRotation = keyRotation
        self.throttle = throttle
        self.rateLimits = RateLimitConfiguration.defaults(projectId: projectId)
        self.passwordParameters = passwordParameters
        self.maxBodySize = maxBodySize
        self.initialProjectConfig = initialProjectConfig
        self.clock = clock
        self.publicURL = publicURL ?? PublicBaseURL("http://\(host.contains(":") ? "[\(host)]" : host):\(port)", derived: true)
        self.authorizationSessionLifetime = min(authorizationSessionLifetime, 600)
        self.pendingCredentialLifetime = pendingCredentialLifetime
        self.relyingParty = relyingParty
        self.mail = MailConfiguration(devMailbox: projectId.hasPrefix("demo-"))
        self.sms = SmsConfiguration(devSink: projectId.hasPrefix("demo-"))
    }

    /// Whether the emulator credentials are accepted at all: `demo-*` projects, or `--emulator-admin`.
    /// (`--dev` alone does not enable it.) Non-loopback clients are refused unless ``emulatorAdminAllowRemote``.
    public var emulatorAdminEnabled: Bool { projectId.hasPrefix("demo-") || emulatorAdminFlag }

    /// Whether any API key is accepted (no keys configured and a `demo-*` project).
    public var acceptsAnyAPIKey: Bool { apiKeys.isEmpty && projectId.hasPrefix("demo-") }
}

/// Limits on failed password sign-ins, per account and per client address.
public struct ThrottleConfiguration: Sendable {
    /// Failures per account within `window` before `TOO_MANY_ATTEMPTS_TRY_LATER`.
    public var maxFailuresPerAccount: Int
    /// Failures per client address within `window`.
    public var maxFailuresPerAddress: Int
    public var window: TimeInterval

    public init(maxFailuresPerAccount: Int = 10, maxFailuresPerAddress: Int = 50, window: TimeInterval = 900) {
        self.maxFailuresPerAccount = maxFailuresPerAccount
        self.maxFailuresPerAddress = maxFailuresPerAddress
        self.window = window
    }
}
