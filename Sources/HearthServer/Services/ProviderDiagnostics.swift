import Foundation
import HearthOIDC
import HearthWire
import Logging

/// Logs and counts one provider refusal: at `notice`, with the provider's code, trace and correlation ids
/// (never a code, token or secret), and one increment of ``MetricName/providerErrors``.
struct ProviderDiagnostics: Sendable {
    let logger: Logger
    let metrics: HearthMetrics

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
        metrics.count(.providerErrors, [info.providerId ?? "unknown", info.reason])
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
    var diagnostics: ProviderDiagnostics { ProviderDiagnostics(logger: logger, metrics: configuration.metrics) }
}
