import Foundation
import HearthTesting
import HearthWire
import Testing

@Suite struct SecureTokenTests {
    @Test func jsonCamelCaseRefresh() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            h.clock.advance(by: 100)
            let reply = try await h.post(WirePaths.secureToken, raw: #"{"grantType":"refresh_token","refreshToken":"\#(created.refreshToken!)"}"#)
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_in"] as? String == "3600")
            #expect(json["user_id"] as? String == created.localId)
            #expect(json["project_id"] as? String == "demo-hearth")
            let access = try #require(json["access_token"] as? String)
            #expect(access == json["id_token"] as? String)
            let claims = try #require(jwtPayload(access))
            // auth_time is the original sign-in, iat the refresh.
            let originalAuthTime = try #require(jwtPayload(created.idToken!)?["auth_time"] as? Int)
            #expect(claims["auth_time"] as? Int == originalAuthTime)
            #expect(claims["iat"] as? Int == originalAuthTime + 100)
            #expect(json["refresh_token"] as? String != created.refreshToken)
        }
    }

    @Test func formSnakeCaseRefresh() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let token = created.refreshToken!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let reply = try await h.send(.post, WirePaths.secureToken + "?key=k", body: "grant_type=refresh_token&refresh_token=\(token)",
                                         contentType: "application/x-www-form-urlencoded")
            #expect(reply.status == 200)
            #expect(try reply.decode(GrantTokenResponse.self).userId == created.localId)
        }
    }

    @Test func rotationAndReuseDetection() async throws {
        try await HearthHarness.run(configure: { $0.refreshGraceWindow = 30 }) { h in
            let created = try await h.signUp(email: "ada@example.com")
            let first = try #require(created.refreshToken)
            let second = try await h.refresh(first).decode(GrantTokenResponse.self).refreshToken
            // Concurrent refresh with the same token inside the grace window still works.
            h.clock.advance(by: 10)
            let sibling = try await h.refresh(first)
            #expect(sibling.status == 200)
            // Later, the rotated-away token is taken as stolen: the whole chain is revoked.
            h.clock.advance(by: 60)
            let replay = try await h.refresh(first)
            #expect(replay.errorCode == "TOKEN_EXPIRED")
            #expect(try await h.refresh(second).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.refresh(try sibling.decode(GrantTokenResponse.self).refreshToken).errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func validSinceRevokesSessionsAndIDTokens() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            h.clock.advance(by: 5)
            var user = try #require(try await h.store.user(localId: created.localId))
            user.validSince = h.clock.now
            try await h.store.updateUser(user)
            #expect(try await h.lookup(created.idToken!).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.refresh(created.refreshToken!).errorCode == "TOKEN_EXPIRED")
            // A new sign-in is fine.
            let fresh = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            #expect(try await h.lookup(fresh.idToken!).status == 200)
        }
    }

    @Test func disabledAndDeletedUsers() async throws {
        try await HearthHarness.run { h in
            let ada = try await h.signUp(email: "ada@example.com")
            var user = try #require(try await h.store.user(localId: ada.localId))
            user.disabled = true
            try await h.store.updateUser(user)
            #expect(try await h.refresh(ada.refreshToken!).errorCode == "USER_DISABLED")
            #expect(try await h.lookup(ada.idToken!).errorCode == "USER_DISABLED")
        }
    }

    @Test(arguments: [
        (#"{"refreshToken":"x"}"#, "MISSING_GRANT_TYPE"),
        (#"{"grantType":"authorization_code","refreshToken":"x"}"#, "INVALID_GRANT_TYPE"),
        (#"{"grantType":"refresh_token"}"#, "MISSING_REFRESH_TOKEN"),
        (#"{"grantType":"refresh_token","refreshToken":"hrt1.unknown"}"#, "INVALID_REFRESH_TOKEN"),
        (#"{"grant_type":"refresh_token","refresh_token":"nope"}"#, "INVALID_REFRESH_TOKEN"),
    ])
    func errors(_ body: String, _ code: String) async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.secureToken, raw: body)
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
        }
    }
}
