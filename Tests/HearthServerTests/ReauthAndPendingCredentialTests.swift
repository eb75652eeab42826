import Foundation
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Issue 13 item 4: a reauthentication never creates (or links) anything, and a pending credential from an
/// account-exists answer survives a server restart and expires after its lifetime.
@Suite struct ReauthAndPendingCredentialTests {
    @Test func reauthenticationWithAnUnknownAccountCreatesNothing() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // An account with a password whose email a Microsoft account also has.
            let ada = try await h.signUp(email: "ada@outlook.com")
            let before = try await h.store.userCount()

            // As the SDKs reauthenticate: signInWithIdp with autoCreate=false and no idToken. The provider account is
            // unknown: USER_NOT_FOUND (which Firebase's SDKs report as userMismatch), never needConfirmation.
            for email in ["ada@outlook.com", "stranger@outlook.com", "stranger@contoso.com"] {
                let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: email, autoCreate: false)
                #expect(reply.status == 400, "\(email): \(reply.text)")
                #expect(reply.errorCode == "USER_NOT_FOUND", "\(email)")
                #expect(reply.json?["pendingToken"] == nil)
            }
            let yahoo = try await h.federatedSignIn(providerId: "yahoo.com", email: "stranger@yahoo.com", autoCreate: false)
            #expect(yahoo.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.userCount() == before)
            #expect(try await h.store.user(localId: ada.localId)?.identities.isEmpty == true)

            // A client that sends the user's idToken with autoCreate=false is reauthenticating too: nothing is linked.
            let withToken = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com", idToken: ada.idToken, autoCreate: false)
            #expect(withToken.errorCode == "USER_NOT_FOUND", "\(withToken.text)")
            #expect(try await h.store.user(localId: ada.localId)?.identities.isEmpty == true)

            // Once linked, the same reauthentication signs in as that user (and only as that user).
            let linked = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com", idToken: ada.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            let again = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com", autoCreate: false)
            #expect(try again.decode(SignInWithIdpResponse.self).localId == ada.localId)
            let bob = try await h.signUp(email: "bob@example.com")
            let foreign = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com", idToken: bob.idToken, autoCreate: false)
            #expect(foreign.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.user(localId: bob.localId)?.identities.isEmpty == true)
            #expect(try await h.store.userCount() == before + 1)
        }
    }

    /// An account-exists answer's pending token, for `email`.
    static func pendingToken(_ h: HearthHarness, email: String) async throws -> String {
        let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: email)
        let body = try reply.decode(SignInWithIdpResponse.self)
        #expect(body.needConfirmation == true, "\(reply.text)")
        return try #require(body.pendingToken)
    }

    static func linkPending(_ h: HearthHarness, _ pendingToken: String, email: String) async throws -> HearthHarness.Reply {
        let signedIn = try await h.signIn(email: email).decode(SignInWithPasswordResponse.self)
        return try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
            requestUri: "http://localhost", postBody: "providerId=microsoft.com", sessionId: nil, pendingToken: pendingToken,
            idToken: signedIn.idToken, returnSecureToken: true, returnIdpCredential: true))
    }

    @Test func pendingTokenStillLinksAfterARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("hearth.sqlite").path

        let (token, localId) = try await HearthHarness.run(databasePath: database, devIdPs: true) { h in
            let ada = try await h.signUp(email: "ada@outlook.com")
            return (try await Self.pendingToken(h, email: "ada@outlook.com"), ada.localId)
        }
        // A new server process on the same database (new dev IdP keys, new port).
        try await HearthHarness.run(databasePath: database, devIdPs: true) { h in
            let link = try await Self.linkPending(h, token, email: "ada@outlook.com")
            #expect(link.status == 200, "\(link.text)")
            #expect(try link.decode(SignInWithIdpResponse.self).localId == localId)
            #expect(try await h.store.user(localId: localId)?.identities.map(\.providerId) == ["microsoft.com"])
        }
    }

    @Test func pendingTokenExpiresAfterItsLifetime() async throws {
        try await HearthHarness.run(configure: { $0.pendingCredentialLifetime = 600 }, devIdPs: true) { h in
            _ = try await h.signUp(email: "ada@outlook.com")
            _ = try await h.signUp(email: "bob@outlook.com")
            let late = try await Self.pendingToken(h, email: "ada@outlook.com")
            let inTime = try await Self.pendingToken(h, email: "bob@outlook.com")
            h.clock.advance(by: 599)
            #expect(try await Self.linkPending(h, inTime, email: "bob@outlook.com").status == 200)
            h.clock.advance(by: 2)
            let expired = try await Self.linkPending(h, late, email: "ada@outlook.com")
            #expect(expired.status == 400)
            #expect(expired.errorCode == "INVALID_PENDING_TOKEN")
            #expect(try await h.store.user(email: "ada@outlook.com")?.identities.isEmpty == true)
        }
    }
}
