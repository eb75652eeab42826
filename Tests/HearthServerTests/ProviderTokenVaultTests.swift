import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthDevIdP
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Logging
import NIOCore
import Testing

/// Item 13.1, the provider token vault, end to end over loopback HTTP against the dev IdPs (real OIDC providers
/// with short-lived access tokens and refresh tokens).
@Suite struct ProviderTokenVaultTests {
    static func key() -> (line: String, base64: String) {
        let line = ProviderTokenKeys.generate(id: "k\(RandomID.alphanumeric(count: 4).lowercased())")
        return (line, String(line.split(separator: ":")[1]))
    }

    static func vault(_ lines: String...) -> (inout HearthServerConfiguration) -> Void {
        let keys = try! ProviderTokenKeys.parse(lines.joined(separator: "\n"))
        return { $0.providerTokenKeys = keys }
    }

    /// What two server processes in a row share: a database file in a fresh directory (the caller removes it), the
    /// dev IdPs' registrations, and a whole-second start time for the first one's clock.
    static func restartableServer() throws -> (directory: URL, path: String,
                                             clients: (microsoft: DevIdentityProviders.Client, yahoo: DevIdentityProviders.Client), start: Date) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("hearth.sqlite").path,
                (microsoft: .random(prefix: "dev-ms"), yahoo: .random(prefix: "dev-yahoo")),
                Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    /// `POST /hearth/v1/providerAccessToken` with the Hearth ID token as bearer.
    static func providerToken(_ h: HearthHarness, idToken: String, providerId: String = "microsoft.com", force: Bool = false) async throws -> HearthHarness.Reply {
        let body = try JSONEncoder().encode(ProviderAccessTokenRequest(providerId: providerId, forceRefresh: force ? true : nil))
        return try await h.send(.post, WirePaths.providerAccessToken + "?key=test-key", body: String(decoding: body, as: UTF8.self),
                                headers: [.authorization: "Bearer \(idToken)"])
    }

    /// Whether an access token works at the dev provider's profile endpoint (Graph `/me`, Yahoo UserInfo).
    static func works(_ h: HearthHarness, _ accessToken: String, providerId: String = "microsoft.com") async throws -> Bool {
        let dev = try #require(h.devIdPs)
        let url = providerId == "yahoo.com" ? dev.yahooBase + "/openid/v1/userinfo" : dev.microsoftBase + "/v1.0/me"
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status == .ok
    }

    @Test func microsoftAccessTokenIsRenewedAfterExpiryAndTheRotatedRefreshTokenKept() async throws {
        let key = Self.key()
        let records = LogCapture.Records()
        let logger = Logger(label: "hearth.test") { _ in LogCapture(records: records) }
        try await HearthHarness.run(configure: Self.vault(key.line), devIdPs: true, logger: logger) { h in
            try await h.enableDevProviders()
            // The sign-in asks Microsoft for offline_access.
            let start = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "SESSION1"))
            #expect(Browser.query(try #require(start.location), "scope")?.split(separator: " ").contains("offline_access") == true)

            let signIn = try await h.federatedSignIn(providerId: "microsoft.com", email: "grace@contoso.com", name: "Grace Hopper")
            #expect(signIn.status == 200, "\(signIn.text)")
            let body = try signIn.decode(SignInWithIdpResponse.self)
            let idToken = try #require(body.idToken)
            let localId = try #require(body.localId)
            let firstAccessToken = try #require(body.oauthAccessToken)
            let keys = try ProviderTokenKeys.parse(key.line)

            // Stored sealed: no token in the row.
            let record = try #require(try await h.store.providerTokens(localId: localId, providerId: "microsoft.com"))
            #expect(!record.sealed.contains(firstAccessToken) && !record.sealed.contains("devrt.") && !record.sealed.contains("devat."))
            let kept = try keys.open(sealed: record.sealed, keyId: record.keyId, localId: localId, providerId: "microsoft.com")
            let firstRefreshToken = try #require(kept.refreshToken)
            #expect(kept.accessToken == firstAccessToken)
            // Moved to another user's row, the box does not open.
            #expect(throws: ProviderTokenVaultError.undecryptable) {
                try keys.open(sealed: record.sealed, keyId: record.keyId, localId: "someone-else", providerId: "microsoft.com")
            }

            // Still valid: handed out as kept, no trip to the provider.
            let cached = try await Self.providerToken(h, idToken: idToken)
            #expect(cached.status == 200, "\(cached.text)")
            let cachedBody = try cached.decode(ProviderAccessTokenResponse.self)
            #expect(cachedBody.accessToken == firstAccessToken)
            #expect(cachedBody.providerId == "microsoft.com")
            #expect(Int(cachedBody.expiresIn) == 600)
            #expect(cached.headers[.cacheControl] == "no-store")
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 0)

            // Past the provider token's lifetime: the old token no longer works, the vault renews it.
            h.clock.advance(by: 601)
            #expect(try await Self.works(h, firstAccessToken) == false)
            let renewed = try await Self.providerToken(h, idToken: idToken)
            #expect(renewed.status == 200, "\(renewed.text)")
            let renewedToken = try renewed.decode(ProviderAccessTokenResponse.self).accessToken
            #expect(renewedToken != firstAccessToken)
            #expect(try await Self.works(h, renewedToken))
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 1)
            // Microsoft rotated the refresh token: the new one is kept.
            let after = try #require(try await h.store.providerTokens(localId: localId, providerId: "microsoft.com"))
            let rotated = try keys.open(sealed: after.sealed, keyId: after.keyId, localId: localId, providerId: "microsoft.com")
            #expect(rotated.refreshToken != nil && rotated.refreshToken != firstRefreshToken)
            #expect(rotated.accessToken == renewedToken)

            // Again at once: the renewed token, no second refresh; forceRefresh renews, but not twice in 30 seconds.
            #expect(try await Self.providerToken(h, idToken: idToken).decode(ProviderAccessTokenResponse.self).accessToken == renewedToken)
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 1)
            #expect(try await Self.providerToken(h, idToken: idToken, force: true).decode(ProviderAccessTokenResponse.self).accessToken == renewedToken)
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 1)
            h.clock.advance(by: 30)
            let forced = try await Self.providerToken(h, idToken: idToken, force: true).decode(ProviderAccessTokenResponse.self)
            #expect(forced.accessToken != renewedToken)
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 2)

            // Concurrent calls after expiry share one renewal.
            h.clock.advance(by: 601)
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<5 {
                    group.addTask { try await Self.providerToken(h, idToken: idToken).decode(ProviderAccessTokenResponse.self).accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(results.count == 1)
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 3)

            // No token and no key ever in a log line.
            let secrets = [firstAccessToken, firstRefreshToken, renewedToken, forced.accessToken, key.base64] + Array(results)
            let logged = records.all.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(!logged.isEmpty)
            for secret in secrets { #expect(!logged.contains(secret)) }
        }
    }

    @Test func renewalWorksAfterAServerRestart() async throws {
        let key = Self.key()
        let (directory, path, clients, start) = try Self.restartableServer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (refreshToken, firstAccessToken) = try await HearthHarness.run(configure: Self.vault(key.line), databasePath: path, devIdPs: true,
                                                                          devClients: clients, startingAt: start) { h in
            try await h.enableDevProviders()
            let body = try await h.federatedSignIn(providerId: "microsoft.com", email: "kay@outlook.com").decode(SignInWithIdpResponse.self)
            return (try #require(body.refreshToken), try #require(body.oauthAccessToken))
        }
        // Two hours later, a new process (new dev IdP instance and port, same registration and vault key).
        try await HearthHarness.run(configure: Self.vault(key.line), databasePath: path, devIdPs: true, devClients: clients,
                                    startingAt: start.addingTimeInterval(7200)) { h in
            try await h.enableDevProviders()
            let session = try await h.refresh(refreshToken)
            #expect(session.status == 200, "\(session.text)")
            let idToken = try #require(session.json?["id_token"] as? String)
            let reply = try await Self.providerToken(h, idToken: idToken)
            #expect(reply.status == 200, "\(reply.text)")
            let accessToken = try reply.decode(ProviderAccessTokenResponse.self).accessToken
            #expect(accessToken != firstAccessToken)
            #expect(try await Self.works(h, accessToken))
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 1)
        }
    }

    @Test func yahooKeepsItsRefreshTokenWithoutRotation() async throws {
        let key = Self.key()
        try await HearthHarness.run(configure: Self.vault(key.line), devIdPs: true) { h in
            try await h.enableDevProviders()
            // Yahoo gives a refresh token without being asked: no offline_access in its request.
            let start = try await Browser.get(h.handlerURL(providerId: "yahoo.com", rawSessionId: "SESSION1"))
            #expect(Browser.query(try #require(start.location), "scope")?.contains("offline_access") == false)
            let body = try await h.federatedSignIn(providerId: "yahoo.com", email: "lin@yahoo.com").decode(SignInWithIdpResponse.self)
            let idToken = try #require(body.idToken)
            let localId = try #require(body.localId)
            let keys = try ProviderTokenKeys.parse(key.line)
            let before = try #require(try await h.store.providerTokens(localId: localId, providerId: "yahoo.com"))
            let refreshBefore = try keys.open(sealed: before.sealed, keyId: before.keyId, localId: localId, providerId: "yahoo.com").refreshToken
            h.clock.advance(by: 900)
            let reply = try await Self.providerToken(h, idToken: idToken, providerId: "yahoo.com")
            #expect(reply.status == 200, "\(reply.text)")
            let token = try reply.decode(ProviderAccessTokenResponse.self).accessToken
            #expect(token != body.oauthAccessToken)
            #expect(try await Self.works(h, token, providerId: "yahoo.com"))
            let after = try #require(try await h.store.providerTokens(localId: localId, providerId: "yahoo.com"))
            #expect(try keys.open(sealed: after.sealed, keyId: after.keyId, localId: localId, providerId: "yahoo.com").refreshToken == refreshBefore)
        }
    }

    @Test func unlinkDeletionAndRevocationDeleteTheKeptTokens() async throws {
        let key = Self.key()
        try await HearthHarness.run(configure: Self.vault(key.line), devIdPs: true) { h in
            try await h.enableDevProviders()
            func signIn(_ email: String) async throws -> SignInWithIdpResponse {
                let body = try await h.federatedSignIn(providerId: "microsoft.com", email: email).decode(SignInWithIdpResponse.self)
                #expect(try await h.store.providerTokens(localId: try #require(body.localId), providerId: "microsoft.com") != nil)
                return body
            }
            // Unlink (setAccountInfo deleteProvider).
            let a = try await signIn("a@contoso.com")
            let unlinked = try await h.post(WirePaths.v3("setAccountInfo"), UpdateRequest(idToken: a.idToken, deleteProvider: ["microsoft.com"]))
            #expect(unlinked.status == 200, "\(unlinked.text)")
            #expect(try await h.store.providerTokens(localId: a.localId!, providerId: "microsoft.com") == nil)
            let afterUnlink = try await Self.providerToken(h, idToken: try #require(a.idToken))
            #expect(afterUnlink.errorCode == "NO_PROVIDER_TOKEN")

            // The user deletes the account.
            let b = try await signIn("b@contoso.com")
            #expect(try await h.post(WirePaths.accounts("delete"), DeleteAccountRequest(idToken: b.idToken)).status == 200)
            #expect(try await h.store.providerTokens(localId: b.localId!, providerId: "microsoft.com") == nil)

            // An administrator deletes an account, and revokes another's sessions.
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let c = try await signIn("c@contoso.com")
            let deleted = try await h.send(.post, WirePaths.adminAccounts(projectId: "demo-hearth", "delete"), body: "{\"localId\":\"\(c.localId!)\"}", headers: owner)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await h.store.providerTokens(localId: c.localId!, providerId: "microsoft.com") == nil)
            let d = try await signIn("d@contoso.com")
            let later = Int(h.clock.now.timeIntervalSince1970) + 1
            let revoked = try await h.send(.post, WirePaths.adminAccounts(projectId: "demo-hearth", "update"),
                                           body: "{\"localId\":\"\(d.localId!)\",\"validSince\":\"\(later)\"}", headers: owner)
            #expect(revoked.status == 200, "\(revoked.text)")
            #expect(try await h.store.providerTokens(localId: d.localId!, providerId: "microsoft.com") == nil)
        }
    }

    @Test func aRefreshTokenTheProviderRevokedIsDroppedAndTheAppToldToSignInAgain() async throws {
        try await HearthHarness.run(configure: Self.vault(Self.key().line), devIdPs: true) { h in
            try await h.enableDevProviders()
            let body = try await h.federatedSignIn(providerId: "microsoft.com", email: "eve@contoso.com").decode(SignInWithIdpResponse.self)
            await h.devIdPs!.revokeRefreshTokens(.microsoft)
            h.clock.advance(by: 601)
            let reply = try await Self.providerToken(h, idToken: try #require(body.idToken))
            #expect(reply.status == 400)
            #expect(reply.errorCode == "NO_PROVIDER_TOKEN")
            #expect(reply.envelope?.error.message.contains("sign in with microsoft.com again") == true)
            #expect(try await h.store.providerTokens(localId: body.localId!, providerId: "microsoft.com") == nil)
        }
    }

    @Test func theVaultIsOffWithoutKeysAndPerProvider() async throws {
        // No vault keys: nothing kept, no offline_access asked, a clear error.
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let start = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "SESSION1"))
            #expect(Browser.query(try #require(start.location), "scope")?.contains("offline_access") == false)
            let body = try await h.federatedSignIn(providerId: "microsoft.com", email: "off@contoso.com").decode(SignInWithIdpResponse.self)
            #expect(try await h.store.providerTokens(localId: body.localId!, providerId: "microsoft.com") == nil)
            let reply = try await Self.providerToken(h, idToken: body.idToken!)
            #expect(reply.errorCode == "PROVIDER_TOKEN_VAULT_DISABLED")
            #expect(reply.envelope?.error.message.contains("vault.keys.file") == true)
        }
        // Keys, but the administrator turns the vault off for microsoft.com: the kept tokens go.
        try await HearthHarness.run(configure: Self.vault(Self.key().line), devIdPs: true) { h in
            try await h.enableDevProviders()
            try await h.storeDevProviderConfig("microsoft.com")
            let body = try await h.federatedSignIn(providerId: "microsoft.com", email: "on@contoso.com").decode(SignInWithIdpResponse.self)
            #expect(try await h.store.providerTokens(localId: body.localId!, providerId: "microsoft.com") != nil)
            let patch = try await h.send(.patch, WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs/microsoft.com") + "?updateMask=tokenVault",
                                         body: #"{"tokenVault":false}"#, headers: [.authorization: "Bearer owner"])
            #expect(patch.status == 200, "\(patch.text)")
            #expect(patch.json?["tokenVault"] as? Bool == false)
            #expect(try await h.store.providerTokens(localId: body.localId!, providerId: "microsoft.com") == nil)
            #expect(try await Self.providerToken(h, idToken: body.idToken!).errorCode == "PROVIDER_TOKEN_VAULT_DISABLED")
            let again = try await h.federatedSignIn(providerId: "microsoft.com", email: "on@contoso.com").decode(SignInWithIdpResponse.self)
            #expect(try await h.store.providerTokens(localId: again.localId!, providerId: "microsoft.com") == nil)
        }
    }

    @Test func rotatedKeysStillOpenOldRecordsAndMoveThemOn() async throws {
        let old = Self.key()
        let new = Self.key()
        let (directory, path, clients, start) = try Self.restartableServer()
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = try await HearthHarness.run(configure: Self.vault(old.line), databasePath: path, devIdPs: true, devClients: clients, startingAt: start) { h in
            try await h.enableDevProviders()
            var users: [(localId: String, refreshToken: String)] = []
            for email in ["r1@contoso.com", "r2@contoso.com"] {
                let body = try await h.federatedSignIn(providerId: "microsoft.com", email: email).decode(SignInWithIdpResponse.self)
                users.append((try #require(body.localId), try #require(body.refreshToken)))
            }
            return users
        }
        // The new key first, the old one kept: old records open; one used is re-sealed with the new key.
        try await HearthHarness.run(configure: Self.vault(new.line, old.line), databasePath: path, devIdPs: true, devClients: clients,
                                    startingAt: start.addingTimeInterval(60)) { h in
            try await h.enableDevProviders()
            let idToken = try #require(try await h.refresh(users[0].refreshToken).json?["id_token"] as? String)
            let reply = try await Self.providerToken(h, idToken: idToken)
            #expect(reply.status == 200, "\(reply.text)")
            let newId = try ProviderTokenKeys.parse(new.line).activeKeyId
            #expect(try await h.store.providerTokens(localId: users[0].localId, providerId: "microsoft.com")?.keyId == newId)
            #expect(try await h.store.providerTokens(localId: users[1].localId, providerId: "microsoft.com")?.keyId != newId)
            // The rekey pass moves the rest.
            let keys = try ProviderTokenKeys.parse([new.line, old.line].joined(separator: "\n"))
            let report = try await ProviderTokenVaultMaintenance.pass(store: h.store, keys: keys, rekey: true)
            #expect(report.resealed == 1 && report.unreadable == 0)
            #expect(try await h.store.providerTokens(localId: users[1].localId, providerId: "microsoft.com")?.keyId == newId)
        }
        // Without the key that sealed a record: a clear error naming the key, the record kept.
        let third = Self.key()
        try await HearthHarness.run(configure: Self.vault(third.line), databasePath: path, devIdPs: true, devClients: clients,
                                    startingAt: start.addingTimeInterval(120)) { h in
            try await h.enableDevProviders()
            let idToken = try #require(try await h.refresh(users[1].refreshToken).json?["id_token"] as? String)
            let reply = try await Self.providerToken(h, idToken: idToken)
            #expect(reply.status == 500)
            #expect(reply.envelope?.error.message.contains("key") == true)
            #expect(!reply.text.contains(new.base64) && !reply.text.contains(third.base64))
            #expect(try await h.store.providerTokens(localId: users[1].localId, providerId: "microsoft.com") != nil)
        }
    }

    @Test func badRequestsGetClearErrors() async throws {
        try await HearthHarness.run(configure: Self.vault(Self.key().line), devIdPs: true) { h in
            try await h.enableDevProviders()
            let user = try await h.signUp(email: "pw@example.com")
            let path = WirePaths.providerAccessToken + "?key=test-key"
            // No ID token, a bad one, a malformed Authorization header.
            #expect(try await h.send(.post, path, body: #"{"providerId":"microsoft.com"}"#).errorCode == "MISSING_ID_TOKEN")
            #expect(try await h.send(.post, path, body: #"{"providerId":"microsoft.com"}"#, headers: [.authorization: "Bearer nope"]).errorCode == "INVALID_ID_TOKEN")
            #expect(try await h.send(.post, path, body: #"{"providerId":"microsoft.com"}"#, headers: [.authorization: "Basic abc"]).errorCode == "INVALID_ID_TOKEN")
            // The ID token in the body works too; no provider, an unknown one, one the user has not linked.
            let idToken = try #require(user.idToken)
            #expect(try await h.send(.post, path, body: "{\"idToken\":\"\(idToken)\"}").errorCode == "INVALID_PROVIDER_ID")
            #expect(try await h.send(.post, path, body: "{\"idToken\":\"\(idToken)\",\"providerId\":\"facebook.com\"}").errorCode == "INVALID_PROVIDER_ID")
            let unlinked = try await h.send(.post, path, body: "{\"idToken\":\"\(idToken)\",\"providerId\":\"microsoft.com\"}")
            #expect(unlinked.status == 400)
            #expect(unlinked.errorCode == "NO_PROVIDER_TOKEN")
            #expect(try await h.send(.post, path, body: "not json").status == 400)
        }
    }
}
