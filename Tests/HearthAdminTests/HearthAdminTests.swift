import CryptoExtras
import Foundation
import HearthAdmin
import HearthAdminExample
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Testing

/// HearthAdmin against a real Hearth server over loopback HTTP.
@Suite(.serialized) struct HearthAdminTests {
    static func serviceAccountJSON(_ account: TestServiceAccount, projectId: String, tokenURI: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": projectId, "private_key_id": account.keyId,
            "private_key": account.privateKey.pkcs8PEMRepresentation, "client_email": account.email, "token_uri": tokenURI,
        ])
    }

    @Test func verifiesIDTokensAndSessionCookies() async throws {
        try await HearthHarness.run { h in
            let session = try await h.signUp(email: "verify@example.com")
            let idToken = try #require(session.idToken)
            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
            let verified = try await verifier.verifyIDToken(idToken)
            #expect(verified.uid == session.localId)
            #expect(verified.email == "verify@example.com")
            #expect(verified.signInProvider == "password")

            // Wrong project, tampered payload, expired, session cookie given as an ID token.
            let other = TokenVerifier(projectId: "someone-else", keySource: .hearth(h.baseURL))
            await #expect(throws: TokenVerificationError.self) { try await other.verifyIDToken(idToken) }
            let parts = idToken.split(separator: ".")
            var payload = try #require(jwtPayload(idToken))
            payload["sub"] = "admin"
            let forged = "\(parts[0]).\(try rawJWT(header: [:], payload: payload).split(separator: ".")[1]).\(parts[2])"
            do {
                _ = try await verifier.verifyIDToken(forged)
                Issue.record("a tampered token verified")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .badSignature)
            }
            let later = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL), now: { Date().addingTimeInterval(7200) })
            do {
                _ = try await later.verifyIDToken(idToken)
                Issue.record("an expired token verified")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .expired)
            }
            let admin = AdminClient(baseURL: h.baseURL, projectId: h.projectId, credentials: .emulatorOwner)
            let cookie = try await admin.createSessionCookie(idToken: idToken, duration: 600)
            #expect(try await verifier.verifySessionCookie(cookie).uid == session.localId)
            do {
                _ = try await verifier.verifyIDToken(cookie)
                Issue.record("a session cookie passed as an ID token")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .wrongIssuer)
            }

            // Revocation and disabling, through the admin API.
            #expect(try await verifier.verifyIDToken(idToken, checkRevokedWith: admin).uid == session.localId)
            var disable = AdminUpdateRequest(localId: session.localId)
            disable.disableUser = true
            try await admin.updateUser(disable)
            await #expect(throws: TokenVerificationError(.userDisabled, "the user is disabled")) {
                try await verifier.verifyIDToken(idToken, checkRevokedWith: admin)
            }
        }
    }

    @Test func adminClientWithAServiceAccountAndCustomTokens() async throws {
        let account = try TestServiceAccount(email: "backend@hearth-prod.iam.gserviceaccount.com")
        try await HearthHarness.run(configure: { $0.projectId = "hearth-prod"; $0.apiKeys = ["test-key"] }) { h in
            try await h.store.saveServiceAccountKey(account.registration(at: h.clock.now))
            let serviceAccount = try await ServiceAccount(json: Self.serviceAccountJSON(account, projectId: "hearth-prod",
                                                                                    tokenURI: h.baseURL + WirePaths.oauth2Token))
            let admin = AdminClient(baseURL: h.baseURL, projectId: "hearth-prod", credentials: .serviceAccount(serviceAccount))
            let uid = try await admin.createUser(AdminCreateUserRequest(localId: "swift-1", email: "swift@example.com", password: "secret-123"))
            #expect(uid == "swift-1")
            try await admin.setCustomClaims(uid: uid, ["tier": .string("gold")])
            #expect(try await admin.getUser(email: "swift@example.com")?.customAttributes == #"{"tier":"gold"}"#)
            #expect(try await admin.listUsers(maxResults: 10).users.map(\.localId) == ["swift-1"])
            do {
                _ = try await admin.createUser(AdminCreateUserRequest(localId: "swift-1"))
                Issue.record("a duplicate uid was created")
            } catch let error as AdminError {
                #expect(error.code == "DUPLICATE_LOCAL_ID")
            }
            // Custom tokens signed by the same key sign in.
            let token = try await serviceAccount.createCustomToken(uid: "swift-2", claims: ["plan": .string("pro")], now: h.clock.now)
            let reply = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(jwtPayload(try reply.decode(SignInWithCustomTokenResponse.self).idToken ?? "")?["plan"] as? String == "pro")
            await #expect(throws: ServiceAccount.Error.self) { try await serviceAccount.createCustomToken(uid: "x", claims: ["sub": .string("y")]) }
            try await admin.deleteUser(uid: uid)
            #expect(try await admin.getUser(uid: uid) == nil)
            // The emulator credential is refused here.
            let owner = AdminClient(baseURL: h.baseURL, projectId: "hearth-prod", credentials: .emulatorOwner)
            do {
                _ = try await owner.getUser(uid: "x")
                Issue.record("Bearer owner administered a production project")
            } catch let error as AdminError {
                #expect(error.httpStatus == 401)
            }
        }
    }

    @Test func exampleBackendAuthenticatesWithTheMiddleware() async throws {
        try await HearthHarness.run { h in
            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
            let admin = AdminClient(baseURL: h.baseURL, projectId: h.projectId, credentials: .emulatorOwner)
            let boss = try await h.signUp(email: "boss@example.com")
            let worker = try await h.signUp(email: "worker@example.com")
            try await admin.setCustomClaims(uid: boss.localId, ["admin": .bool(true)])
            let bossToken = try await h.refresh(try #require(boss.refreshToken)).decode(GrantTokenResponse.self).idToken
            let app = Application(router: exampleBackendRouter(verifier: verifier, admin: admin))
            try await app.test(.router) { client in
                try await client.execute(uri: "/me", method: .get) { #expect($0.status == .unauthorized) }
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer not-a-token"]) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(worker.idToken!)"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body).contains("uid=\(worker.localId)"))
                }
                try await client.execute(uri: "/admin/grant/\(boss.localId)", method: .post, headers: [.authorization: "Bearer \(worker.idToken!)"]) {
                    #expect($0.status == .forbidden)
                }
                try await client.execute(uri: "/admin/grant/\(worker.localId)", method: .post, headers: [.authorization: "Bearer \(bossToken)"]) {
                    #expect($0.status == .ok)
                }
            }
            #expect(try await admin.getUser(uid: worker.localId)?.customAttributes == #"{"role":"editor"}"#)
        }
    }
}
