import Foundation
import HearthCore
import HearthWire
import Testing

@Suite struct IDTokenClaimsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func user() -> UserRecord {
        UserRecord(localId: "uid-1", email: "ada@example.com", emailVerified: true, displayName: "Ada", createdAt: now,
                   validSince: now, customClaims: ["admin": .bool(true), "iss": .string("evil")],
                   identities: [ProviderIdentity(providerId: "microsoft.com", federatedId: "4b2eabcdefabcdef")])
    }

    @Test func firebaseShape() throws {
        let claims = IDTokenClaims(projectId: "demo-x", user: user(), signInProvider: "password",
                                   authTime: now.addingTimeInterval(-100), issuedAt: now, lifetime: 3600,
                                   sessionClaims: ["tier": .string("gold"), "admin": .bool(false)])
        let data = try JSONEncoder().encode(claims)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["iss"] as? String == "https://securetoken.google.com/demo-x")
        #expect(object["aud"] as? String == "demo-x")
        #expect(object["sub"] as? String == "uid-1")
        #expect(object["user_id"] as? String == "uid-1")
        #expect(object["auth_time"] as? Int == 1_799_999_900)
        #expect(object["iat"] as? Int == 1_800_000_000)
        #expect(object["exp"] as? Int == 1_800_003_600)
        #expect(object["email_verified"] as? Bool == true)
        #expect(object["name"] as? String == "Ada")
        // The session's claim (a custom token's, a blocking function's session claims) wins over the user's own, as
        // in the Auth emulator (`...customAttributes, ...extraClaims`) and Firebase's blocking-function docs (issue
        // 39); standard claims cannot be overridden.
        #expect(object["admin"] as? Bool == false)
        #expect(object["tier"] as? String == "gold")
        let firebase = try #require(object["firebase"] as? [String: Any])
        #expect(firebase["sign_in_provider"] as? String == "password")
        let identities = try #require(firebase["identities"] as? [String: [String]])
        #expect(identities["email"] == ["ada@example.com"])
        #expect(identities["microsoft.com"] == ["4b2eabcdefabcdef"])
        let decoded = try JSONDecoder().decode(IDTokenClaims.self, from: data)
        #expect(decoded == claims)
    }

    @Test func anonymousUsersCarryProviderId() throws {
        let anonymous = UserRecord(localId: "anon", createdAt: now, validSince: now)
        let claims = IDTokenClaims(projectId: "p", user: anonymous, signInProvider: "anonymous", authTime: now, issuedAt: now, lifetime: 3600)
        #expect(claims.providerId == "anonymous")
        #expect(claims.email == nil)
    }

    @Test func validation() throws {
        let claims = IDTokenClaims(projectId: "p", user: user(), signInProvider: "password", authTime: now, issuedAt: now, lifetime: 3600)
        try claims.validate(projectId: "p", now: now.addingTimeInterval(10))
        #expect(throws: TokenValidationError.wrongIssuer) { try claims.validate(projectId: "other", now: now) }
        var wrongAudience = claims
        wrongAudience.audience = "other"
        #expect(throws: TokenValidationError.wrongAudience) { try wrongAudience.validate(projectId: "p", now: now) }
        #expect(throws: TokenValidationError.expired) { try claims.validate(projectId: "p", now: now.addingTimeInterval(3_606)) }
        #expect(throws: TokenValidationError.notYetValid) { try claims.validate(projectId: "p", now: now.addingTimeInterval(-600)) }
    }

    @Test func customTokenValidation() {
        var claims = CustomTokenClaims(serviceAccount: "sa@x.iam.gserviceaccount.com", uid: "u1", issuedAt: now)
        #expect(throws: Never.self) { try claims.validate(now: now) }
        claims.exp = claims.iat + 3601
        #expect(throws: TokenValidationError.lifetimeTooLong) { try claims.validate(now: now) }
        claims.exp = claims.iat + 60
        #expect(throws: TokenValidationError.expired) { try claims.validate(now: now.addingTimeInterval(120)) }
        claims.claims = ["firebase": .string("x")]
        #expect(throws: TokenValidationError.reservedClaim("firebase")) { try claims.validate(now: now) }
        claims.claims = nil
        claims.sub = "other@x"
        #expect(throws: TokenValidationError.wrongIssuer) { try claims.validate(now: now) }
        claims.sub = claims.iss
        claims.uid = String(repeating: "a", count: 129)
        #expect(throws: TokenValidationError.malformed) { try claims.validate(now: now) }
    }
}
