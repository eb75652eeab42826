import Foundation
import HearthOIDC
import HearthWire
import Logging
import Metrics

/// Metric names of provider diagnostics (swift-metrics; a no-op until a backend is bootstrapped).
public enum ProviderMetricNames {
    /// Counter of refused or failed federated sign-ins, with dimensions `provider` (`microsoft.com`, …) and
    /// `reason` (a bounded set: the provider's OAuth `error` when it is a standard one, otherwise Hearth's
    /// failure class — `discovery`, `token_exchange`, `id_token`, `profile`, `configuration`,
    /// `tenant_not_allowed`, `cancelled`, `other`).
    public static let providerErrors = "hearth_provider_errors_total"
}

/// Logs and counts one provider refusal: at `notice`, with the provider's code, trace and correlation ids
/// (never a code, token or secret), and one increment of ``ProviderMetricNames/providerErrors``.
struct ProviderDiagnostics: Sendable {
    let logger: Logger
    let metricsFactory: (any MetricsFactory)?

    func record(_ message: Logger.Message, _ info: ProviderErrorInfo, detail: String, correlationId: String) {
        var metadata: Logger.Metadata = [
            "provider": "\(info.providerId ?? "-")", "reason": "\(detail)", "reason_code": "\(info.reason)",
            "correlation_id": "\(correlationId)",
        ]
        if let error = info.error { metadata["provider_error"] = "\(error)" }
        if !info.errorCodes.isEmpty { metadata["provider_error_codes"] = "\(info.errorCodes.joined(separator: ","))" }
        if let trace = info.traceId { metadata["provider_trace_id"] = "\(trace)" }
        if let correlation = info.correlationId { metadata["provider_correlation_id"] = "\(correlation)" }
        logger.notice(message, metadata: metadata)
        let dimensions = [("provider", info.providerId ?? "unknown"), ("reason", info.reason)]
        if let metricsFactory {
            Counter(label: ProviderMetricNames.providerErrors, dimensions: dimensions, factory: metricsFactory).increment()
        } else {
            Counter(label: ProviderMetricNames.providerErrors, dimensions: dimensions).increment()
        }
    }

    /// A relying-party failure for `signInWithIdp`: logged, counted, and answered as `code` (by default
    /// `INVALID_IDP_RESPONSE`) with the refusal in `error.details`.
    func refusal(_ error: RelyingPartyError, providerId: String, code: ServerErrorCode = .invalidIdpResponse,
                 message: Logger.Message = "federated sign-in refused") -> HearthAPIError {
        let correlationId = UUID().uuidString.lowercased()
        let info = error.errorInfo(providerId: providerId)
        record(message, info, detail: error.message, correlationId: correlationId)
        return HearthAPIError(code, "\(error.message) (correlation id \(correlationId))",
                              details: [GoogleErrorEnvelope.ErrorInfo(info, correlationId: correlationId)])
    }
}

extension FederationService {
    var diagnostics: ProviderDiagnostics { ProviderDiagnostics(logger: logger, metricsFactory: configuration.metricsFactory) }
}
