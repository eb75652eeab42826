import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import JWTKit
import Testing

/// The admin API over loopback HTTP: who may call it, the user calls, their errors, the audit log.
@Suite(.serialized) struct AdminAPITests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let users = WirePaths.adminAccounts(projectId: "demo-hearth")

    static func production(_ configuration: inout HearthServerConfiguration) {
        configuration.projectId = "hearth-prod"
        configuration.apiKeys = ["test-key"]
    }

    func admin(_ h: HearthHarness, _ method: HTTPRequest.Method = .post, _ path: String, _ body: String? = nil,
               headers: HTTPFields = AdminAPITests.owner) async throws -> HearthHarness.Reply {
        try await h.send(method, path, body: body, headers: headers)
    }

    // MARK: Who may call

    @Test func emulatorOwnerIsAcceptedForDemoProjectsOnly() async throws {
        try await HearthHarness.run { h in
            let created = try await admin(h, .post, Self.users, #"{"localId":"u1","email":"u1@example.com"}"#)
            #expect(created.status == 200, "\(created.text)")
            #expect(try await admin(h, .post, Self.users, "{}", headers: [:]).errorCode == "UNAUTHENTICATED")
            let garbage = try await admin(h, .post, Self.users + ":lookup", #"{"localId":["u1"]}"#, headers: [.authorization: "Bearer nonsense"])
            #expect(garbage.status == 401)
            #expect(garbage.errorCode == "UNAUTHENTICATED")
            // A loopback peer that forwards someone else's request (a reverse proxy) is not a local client.
            for header in ["X-Forwarded-For", "Forwarded"] {
                var proxied = Self.owner
                proxied[HTTPField.Name(header)!] = header == "Forwarded" ? "for=203.0.113.9" : "203.0.113.9"
                let reply = try await admin(h, .post, Self.users + ":lookup", #"{"localId":["u1"]}"#, headers: proxied)
                #expect(reply.status == 403)
                #expect(reply.errorCode == "INSUFFICIENT_PERMISSION")
                #expect(try await admin(h, .delete, "/emulator/v1/projects/demo-hearth/accounts", headers: proxied).status == 404)
            }
            #expect(try await h.store.userCount() == 1)
        }
        try await HearthHarness.run(configure: Self.production) { h in
            let path = WirePaths.adminAccounts(projectId: "hearth-prod")
            let reply = try await admin(h, .post, path, #"{"localId":"u1"}"#)
            #expect(reply.status == 401)
            #expect(reply.errorCode == "UNAUTHENTICATED")
            #expect(reply.envelope?.error.status == "UNAUTHENTICATED")
            #expect(try await h.store.userCount() == 0)
            // The emulator conveniences do not exist either.
            #expect(try await admin(h, .delete, "/emulator/v1/projects/hearth-prod/accounts").status == 404)
        }
        // --emulator-admin turns it on for a non-demo project.
        try await HearthHarness.run(configure: { Self.production(&$0); $0.emulatorAdminFlag = true }) { h in
            let reply = try await admin(h, .post, WirePaths.adminAccounts(projectId: "hearth-prod"), #"{"localId":"u1"}"#)
            #expect(reply.status == 200)
        }
    }

    @Test func unsignedEmulatorCustomTokensFollowTheSameRule() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let payload: [String: Any] = ["iss": "firebase-auth-emulator@example.com", "sub": "firebase-auth-emulator@example.com",
                                      "aud": CustomTokenClaims.audience, "iat": now, "exp": now + 3600, "uid": "emu-user"]
        let token = try rawJWT(header: ["alg": "none", "typ": "JWT"], payload: payload)
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(reply.status == 200, "\(reply.text)")
            // A signature part is not "unsigned": refused.
            let signed = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token + "AAAA"))
            #expect(signed.errorCode == "INVALID_CUSTOM_TOKEN")
            // Through a reverse proxy: refused.
            let proxied = try await h.send(.post, WirePaths.accounts("signInWithCustomToken") + "?key=k", body: "{\"token\":\"\(token)\"}",
                                           headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
            #expect(proxied.errorCode == "INVALID_CUSTOM_TOKEN")
        }
        try await HearthHarness.run(configure: Self.production) { h in
            let reply = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(reply.errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(try await h.store.userCount() == 0)
        }
    }

    // MARK: Users

    @Test func userLifecycle() async throws {
        try await HearthHarness.run { h in
            let create = try await admin(h, .post, Self.users, #"{"localId":"alice","email":"Alice@Example.com","password":"secret12","phoneNumber":"+15555550100","displayName":"Alice","emailVerified":true}"#)
            #expect(create.status == 200, "\(create.text)")
            #expect(create.json?["localId"] as? String == "alice")
            #expect(try await admin(h, .post, Self.users, #"{"localId":"alice"}"#).errorCode == "DUPLICATE_LOCAL_ID")
            #expect(try await admin(h, .post, Self.users, #"{"email":"alice@example.com"}"#).errorCode == "EMAIL_EXISTS")
            #expect(try await admin(h, .post, Self.users, #"{"phoneNumber":"+15555550100"}"#).errorCode == "PHONE_NUMBER_EXISTS")
            #expect(try await admin(h, .post, Self.users, #"{"phoneNumber":"555"}"#).errorCode == "INVALID_PHONE_NUMBER")
            #expect(try await admin(h, .post, Self.users, #"{"password":"short"}"#).errorCode == "WEAK_PASSWORD")

            // Lookup by every identifier, deduplicated; unknown ones skipped; nothing found: no `users`.
            let lookup = try await admin(h, .post, Self.users + ":lookup",
                                         #"{"localId":["alice","nobody"],"email":["alice@example.com"],"phoneNumber":["+15555550100"]}"#)
            let found = try lookup.decode(AdminLookupResponse.self)
            #expect(found.users?.count == 1)
            #expect(found.users?.first?.phoneNumber == "+15555550100")
            #expect(found.users?.first?.email == "alice@example.com")
            #expect(found.users?.first?.providerUserInfo.map(\.providerId).sorted() == ["password", "phone"])
            #expect(lookup.text.contains("scrypt") == false, "no password hash in a lookup")
            let none = try await admin(h, .post, Self.users + ":lookup", #"{"localId":["nobody"]}"#)
            #expect(none.status == 200)
            #expect(none.json?["users"] == nil)

            // The user signs in with the admin-set password.
            let signIn = try await h.signIn(email: "alice@example.com", password: "secret12")
            #expect(signIn.status == 200)
            let session = try signIn.decode(SignInWithPasswordResponse.self)

            // Custom claims: the rules.
            let update = Self.users + ":update"
            #expect(try await admin(h, .post, update, #"{"localId":"alice","customAttributes":"[1]"}"#).errorCode == "INVALID_CLAIMS")
            #expect(try await admin(h, .post, update, #"{"localId":"alice","customAttributes":"{\"sub\":\"x\"}"}"#).errorCode == "FORBIDDEN_CLAIM")
            let big = "{\\\"k\\\":\\\"" + String(repeating: "x", count: 1000) + "\\\"}"
            #expect(try await admin(h, .post, update, "{\"localId\":\"alice\",\"customAttributes\":\"\(big)\"}").errorCode == "CLAIMS_TOO_LARGE")
            #expect(try await admin(h, .post, update, #"{"localId":"nobody","disableUser":true}"#).errorCode == "USER_NOT_FOUND")
            #expect(try await admin(h, .post, update, #"{"disableUser":true}"#).errorCode == "MISSING_LOCAL_ID")
            let claims = try await admin(h, .post, update, #"{"localId":"alice","customAttributes":"{\"role\":\"admin\"}","displayName":"Alice A."}"#)
            #expect(claims.status == 200, "\(claims.text)")
            let refreshed = try await h.refresh(try #require(session.refreshToken)).decode(GrantTokenResponse.self)
            #expect(jwtPayload(refreshed.idToken)?["role"] as? String == "admin")

            // Revocation: validSince (as a string, as Go sends it) ends the sessions.
            let later = Int(h.clock.now.timeIntervalSince1970) + 10
            h.clock.advance(by: 20)
            #expect(try await admin(h, .post, update, "{\"localId\":\"alice\",\"validSince\":\"\(later)\"}").status == 200)
            #expect(try await h.lookup(refreshed.idToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await h.refresh(refreshed.refreshToken).errorCode == "TOKEN_EXPIRED")

            // Disable, delete attributes and providers.
            #expect(try await admin(h, .post, update, #"{"localId":"alice","disableUser":true,"deleteAttribute":["DISPLAY_NAME"],"deleteProvider":["phone"]}"#).status == 200)
            #expect(try await h.signIn(email: "alice@example.com", password: "secret12").errorCode == "USER_DISABLED")
            let after = try await admin(h, .post, Self.users + ":lookup", #"{"localId":["alice"]}"#).decode(AdminLookupResponse.self)
            #expect(after.users?.first?.disabled == true)
            #expect(after.users?.first?.displayName == nil)
            #expect(after.users?.first?.phoneNumber == nil)
            #expect(after.users?.first?.customAttributes == #"{"role":"admin"}"#)

            // Link a provider, then find the user by it.
            #expect(try await admin(h, .post, update, #"{"localId":"alice","linkProviderUserInfo":{"providerId":"microsoft.com","rawId":"ms-1","email":"a@ms.example"}}"#).status == 200)
            let byProvider = try await admin(h, .post, Self.users + ":lookup", #"{"federatedUserId":[{"providerId":"microsoft.com","rawId":"ms-1"}]}"#)
            #expect(try byProvider.decode(AdminLookupResponse.self).users?.first?.localId == "alice")

            // Delete.
            let deleted = try await admin(h, .post, Self.users + ":delete", #"{"localId":"alice"}"#)
            #expect(deleted.json?["kind"] as? String == "identitytoolkit#DeleteAccountResponse")
            #expect(try await admin(h, .post, Self.users + ":delete", #"{"localId":"alice"}"#).errorCode == "USER_NOT_FOUND")
        }
    }

    @Test func batchGetPagesAndBatchDeleteReportsPerUser() async throws {
        try await HearthHarness.run { h in
            for index in 0..<25 {
                let body = "{\"localId\":\"user-\(String(format: "%02d", index))\",\"disabled\":\(index % 2 == 0)}"
                #expect(try await admin(h, .post, Self.users, body).status == 200)
            }
            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let path = Self.users + ":batchGet?maxResults=10" + (token.map { "&nextPageToken=\($0)" } ?? "")
                let page = try await admin(h, .get, path).decode(BatchGetResponse.self)
                seen += page.users?.map(\.localId) ?? []
                token = page.nextPageToken
                pages += 1
            } while token != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == (0..<25).map { "user-\(String(format: "%02d", $0))" })
            #expect(try await admin(h, .get, Self.users + ":batchGet?maxResults=5000").errorCode == "INVALID_PAGE_SELECTION")
            #expect(try await admin(h, .get, Self.users + ":batchGet?nextPageToken=%25%25").errorCode == "INVALID_PAGE_SELECTION")

            // Query (Go's QueryUsers: limit and offset as strings).
            let query = try await admin(h, .post, Self.users + ":query", #"{"limit":"5","offset":"20","sortBy":"USER_ID","order":"DESC"}"#)
            let result = try query.decode(QueryUsersResponse.self)
            #expect(result.recordsCount == "25")
            #expect(result.userInfo?.map(\.localId) == ["user-04", "user-03", "user-02", "user-01", "user-00"])
            let byId = try await admin(h, .post, Self.users + ":query", #"{"expression":[{"userId":"user-07"}]}"#).decode(QueryUsersResponse.self)
            #expect(byId.userInfo?.map(\.localId) == ["user-07"])

            // batchDelete: enabled users are kept without force; unknown ids are ignored.
            let batch = try await admin(h, .post, Self.users + ":batchDelete", #"{"localIds":["user-00","user-01","ghost"]}"#)
            let response = try batch.decode(BatchDeleteResponse.self)
            #expect(response.errors?.count == 1)
            #expect(response.errors?.first?.index == 1)
            #expect(response.errors?.first?.localId == "user-01")
            #expect(response.errors?.first?.message.hasPrefix("NOT_DISABLED") == true)
            let forced = try await admin(h, .post, Self.users + ":batchDelete", #"{"localIds":["user-01"],"force":true}"#)
            #expect(forced.json?["errors"] == nil)
            #expect(try await h.store.userCount() == 23)
            #expect(try await admin(h, .post, Self.users + ":batchDelete", #"{"localIds":[]}"#).errorCode == "MISSING_LOCAL_ID")

            // The emulator's wipe.
            #expect(try await admin(h, .delete, "/emulator/v1/projects/demo-hearth/accounts").status == 200)
            #expect(try await h.store.userCount() == 0)
        }
    }

    @Test func badAdminInputIsA4xxWithTheEnvelope() async throws {
        let cases: [(HTTPRequest.Method, String, String?, Int, String)] = [
            (.post, Self.users, "not json", 400, "INVALID_JSON_PAYLOAD"),
            (.post, Self.users, "[1]", 400, "INVALID_JSON_PAYLOAD"),
            (.post, Self.users, #"{"localId":5}"#, 400, "INVALID_JSON_PAYLOAD"),
            (.post, Self.users, "{\"localId\":\"" + String(repeating: "u", count: 200) + "\"}", 400, "INVALID_LOCAL_ID"),
            (.post, Self.users, #"{"email":"not-an-email"}"#, 400, "INVALID_EMAIL"),
            (.post, Self.users, #"{"photoUrl":"javascript:alert(1)"}"#, 400, "INVALID_PHOTO_URL"),
            (.post, Self.users + ":update", #"{"localId":"x","validSince":"soon"}"#, 400, "INVALID_JSON_PAYLOAD"),
            (.post, Self.users + ":update", #"{"localId":"x","deleteAttribute":["EVERYTHING"]}"#, 400, "INVALID_ARGUMENT"),
            (.post, Self.users + ":lookup", #"{"federatedUserId":[{"providerId":"microsoft.com"}]}"#, 400, "INVALID_ARGUMENT"),
            (.post, Self.users + ":query", #"{"limit":"9999"}"#, 400, "INVALID_ARGUMENT"),
            (.post, Self.users + ":query", #"{"sortBy":"SHOE_SIZE"}"#, 400, "INVALID_ARGUMENT"),
            (.post, Self.users + ":batchDelete", "{\"localIds\":[" + Array(repeating: "\"a\"", count: 1001).joined(separator: ",") + "]}", 400, "LOCAL_ID_LIST_EXCEEDS_LIMIT"),
            (.post, WirePaths.identityToolkitV1 + "/projects/demo-hearth:createSessionCookie", #"{"idToken":"x","validDuration":10}"#, 400, "INVALID_DURATION"),
            (.post, WirePaths.identityToolkitV1 + "/projects/demo-hearth:createSessionCookie", #"{"validDuration":"600"}"#, 400, "MISSING_ID_TOKEN"),
            (.post, WirePaths.adminAccounts(projectId: "other-project"), "{}", 400, "INVALID_PROJECT_ID"),
            (.patch, WirePaths.v2Project("demo-hearth", "config") + "?updateMask=recaptchaConfig", "{}", 400, "INVALID_UPDATE_MASK"),
            (.patch, WirePaths.v2Project("demo-hearth", "config") + "?updateMask=signIn.anonymous.enabled", #"{"signIn":{"anonymous":{"enabled":"yes"}}}"#, 400, "INVALID_CONFIG"),
            (.post, WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs") + "?idpId=facebook.com", #"{"clientId":"a","clientSecret":"b"}"#, 400, "INVALID_IDP_ID"),
            (.get, WirePaths.v2Project("demo-hearth", "oauthIdpConfigs/oidc.nothing"), nil, 404, "CONFIGURATION_NOT_FOUND"),
            (.get, WirePaths.adminAccounts(projectId: "demo-hearth") + ":batchGet?maxResults=abc", nil, 400, "INVALID_PAGE_SELECTION"),
            (.post, Self.users + ":lookup", #"{"localId":["a"],"tenantId":"t1"}"#, 400, "TENANT_NOT_FOUND"),
            (.post, Self.users + ":batchCreate", #"{"users":[]}"#, 400, "MISSING_USER_ACCOUNT"),
            (.post, Self.users + ":batchCreate", #"{"users":[{"localId":"a"},{"localId":"a"}]}"#, 400, "DUPLICATE_LOCAL_ID"),
            (.post, Self.users + ":batchCreate", #"{"users":[{"localId":"a","passwordHash":"AAAA"}]}"#, 400, "MISSING_HASH_ALGORITHM"),
            (.post, Self.users + ":batchCreate", #"{"hashAlgorithm":"ROT13","users":[{"localId":"a"}]}"#, 400, "INVALID_HASH_ALGORITHM"),
            (.post, Self.users + ":batchCreate", #"{"hashAlgorithm":"SCRYPT","rounds":8,"memoryCost":30,"signerKey":"AAAA","users":[{"localId":"a"}]}"#, 400, "INVALID_HASH_ALGORITHM"),
            (.post, Self.users + ":batchCreate", #"{"hashAlgorithm":"HMAC_SHA256","signerKey":"!!!","users":[{"localId":"a"}]}"#, 400, "INVALID_ARGUMENT"),
        ]
        try await HearthHarness.run { h in
            for (method, path, body, status, code) in cases {
                let reply = try await admin(h, method, path, body)
                #expect(reply.status == status, "\(path) \(body ?? ""): \(reply.text.prefix(300))")
                #expect(reply.errorCode == code, "\(path) \(body ?? ""): \(reply.text.prefix(300))")
                #expect(reply.envelope?.error.code == status)
            }
        }
    }

    // MARK: Import

    @Test func importedUsersSignInWithTheirOldPasswordAndAreRehashed() async throws {
        try await HearthHarness.run { h in
            // Firebase's scrypt test vector; the hash and salt in URL-safe unpadded base64, as Go sends them.
            let body = """
                {"hashAlgorithm":"SCRYPT","signerKey":"jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
                 "saltSeparator":"Bw==","rounds":"8","memoryCost":14,"users":[
                 {"localId":"fb-1","email":"fb1@example.com","createdAt":"1500000000000","customAttributes":"{\\"plan\\":\\"pro\\"}",
                  "passwordHash":"lSrfV15cpx95_sZS2W9c9Kp6i_LVgQNDNC_qzrCnh1SAyZvqmZqAjTdn3aoItz-VHjoZilo78198JAdRuid5lQ","salt":"42xEC-ixf3L2lw"},
                 {"localId":"fb-2","email":"fb2@example.com","passwordHash":"%%%"},
                 {"localId":"fb-3","email":"fb1@example.com"}]}
                """
            let reply = try await admin(h, .post, Self.users + ":batchCreate", body)
            #expect(reply.status == 200, "\(reply.text)")
            let response = try reply.decode(ImportUsersResponse.self)
            #expect(response.error?.map(\.index) == [1, 2])
            #expect(response.error?.last?.message.hasPrefix("EMAIL_EXISTS") == true)
            let imported = try #require(try await h.store.user(localId: "fb-1"))
            #expect(imported.passwordHash?.hasPrefix(ImportedPasswordHash.prefix) == true)
            #expect(imported.createdAt == Date(timeIntervalSince1970: 1_500_000_000))
            #expect(imported.customClaims["plan"] == .string("pro"))
            #expect(try await h.signIn(email: "fb1@example.com", password: "wrong-password").errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await h.signIn(email: "fb1@example.com", password: "user1password").status == 200)
            let rehashed = try #require(try await h.store.user(localId: "fb-1")?.passwordHash)
            #expect(rehashed.hasPrefix("scrypt$"))
            #expect(try await h.signIn(email: "fb1@example.com", password: "user1password").status == 200)
            // An existing uid is kept unless allowOverwrite.
            let again = try await admin(h, .post, Self.users + ":batchCreate", #"{"users":[{"localId":"fb-1","displayName":"X"}]}"#)
            #expect(try again.decode(ImportUsersResponse.self).error?.first?.message.hasPrefix("DUPLICATE_LOCAL_ID") == true)
            let overwrite = try await admin(h, .post, Self.users + ":batchCreate", #"{"allowOverwrite":true,"users":[{"localId":"fb-1","displayName":"X","rawPassword":"new-secret-1"}]}"#)
            #expect(try overwrite.decode(ImportUsersResponse.self).error == nil)
            #expect(try await h.store.user(localId: "fb-1")?.displayName == "X")
        }
    }

    // MARK: Session cookies

    @Test func sessionCookies() async throws {
        try await HearthHarness.run { h in
            let session = try await h.signUp(email: "cookie@example.com")
            let path = WirePaths.identityToolkitV1 + "/projects/demo-hearth:createSessionCookie"
            let reply = try await admin(h, .post, path, "{\"idToken\":\"\(session.idToken!)\",\"validDuration\":\"3600\"}")
            #expect(reply.status == 200, "\(reply.text)")
            let cookie = try #require(reply.json?["sessionCookie"] as? String)
            let claims = try #require(jwtPayload(cookie))
            #expect(claims["iss"] as? String == "https://session.firebase.google.com/demo-hearth")
            #expect(claims["aud"] as? String == "demo-hearth")
            #expect(claims["sub"] as? String == session.localId)
            #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 3600)
            // Signed by a published key, listed where Google publishes session-cookie keys.
            let kid = try #require(jwtHeader(cookie)?["kid"] as? String)
            let keys = try await h.send(.get, WirePaths.sessionCookieCertificates)
            #expect(keys.json?[kid] != nil)
            // A session cookie is not an ID token.
            #expect(try await h.lookup(cookie).errorCode == "INVALID_ID_TOKEN")
        }
    }

    // MARK: Audit log

    @Test func adminWritesAreAuditedWithoutSecrets() async throws {
        try await HearthHarness.run { h in
            _ = try await admin(h, .post, Self.users, #"{"localId":"bob","password":"hunter2hunter2"}"#)
            _ = try await admin(h, .post, Self.users + ":update", #"{"localId":"bob","disableUser":true,"customAttributes":"{\"tier\":\"gold\"}"}"#)
            _ = try await admin(h, .post, WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs") + "?idpId=yahoo.com",
                                #"{"clientId":"yahoo-client","clientSecret":"very-secret-value","enabled":true}"#)
            let log = try await admin(h, .get, WirePaths.identityToolkitV1 + "/projects/demo-hearth/auditLog?pageSize=2")
            let page = try log.decode(AuditLogResponse.self)
            #expect(page.entries.count == 2)
            #expect(page.entries.map(\.action) == ["defaultSupportedIdpConfigs.create", "accounts.update"])
            #expect(page.entries.allSatisfy { $0.actor == "emulator:owner" })
            #expect(page.entries[1].target == "bob")
            #expect(page.entries[1].detail == "customAttributes,disableUser")
            let rest = try await admin(h, .get, WirePaths.identityToolkitV1 + "/projects/demo-hearth/auditLog?pageToken=\(try #require(page.nextPageToken))")
            let older = try rest.decode(AuditLogResponse.self)
            #expect(older.entries.map(\.action) == ["accounts.create"])
            for text in [log.text, rest.text] {
                #expect(!text.contains("hunter2"))
                #expect(!text.contains("very-secret-value"))
                #expect(!text.contains("gold"))
            }
            // Reading the log needs the admin credential too.
            #expect(try await admin(h, .get, WirePaths.identityToolkitV1 + "/projects/demo-hearth/auditLog", headers: [:]).status == 401)
        }
    }

    // MARK: Configuration

    @Test func projectAndProviderConfiguration() async throws {
        try await HearthHarness.run { h in
            let configPath = WirePaths.v2Project("demo-hearth", "config")
            let initial = try await admin(h, .get, configPath).decode(AdminProjectConfig.self)
            #expect(initial.name == "projects/demo-hearth/config")
            #expect(initial.signIn?.allowDuplicateEmails == false)
            let patched = try await admin(h, .patch, configPath + "?updateMask=signIn.allowDuplicateEmails,emailPrivacyConfig,client.permissions.disabledUserSignup,authorizedDomains",
                                          #"{"signIn":{"allowDuplicateEmails":true},"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true},"client":{"permissions":{"disabledUserSignup":true}},"authorizedDomains":["localhost","app.example.com"]}"#)
            #expect(patched.status == 200, "\(patched.text)")
            let config = try await h.scope.config()
            #expect(config.allowDuplicateEmails)
            #expect(config.emailEnumerationProtection)
            #expect(config.userSignupDisabled)
            #expect(config.authorizedDomains == ["localhost", "app.example.com"])
            #expect(config.anonymousSignInEnabled, "fields outside the mask are kept")
            // User actions: sign-up is now admin-only.
            #expect(try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "new@example.com", password: "secret12")).errorCode == "ADMIN_ONLY_OPERATION")
            // The emulator's config view.
            let emulator = try await admin(h, .patch, "/emulator/v1/projects/demo-hearth/config", #"{"signIn":{"allowDuplicateEmails":false}}"#)
            #expect(try emulator.decode(EmulatorConfig.self).signIn?.allowDuplicateEmails == false)
            #expect(try await h.scope.config().emailEnumerationProtection)

            // Built-in providers: the secret is write-only.
            let idps = WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs")
            let created = try await admin(h, .post, idps + "?idpId=microsoft.com", #"{"clientId":"ms-client","clientSecret":"ms-secret","enabled":true}"#)
            #expect(created.status == 200, "\(created.text)")
            #expect(!created.text.contains("ms-secret"))
            #expect(created.json?["name"] as? String == "projects/demo-hearth/defaultSupportedIdpConfigs/microsoft.com")
            #expect(try await admin(h, .post, idps + "?idpId=microsoft.com", #"{"clientId":"x","clientSecret":"y"}"#).errorCode == "CONFIGURATION_EXISTS")
            let listed = try await admin(h, .get, idps)
            #expect(!listed.text.contains("ms-secret"))
            #expect(try listed.decode(DefaultSupportedIdpConfigList.self).defaultSupportedIdpConfigs?.map(\.clientId) == ["ms-client"])
            #expect(try await admin(h, .patch, idps + "/microsoft.com?updateMask=enabled", #"{"enabled":false}"#).json?["enabled"] as? Bool == false)
            let stored = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(stored.clientSecret == "ms-secret")
            #expect(stored.enabled == false)
            #expect(try await admin(h, .delete, idps + "/microsoft.com").status == 200)
            #expect(try await admin(h, .get, idps + "/microsoft.com").errorCode == "CONFIGURATION_NOT_FOUND")
            let catalogue = try await admin(h, .get, WirePaths.identityToolkitV2 + "/defaultSupportedIdps").decode(DefaultSupportedIdpList.self)
            #expect(catalogue.defaultSupportedIdps.map(\.idpId) == ["apple.com", "google.com", "microsoft.com", "yahoo.com"])

            // OpenID providers.
            let oidc = WirePaths.v2Project("demo-hearth", "oauthIdpConfigs")
            let made = try await admin(h, .post, oidc + "?oauthIdpConfigId=oidc.corp",
                                       #"{"clientId":"corp","clientSecret":"corp-secret","issuer":"https://idp.example.com","displayName":"Corp","enabled":true,"responseType":{"code":true}}"#)
            #expect(made.status == 200, "\(made.text)")
            #expect(!made.text.contains("corp-secret"))
            #expect(try await admin(h, .post, oidc + "?oauthIdpConfigId=oidc.bad", #"{"clientId":"x","clientSecret":"y"}"#).errorCode == "MISSING_ISSUER")
            #expect(try await admin(h, .post, oidc + "?oauthIdpConfigId=corp", #"{"clientId":"x"}"#).errorCode == "INVALID_IDP_ID")
            let renamed = try await admin(h, .patch, oidc + "/oidc.corp?updateMask=displayName", #"{"displayName":"Corporate"}"#)
            #expect(renamed.json?["displayName"] as? String == "Corporate")
            #expect(try await admin(h, .get, oidc).decode(OAuthIdpConfigList.self).oauthIdpConfigs?.count == 1)
            #expect(try await admin(h, .delete, oidc + "/oidc.corp").status == 200)
        }
    }

    // MARK: Production: service-account access tokens

    struct Assertion: JWTPayload {
        var iss: String
        var aud: String
        var scope: String
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    func assertion(_ account: TestServiceAccount, aud: String = "https://oauth2.googleapis.com/token",
                   scope: String = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email",
                   now: Date) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: account.privateKey), digestAlgorithm: .sha256, kid: JWKIdentifier(string: account.keyId))
        let iat = Int(now.timeIntervalSince1970)
        return try await keys.sign(Assertion(iss: account.email, aud: aud, scope: scope, iat: iat, exp: iat + 3600),
                                   kid: JWKIdentifier(string: account.keyId), header: ["typ": "JWT"])
    }

    func grant(_ h: HearthHarness, _ assertion: String) async throws -> HearthHarness.Reply {
        try await h.send(.post, WirePaths.oauth2Token,
                         body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
                         contentType: "application/x-www-form-urlencoded")
    }

    @Test func serviceAccountAccessTokensAuthorizeAndAttacksFail() async throws {
        let account = try TestServiceAccount(email: "admin@hearth-prod.iam.gserviceaccount.com")
        try await HearthHarness.run(configure: Self.production) { h in
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            let users = WirePaths.adminAccounts(projectId: "hearth-prod")
            let reply = try await grant(h, try await assertion(account, now: h.clock.now))
            #expect(reply.status == 200, "\(reply.text)")
            let accessToken = try #require(reply.json?["access_token"] as? String)
            #expect(reply.json?["expires_in"] as? Int == 3600)
            #expect(reply.json?["token_type"] as? String == "Bearer")
            let bearer: HTTPFields = [.authorization: "Bearer \(accessToken)"]
            #expect(try await admin(h, .post, users, #"{"localId":"p1"}"#, headers: bearer).status == 200)
            // Hearth's own token URL is an accepted audience too (golang/oauth2 sends token_uri).
            let ownAudience = try await assertion(account, aud: h.baseURL + WirePaths.oauth2Token, now: h.clock.now)
            #expect(try await grant(h, ownAudience).status == 200)
            let log = try await admin(h, .get, WirePaths.identityToolkitV1 + "/projects/hearth-prod/auditLog", headers: bearer)
            #expect(try log.decode(AuditLogResponse.self).entries.first?.actor == "serviceAccount:\(account.email)")

            // Refusals.
            let impostor = try TestServiceAccount(email: account.email, keyId: account.keyId)
            let forged = try await grant(h, try await assertion(impostor, now: h.clock.now))
            #expect(forged.status == 400)
            #expect(forged.json?["error"] as? String == "invalid_grant")
            let stranger = try TestServiceAccount(email: "x@evil.example")
            #expect(try await grant(h, try await assertion(stranger, now: h.clock.now)).json?["error"] as? String == "invalid_grant")
            #expect(try await grant(h, try await assertion(account, aud: "https://evil.example/token", now: h.clock.now)).json?["error"] as? String == "invalid_grant")
            #expect(try await grant(h, try await assertion(account, scope: "https://www.googleapis.com/auth/userinfo.email", now: h.clock.now)).json?["error"] as? String == "invalid_scope")
            #expect(try await grant(h, try await assertion(account, now: h.clock.now.addingTimeInterval(-7200))).json?["error"] as? String == "invalid_grant")
            let wrongGrant = try await h.send(.post, WirePaths.oauth2Token, body: "grant_type=password&username=a", contentType: "application/x-www-form-urlencoded")
            #expect(wrongGrant.json?["error"] as? String == "unsupported_grant_type")
            // A tampered access token, an ID token, and Bearer owner are no admin credentials here.
            let parts = accessToken.split(separator: ".")
            let tampered = try rawJWT(header: [:], payload: ["iss": "hearth-oauth2", "aud": "hearth-admin-api", "sub": "x", "sa_kid": "k",
                                                             "scope": "https://www.googleapis.com/auth/cloud-platform", "iat": 0, "exp": 9_999_999_999]).split(separator: ".")[1]
            for token in ["\(parts[0]).\(tampered).\(parts[2])", "owner"] {
                #expect(try await admin(h, .post, users, #"{"localId":"p2"}"#, headers: [.authorization: "Bearer \(token)"]).status == 401)
            }
            // Removing the key ends its access tokens.
            _ = try await h.store.deleteServiceAccountKey(clientEmail: account.email, keyId: account.keyId)
            #expect(try await admin(h, .post, users, #"{"localId":"p3"}"#, headers: bearer).status == 401)
            // Expired access token.
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            h.clock.advance(by: 3700)
            #expect(try await admin(h, .post, users, #"{"localId":"p4"}"#, headers: bearer).status == 401)
            #expect(try await h.store.userCount() == 1)
        }
    }
}
