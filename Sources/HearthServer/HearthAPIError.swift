import Foundation
import HearthCore
import HearthStore
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

extension HearthAPIError {
    /// The one mapping of store errors to the API's errors. Services let ``StoreError``s they do not act on pass;
    /// the error envelope middleware, the console and the CLI answer them with this.
    public init(_ error: StoreError) {
        switch error {
        case .emailExists:
            self.init(ServerErrorCode.emailExists)
        case .federatedIdTaken(let providerId) where providerId == ProviderIdentity.phoneProviderId:
            self.init(ServerErrorCode.phoneNumberExists)
        case .federatedIdTaken(let providerId):
            self.init(ServerErrorCode.federatedUserIdAlreadyLinked, "another user already has this \(providerId) identity")
        case .duplicateLocalId:
            self.init(ServerErrorCode.duplicateLocalId)
        case .tenantExists:
            self.init(ServerErrorCode.configurationExists, "a tenant with this id exists")
        case .notFound:
            self.init(ServerErrorCode.userNotFound)
        case .conflict:
            self.init(ServerErrorCode.internalError, "the account is being changed concurrently; try again", httpStatus: 409)
        case .duplicateKeyGeneration:
            self.init(ServerErrorCode.internalError, "a signing key was being added concurrently; try again", httpStatus: 409)
        case .textWithNUL:
            self = HearthRequestDecoder.nulRefusal
        case .unavailable(let reason):
            // Reasons say what without where (no host, port or path of the database).
            self.init(ServerErrorCode.unavailable, "the database is unavailable (\(reason)); try again shortly")
        case .backend:
            // The backend's text may hold data from the request: never shown.
            self.init(ServerErrorCode.internalError)
        }
    }

    /// The API error `error` is answered with, if it is one the API knows (a ``HearthAPIError`` or a ``StoreError``).
    public static func answering(_ error: any Error) -> HearthAPIError? {
        switch error {
        case let error as HearthAPIError: error
        case let error as StoreError: HearthAPIError(error)
        default: nil
        }
    }
}
