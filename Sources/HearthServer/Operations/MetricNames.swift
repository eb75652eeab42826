import Prometheus

/// Every metric Hearth exports, in one place: its Prometheus name and its label names. Add a metric here, then
/// record it through ``HearthMetrics`` (``HearthMetrics/count(_:_:)``, ``HearthMetrics/time(_:_:seconds:)``).
///
/// Rules: a metric always has the same label names (the Prometheus registry refuses a family whose labels
/// change); label values come from small fixed sets (route templates, provider ids, error codes, status codes) and
/// never from request data — no token, password, secret, email address or user id ever becomes a label. The one
/// label from the request's scope, `tenant`, takes only the id of a tenant that exists (resolved by ``Scopes``), on
/// the sign-in counters only; never on the HTTP histograms, whose series it would multiply by the number of tenants.
public enum MetricName: String, Sendable, CaseIterable {
    /// HTTP requests answered, by route template (`unmatched` when no route matched), method and status code.
    case httpRequests = "hearth_http_requests_total"
    /// Time to answer an HTTP request (histogram, seconds), by route template, method and status code.
    case httpRequestDuration = "hearth_http_request_duration_seconds"
    /// Sessions started and sign-ins refused, by provider (`password`, `microsoft.com`, `custom`, … — for a refusal,
    /// the kind of endpoint: `password`, `idp`, `custom`, `signUp`), result (`success` or `refused`) and tenant (the
    /// Identity Platform tenant id of the call's scope; empty for the project's own users and for a refusal made
    /// before the tenant was known). Only tenants that exist become values: the label's cardinality is the number of
    /// tenants.
    case signIns = "hearth_sign_ins_total"
    /// Users created by signing up (not by an administrator or an import), by provider (`password`, `anonymous`,
    /// `custom`, a provider id) and tenant (as for ``signIns``).
    case signUps = "hearth_sign_ups_total"
    /// Refused sign-ins by reason (the error code sent, e.g. `INVALID_LOGIN_CREDENTIALS`).
    case refusedSignIns = "hearth_sign_ins_refused_total"
    /// Refresh tokens presented again after rotation, outside the grace window (theft: the family is revoked).
    case refreshReuseDetections = "hearth_refresh_token_reuse_detections_total"
    /// Signing keys added by rotation (scheduled or manual) by this process.
    case keyRotations = "hearth_signing_key_rotations_total"
    /// Time a store operation took (histogram, seconds), by operation and result (`ok` or `error`).
    case storeOperationDuration = "hearth_store_operation_duration_seconds"
    /// Refused or failed federated sign-ins by provider (`microsoft.com`, … — only providers this server serves)
    /// and reason (a bounded set: the provider's OAuth `error` when it is a standard one, otherwise Hearth's
    /// failure class — `discovery`, `token_exchange`, `id_token`, `profile`, `configuration`,
    /// `tenant_not_allowed`, `nonce`, `refresh_refused`, `cancelled`, `other`).
    case providerErrors = "hearth_provider_errors_total"
    /// Requests refused by the rate limits, by endpoint (`signUp`, `signInWithPassword`, `createAuthUri`,
    /// `authHandler`) and scope (`address`: one client's limit, `project`: everyone's together).
    case rateLimited = "hearth_rate_limited_total"
    /// Email messages. Written: kind `resetPassword`, `verifyEmail`, `changeEmail`, `verifyAndChangeEmail`,
    /// `emailSignIn` or `test`, result `queued` (into the outbox) or `dev` (the dev mailbox). Delivered by the outbox:
    /// kind `outbox`, result `sent` (the relay took it), `retry` (a temporary failure, tried again later), `failed`
    /// (refused for good, or out of attempts) or `expired` (its link expired before delivery).
    case mail = "hearth_mail_messages_total"
    /// Text messages (issue 40). Written: kind the code's purpose (`sign_in`, `mfa_enrollment`, `mfa_sign_in`), outcome
    /// `queued` (into the SMS outbox), `dev` (the dev sink), `test` (a test number: nothing sent) or `refused_…` (a
    /// defence stopped it). Delivered by the outbox: kind `outbox`, outcome `sent`, `retry`, `failed` or `expired`.
    case sms = "hearth_sms_total"
    /// Blocking-function calls by event (`beforeCreate`, `beforeSignIn`, `beforeSendEmail`, `beforeSendSms`) and
    /// outcome (`allowed`, `refused`, `invalid_answer`, `timeout`, `unreachable`).
    case blockingFunctionCalls = "hearth_blocking_function_calls_total"
    /// Time a blocking-function call took (histogram, seconds), by event.
    case blockingFunctionDuration = "hearth_blocking_function_duration_seconds"

    /// The label names, in order; every recording passes values for exactly these.
    public var labelNames: [String] {
        switch self {
        case .httpRequests, .httpRequestDuration: ["route", "method", "status"]
        case .signIns: ["provider", "result", "tenant"]
        case .signUps: ["provider", "tenant"]
        case .refusedSignIns: ["reason"]
        case .refreshReuseDetections, .keyRotations: []
        case .storeOperationDuration: ["operation", "result"]
        case .providerErrors: ["provider", "reason"]
        case .rateLimited: ["endpoint", "scope"]
        case .mail: ["kind", "result"]
        case .sms: ["kind", "outcome"]
        case .blockingFunctionCalls: ["event", "outcome"]
        case .blockingFunctionDuration: ["event"]
        }
    }

    /// The `# HELP` line's text: what is counted or timed, and what the labels say.
    public var help: String {
        switch self {
        case .httpRequests: "HTTP requests answered, by route template (unmatched when no route matched), method and status code."
        case .httpRequestDuration: "Time to answer an HTTP request in seconds, by route template, method and status code."
        case .signIns: "Sessions started (result success) and sign-ins refused (result refused), by provider or kind of endpoint, and tenant (empty: the project's own users)."
        case .signUps: "Users created by signing up, by provider and tenant (empty: the project's own users)."
        case .refusedSignIns: "Refused sign-ins by reason: the error code sent, e.g. INVALID_LOGIN_CREDENTIALS."
        case .refreshReuseDetections: "Refresh tokens presented again after rotation outside the grace window (treated as theft: the family is revoked)."
        case .keyRotations: "Signing keys added by rotation (scheduled or manual) by this process."
        case .storeOperationDuration: "Time a store operation took in seconds, by operation and result (ok or error)."
        case .providerErrors: "Refused or failed federated sign-ins by provider and reason (the provider's OAuth error or Hearth's failure class)."
        case .rateLimited: "Requests refused by the rate limits, by endpoint and scope (address: one client's limit, project: everyone's together)."
        case .mail: "Email messages by kind and result: queued or dev when written; sent, retry, failed or expired when the outbox delivers."
        case .sms: "Text messages by kind (the code's purpose, or outbox) and outcome: queued, dev, test or refused_* when asked for; sent, retry, failed or expired when the outbox delivers."
        case .blockingFunctionCalls: "Blocking-function calls by event and outcome (allowed, refused, invalid_answer, timeout, unreachable)."
        case .blockingFunctionDuration: "Time a blocking-function call took in seconds, by event."
        }
    }

    /// The registry's descriptor: the whole name, and the help text.
    var descriptor: MetricNameDescriptor { MetricNameDescriptor(metricName: rawValue, unitName: "", helpText: help) }
}
