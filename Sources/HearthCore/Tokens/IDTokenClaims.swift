import Foundation
import HearthWire
import JWTKit

/// The claims of a Hearth ID token, in Firebase's format.
///
/// `iss = https://securetoken.google.com/<project>`, `aud = <project>`, `sub = user_id = uid`, `auth_time` (the
/// original sign-in), `iat`, `exp = iat + 3600`, optional profile claims, the `firebase` object and any custom
/// claims at the top level.
public struct IDTokenClaims: JWTPayload, Equatable {
    public var issuer: String
    public var audience: String
    public var subject: String
    public var authTime: Int64
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var email: String?
    public var emailVerified: Bool?
    /// `phone_number`: the user's number (E.164), when they have one.
    public var phoneNumber: String?
    public var name: String?
    public var picture: String?
    /// `anonymous` for anonymous users, as Firebase sends it.
    public var providerId: String?
    public var firebase: FirebaseClaim
    public var custom: [String: JSONValue]

    /// The `firebase` claim.
    public struct FirebaseClaim: Codable, Sendable, Equatable {
        /// `{"email": [...], "microsoft.com": [...]}`.
        public var identities: [String: [String]]
        /// `password`, `anonymous`, `custom`, `microsoft.com`, ...
        public var signInProvider: String
        public var tenant: String?
        /// `totp` when the session's sign-in passed a second factor.
        public var signInSecondFactor: String?
        /// The `mfaEnrollmentId` of that second factor.
        public var secondFactorIdentifier: String?

        public init(identities: [String: [String]], signInProvider: String, tenant: String? = nil,
                    signInSecondFactor: String? = nil, secondFactorIdentifier: String? = nil) {
            self.identities = identities
            self.signInProvider = signInProvider
            self.tenant = tenant
            self.signInSecondFactor = signInSecondFactor
            self.secondFactorIdentifier = secondFactorIdentifier
        }

        enum CodingKeys: String, CodingKey {
            case identities
            case signInProvider = "sign_in_provider"
            case tenant
            case signInSecondFactor = "sign_in_second_factor"
            case secondFactorIdentifier = "second_factor_identifier"
        }
    }

    /// Claim names a developer may not set (Firebase's reserved list plus the ones Hearth always writes).
    public static var reservedClaimNames: Set<String> { CustomTokenClaims.reservedClaimNames }

    static let standardNames: Set<String> = [
        "iss", "aud", "sub", "user_id", "auth_time", "iat", "exp", "email", "email_verified", "phone_number", "name",
        "picture", "provider_id", "firebase",
    ]

    /// The issuer Firebase verifiers expect for `projectId`.
    public static func issuer(for projectId: String) -> String { "https://securetoken.google.com/\(projectId)" }

    static let secondFactorKey = "sign_in_second_factor"
    static let secondFactorIdentifierKey = "second_factor_identifier"

    /// The session claims that put a passed second factor into every ID token of the session (kept under
    /// `firebase`, a name developers may not use, so a custom claim can never forge it).
    public static func secondFactorSessionClaims(kind: String, enrollmentId: String) -> [String: JSONValue] {
        ["firebase": .object([secondFactorKey: .string(kind), secondFactorIdentifierKey: .string(enrollmentId)])]
    }

    /// Claims for `user`'s session. `sessionClaims` (a custom token's claims, a blocking function's session claims)
    /// are added over the user's own custom claims (a session claim wins a name clash, as Firebase documents for
    /// blocking functions); neither ever replaces a standard claim or `firebase`.
    public init(projectId: String, user: UserRecord, signInProvider: String, authTime: Date, issuedAt: Date, lifetime: TimeInterval,
                sessionClaims: [String: JSONValue] = [:]) {
        self.issuer = Self.issuer(for: projectId)
        self.audience = projectId
        self.subject = user.localId
        self.authTime = Int64(authTime.timeIntervalSince1970)
        self.issuedAt = Int64(issuedAt.timeIntervalSince1970)
        self.expiresAt = self.issuedAt + Int64(lifetime)
        self.email = user.email
        self.emailVerified = user.email == nil ? nil : user.emailVerified
        self.phoneNumber = user.phoneNumber
        self.name = user.displayName
        self.picture = user.photoUrl
        self.providerId = user.isAnonymous ? "anonymous" : nil
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email"] = [email] }
        for identity in user.identities { identities[identity.providerId, default: []].append(identity.federatedId) }
        var firebase = FirebaseClaim(identities: identities, signInProvider: signInProvider, tenant: user.tenantId)
        if case .object(let session)? = sessionClaims["firebase"] {
            firebase.signInSecondFactor = session[Self.secondFactorKey]?.stringValue
            firebase.secondFactorIdentifier = session[Self.secondFactorIdentifierKey]?.stringValue
        }
        self.firebase = firebase
        self.custom = user.customClaims.merging(sessionClaims) { _, session in session }.filter { !Self.standardNames.contains($0.key) }
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        // Time, issuer and audience checks need the project and an injectable clock: see `validate(projectId:now:)`.
    }

    /// Checks issuer, audience, subject and times. Throws ``TokenValidationError``.
    public func validate(projectId: String, now: Date, leeway: TimeInterval = 5) throws(TokenValidationError) {
        guard issuer == Self.issuer(for: projectId) else { throw .wrongIssuer }
        guard audience == projectId else { throw .wrongAudience }
        guard !subject.isEmpty, subject.utf8.count <= 128 else { throw .malformed }
        let nowSeconds = now.timeIntervalSince1970
        guard Double(expiresAt) + leeway > nowSeconds else { throw .expired }
        guard Double(issuedAt) - leeway <= nowSeconds, Double(authTime) - leeway <= nowSeconds else { throw .notYetValid }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        issuer = try c.decode(String.self, forKey: AnyCodingKey("iss"))
        audience = try c.decode(String.self, forKey: AnyCodingKey("aud"))
        subject = try c.decode(String.self, forKey: AnyCodingKey("sub"))
        authTime = try c.decode(Int64.self, forKey: AnyCodingKey("auth_time"))
        issuedAt = try c.decode(Int64.self, forKey: AnyCodingKey("iat"))
        expiresAt = try c.decode(Int64.self, forKey: AnyCodingKey("exp"))
        email = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("email"))
        emailVerified = try c.decodeIfPresent(Bool.self, forKey: AnyCodingKey("email_verified"))
        phoneNumber = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("phone_number"))
        name = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("name"))
        picture = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("picture"))
        providerId = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("provider_id"))
        firebase = try c.decode(FirebaseClaim.self, forKey: AnyCodingKey("firebase"))
        var custom: [String: JSONValue] = [:]
        for key in c.allKeys where !Self.standardNames.contains(key.stringValue) {
            custom[key.stringValue] = try c.decode(JSONValue.self, forKey: key)
        }
        self.custom = custom
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in custom where !Self.standardNames.contains(key) {
            try c.encode(value, forKey: AnyCodingKey(key))
        }
        try c.encodeIfPresent(name, forKey: AnyCodingKey("name"))
        try c.encodeIfPresent(picture, forKey: AnyCodingKey("picture"))
        try c.encodeIfPresent(providerId, forKey: AnyCodingKey("provider_id"))
        try c.encode(issuer, forKey: AnyCodingKey("iss"))
        try c.encode(audience, forKey: AnyCodingKey("aud"))
        try c.encode(authTime, forKey: AnyCodingKey("auth_time"))
        try c.encode(subject, forKey: AnyCodingKey("user_id"))
        try c.encode(subject, forKey: AnyCodingKey("sub"))
        try c.encode(issuedAt, forKey: AnyCodingKey("iat"))
        try c.encode(expiresAt, forKey: AnyCodingKey("exp"))
        try c.encodeIfPresent(email, forKey: AnyCodingKey("email"))
        try c.encodeIfPresent(emailVerified, forKey: AnyCodingKey("email_verified"))
        try c.encodeIfPresent(phoneNumber, forKey: AnyCodingKey("phone_number"))
        try c.encode(firebase, forKey: AnyCodingKey("firebase"))
    }
}

/// Why a token was refused.
public enum TokenValidationError: Error, Equatable, Sendable {
    case malformed
    case badSignature
    case unknownKey
    case wrongIssuer
    case wrongAudience
    case expired
    case notYetValid
    case lifetimeTooLong
    case unknownSigner
    case reservedClaim(String)
}
