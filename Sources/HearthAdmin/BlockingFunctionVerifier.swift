import AsyncHTTPClient
import Foundation
import HearthWire

/// Verifies the requests Hearth (or Identity Platform) sends to a blocking function — `POST` with
/// `{"data":{"jwt":"…"}}` — and decodes the event they carry.
///
/// The JWT must be RS256 with a `kid` of the published ID-token keys (fetched and cached by a ``TokenVerifier``,
/// shared when you pass one), `iss = https://securetoken.google.com/<project>`, `aud` exactly the URL the
/// function is configured under (``functionURL``: the `functionUri` of the trigger, byte for byte), `iat`/`exp`
/// valid within the verifier's leeway, and `sub` 1–128 characters (it may be absent only for `beforeSendEmail` /
/// `beforeSendSms` events without a user). A Hearth ID token (`aud` = the project) is therefore refused.
///
/// ```swift
/// let verifier = BlockingFunctionVerifier(projectId: "my-project", functionURL: "https://hooks.example.com/before-create",
///                                         keySource: .hearth("https://auth.example.com"))
/// let event = try await verifier.verify(jwt)
/// ```
public final class BlockingFunctionVerifier: Sendable {
    /// The URL the function is configured under: the JWT's `aud` must equal it.
    public let functionURL: String
    /// Fetches and caches the keys, holds the project id, the clock and the leeway.
    public let tokenVerifier: TokenVerifier

    /// The Firebase project id (`iss` is `https://securetoken.google.com/<projectId>`).
    public var projectId: String { tokenVerifier.projectId }

    /// - Parameters:
    ///   - projectId: the project whose server signs the events.
    ///   - functionURL: the URL the trigger is configured with (its `functionUri`); `aud` must be exactly this.
    ///   - keySource: where the ID-token keys are published: ``TokenVerifier/KeySource/hearth(_:)`` for a Hearth
    ///     server, ``TokenVerifier/KeySource/google`` for Identity Platform.
    ///   - leeway: clock skew tolerated on `iat` and `exp`, in seconds.
    ///   - now: the clock (tests pass the server's test clock).
    public convenience init(projectId: String, functionURL: String, keySource: TokenVerifier.KeySource,
                            httpClient: HTTPClient = .shared, leeway: TimeInterval = 5,
                            now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(functionURL: functionURL,
                  sharingKeysWith: TokenVerifier(projectId: projectId, keySource: keySource, httpClient: httpClient, leeway: leeway, now: now))
    }

    /// A verifier for the function at `functionURL` that uses `verifier`'s project, key cache, clock and leeway
    /// (one key fetch serves ID tokens and every function of the backend).
    public init(functionURL: String, sharingKeysWith verifier: TokenVerifier) {
        self.functionURL = functionURL
        self.tokenVerifier = verifier
    }

    /// Verifies a blocking-function JWT and decodes its event.
    /// - Throws: ``TokenVerificationError``: `malformed` (not an RS256 JWT with a `kid`, or not an event's claims),
    ///   `unknownKey`, `badSignature`, `wrongIssuer`, `wrongAudience` (e.g. an ID token, or a JWT meant for
    ///   another function), `expired`, `notYetValid`, `keysUnavailable`.
    public func verify(_ jwt: String) async throws(TokenVerificationError) -> AuthBlockingEvent {
        let payload = try await tokenVerifier.signedPayload(jwt, keysURL: tokenVerifier.keySource.idTokenCertificatesURL)
        // The checks a verifier makes before trusting any field (firebase-functions' order: aud, iss, sub, times).
        struct Envelope: Decodable {
            var iss: String?
            var aud: Audience?
            var sub: String?
            var iat: Double?
            var exp: Double?
            var event_type: String?
        }
        enum Audience: Decodable {
            case one(String), many([String])
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let one = try? container.decode(String.self) { self = .one(one) } else { self = .many(try container.decode([String].self)) }
            }
            func contains(_ url: String) -> Bool {
                switch self {
                case .one(let aud): aud.utf8.elementsEqual(url.utf8)
                case .many(let auds): auds.contains { $0.utf8.elementsEqual(url.utf8) }
                }
            }
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: payload) else {
            throw TokenVerificationError(.malformed, "the JWT's payload is not a JSON object of claims")
        }
        guard let aud = envelope.aud, aud.contains(functionURL) else {
            let hint: String
            if case .one(let value)? = envelope.aud, value == projectId {
                hint = " (this is an ID token, not a blocking-function JWT)"
            } else {
                hint = ""
            }
            throw TokenVerificationError(.wrongAudience, "the audience is not this function's URL \(functionURL)\(hint)")
        }
        let issuer = "https://securetoken.google.com/\(projectId)"
        guard envelope.iss == issuer else { throw TokenVerificationError(.wrongIssuer, "the issuer is not \(issuer)") }
        guard let iat = envelope.iat, let exp = envelope.exp else {
            throw TokenVerificationError(.malformed, "the JWT has no iat or exp")
        }
        let moment = tokenVerifier.currentDate.timeIntervalSince1970
        let leeway = tokenVerifier.clockLeeway
        guard exp + leeway > moment else { throw TokenVerificationError(.expired, "the JWT has expired") }
        guard iat - leeway <= moment else { throw TokenVerificationError(.notYetValid, "the JWT is issued in the future") }
        guard let typeName = envelope.event_type, let eventType = BlockingEventType(name: typeName) else {
            throw TokenVerificationError(.malformed, "event_type is not one of beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms")
        }
        if let sub = envelope.sub {
            guard !sub.isEmpty, sub.utf8.count <= 128 else { throw TokenVerificationError(.malformed, "sub must be 1 to 128 characters") }
        } else if eventType == .beforeCreate || eventType == .beforeSignIn {
            throw TokenVerificationError(.malformed, "the JWT has no sub (the user's uid)")
        }
        let claims: AuthBlockingEventClaims
        do {
            claims = try JSONDecoder().decode(AuthBlockingEventClaims.self, from: payload)
        } catch {
            throw TokenVerificationError(.malformed, "the JWT's claims are not a blocking event's (\(Self.describe(error)))")
        }
        return try AuthBlockingEvent(claims: claims, eventType: eventType, payload: payload)
    }

    /// Reads a request body `{"data":{"jwt":"…"}}` (nothing else beside `data`, as firebase-functions requires),
    /// then ``verify(_:)``s the JWT.
    public func verify(requestBody body: Data) async throws(TokenVerificationError) -> AuthBlockingEvent {
        try await verify(Self.jwt(inRequestBody: body))
    }

    /// The JWT of a request body `{"data":{"jwt":"…"}}`.
    static func jwt(inRequestBody body: Data) throws(TokenVerificationError) -> String {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body),
              object.count == 1, let data = object["data"]?.objectValue, let jwt = data["jwt"]?.stringValue
        else { throw TokenVerificationError(.malformed, #"the request body is not {"data":{"jwt":"…"}}"#) }
        return jwt
    }

    /// A decoding error in a sentence: which key was missing or of the wrong type (no values).
    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "\((context.codingPath + [key]).map(\.stringValue).joined(separator: ".")) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?: return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context)?: return "\(path(context.codingPath)) is not valid"
        default: return "unreadable"
        }
    }
}

/// A verified blocking-function event: the fields `firebase-functions` gives its handlers, typed, plus the JWT's
/// claims as sent (``claims``, ``payload``).
public struct AuthBlockingEvent: Sendable, Equatable {
    /// `beforeCreate`, `beforeSignIn`, `beforeSendEmail` or `beforeSendSms`.
    public var eventType: BlockingEventType
    /// A unique id of this event (`event_id`).
    public var eventId: String
    /// When the server sent the event (`iat`).
    public var timestamp: Date
    /// The end user's IP address as the server saw it (`ip_address`).
    public var ipAddress: String
    /// The end user's `User-Agent` (`user_agent`).
    public var userAgent: String
    /// The client's locale (`X-Firebase-Locale`), when it sent one.
    public var locale: String?
    /// How the user signs in: `password`, `emailLink`, `google.com`, `passkey` … (`sign_in_method`).
    public var signInMethod: String?
    /// The Identity Platform tenant of the user, nil for the project's own users (`tenant_id`).
    public var tenantId: String?
    /// The user as it will be stored (beforeCreate) or as it is (beforeSignIn); nil for an email/SMS event
    /// without a user.
    public var user: BlockingUserRecord?
    /// What firebase-functions calls `additional_user_info`: provider, profile, username, whether the user is new.
    public var additionalUserInfo: AdditionalUserInfo
    /// The federated provider's credential, when the event carries one (sign-in attributes, or OAuth tokens the
    /// project forwards).
    public var credential: Credential?
    /// `beforeSendEmail`: the message's kind (`email_type`) and address.
    public var emailType: BlockingEmailType?
    /// `beforeSendEmail`: where the message goes.
    public var email: String?
    /// `beforeSendSms`: the message's kind (`sms_type`) and number.
    public var smsType: BlockingSmsType?
    /// `beforeSendSms`: where the message goes.
    public var phoneNumber: String?
    /// The JWT's claims, decoded as sent.
    public var claims: AuthBlockingEventClaims
    /// The JWT's payload JSON, as signed.
    public var payload: Data

    /// The provider and profile of the sign-in (firebase-functions' `AdditionalUserInfo`).
    public struct AdditionalUserInfo: Sendable, Equatable {
        /// The sign-in method, except `emailLink`, which reads `password` (as firebase-functions reports it).
        public var providerId: String?
        /// The provider's profile (`raw_user_info` parsed), for federated sign-ins.
        public var profile: [String: JSONValue]?
        /// `login` (GitHub) or `screen_name` (Twitter) from the profile.
        public var username: String?
        /// True for `beforeCreate`.
        public var isNewUser: Bool
    }

    /// The federated credential (firebase-functions' `Credential`).
    public struct Credential: Sendable, Equatable {
        /// `sign_in_attributes`: the SAML attributes or OIDC claims of the sign-in.
        public var claims: JSONValue?
        /// The provider's ID token (`oauth_id_token`), when the project forwards it.
        public var idToken: String?
        /// The provider's access token (`oauth_access_token`), when the project forwards it.
        public var accessToken: String?
        /// The provider's refresh token (`oauth_refresh_token`), when the project forwards it.
        public var refreshToken: String?
        /// When the access token expires (`iat + oauth_expires_in`).
        public var expirationTime: Date?
        /// An OAuth 1 token secret (`oauth_token_secret`).
        public var secret: String?
        /// As ``AdditionalUserInfo/providerId``.
        public var providerId: String?
        /// `sign_in_method` as sent (`emailLink` stays `emailLink`).
        public var signInMethod: String?
    }

    /// Types the claims of a verified JWT. `user_record` with a `uid` is required for `beforeCreate` and
    /// `beforeSignIn`, and must be `sub`'s user.
    init(claims: AuthBlockingEventClaims, eventType: BlockingEventType, payload: Data) throws(TokenVerificationError) {
        if eventType == .beforeCreate || eventType == .beforeSignIn {
            guard let user = claims.userRecord else { throw TokenVerificationError(.malformed, "a \(eventType.rawValue) event has no user_record") }
            guard user.uid == claims.sub else { throw TokenVerificationError(.malformed, "user_record.uid is not the JWT's sub") }
        }
        guard !claims.eventId.isEmpty else { throw TokenVerificationError(.malformed, "event_id is empty") }
        self.eventType = eventType
        self.eventId = claims.eventId
        self.timestamp = Date(timeIntervalSince1970: TimeInterval(claims.iat))
        self.ipAddress = claims.ipAddress
        self.userAgent = claims.userAgent
        self.locale = claims.locale
        self.signInMethod = claims.signInMethod
        self.tenantId = claims.tenantId.flatMap { $0.isEmpty ? nil : $0 }
        self.user = claims.userRecord
        let providerId = claims.signInMethod.map { $0 == "emailLink" ? "password" : $0 }
        let profile = claims.rawUserInfo.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
        let username: String? = switch claims.signInMethod ?? "" {
        case "github.com": profile?["login"]?.stringValue
        case "twitter.com": profile?["screen_name"]?.stringValue
        default: nil
        }
        self.additionalUserInfo = AdditionalUserInfo(providerId: providerId, profile: profile, username: username,
                                                     isNewUser: eventType == .beforeCreate)
        if claims.signInAttributes != nil || claims.oauthIdToken != nil || claims.oauthAccessToken != nil || claims.oauthRefreshToken != nil {
            self.credential = Credential(
                claims: claims.signInAttributes, idToken: claims.oauthIdToken, accessToken: claims.oauthAccessToken,
                refreshToken: claims.oauthRefreshToken,
                expirationTime: claims.oauthExpiresIn.map { Date(timeIntervalSince1970: TimeInterval(claims.iat + $0)) },
                secret: claims.oauthTokenSecret, providerId: providerId, signInMethod: claims.signInMethod)
        } else {
            self.credential = nil
        }
        self.emailType = claims.emailType.flatMap(BlockingEmailType.init(rawValue:))
        self.email = claims.email
        self.smsType = claims.smsType.flatMap(BlockingSmsType.init(rawValue:))
        self.phoneNumber = claims.phoneNumber
        self.claims = claims
        self.payload = payload
    }
}

extension BlockingUserRecord {
    /// When the user was created (`metadata.creation_time`).
    public var creationDate: Date { Date(timeIntervalSince1970: TimeInterval(metadata.creationTime) / 1000) }
    /// When the user last signed in (`metadata.last_sign_in_time`), if ever.
    public var lastSignInDate: Date? { metadata.lastSignInTime.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } }
}
