import Foundation
import HearthWire
import Hummingbird
import NIOCore

/// An error answered with the Google error envelope. Conforms to `HTTPResponseError` so Hummingbird renders it.
public struct HearthAPIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    public let code: ServerErrorCode
    /// Human-readable detail appended as `CODE : detail`. Never holds secrets.
    public let detail: String?
    public let httpStatus: Int
    /// `error.details` (a provider's refusal in its parts).
    public let details: [GoogleErrorEnvelope.ErrorInfo]?

    public init(_ code: ServerErrorCode, _ detail: String? = nil, httpStatus: Int? = nil, details: [GoogleErrorEnvelope.ErrorInfo]? = nil) {
        self.code = code
        self.detail = detail
        self.httpStatus = httpStatus ?? code.httpStatus
        self.details = details
    }

    public var envelope: GoogleErrorEnvelope { GoogleErrorEnvelope(code, detail: detail, httpStatus: httpStatus, details: details) }

    public var status: HTTPResponse.Status { HTTPResponse.Status(code: httpStatus) }

    public var description: String { envelope.error.message }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try HearthResponseEncoder.response(envelope, status: status)
    }
}
