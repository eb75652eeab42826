import Foundation
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Complete flows over real HTTP on loopback against the built-in Microsoft- and Yahoo-shaped providers.
@Suite struct FederatedSignInTests {
    @Test func microsoftPersonalAccount() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", name: "Ada Lovelace",
                                                 customParameters: ["prompt": "consent", "login_hint": "ada@outlook.com"])
            let link = try #require(flow.link, "\(flow.errorPage?.body ?? "") \(flow.firebaseError ?? [:])")
            #expect(flow.appURL?.hasPrefix("http://127.0.0.1:65000/callback?") == true)
            #expect(flow.eventId == "EVENTABCDE")
            #expect(link.hasPrefix(h.baseURL + "/__/auth/handler?"))
            #expect(Browser.query(link, "code") != nil)
            let reply = try await h.signInWithIdp(flow, providerId: "microsoft.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "microsoft.com")
            #expect(body.isNewUser == true)
            #expect(body.email == "ada@outlook.com")
            // outlook.com is Microsoft's own domain: the email is verified.
            #expect(body.emailVerified == true)
            #expect(body.displayName == "Ada Lovelace")
            #expect(body.firstName == "Ada")
            #expect(body.lastName == "Lovelace")
            #expect(body.photoUrl == nil)
            // Personal accounts: the federated id is the un-padded 16 hex digits of the oid.
            let federatedId = try #require(body.federatedId)
            #expect(federatedId.count == 16)
            #expect(federatedId.allSatisfy { $0.isHexDigit })
            #expect(body.oauthAccessToken?.isEmpty == false)
            #expect(body.oauthIdToken?.isEmpty == false)
            #expect(body.oauthExpireIn == 3600)
            #expect(body.expiresIn == "3600")
            let raw = try #require(body.rawUserInfo?.data(using: .utf8))
            let profile = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            #expect(profile["displayName"] as? String == "Ada Lovelace")
            #expect(profile["id"] as? String == federatedId)
            let idToken = try #require(body.idToken)
            let claims = try #require(jwtPayload(idToken))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "microsoft.com")
            #expect(((claims["firebase"] as? [String: Any])?["identities"] as? [String: [String]])?["microsoft.com"] == [federatedId])
            // The same email gives the same account next time.
            let again = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let second = try again.decode(SignInWithIdpResponse.self)
            #expect(second.isNewUser == false)
            #expect(second.localId == body.localId)
            #expect(second.federatedId == federatedId)
            // The lookup lists the provider.
            let secondToken = try #require(second.idToken)
            let lookup = try await h.lookup(secondToken).decode(LookupResponse.self)
            #expect(lookup.users.first?.providerUserInfo.map(\.providerId) == ["microsoft.com"])
            #expect(lookup.users.first?.providerUserInfo.first?.rawId == federatedId)
        }
    }
}
