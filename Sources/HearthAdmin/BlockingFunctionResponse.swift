import Foundation
import HearthWire

/// What a blocking function answers when it lets the operation go on: the user fields to change, and claims.
/// Every field left nil is left alone (it is not in the answer's `updateMask`); an empty response is `{}`.
///
/// `customClaims` are stored on the user; `sessionClaims` (beforeSignIn only) go into this sign-in's tokens.
/// To clear the display name or photo URL, pass `.some(nil)`.
public struct BlockingFunctionResponse: Sendable, Equatable {
    /// The display name to store; `.some(nil)` clears it.
    public var displayName: String??
    /// The photo URL to store; `.some(nil)` clears it.
    public var photoURL: String??
    /// Disable the user (a beforeSignIn answer with `true` refuses the sign-in with `USER_DISABLED`).
    public var disabled: Bool?
    /// Mark the email verified or not.
    public var emailVerified: Bool?
    /// The user's custom claims (replacing the stored ones), in every later ID token.
    public var customClaims: [String: JSONValue]?
    /// Claims only in this sign-in's tokens (beforeSignIn; refused for beforeCreate as firebase-functions does).
    public var sessionClaims: [String: JSONValue]?
    /// `ALLOW` or `BLOCK` for reCAPTCHA's verdict (the server accepts and ignores it while it has no reCAPTCHA).
    public var recaptchaActionOverride: RecaptchaActionOverride?

    /// reCAPTCHA Enterprise's action override.
    public enum RecaptchaActionOverride: String, Sendable, Equatable {
        case allow = "ALLOW"
        case block = "BLOCK"
    }

    /// A response setting the fields given (nil: leave alone).
    public init(displayName: String?? = nil, photoURL: String?? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
                customClaims: [String: JSONValue]? = nil, sessionClaims: [String: JSONValue]? = nil,
                recaptchaActionOverride: RecaptchaActionOverride? = nil) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customClaims = customClaims
        self.sessionClaims = sessionClaims
        self.recaptchaActionOverride = recaptchaActionOverride
    }

    /// Checks the answer as `firebase-functions` does before sending it (`_validate_auth_response`), with Hearth's
    /// reserved names (``BlockingFunctionLimits/reservedClaimNames``, firebase-functions' list plus `sub` and
    /// `user_id`), then encodes `{"userRecord":{…,"updateMask":"…"},"recaptchaActionOverride":…}` (or `{}`).
    /// - Throws: ``BlockingFunctionError`` `invalidArgument`: session claims for beforeCreate, a reserved claim
    ///   name, claims over 1000 characters (each, and both merged), or user fields in an email/SMS answer.
    public func encoded(for eventType: BlockingEventType) throws(BlockingFunctionError) -> Data {
        try validate(for: eventType)
        var record: [String: JSONValue] = [:]
        var mask: [String] = []
        // firebase-functions' order: displayName, disabled, emailVerified, photoURL, customClaims, sessionClaims.
        if let displayName {
            record["displayName"] = displayName.map(JSONValue.string) ?? .null
            mask.append("displayName")
        }
        if let disabled {
            record["disabled"] = .bool(disabled)
            mask.append("disabled")
        }
        if let emailVerified {
            record["emailVerified"] = .bool(emailVerified)
            mask.append("emailVerified")
        }
        if let photoURL {
            record["photoURL"] = photoURL.map(JSONValue.string) ?? .null
            mask.append("photoURL")
        }
        if let customClaims {
            record["customClaims"] = .object(customClaims)
            mask.append("customClaims")
        }
        if let sessionClaims {
            record["sessionClaims"] = .object(sessionClaims)
            mask.append("sessionClaims")
        }
        var answer: [String: JSONValue] = [:]
        if !mask.isEmpty {
            record["updateMask"] = .string(mask.joined(separator: ","))
            answer["userRecord"] = .object(record)
        }
        if let recaptchaActionOverride { answer["recaptchaActionOverride"] = .string(recaptchaActionOverride.rawValue) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A [String: JSONValue] always encodes.
        return (try? encoder.encode(answer)) ?? Data("{}".utf8)
    }

    func validate(for eventType: BlockingEventType) throws(BlockingFunctionError) {
        if eventType == .beforeSendEmail || eventType == .beforeSendSms {
            guard displayName == nil, photoURL == nil, disabled == nil, emailVerified == nil, customClaims == nil, sessionClaims == nil else {
                throw BlockingFunctionError(.invalidArgument, "A \(eventType.rawValue) answer can only carry recaptchaActionOverride, not user fields or claims.")
            }
            return
        }
        let limit = BlockingFunctionLimits.maximumClaimsCharacters
        switch BlockingFunctionLimits.problem(customClaims: customClaims, sessionClaims: sessionClaims, event: eventType,
                                              length: { Self.pythonJSONLength(.object($0)) }) {
        case nil: return
        case .sessionClaimsOutsideBeforeSignIn(let names):
            throw BlockingFunctionError(.invalidArgument, #"The sessionClaims claims "\#(names.joined(separator: ","))" cannot be specified for the \#(eventType.rawValue) event."#)
        case .reserved(let field, let names):
            throw BlockingFunctionError(.invalidArgument, #"The \#(field) claims "\#(names.joined(separator: ","))" are reserved and cannot be specified."#)
        case .tooLong(let field):
            throw BlockingFunctionError(.invalidArgument, "The \(field) payload should not exceed \(limit) characters.")
        case .combinedTooLong:
            throw BlockingFunctionError(.invalidArgument, "The customClaims and sessionClaims payloads should not exceed \(limit) characters combined.")
        }
    }

    /// The length of Python's `json.dumps(value)` (separators `", "` and `": "`, non-ASCII escaped as `\uXXXX`):
    /// what firebase-functions measures against the 1000-character limit. It is never shorter than the compact
    /// JSON the server measures, so an answer this accepts passes the server's check too.
    static func pythonJSONLength(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .number(let number):
            if number.rounded() == number, abs(number) < 9_007_199_254_740_992 { return String(Int64(number)).count }
            return "\(number)".count
        case .string(let text): return pythonStringLength(text)
        case .array(let items):
            return 2 + items.reduce(0) { $0 + pythonJSONLength($1) } + max(0, items.count - 1) * 2
        case .object(let members):
            return 2 + members.reduce(0) { $0 + pythonStringLength($1.key) + 2 + pythonJSONLength($1.value) } + max(0, members.count - 1) * 2
        }
    }

    private static func pythonStringLength(_ text: String) -> Int {
        2 + text.unicodeScalars.reduce(0) { length, scalar in
            switch scalar.value {
            case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D: length + 2
            case 0x20...0x7E: length + 1
            case 0x10000...: length + 12
            default: length + 6
            }
        }
    }
}

/// A blocking function's refusal, answered as firebase-functions answers an `HttpsError`: the code's HTTP status
/// and `{"error":{"status":"PERMISSION_DENIED","message":"…"}}`. The server stops the operation and passes the
/// message to the client (`BLOCKING_FUNCTION_ERROR_RESPONSE`).
///
/// ```swift
/// throw BlockingFunctionError(.permissionDenied, "Only example.com accounts may sign up.")
/// ```
public struct BlockingFunctionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The callable-function error codes (gRPC's), with their HTTP statuses.
    public enum Code: String, Sendable, CaseIterable {
        case cancelled, unknown
        case invalidArgument = "invalid-argument"
        case deadlineExceeded = "deadline-exceeded"
        case notFound = "not-found"
        case alreadyExists = "already-exists"
        case permissionDenied = "permission-denied"
        case unauthenticated
        case resourceExhausted = "resource-exhausted"
        case failedPrecondition = "failed-precondition"
        case aborted
        case outOfRange = "out-of-range"
        case unimplemented
        case `internal`
        case unavailable
        case dataLoss = "data-loss"

        /// The HTTP status firebase-functions answers with (google/rpc/code.proto's mapping).
        public var httpStatus: Int {
            switch self {
            case .cancelled: 499
            case .unknown, .internal, .dataLoss: 500
            case .invalidArgument, .failedPrecondition, .outOfRange: 400
            case .deadlineExceeded: 504
            case .notFound: 404
            case .alreadyExists, .aborted: 409
            case .permissionDenied: 403
            case .unauthenticated: 401
            case .resourceExhausted: 429
            case .unimplemented: 501
            case .unavailable: 503
            }
        }

        /// The canonical name in the body's `status` (`PERMISSION_DENIED` …).
        public var status: String { rawValue.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// Decides the HTTP status and the body's `status`.
    public var code: Code
    /// Shown to the end user (the server passes it on).
    public var message: String
    /// Extra JSON in the body's `error.details`.
    public var details: JSONValue?

    /// A refusal with `code` (e.g. `.permissionDenied`: 403) and the message the end user sees.
    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The HTTP status of the answer.
    public var httpStatus: Int { code.httpStatus }

    /// `{"error":{"status":…,"message":…,"details":…}}`.
    public var body: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(BlockingFunctionErrorBody(status: code.status, message: message, details: details))) ?? Data()
    }

    /// `PERMISSION_DENIED: message`.
    public var description: String { "\(code.status): \(message)" }
}

/// The HTTP answer to one blocking-function request: what to send, and what happened (for logs and tests).
public struct BlockingFunctionHTTPAnswer: Sendable, Equatable {
    /// 200 for an answer, the error code's status for a refusal.
    public var status: Int
    /// JSON; send with `Content-Type: application/json`.
    public var body: Data
    /// The verified event, when the request carried a valid JWT.
    public var event: AuthBlockingEvent?
    /// Why the request was refused before the handler ran (bad method, body or JWT): the full reason, for your
    /// logs; the body only says `Bad Request` or names the failed check.
    public var rejection: String?

    /// An answer to send (`body` is JSON).
    public init(status: Int, body: Data, event: AuthBlockingEvent? = nil, rejection: String? = nil) {
        self.status = status
        self.body = body
        self.event = event
        self.rejection = rejection
    }

    /// Runs `handler` for a verified event and answers as firebase-functions does: nil or an empty response → 200
    /// `{}`; a response → 200 with ``BlockingFunctionResponse/encoded(for:)`` (or its validation error); a thrown
    /// ``BlockingFunctionError`` → its status and body; any other error → 500 `INTERNAL` "INTERNAL".
    public static func answering(_ event: AuthBlockingEvent,
                                 _ handler: @Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?) async -> BlockingFunctionHTTPAnswer {
        do {
            let response = try await handler(event)
            return BlockingFunctionHTTPAnswer(status: 200, body: try (response ?? BlockingFunctionResponse()).encoded(for: event.eventType), event: event)
        } catch let error as BlockingFunctionError {
            return BlockingFunctionHTTPAnswer(status: error.httpStatus, body: error.body, event: event)
        } catch {
            let failure = BlockingFunctionError(.internal, "INTERNAL")
            return BlockingFunctionHTTPAnswer(status: failure.httpStatus, body: failure.body, event: event)
        }
    }
}

extension BlockingFunctionVerifier {
    /// Answers one blocking-function request as a `firebase-functions` handler does:
    /// - not `POST`, not `Content-Type: application/json`, or a body other than `{"data":{"jwt":"…"}}`: 400
    ///   `INVALID_ARGUMENT` "Bad Request";
    /// - a JWT that does not verify (``verify(_:)``): 401 `UNAUTHENTICATED` naming the failed check
    ///   (firebase-functions answers 500 `INTERNAL`; the check's name is more useful in the server's error) — the
    ///   full reason is in ``BlockingFunctionHTTPAnswer/rejection``; an event not in `events`: 400
    ///   `INVALID_ARGUMENT`;
    /// - otherwise `handler` runs: nil or an empty response → 200 `{}`; a response → its
    ///   ``BlockingFunctionResponse/encoded(for:)`` (or its validation error); a thrown ``BlockingFunctionError`` →
    ///   its status and body; any other error → 500 `INTERNAL` "INTERNAL" (the error is not shown).
    public func answer(method: String, contentType: String?, body: Data, events: Set<BlockingEventType>? = nil,
                       _ handler: @Sendable (AuthBlockingEvent) async throws -> BlockingFunctionResponse?) async -> BlockingFunctionHTTPAnswer {
        let event: AuthBlockingEvent
        do {
            event = try await verifiedEvent(method: method, contentType: contentType, body: body, events: events)
        } catch {
            return BlockingFunctionHTTPAnswer(status: error.error.httpStatus, body: error.error.body, event: nil, rejection: error.reason)
        }
        return await BlockingFunctionHTTPAnswer.answering(event, handler)
    }

    /// A request refused before its handler ran: the answer to send and the full reason.
    public struct RequestRejection: Error, Sendable {
        /// What to answer.
        public var error: BlockingFunctionError
        /// Why, for logs (never holds the JWT).
        public var reason: String
    }

    /// The request checks of ``answer(method:contentType:body:events:_:)`` without answering: the verified event,
    /// or the rejection to answer with.
    public func verifiedEvent(method: String, contentType: String?, body: Data,
                              events: Set<BlockingEventType>? = nil) async throws(RequestRejection) -> AuthBlockingEvent {
        let badRequest = BlockingFunctionError(.invalidArgument, "Bad Request")
        guard method.uppercased() == "POST" else { throw RequestRejection(error: badRequest, reason: "the method is \(method), not POST") }
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw RequestRejection(error: badRequest, reason: "the Content-Type is \(contentType ?? "missing"), not application/json")
        }
        let jwt: String
        do {
            jwt = try Self.jwt(inRequestBody: body)
        } catch {
            throw RequestRejection(error: badRequest, reason: error.description)
        }
        let event: AuthBlockingEvent
        do {
            event = try await verify(jwt)
        } catch {
            throw RequestRejection(error: BlockingFunctionError(.unauthenticated, "The blocking-function JWT was refused (\(error.reason.rawValue))."),
                                   reason: "the JWT was refused: \(error.description)")
        }
        if let events, !events.contains(event.eventType) {
            let expected = events.map(\.rawValue).sorted().joined(separator: ", ")
            throw RequestRejection(error: BlockingFunctionError(.invalidArgument, "This function does not handle \(event.eventType.rawValue) events."),
                                   reason: "a \(event.eventType.rawValue) event was sent to a function for \(expected)")
        }
        return event
    }
}
