import Foundation
import HearthWire
import HearthCore

extension ProviderErrorInfo {
    /// OAuth `error` values (RFC 6749 §4.1.2.1, §5.2; OpenID Connect Core §3.1.2.6) kept as the metrics reason;
    /// anything else counts as `other` so that a provider cannot grow the label set.
    public static let knownErrors: Set<String> = [
        "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
        "access_denied", "unsupported_response_type", "server_error", "temporarily_unavailable", "interaction_required",
        "login_required", "account_selection_required", "consent_required", "invalid_request_uri", "invalid_request_object",
        "request_not_supported", "request_uri_not_supported", "registration_not_supported",
    ]

    /// A provider's error answer read from its fields: a token endpoint's JSON body (RFC 6749 §5.2 with
    /// Microsoft's `error_codes`, `trace_id`, `correlation_id`; Yahoo's `error` object or `error_code`) or the
    /// query of an authorization error redirect. Microsoft also writes "Trace ID: …" and "Correlation ID: …"
    /// into the description; those are read when the fields are absent.
    public static func parse(providerId: String?, fields: [String: JSONValue]) -> ProviderErrorInfo {
        func text(_ key: String) -> String? {
            switch fields[key] {
            case .string(let value)?: return value.isEmpty ? nil : value
            case .number(let value)?: return String(Int64(value))
            default: return nil
            }
        }
        var error = text("error")
        var description = text("error_description")
        var codes: [String] = []
        // Yahoo (older APIs): {"error": {"description": "…", "code": "…"}}.
        if case .object(let object)? = fields["error"] {
            error = object["error"]?.stringValue ?? object["code"]?.stringValue
            description = description ?? object["description"]?.stringValue ?? object["message"]?.stringValue
            if let code = object["code"]?.stringValue { codes.append(code) }
        }
        if case .array(let list)? = fields["error_codes"] {
            for item in list {
                if case .number(let number) = item { codes.append("AADSTS\(Int64(number))") }
            }
        }
        for key in ["error_code", "errorCode"] {
            if let code = text(key), !codes.contains(code) { codes.append(code) }
        }
        let fullDescription = description ?? ""
        if let code = Self.capture(#"(AADSTS\d+)"#, in: fullDescription), !codes.contains(code) { codes.insert(code, at: 0) }
        let traceId = text("trace_id") ?? Self.capture(#"Trace ID: ([0-9A-Fa-f-]{8,64})"#, in: fullDescription)
        let correlationId = text("correlation_id") ?? Self.capture(#"Correlation ID: ([0-9A-Fa-f-]{8,64})"#, in: fullDescription)
        let shortError = error.map { String($0.prefix(64)) }
        let normalized = shortError?.lowercased()
        let reason = normalized.map { knownErrors.contains($0) ? $0 : "other" } ?? "other"
        return ProviderErrorInfo(providerId: providerId, error: shortError, errorDescription: description.map { Self.shorten($0) },
                                 errorCodes: codes.map { String($0.prefix(32)) }.filter { Self.isSafeCode($0) }.prefix(5).map { $0 },
                                 traceId: traceId.flatMap(Self.safeId), correlationId: correlationId.flatMap(Self.safeId), reason: reason)
    }

    /// The same from a query or form (string values).
    public static func parse(providerId: String?, query: [String: String]) -> ProviderErrorInfo {
        parse(providerId: providerId, fields: query.mapValues { .string($0) })
    }

    /// The first line of a description, at most 300 characters, without control characters.
    static func shorten(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return String(String.UnicodeScalarView(line.withoutControlCharacters.unicodeScalars.prefix(300)))
    }

    static func isSafeCode(_ code: String) -> Bool {
        !code.isEmpty && code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
    }

    static func safeId(_ id: String) -> String? {
        id.count <= 64 && id.allSatisfy({ $0.isHexDigit || $0 == "-" }) ? id.lowercased() : nil
    }

    static func capture(_ pattern: String, in text: String) -> String? {
        guard let range = text.range(of: pattern, options: .regularExpression) else { return nil }
        let match = String(text[range])
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let found = regex.firstMatch(in: match, range: NSRange(match.startIndex..., in: match)),
              let group = Range(found.range(at: 1), in: match)
        else { return nil }
        return String(match[group])
    }
}
