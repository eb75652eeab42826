import Foundation

/// A provider's refusal kept in its parts (Hearth extension): the OAuth `error` and `error_description`, the
/// provider's own codes (Microsoft's `AADSTS…`, Yahoo's codes), and the ids its support asks for (Microsoft's
/// trace and correlation ids). Never holds a code, token or secret.
public struct ProviderErrorInfo: Codable, Sendable, Equatable {
    /// `microsoft.com`, `yahoo.com`, `oidc.*`.
    public var providerId: String?
    /// The OAuth `error` (`invalid_client`, `invalid_grant`, `access_denied`, …).
    public var error: String?
    /// The provider's `error_description`, shortened to 300 characters.
    public var errorDescription: String?
    /// The provider's own error codes, first the most specific (`AADSTS7000215`).
    public var errorCodes: [String]
    /// Microsoft's `trace_id` (or the "Trace ID" of the description).
    public var traceId: String?
    /// The provider's `correlation_id` (or the "Correlation ID" of the description).
    public var correlationId: String?
    /// Hearth's short, bounded reason (`invalid_client`, `tenant_not_allowed`, `discovery`, …): the metrics label.
    public var reason: String

    public init(providerId: String? = nil, error: String? = nil, errorDescription: String? = nil, errorCodes: [String] = [],
                traceId: String? = nil, correlationId: String? = nil, reason: String) {
        self.providerId = providerId
        self.error = error
        self.errorDescription = errorDescription
        self.errorCodes = errorCodes
        self.traceId = traceId
        self.correlationId = correlationId
        self.reason = reason
    }

    /// The most specific provider code (`AADSTS50020`), if any.
    public var providerErrorCode: String? { errorCodes.first }

    /// The `metadata` of the error envelope's `ErrorInfo` detail.
    public var metadata: [String: String] {
        var fields: [String: String] = ["reason": reason]
        if let providerId { fields[ProviderErrorInfo.Key.providerId] = providerId }
        if let error { fields[ProviderErrorInfo.Key.providerError] = error }
        if let code = providerErrorCode { fields[ProviderErrorInfo.Key.providerErrorCode] = code }
        if !errorCodes.isEmpty { fields[ProviderErrorInfo.Key.providerErrorCodes] = errorCodes.joined(separator: ",") }
        if let errorDescription { fields[ProviderErrorInfo.Key.providerErrorDescription] = errorDescription }
        if let traceId { fields[ProviderErrorInfo.Key.traceId] = traceId }
        if let correlationId { fields[ProviderErrorInfo.Key.providerCorrelationId] = correlationId }
        return fields
    }

    /// The names of the metadata fields.
    public enum Key {
        public static let providerId = "providerId"
        public static let providerError = "providerError"
        public static let providerErrorCode = "providerErrorCode"
        public static let providerErrorCodes = "providerErrorCodes"
        public static let providerErrorDescription = "providerErrorDescription"
        public static let traceId = "providerTraceId"
        public static let providerCorrelationId = "providerCorrelationId"
        /// Hearth's id of the log line (also in the message).
        public static let correlationId = "correlationId"
    }

    /// The `ErrorInfo` domain of provider refusals.
    public static let errorInfoDomain = "providers.hearth"
}

/// What `hearth providers test` and the admin API's `…/{idp}:test` found about a provider's configuration,
/// checked without a user.
public struct ProviderCheckReport: Codable, Sendable, Equatable {
    /// One check: what was checked, its outcome, and what to fix in words.
    public struct Check: Codable, Sendable, Equatable {
        /// `ok`, `failed`, `warning` or `info`.
        public enum Status: String, Codable, Sendable { case ok, failed, warning, info }

        /// `discovery`, `issuer`, `keys`, `client`, `redirectUri`, `tenants`.
        public var name: String
        public var status: Status
        /// What was found.
        public var detail: String
        /// What to do about it (failed and warning checks).
        public var fix: String?
        /// The provider's answer, when it refused.
        public var providerError: ProviderErrorInfo?

        public init(name: String, status: Status, detail: String, fix: String? = nil, providerError: ProviderErrorInfo? = nil) {
            self.name = name
            self.status = status
            self.detail = detail
            self.fix = fix
            self.providerError = providerError
        }
    }

    public var providerId: String
    /// True when no check failed.
    public var ok: Bool
    /// The redirect URI that must be registered at the provider.
    public var redirectUri: String
    public var checks: [Check]

    public init(providerId: String, redirectUri: String, checks: [Check]) {
        self.providerId = providerId
        self.redirectUri = redirectUri
        self.checks = checks
        self.ok = !checks.contains { $0.status == .failed }
    }

    /// The report for people, one line per check plus its fix.
    public var text: String {
        var lines = ["\(providerId): \(ok ? "configuration looks right" : "configuration has problems")"]
        for check in checks {
            let mark = switch check.status {
            case .ok: "ok     "
            case .failed: "FAILED "
            case .warning: "warning"
            case .info: "info   "
            }
            lines.append("  \(mark) \(check.name): \(check.detail)")
            if let fix = check.fix { lines.append("          fix: \(fix)") }
        }
        return lines.joined(separator: "\n")
    }
}
