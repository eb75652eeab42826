import Foundation
import HearthWire

/// A refresh token as stored: only its SHA-256 hash, never the token itself.
///
/// Tokens of one sign-in form a family; each use rotates the token (the old one is marked rotated). A rotated
/// token presented again within the grace window gets a sibling (concurrent refreshes); later, it is taken as
/// stolen and the whole family is revoked.
public struct RefreshTokenRecord: Sendable, Equatable {
    public var tokenHash: String
    public var familyId: String
    public var localId: String
    /// When the family's sign-in happened: the ID tokens' `auth_time`.
    public var authTime: Date
    /// `firebase.sign_in_provider` of the family's ID tokens.
    public var signInProvider: String
    public var createdAt: Date
    public var rotatedAt: Date?
    public var revoked: Bool
    /// Claims that belong to this sign-in (a custom token's `claims`), added to every ID token of the family.
    public var sessionClaims: [String: JSONValue]
    /// The Identity Platform tenant of the session's user (nil: the project's); written by the store, from its binding.
    public var tenantId: String?

    public init(tokenHash: String, familyId: String, localId: String, authTime: Date, signInProvider: String,
                createdAt: Date, rotatedAt: Date? = nil, revoked: Bool = false, sessionClaims: [String: JSONValue] = [:]) {
        self.tokenHash = tokenHash
        self.familyId = familyId
        self.localId = localId
        self.authTime = authTime
        self.signInProvider = signInProvider
        self.createdAt = createdAt
        self.rotatedAt = rotatedAt
        self.revoked = revoked
        self.sessionClaims = sessionClaims
    }

    /// A new random token (returned to the client once) and its record.
    public static func issue(localId: String, familyId: String = RandomID.token(byteCount: 16), authTime: Date,
                             signInProvider: String, sessionClaims: [String: JSONValue] = [:], now: Date) -> (token: String, record: RefreshTokenRecord) {
        let token = "hrt1." + RandomID.token(byteCount: 32)
        let record = RefreshTokenRecord(tokenHash: hash(token), familyId: familyId, localId: localId,
                                        authTime: authTime, signInProvider: signInProvider, createdAt: now,
                                        sessionClaims: sessionClaims)
        return (token, record)
    }

    /// The stored form of a token.
    public static func hash(_ token: String) -> String {
        token.sha256Hex
    }
}
