import Foundation

/// The query parameters of the auth handler protocol (`/__/auth/handler`), in both directions: what an app sends
/// to start a federated sign-in, and what the handler sends back to the app's redirect target. Server, client SDK,
/// dev pages and tests use these names; none spells them itself.
public enum AuthHandlerParameter: String, Sendable, CaseIterable {
    // App → handler.
    case apiKey
    case authType
    case providerId
    /// The hex SHA-256 of the app's raw session id (`AuthHandlerProtocol.sessionIdHash`).
    case sessionId
    case eventId
    /// A loopback URL (desktop apps) that receives the result.
    case redirectUrl
    case appId
    case clientId
    /// The iOS bundle id.
    case ibi
    /// A JSON object of extra provider parameters (`{"tenant":"organizations"}`).
    case customParameters
    /// Comma-separated extra scopes.
    case scopes
    /// The Identity Platform tenant the sign-in is for (the JS SDK's `auth.tenantId`); an unknown one is refused.
    case tid
    /// The UI language.
    case hl
    /// The SDK version.
    case v
    /// The Firebase JS SDK's app name (`[DEFAULT]`): with `apiKey`, it names the app's helper iframe.
    case appName
    // Handler → app.
    /// The full callback URL to send as `requestUri` to `signInWithIdp`.
    case link
    /// A JSON `FirebaseWebError` when the sign-in did not complete.
    case firebaseError
    /// Firebase's Apple deep link: `<scheme>://firebaseauth/link?deep_link_id=<callback URL>`.
    case deepLinkId = "deep_link_id"
}

/// `auth/…` codes the auth handler sends in `firebaseError.code`, as Firebase's web flow spells them.
public enum WebAuthErrorCode: String, Sendable, CaseIterable, Codable {
    /// The provider is not enabled for the project.
    case operationNotAllowed = "auth/operation-not-allowed"
    /// The request's parameters are wrong (custom parameters, reserved names).
    case argumentError = "auth/argument-error"
    /// `tid` names a tenant the project does not have.
    case unsupportedTenantOperation = "auth/unsupported-tenant-operation"
    /// The provider could not be reached (discovery, keys).
    case networkRequestFailed = "auth/network-request-failed"
    /// The user cancelled at the provider.
    case webContextCancelled = "auth/web-context-cancelled"
    /// The provider refused the user or the request (e.g. `AADSTS50020`, a wrong tenant, no consent).
    case invalidCredential = "auth/invalid-credential"
    /// The provider failed (`server_error`, `temporarily_unavailable`).
    case internalError = "auth/internal-error"
    /// The app's OAuth client id is not valid.
    case invalidOAuthClientId = "auth/invalid-oauth-client-id"
    /// The app that would receive the result is not registered for the project.
    case appNotAuthorized = "auth/app-not-authorized"
    /// The user cancelled at the provider (the JS SDK's name for `web-context-cancelled`).
    case userCancelled = "auth/user-cancelled"
}

/// Who stopped a sign-in — the page a person sees is titled by it, so a failure of Hearth's is never blamed on the
/// provider.
public enum SignInRefusal: String, Sendable, Equatable {
    /// The provider said no (a wrong tenant, no consent, `AADSTS…`, its own server error).
    case provider
    /// Hearth's rules said no (a provider not enabled, an app not registered, an account already linked elsewhere, a
    /// provider answer that failed Hearth's checks).
    case rules
    /// Hearth itself failed (the provider could not be reached, the database is unavailable).
    case server

    /// The page's title.
    public func title(provider: String) -> String {
        switch self {
        case .provider: "\(provider) refused the sign-in"
        case .rules: "Hearth did not allow this sign-in"
        case .server: "The sign-in could not be completed"
        }
    }
}

/// The `firebaseError` JSON the auth handler delivers to the app when a sign-in does not complete. Besides
/// Firebase's `code` and `message`, Hearth keeps the provider's own answer (`access_denied`, `AADSTS50020`, its
/// description) and a correlation id that also appears in the server log.
public struct FirebaseWebError: Codable, Sendable, Equatable {
    /// `auth/…` (see `WebAuthErrorCode`); unknown codes are kept as sent.
    public var code: String
    /// A sentence for people: what happened and why.
    public var message: String
    /// The provider's OAuth `error` (`access_denied`, `invalid_request`, …).
    public var providerError: String?
    /// The provider's own error code when it sends one (`AADSTS50020`).
    public var providerErrorCode: String?
    /// The provider's `error_description`, shortened.
    public var providerErrorDescription: String?
    /// The id under which the server logged this refusal.
    public var correlationId: String?
    /// The provider's trace id (Microsoft's "Trace ID"), for its support.
    public var providerTraceId: String?

    public init(code: WebAuthErrorCode, message: String, providerError: String? = nil, providerErrorCode: String? = nil,
                providerErrorDescription: String? = nil, correlationId: String? = nil, providerTraceId: String? = nil) {
        self.code = code.rawValue
        self.message = message
        self.providerError = providerError
        self.providerErrorCode = providerErrorCode
        self.providerErrorDescription = providerErrorDescription
        self.correlationId = correlationId
        self.providerTraceId = providerTraceId
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, providerError, providerErrorCode, providerErrorDescription, correlationId, providerTraceId
    }

    /// Reads leniently: only `code` is required (Firebase's own handler may send no message).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
        providerError = try container.decodeIfPresent(String.self, forKey: .providerError)
        providerErrorCode = try container.decodeIfPresent(String.self, forKey: .providerErrorCode)
        providerErrorDescription = try container.decodeIfPresent(String.self, forKey: .providerErrorDescription)
        correlationId = try container.decodeIfPresent(String.self, forKey: .correlationId)
        providerTraceId = try container.decodeIfPresent(String.self, forKey: .providerTraceId)
    }

    /// The code as a known value, if it is one.
    public var webCode: WebAuthErrorCode? { WebAuthErrorCode(rawValue: code) }

    /// Who stopped the sign-in (a cancellation counts as the provider's).
    public var refusal: SignInRefusal {
        switch webCode {
        case .invalidCredential?: providerError != nil || providerErrorCode != nil ? .provider : .rules
        case .internalError?, .invalidOAuthClientId?, .webContextCancelled?, .userCancelled?: .provider
        case .networkRequestFailed?: .server
        case .operationNotAllowed?, .argumentError?, .unsupportedTenantOperation?, .appNotAuthorized?, nil: .rules
        }
    }

    /// Compact JSON, as carried in the `firebaseError` query parameter.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"code":"\#(code)","message":""}"#
    }

    /// Reads the `firebaseError` parameter (`nil` when it is not such a JSON object).
    public init?(jsonString: String) {
        guard let value = try? JSONDecoder().decode(FirebaseWebError.self, from: Data(jsonString.utf8)) else { return nil }
        self = value
    }
}

/// Helpers of the protocol shared by the server and the client SDK.
public enum AuthHandlerProtocol {
    /// The path of the handler.
    public static let handlerPath = "/__/auth/handler"
    /// The emulator's alias of the handler.
    public static let emulatorHandlerPath = "/emulator/auth/handler"
    /// The path a result URL for Apple apps points at (inside `deep_link_id`).
    public static let callbackPath = "/__/auth/callback"
    /// The helper iframe the Firebase JS SDK embeds in the app's page (`gapi.iframes`), and the emulator's alias
    /// (the path the SDK uses after `connectAuthEmulator`).
    public static let iframePath = "/__/auth/iframe"
    public static let emulatorIframePath = "/emulator/auth/iframe"
    /// The scripts of the web result page and of the iframe (served from Hearth's origin, never inline).
    public static let webResultScriptPath = "/__/auth/web-result.js"
    public static let iframeScriptPath = "/__/auth/iframe.js"
    /// The Firebase JS SDK's `authType` values (`AuthEventType`): the web flow, as opposed to the Apple SDK's
    /// `signInWithRedirect` family.
    public static let webAuthTypes: Set<String> = [
        "signInViaPopup", "linkViaPopup", "reauthViaPopup", "signInViaRedirect", "linkViaRedirect", "reauthViaRedirect",
    ]

    /// `sessionId` on the wire: the hex SHA-256 of the app's raw session id.
    public static func sessionIdHash(_ rawSessionId: String) -> String { WireDigest.sha256Hex(rawSessionId) }

    /// The custom URL scheme Firebase's Apple SDK registers for an app: the reversed OAuth client id, else
    /// `app-<app id with - for :>`.
    public static func callbackScheme(appId: String?, clientId: String?) -> String? {
        if let clientId, !clientId.isEmpty {
            return clientId.split(separator: ".").reversed().joined(separator: ".")
        }
        if let appId, !appId.isEmpty {
            return "app-" + appId.replacingOccurrences(of: ":", with: "-")
        }
        return nil
    }

    /// The parameters of a handler result URL (a loopback URL, or a deep link carrying `deep_link_id`).
    public static func resultParameters(of url: URL) -> [AuthHandlerParameter: String] {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if let deepLink = components?.queryItems?.first(where: { $0.name == AuthHandlerParameter.deepLinkId.rawValue })?.value {
            components = URLComponents(string: deepLink)
        }
        var result: [AuthHandlerParameter: String] = [:]
        for item in components?.queryItems ?? [] {
            if let name = AuthHandlerParameter(rawValue: item.name), let value = item.value { result[name] = value }
        }
        return result
    }
}

/// The Firebase JS SDK's `AuthEvent`: what Hearth's web result page hands to the app's helper iframe, which gives it
/// to the SDK; the SDK then sends `urlResponse` and `sessionId` to `accounts:signInWithIdp` unchanged.
public struct WebAuthEvent: Codable, Sendable, Equatable {
    /// The SDK's `authType` of the sign-in (`signInViaPopup`, …), or `unknown`.
    public var type: String
    /// The SDK's event id, echoed exactly (nil for `signInViaRedirect`).
    public var eventId: String?
    /// The provider's callback URL as Hearth received it (`requestUri` of `signInWithIdp`).
    public var urlResponse: String?
    /// The sign-in's raw session id (Hearth keeps its SHA-256 only).
    public var sessionId: String?
    public var postBody: String?
    public var tenantId: String?
    public var error: EventError?

    /// An event's error: the SDK keeps the `auth/…` code only (the message is for the page and the console).
    public struct EventError: Codable, Sendable, Equatable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public init(type: String, eventId: String?, urlResponse: String?, sessionId: String?, error: EventError?) {
        self.type = type
        self.eventId = eventId
        self.urlResponse = urlResponse
        self.sessionId = sessionId
        self.postBody = nil
        self.tenantId = nil
        self.error = error
    }

    private enum CodingKeys: String, CodingKey { case type, eventId, urlResponse, sessionId, postBody, tenantId, error }

    /// Every key, `null` included (the SDK's event has them all).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(eventId, forKey: .eventId)
        try container.encode(urlResponse, forKey: .urlResponse)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(postBody, forKey: .postBody)
        try container.encode(tenantId, forKey: .tenantId)
        try container.encode(error, forKey: .error)
    }
}
