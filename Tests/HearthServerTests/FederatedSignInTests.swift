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
            #expect(body.oauthExpireIn == 600)  // the dev IdPs' access tokens live ten minutes
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

    @Test func microsoftWorkAccountAndTenants() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: "grace@contoso.com", name: "Grace Hopper")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            // Work accounts: the federated id is the oid (a GUID); the email is verified because the token says the
            // tenant verified contoso.com (xms_edov), not because of the domain (TrustTests has the nOAuth cases).
            #expect(UUID(uuidString: body.federatedId ?? "") != nil)
            #expect(body.emailVerified == true)
            #expect(body.email == "grace@contoso.com")
            // A concrete tenant (domain) and `organizations` accept her; `consumers` and another tenant refuse.
            for tenant in ["contoso.com", "organizations"] {
                let ok = try await h.federatedSignIn(providerId: "microsoft.com", email: "grace@contoso.com", customParameters: ["tenant": tenant])
                #expect(try ok.decode(SignInWithIdpResponse.self).localId == body.localId, "tenant \(tenant)")
            }
            for tenant in ["consumers", "fabrikam.com"] {
                let refused = try await h.browserSignIn(providerId: "microsoft.com", email: "grace@contoso.com", customParameters: ["tenant": tenant])
                #expect(refused.link == nil)
                #expect(refused.firebaseError?["message"]?.contains("AADSTS50020") == true, "tenant \(tenant)")
            }
        }
    }

    @Test func microsoftTenantGUIDIsThePathSegment() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let tenantId = "9188040d-6c67-4c5b-b112-36a304b66dad"
            let start = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", customParameters: ["tenant": tenantId, "prompt": "login", "domain_hint": "consumers"]))
            let location = try #require(start.location)
            #expect(location.hasPrefix(h.devIdPs!.microsoftBase + "/\(tenantId)/oauth2/v2.0/authorize?"))
            #expect(Browser.query(location, "tenant") == nil)
            #expect(Browser.query(location, "prompt") == "login")
            #expect(Browser.query(location, "domain_hint") == "consumers")
            #expect(Browser.query(location, "response_type") == "code")
            #expect(Browser.query(location, "code_challenge_method") == "S256")
            #expect(Browser.query(location, "scope") == "openid email profile User.Read")
            #expect(Browser.query(location, "redirect_uri") == h.baseURL + "/__/auth/handler")
            #expect((Browser.query(location, "state") ?? "").count >= 40)
            #expect((Browser.query(location, "nonce") ?? "").count >= 30)
            // A personal account signs in through the consumer tenant.
            let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: "bob@hotmail.com", customParameters: ["tenant": tenantId])
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test func yahoo() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "ada@yahoo.com", name: "Ada Lovelace", scopes: ["mail-r"])
            let reply = try await h.signInWithIdp(flow, providerId: "yahoo.com")
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.providerId == "yahoo.com")
            #expect(body.federatedId?.count == 26)
            #expect(body.emailVerified == true)
            #expect(body.photoUrl?.contains("/avatars/") == true)
            #expect(body.displayName == "Ada Lovelace")
            let raw = try #require(body.rawUserInfo?.data(using: .utf8))
            let profile = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            #expect(profile["sub"] as? String == body.federatedId)
            // ES256-signed ID token from the provider.
            #expect(jwtHeader(body.oauthIdToken ?? "")?["alg"] as? String == "ES256")
            // Yahoo gets no PKCE by default.
            let start = try await Browser.get(h.handlerURL(providerId: "yahoo.com", rawSessionId: "ABCDEFGHIJ"))
            #expect(Browser.query(start.location ?? "", "code_challenge") == nil)
            #expect(Browser.query(start.location ?? "", "nonce") != nil)
        }
    }

    @Test func appleAppGetsTheFirebaseDeepLink() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", apple: ("com.example.app", "1:1234:ios:abcd"))
            let appURL = try #require(flow.appURL)
            #expect(appURL.hasPrefix("app-1-1234-ios-abcd://firebaseauth/link?deep_link_id="))
            let deepLink = try #require(Browser.query(appURL, "deep_link_id"))
            #expect(deepLink.hasPrefix(h.baseURL + "/__/auth/callback?"))
            #expect(Browser.query(deepLink, "authType") == "signInWithRedirect")
            #expect(Browser.query(deepLink, "eventId") == "EVENTABCDE")
            #expect(try await h.signInWithIdp(flow, providerId: "microsoft.com").status == 200)
        }
    }

    @Test func linkReauthenticateAndAlreadyLinked() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let ada = try await h.signUp(email: "ada@example.com")
            h.clock.advance(by: 1)
            // Link Yahoo to the password account.
            let linked = try await h.federatedSignIn(providerId: "yahoo.com", email: "ada.l@yahoo.com", idToken: ada.idToken)
            #expect(linked.status == 200, "\(linked.text)")
            let linkBody = try linked.decode(SignInWithIdpResponse.self)
            #expect(linkBody.localId == ada.localId)
            #expect(linkBody.idToken != nil)
            let user = try #require(try await h.store.user(localId: ada.localId))
            #expect(user.identities.map(\.providerId) == ["yahoo.com"])
            let methods = try await h.post(WirePaths.accounts("createAuthUri"), CreateAuthUriRequest(identifier: "ada@example.com")).decode(CreateAuthUriResponse.self)
            #expect(methods.signinMethods == ["password", "yahoo.com"])

            // Reauthenticate: autoCreate=false signs in as the same user.
            let reauth = try await h.federatedSignIn(providerId: "yahoo.com", email: "ada.l@yahoo.com", autoCreate: false)
            #expect(try reauth.decode(SignInWithIdpResponse.self).localId == ada.localId)
            // Reauthenticating with an unknown identity is USER_NOT_FOUND, and creates nothing.
            let count = try await h.store.userCount()
            let unknown = try await h.federatedSignIn(providerId: "yahoo.com", email: "stranger@yahoo.com", autoCreate: false)
            #expect(unknown.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.userCount() == count)

            // Another user linking the same Yahoo account: FEDERATED_USER_ID_ALREADY_LINKED, as HTTP 200 with the
            // provider's tokens (returnIdpCredential), so the client can build the updated credential.
            let bob = try await h.signUp(email: "bob@example.com")
            let taken = try await h.federatedSignIn(providerId: "yahoo.com", email: "ada.l@yahoo.com", idToken: bob.idToken)
            #expect(taken.status == 200)
            let takenBody = try taken.decode(SignInWithIdpResponse.self)
            #expect(takenBody.errorMessage == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(takenBody.oauthAccessToken != nil)
            #expect(takenBody.oauthIdToken != nil)
            #expect(takenBody.email == "ada.l@yahoo.com")
            #expect(takenBody.idToken == nil)
            // Unlink through accounts:update deleteProvider.
            let unlinked = try await h.post(WirePaths.accounts("update"), UpdateRequest(idToken: linkBody.idToken, deleteProvider: ["yahoo.com"]))
            #expect(try unlinked.decode(UpdateResponse.self).providerUserInfo.map(\.providerId) == ["password"])
        }
    }

    @Test func accountExistsFlowLinksThePendingCredential() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // The seeds' flow: an email/password account exists; the user signs in with Microsoft using the same email.
            let existing = try await h.signUp(email: "ada@outlook.com", password: "correct horse")
            let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com", name: "Ada")
            #expect(reply.status == 200)
            let body = try reply.decode(SignInWithIdpResponse.self)
            #expect(body.needConfirmation == true)
            #expect(body.email == "ada@outlook.com")
            #expect(body.verifiedProvider == ["password"])
            #expect(body.idToken == nil)
            #expect(body.refreshToken == nil)
            let pendingToken = try #require(body.pendingToken)
            #expect(body.oauthAccessToken != nil)
            // Nothing was merged.
            #expect(try await h.store.user(localId: existing.localId)?.identities.isEmpty == true)
            // fetchSignInMethods → sign in with the password → link the pending credential.
            let methods = try await h.post(WirePaths.v3("createAuthUri"), CreateAuthUriRequest(identifier: "ada@outlook.com")).decode(CreateAuthUriResponse.self)
            #expect(methods.signinMethods == ["password"])
            let signedIn = try await h.signIn(email: "ada@outlook.com", password: "correct horse").decode(SignInWithPasswordResponse.self)
            let link = try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: "providerId=microsoft.com", sessionId: nil, pendingToken: pendingToken,
                idToken: signedIn.idToken))
            #expect(link.status == 200, "\(link.text)")
            let linked = try link.decode(SignInWithIdpResponse.self)
            #expect(linked.localId == existing.localId)
            #expect(linked.idToken != nil)
            #expect(try await h.store.user(localId: existing.localId)?.identities.map(\.providerId) == ["microsoft.com"])
            // Now Microsoft signs in straight to that account.
            let direct = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            #expect(try direct.decode(SignInWithIdpResponse.self).localId == existing.localId)
            // The pending token was single use.
            let replay = try await h.post(WirePaths.accounts("signInWithIdp"), SignInWithIdpRequest(
                requestUri: "http://localhost", postBody: "providerId=microsoft.com", sessionId: nil, pendingToken: pendingToken,
                idToken: signedIn.idToken))
            #expect(replay.errorCode == "INVALID_PENDING_TOKEN")
        }
    }

    @Test func disabledProviderIsOperationNotAllowed() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // A person's registration, disabled, wins over the dev IdP.
            try await h.storeDevProviderConfig("yahoo.com", enabled: false)
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "ada@yahoo.com")
            #expect(flow.link == nil)
            #expect(flow.firebaseError?["code"] == "auth/operation-not-allowed")
            #expect(flow.firebaseError?["message"]?.hasPrefix("OPERATION_NOT_ALLOWED") == true)
            // oidc.* providers that were never configured too.
            let oidc = try await h.browserSignIn(providerId: "oidc.nothing", email: "ada@example.com")
            #expect(oidc.firebaseError?["code"] == "auth/operation-not-allowed")
        }
    }

    @Test func userCancelsAtTheProvider() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", cancel: true)
            #expect(flow.link == nil)
            #expect(flow.firebaseError?["code"] == "auth/web-context-cancelled")
        }
    }

    @Test func emulatorHandlerPathWorksToo() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let start = try await Browser.get(h.handlerURL(providerId: "yahoo.com", rawSessionId: "ABCDEFGHIJ", path: "/emulator/auth/handler"))
            #expect(start.status == 302)
            #expect(start.location?.hasPrefix(h.devIdPs!.yahooBase + "/oauth2/request_auth?") == true)
        }
    }

    @Test func providerSecretsNeverLeave() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let secret = h.devIdPs!.microsoftClient.secret
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            let reply = try await h.signInWithIdp(flow, providerId: "microsoft.com")
            #expect(!reply.text.contains(secret))
            #expect(!(flow.appURL ?? "").contains(secret))
            try await h.storeDevProviderConfig("microsoft.com")
            let config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            #expect(!config.description.contains(secret))
            #expect(config.redacted.clientSecret == "********")
        }
    }
}

@Suite struct HandlerTenancyTests {
    @Test func firebaseTenantIdIsRefusedNotTakenForAMicrosoftTenant() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let page = try await Browser.get(h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ", extra: [("tid", "tenant-1")]))
            #expect(page.status == 302)
            let error = try #require(Browser.query(page.location ?? "", "firebaseError"))
            #expect(error.contains("TENANT_NOT_FOUND") && error.contains("tenant custom parameter"))
        }
    }
}
