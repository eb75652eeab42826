import Foundation
import HearthCore
import HearthWire

/// What a sign-in tells a blocking function beyond the user: filled at the call sites (the exits), forwarded as the
/// JWT's `sign_in_method`, `raw_user_info`, `sign_in_attributes` and — only when the project's
/// `forwardInboundCredentials` allows each — the provider's tokens.
public struct BlockingSignIn: Sendable, Equatable {
    /// `sign_in_method`: `password`, `emailLink`, `google.com`, `passkey`, …
    public var method: String
    /// `sign_in_second_factor`: `totp`, `passkey` … when the sign-in finished with a second factor.
    public var secondFactor: String?
    /// The provider's profile, sent as the JSON string `raw_user_info` — encoded only when a function is called, so a
    /// project without functions pays nothing for it.
    public var rawUserInfo: [String: JSONValue]?
    public var oauthIdToken: String?
    public var oauthAccessToken: String?
    public var oauthRefreshToken: String?
    /// Seconds until `oauthAccessToken` expires.
    public var oauthExpiresIn: Int?
    /// `sign_in_attributes`: SAML attributes / the OIDC ID token's claims.
    public var signInAttributes: JSONValue?

    public init(method: String, secondFactor: String? = nil, rawUserInfo: [String: JSONValue]? = nil, oauthIdToken: String? = nil,
                oauthAccessToken: String? = nil, oauthRefreshToken: String? = nil, oauthExpiresIn: Int? = nil,
                signInAttributes: JSONValue? = nil) {
        self.method = method
        self.secondFactor = secondFactor
        self.rawUserInfo = rawUserInfo
        self.oauthIdToken = oauthIdToken
        self.oauthAccessToken = oauthAccessToken
        self.oauthRefreshToken = oauthRefreshToken
        self.oauthExpiresIn = oauthExpiresIn
        self.signInAttributes = signInAttributes
    }
}

/// The changes a `beforeCreate` / `beforeSignIn` function's answer asks for, checked: only the fields its
/// `updateMask` names (no mask: the fields present). `customClaims` persist; `sessionClaims` (beforeSignIn only)
/// go into this session's tokens.
public struct BlockingUpdate: Sendable, Equatable {
    /// `.some(nil)`: clear the display name.
    public var displayName: String??
    /// `.some(nil)`: clear the photo URL.
    public var photoURL: String??
    public var disabled: Bool?
    public var emailVerified: Bool?
    /// Replaces the user's custom claims.
    public var customClaims: [String: JSONValue]?
    /// This session's extra claims (merged over the custom claims in its tokens, never over `firebase`).
    public var sessionClaims: [String: JSONValue]?

    public init(displayName: String?? = nil, photoURL: String?? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
                customClaims: [String: JSONValue]? = nil, sessionClaims: [String: JSONValue]? = nil) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customClaims = customClaims
        self.sessionClaims = sessionClaims
    }

    /// True when the answer changes nothing stored (session claims aside).
    public var changesNothingStored: Bool {
        displayName == nil && photoURL == nil && disabled == nil && emailVerified == nil && customClaims == nil
    }

    /// Applies the stored fields to `user` (session claims are not the user's).
    public func apply(to user: inout UserRecord) {
        if let displayName { user.displayName = displayName }
        if let photoURL { user.photoUrl = photoURL }
        if let disabled { user.disabled = disabled }
        if let emailVerified { user.emailVerified = emailVerified }
        if let customClaims { user.customClaims = customClaims }
    }

    /// The checked update of an answer to `event`, or `BLOCKING_FUNCTION_ERROR_RESPONSE` naming the problem: claims
    /// over 1000 characters of JSON (each, and both merged), reserved claim names, session claims in beforeCreate, a
    /// display name or photo URL of an unusable size.
    static func checked(_ record: BlockingFunctionAnswer.UserRecord, event: BlockingEventType) throws -> BlockingUpdate {
        let mask = record.updateMask.map { _ in record.maskedFields }
        func named(_ field: String, present: Bool) -> Bool { mask.map { $0.contains(field) } ?? present }
        var update = BlockingUpdate()
        if named("displayName", present: record.displayName != nil) {
            if let name = record.displayName, name.count > 256 || name.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw refusal("the function's answer has a displayName longer than 256 characters or with control characters")
            }
            update.displayName = .some(record.displayName)
        }
        if named("photoURL", present: record.photoURL != nil) {
            if let url = record.photoURL, url.count > 2048 || url.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                throw refusal("the function's answer has a photoURL longer than 2048 characters or with control characters")
            }
            update.photoURL = .some(record.photoURL)
        }
        if named("disabled", present: record.disabled != nil) { update.disabled = record.disabled ?? false }
        if named("emailVerified", present: record.emailVerified != nil) { update.emailVerified = record.emailVerified ?? false }
        if named("customClaims", present: record.customClaims != nil) { update.customClaims = record.customClaims ?? [:] }
        if named("sessionClaims", present: record.sessionClaims != nil) { update.sessionClaims = record.sessionClaims }
        let limit = BlockingFunctionLimits.maximumClaimsCharacters
        switch BlockingFunctionLimits.problem(customClaims: update.customClaims, sessionClaims: update.sessionClaims, event: event,
                                              length: { JSONValue.object($0).compactJSONString.count }) {
        case nil: return update
        case .sessionClaimsOutsideBeforeSignIn(let names):
            throw refusal("the function's answer sets sessionClaims (\(names.joined(separator: ",").prefix(100))) in \(event.rawValue); session claims may only be set by beforeSignIn")
        case .reserved(let field, let names):
            throw refusal("the function's answer sets the reserved \(field) claim\(names.count == 1 ? "" : "s") \"\(names.joined(separator: ","))\", which only Hearth may set")
        case .tooLong(let field):
            throw refusal("the function's answer has \(field) over \(limit) characters of JSON")
        case .combinedTooLong:
            throw refusal("the function's answer has customClaims and sessionClaims over \(limit) characters of JSON combined")
        }
    }

    static func refusal(_ detail: String) -> HearthAPIError {
        HearthAPIError(.blockingFunctionError, detail)
    }
}
