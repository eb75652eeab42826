import Foundation

/// The unauthenticated endpoints that cost the server work and are rate-limited.
public enum RateLimitedEndpoint: String, CaseIterable, Sendable {
    /// `accounts:signUp` (v3 `signupNewUser`): a password hash and a new user.
    case signUp
    /// `accounts:signInWithPassword` (v3 `verifyPassword`): a password hash check.
    case signInWithPassword
    /// `accounts:createAuthUri` (v3 too): a provider lookup, for a provider id an authorization session.
    case createAuthUri
    /// The auth handler (`/__/auth/handler`, `/emulator/auth/handler`): a sign-in session, and on the provider's
    /// callback a code exchange with the provider.
    case authHandler
    /// `accounts:sendOobCode` (v3 `getOobConfirmationCode`): an email sent.
    case sendOobCode
    /// `v2/accounts/passkeySignIn:start`: a stored challenge (and its finalize: a signature check).
    case passkeySignIn
    /// `accounts:sendVerificationCode` (v3 too): an SMS sent (issue 40). Besides this request limit, each send counts
    /// against the project's SMS limits per number and per address and its daily budget (the project's `sms` settings).
    case sendVerificationCode
}

/// How many requests one client address, and the whole project, may make to each limited endpoint.
public struct RateLimitConfiguration: Sendable, Equatable {
    /// A limit: at most `limit` requests in any sliding `window` seconds.
    public struct Limit: Sendable, Equatable {
        public var limit: Int
        public var window: TimeInterval

        public init(_ limit: Int, per window: TimeInterval) {
            self.limit = limit
            self.window = window
        }
    }

    public struct Rule: Sendable, Equatable {
        public var perAddress: Limit
        public var perProject: Limit

        public init(perAddress: Limit, perProject: Limit) {
            self.perAddress = perAddress
            self.perProject = perProject
        }
    }

    /// Off: nothing is counted.
    public var enabled: Bool
    public var rules: [RateLimitedEndpoint: Rule]
    /// Emails to one address (whoever asks), so Hearth cannot be used to flood someone's mailbox.
    public var emailsPerRecipient: Limit

    /// Emails to one recipient per hour (Firebase answers `RESET_PASSWORD_EXCEED_LIMIT` beyond a few an hour).
    public static let defaultEmailsPerRecipientPerHour = 5
    /// `sendOobCode` requests per client address per hour.
    public static let defaultEmailsPerAddressPerHour = 20

    /// Sign-ups per client address per hour (Firebase's documented quota is 100).
    public static let defaultSignUpsPerAddressPerHour = 100
    /// Requests per client address per minute to each of the other limited endpoints.
    public static let defaultPerAddressPerMinute = 120
    /// Requests per minute to each limited endpoint from all addresses together.
    public static let defaultPerProjectPerMinute = 6000

    /// The limits: sign-ups per address per hour, and per minute the other endpoints' per-address limit and every
    /// endpoint's per-project limit.
    public init(enabled: Bool = true, signUpsPerAddressPerHour: Int = defaultSignUpsPerAddressPerHour,
                perAddressPerMinute: Int = defaultPerAddressPerMinute, perProjectPerMinute: Int = defaultPerProjectPerMinute,
                emailsPerAddressPerHour: Int = defaultEmailsPerAddressPerHour, emailsPerRecipientPerHour: Int = defaultEmailsPerRecipientPerHour) {
        self.enabled = enabled
        emailsPerRecipient = Limit(emailsPerRecipientPerHour, per: 3600)
        let project = Limit(perProjectPerMinute, per: 60)
        let address = Limit(perAddressPerMinute, per: 60)
        rules = [
            .signUp: Rule(perAddress: Limit(signUpsPerAddressPerHour, per: 3600), perProject: project),
            .signInWithPassword: Rule(perAddress: address, perProject: project),
            .createAuthUri: Rule(perAddress: address, perProject: project),
            .authHandler: Rule(perAddress: address, perProject: project),
            .sendOobCode: Rule(perAddress: Limit(emailsPerAddressPerHour, per: 3600), perProject: project),
            .passkeySignIn: Rule(perAddress: address, perProject: project),
            .sendVerificationCode: Rule(perAddress: address, perProject: project),
        ]
    }

    /// No limits.
    public static let off = RateLimitConfiguration(enabled: false)

    /// The default for a project: on, except for `demo-*` projects, which behave like the Firebase emulator
    /// (no limits) unless limits are configured.
    public static func defaults(projectId: String) -> RateLimitConfiguration {
        projectId.hasPrefix("demo-") ? .off : RateLimitConfiguration()
    }
}
