import Foundation
import HearthCore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

@Suite struct LookupTests {
    @Test func lookupDescribesTheUser() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let reply = try await h.lookup(try #require(created.idToken))
            #expect(reply.status == 200)
            let body = try reply.decode(LookupResponse.self)
            let user = try #require(body.users.first)
            #expect(user.localId == created.localId)
            #expect(user.email == "ada@example.com")
            #expect(!user.emailVerified)
            #expect(user.providerUserInfo.map(\.providerId) == ["password"])
            #expect(user.providerUserInfo.first?.rawId == "ada@example.com")
            #expect(user.createdAt == String(Int64(h.clock.now.timeIntervalSince1970 * 1000)))
            #expect(user.validSince == String(Int64(h.clock.now.timeIntervalSince1970)))
            #expect(reply.json?["kind"] as? String == "identitytoolkit#GetAccountInfoResponse")
            #expect(!reply.text.contains("passwordHash"))
            #expect(try await h.post(WirePaths.v3("getAccountInfo"), LookupRequest(idToken: created.idToken)).status == 200)
        }
    }

    @Test func lookupErrors() async throws {
        try await HearthHarness.run { h in
            #expect(try await h.lookup("").errorCode == "MISSING_ID_TOKEN")
            #expect(try await h.lookup("garbage").errorCode == "INVALID_ID_TOKEN")
            let created = try await h.signUp(email: "ada@example.com")
            let token = try #require(created.idToken)
            h.clock.advance(by: 3_700)
            #expect(try await h.lookup(token).errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func deletedUsersTokensAreUserNotFound() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            try await h.store.deleteUser(localId: created.localId)
            #expect(try await h.lookup(try #require(created.idToken)).errorCode == "USER_NOT_FOUND")
        }
    }
}

@Suite struct UpdateTests {
    @Test func profileUpdatesAndAttributeDeletion() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let reply = try await h.post(WirePaths.accounts("update"), raw: """
                {"idToken":"\(created.idToken!)","displayName":"Ada L.","photoUrl":"https://example.com/ada.png","email":null,"returnSecureToken":true}
                """)
            #expect(reply.status == 200)
            let body = try reply.decode(UpdateResponse.self)
            #expect(body.displayName == "Ada L.")
            #expect(body.photoUrl == "https://example.com/ada.png")
            #expect(body.email == "ada@example.com")
            // A profile change does not start a new session.
            #expect(body.idToken == nil)
            let cleared = try await h.post(WirePaths.v3("setAccountInfo"), UpdateRequest(idToken: created.idToken, deleteAttribute: ["DISPLAY_NAME", "PHOTO_URL"]))
            let after = try cleared.decode(UpdateResponse.self)
            #expect(after.displayName == nil)
            #expect(after.photoUrl == nil)
        }
    }

    @Test func passwordChangeRevokesOtherSessionsAndReturnsNewTokens() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let other = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            h.clock.advance(by: 2)
            let reply = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, password: "new password"))
            #expect(reply.status == 200)
            let body = try reply.decode(UpdateResponse.self)
            let newToken = try #require(body.idToken)
            #expect(try await h.lookup(newToken).status == 200)
            // The other session's ID token and refresh token are dead.
            #expect(try await h.lookup(try #require(other.idToken)).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.refresh(try #require(other.refreshToken)).errorCode == "TOKEN_EXPIRED")
            // The new refresh token works, and the new password signs in, the old does not.
            #expect(try await h.refresh(try #require(body.refreshToken)).status == 200)
            #expect(try await h.signIn(email: "ada@example.com", password: "new password").status == 200)
            #expect(try await h.signIn(email: "ada@example.com").errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func emailChangeUnverifiesAndChecksUniqueness() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "bob@example.com")
            let created = try await h.signUp(email: "ada@example.com")
            let taken = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, email: "BOB@example.com"))
            #expect(taken.errorCode == "EMAIL_EXISTS")
            let invalid = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, email: "nope"))
            #expect(invalid.errorCode == "INVALID_EMAIL")
            let changed = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, email: "ada@new.example.com"))
            #expect(changed.status == 200)
            let body = try changed.decode(UpdateResponse.self)
            #expect(body.email == "ada@new.example.com")
            #expect(!body.emailVerified)
            #expect(body.idToken != nil)
            #expect(try await h.signIn(email: "ada@new.example.com").status == 200)
        }
    }

    @Test func sensitiveChangesNeedARecentLogin() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            h.clock.advance(by: 301)
            // Refreshing keeps the original auth_time, so it does not count as a recent login.
            let refreshed = try await h.refresh(try #require(created.refreshToken)).decode(GrantTokenResponse.self)
            for request in [UpdateRequest(idToken: refreshed.idToken, password: "new password"),
                            UpdateRequest(idToken: refreshed.idToken, email: "x@example.com")] {
                let reply = try await h.post(WirePaths.accounts("update"), request)
                #expect(reply.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            }
            #expect(try await h.post(WirePaths.accounts("delete"), DeleteAccountRequest(idToken: refreshed.idToken)).errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            // A profile change is fine.
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: refreshed.idToken, displayName: "A")).status == 200)
        }
    }

    @Test func updateErrors() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: nil, displayName: "x")).errorCode == "MISSING_ID_TOKEN")
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, password: "123")).errorCode == "WEAK_PASSWORD")
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, photoUrl: "javascript:alert(1)")).errorCode == "INVALID_PHOTO_URL")
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, deleteAttribute: ["EMAIL"])).errorCode == "INVALID_ARGUMENT")
            let anonymous = try await h.post(WirePaths.accounts("signUp"), raw: "{}").decode(SignUpResponse.self)
            #expect(try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: anonymous.idToken, password: "secret1")).errorCode == "MISSING_EMAIL")
        }
    }

    @Test func deleteProviderPasswordRemovesIt() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let reply = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: created.idToken, deleteProvider: ["password"]))
            #expect(reply.status == 200)
            #expect(try reply.decode(UpdateResponse.self).providerUserInfo.isEmpty)
            #expect(try await h.signIn(email: "ada@example.com").errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }
}

@Suite struct DeleteTests {
    @Test func deleteRemovesTheAccountAndItsSessions() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let reply = try await h.post(WirePaths.accounts("delete"), DeleteAccountRequest(idToken: created.idToken))
            #expect(reply.status == 200)
            #expect(reply.json?["kind"] as? String == "identitytoolkit#DeleteAccountResponse")
            #expect(try await h.store.user(localId: created.localId) == nil)
            #expect(try await h.refresh(try #require(created.refreshToken)).errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await h.post(WirePaths.v3("deleteAccount"), DeleteAccountRequest(idToken: created.idToken)).errorCode == "USER_NOT_FOUND")
            // The email is free again.
            _ = try await h.signUp(email: "ada@example.com")
        }
    }
}

@Suite struct CreateAuthUriTests {
    @Test func listsSignInMethods() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            var user = try #require(try await h.store.user(localId: created.localId))
            user.identities = [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-1")]
            try await h.store.updateUser(user)
            let reply = try await h.post(WirePaths.v3("createAuthUri"), raw: #"{"identifier":"Ada@example.com","continueUri":"http://www.google.com/"}"#)
            #expect(reply.status == 200)
            let body = try reply.decode(CreateAuthUriResponse.self)
            #expect(body.registered == true)
            #expect(body.signinMethods == ["password", "microsoft.com"])
            #expect(body.allProviders == ["password", "microsoft.com"])
            #expect(body.sessionId.count == 27)
            let unknown = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "nobody@example.com")).decode(CreateAuthUriResponse.self)
            #expect(unknown.registered == false)
            #expect(unknown.signinMethods == nil)
        }
    }

    @Test func emailEnumerationProtectionRevealsNothing() async throws {
        try await HearthHarness.run(configure: { config in
            config.initialProjectConfig = ProjectConfig(projectId: config.projectId, emailEnumerationProtection: true)
        }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            let known = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "ada@example.com"))
            let unknown = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "x@example.com"))
            #expect(known.status == 200)
            #expect(Set(known.json?.keys.map { $0 } ?? []) == ["kind", "sessionId"])
            #expect(Set(unknown.json?.keys.map { $0 } ?? []) == ["kind", "sessionId"])
        }
    }

    @Test(arguments: [
        (#"{"continueUri":"http://localhost"}"#, "MISSING_IDENTIFIER"),
        (#"{"identifier":"nope","continueUri":"http://localhost"}"#, "INVALID_IDENTIFIER"),
        (#"{"identifier":"ada@example.com"}"#, "MISSING_CONTINUE_URI"),
        (#"{"identifier":"ada@example.com","continueUri":"::not a uri"}"#, "INVALID_CONTINUE_URI"),
    ])
    func errors(_ body: String, _ code: String) async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("createAuthUri"), raw: body)
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
        }
    }
}

@Suite struct ProjectConfigTests {
    @Test func getProjectConfigByGetAndPost() async throws {
        try await HearthHarness.run { h in
            for (method, path) in [(HTTPRequest.Method.get, WirePaths.v3("getProjectConfig")), (.post, WirePaths.v3("getProjectConfig")), (.get, WirePaths.identityToolkitV1 + "/projects")] {
                let reply = try await h.send(method, path + "?key=k", body: method == .post ? "{}" : nil)
                #expect(reply.status == 200)
                let body = try reply.decode(GetProjectConfigResponse.self)
                #expect(body.projectId == "demo-hearth")
                #expect(body.authorizedDomains.contains("localhost"))
            }
        }
    }
}

