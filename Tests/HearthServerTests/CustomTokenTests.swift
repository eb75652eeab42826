import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Testing

@Suite struct CustomTokenTests {
    func withRegisteredAccount(configure: (inout HearthServerConfiguration) -> Void = { _ in },
                               _ body: @Sendable @escaping (HearthHarness, TestServiceAccount) async throws -> Void) async throws {
        let account = try TestServiceAccount()
        try await HearthHarness.run(configure: configure) { h in
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            try await body(h, account)
        }
    }

    @Test func validCustomTokenSignsInAndCreatesTheUser() async throws {
        try await withRegisteredAccount { h, account in
            let token = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "app-user-42",
                                                                 claims: ["premium": .bool(true)], issuedAt: h.clock.now))
            let reply = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(reply.status == 200)
            let body = try reply.decode(SignInWithCustomTokenResponse.self)
            #expect(body.isNewUser)
            let idToken = try #require(body.idToken)
            let claims = try #require(jwtPayload(idToken))
            #expect(claims["sub"] as? String == "app-user-42")
            #expect(claims["premium"] as? Bool == true)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "custom")
            // The session claims survive a refresh.
            let refreshed = try await h.refresh(try #require(body.refreshToken)).decode(GrantTokenResponse.self)
            #expect(jwtPayload(refreshed.idToken)?["premium"] as? Bool == true)
            // The second sign-in finds the same user.
            let again = try await h.post(WirePaths.v3("verifyCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(try again.decode(SignInWithCustomTokenResponse.self).isNewUser == false)
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test func tokenWithoutKidIsCheckedAgainstTheAccountsKeys() async throws {
        try await withRegisteredAccount { h, account in
            // jwt-kit always writes the kid it signs with; an unknown kid must be refused...
            let wrongKid = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: h.clock.now), kid: "other-key")
            #expect(try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: wrongKid)).errorCode == "INVALID_CUSTOM_TOKEN")
        }
    }

    /// A production project: unsigned (emulator-mode) custom tokens are refused.
    static func production(_ configuration: inout HearthServerConfiguration) {
        configuration.projectId = "hearth-prod"
        configuration.apiKeys = ["test-key"]
    }

    @Test func attacksFail() async throws {
        try await withRegisteredAccount(configure: Self.production) { h, account in
            let now = h.clock.now
            let path = WirePaths.accounts("signInWithCustomToken")
            func code(_ token: String) async throws -> String? {
                try await h.post(path, SignInWithCustomTokenRequest(token: token)).errorCode
            }
            // Signed by an unregistered key claiming to be the registered account.
            let impostor = try TestServiceAccount(email: account.email, keyId: account.keyId)
            #expect(try await code(impostor.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: now))) == "INVALID_CUSTOM_TOKEN")
            // An account that was never registered.
            let stranger = try TestServiceAccount(email: "stranger@evil.iam.gserviceaccount.com")
            #expect(try await code(stranger.sign(CustomTokenClaims(serviceAccount: stranger.email, uid: "u1", issuedAt: now))) == "INVALID_CUSTOM_TOKEN")
            // Wrong audience.
            #expect(try await code(account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: now, audience: "https://example.com"))) == "CREDENTIAL_MISMATCH")
            // Expired, and too long-lived.
            #expect(try await code(account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: now.addingTimeInterval(-7200)))) == "INVALID_CUSTOM_TOKEN")
            #expect(try await code(account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: now, lifetime: 7200))) == "INVALID_CUSTOM_TOKEN")
            // Reserved claims.
            #expect(try await code(account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", claims: ["sub": .string("admin")], issuedAt: now))) == "INVALID_CLAIMS")
            // alg none and a tampered payload.
            let payload: [String: Any] = ["iss": account.email, "sub": account.email, "aud": CustomTokenClaims.audience,
                                          "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 600, "uid": "admin"]
            #expect(try await code(rawJWT(header: ["alg": "none", "typ": "JWT"], payload: payload)) == "INVALID_CUSTOM_TOKEN")
            let genuine = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: now))
            let parts = genuine.split(separator: ".")
            let forgedPayload = try rawJWT(header: [:], payload: payload).split(separator: ".")[1]
            #expect(try await code("\(parts[0]).\(forgedPayload).\(parts[2])") == "INVALID_CUSTOM_TOKEN")
            #expect(try await code("not.a.jwt") == "INVALID_CUSTOM_TOKEN")
            #expect(try await h.post(path, raw: "{}").errorCode == "MISSING_CUSTOM_TOKEN")
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func disabledCustomUser() async throws {
        try await withRegisteredAccount { h, account in
            let token = try await account.sign(CustomTokenClaims(serviceAccount: account.email, uid: "u1", issuedAt: h.clock.now))
            _ = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            var user = try #require(try await h.store.user(localId: "u1"))
            user.disabled = true
            try await h.store.updateUser(user)
            #expect(try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token)).errorCode == "USER_DISABLED")
        }
    }
}
