import Foundation

/// The error body Google APIs (and so Firebase Auth) answer with:
/// `{"error":{"code":400,"message":"EMAIL_EXISTS","errors":[{"message":"EMAIL_EXISTS","reason":"invalid","domain":"global"}]}}`.
///
/// Firebase clients read `error.message` (the part before the first `:` is the error code) and, for API-key
/// problems, `errors[].reason`.
public struct GoogleErrorEnvelope: Codable, Sendable, Equatable {
    /// The error itself.
    public var error: Body

    /// The `error` object of the envelope.
    public struct Body: Codable, Sendable, Equatable {
        /// The HTTP status code, repeated in the body.
        public var code: Int
        /// `CODE` or `CODE : detail`.
        public var message: String
        /// One entry with the same message, a reason and a domain.
        public var errors: [Item]
        /// The canonical status name (`INVALID_ARGUMENT`, `PERMISSION_DENIED`, ...); absent on plain 400s.
        public var status: String?
        /// Google's `details` (`google.rpc.ErrorInfo`): Hearth puts a provider's refusal here, in its parts.
        public var details: [ErrorInfo]?

        public init(code: Int, message: String, errors: [Item], status: String? = nil, details: [ErrorInfo]? = nil) {
            self.code = code
            self.message = message
            self.errors = errors
            self.status = status
            self.details = details
        }
    }

    /// A `google.rpc.ErrorInfo` entry of `error.details`.
    public struct ErrorInfo: Codable, Sendable, Equatable {
        public static let typeURL = "type.googleapis.com/google.rpc.ErrorInfo"

        public var type: String
        public var reason: String
        public var domain: String
        public var metadata: [String: String]

        public init(reason: String, domain: String, metadata: [String: String]) {
            self.type = Self.typeURL
            self.reason = reason
            self.domain = domain
            self.metadata = metadata
        }

        enum CodingKeys: String, CodingKey {
            case type = "@type", reason, domain, metadata
        }

        /// A provider's refusal.
        public init(_ info: ProviderErrorInfo, correlationId: String?) {
            var metadata = info.metadata
            if let correlationId { metadata[ProviderErrorInfo.Key.correlationId] = correlationId }
            self.init(reason: info.reason, domain: ProviderErrorInfo.errorInfoDomain, metadata: metadata)
        }
    }

    /// One entry of `error.errors`.
    public struct Item: Codable, Sendable, Equatable {
        public var message: String
        public var reason: String
        public var domain: String

        public init(message: String, reason: String, domain: String = "global") {
            self.message = message
            self.reason = reason
            self.domain = domain
        }
    }

    public init(error: Body) {
        self.error = error
    }

    /// Builds the envelope for a server error code and an optional human-readable detail.
    public init(_ code: ServerErrorCode, detail: String? = nil, httpStatus: Int? = nil, details: [ErrorInfo]? = nil) {
        let status = httpStatus ?? code.httpStatus
        let message = detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue
        self.error = Body(
            code: status,
            message: code.messageOverride ?? message,
            errors: [Item(message: code.messageOverride ?? message, reason: code.reason)],
            status: code.status,
            details: details
        )
    }

    /// The provider refusal of `error.details`, if there is one: its metadata.
    public var providerErrorMetadata: [String: String]? {
        error.details?.first { $0.domain == ProviderErrorInfo.errorInfoDomain }?.metadata
    }

    /// The error code of `error.message`: the text before the first `:`, trimmed.
    public var errorCode: String {
        let message = error.message
        let head = message.split(separator: ":", maxSplits: 1).first.map(String.init) ?? message
        return head.trimmingCharacters(in: .whitespaces)
    }
}
