import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Issue 21, item 9: Sign in with Apple and Google through HearthAuth — the native credentials' wire shape
/// (Firebase's `postBody`, the name as `user` JSON), `Auth.revokeToken(withAuthorizationCode:)`, and end to end
/// against a real server with the Apple- and Google-shaped dev providers (native tokens and the web flow).
@Suite struct AppleGoogleSDKTests {
    static let signInPath = SignInWithIdpRequest.method.clientPath

    /// The `postBody` of the one `signInWithIdp` `credential` sends (the recording backend's answer is refused).
    static func postBody(of credential: AuthCredential) async throws -> String {
        let backend = RecordingBackend()
        _ = try? await EmailActionsUnitTests.auth(backend).signIn(with: credential)
        let sent = try #require(backend.requests.value.last)
        #expect(sent.path == signInPath)
        #expect(sent.body["requestUri"] as? String == "http://localhost")
        #expect(sent.body["returnSecureToken"] as? Bool == true)
        #expect(sent.body["sessionId"] == nil)
        return try #require(sent.body["postBody"] as? String)
    }

    static func name(_ given: String?, _ family: String?) -> PersonNameComponents {
        var name = PersonNameComponents()
        name.givenName = given
        name.familyName = family
        return name
    }

    // MARK: The wire

    @Test func appleCredentialSendsTheNameAsFirebaseDoes() async throws {
        let credential = OAuthProvider.appleCredential(withIDToken: "apple.jwt", rawNonce: "raw-nonce", fullName: Self.name("Ada", "Lovelace"))
        #expect(credential.provider == "apple.com")
        #expect(credential.idToken == "apple.jwt" && credential.rawNonce == "raw-nonce" && credential.accessToken == nil)
        let body = try await Self.postBody(of: credential)
        // Firebase's order and escaping: providerId, id_token, nonce, then `user` as JSON with sorted keys.
        #expect(body == "providerId=apple.com&id_token=apple.jwt&nonce=raw-nonce&user="
                + "%7B%22name%22%3A%7B%22firstName%22%3A%22Ada%22%2C%22lastName%22%3A%22Lovelace%22%7D%7D")
        #expect(FormEncoding.fields(body)["user"] == #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        // Only the parts given; none at all: no `user` field. Non-ASCII letters survive the round trip.
        let given = try await Self.postBody(of: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: Self.name("Zoë", nil)))
        #expect(FormEncoding.fields(given)["user"] == #"{"name":{"firstName":"Zoë"}}"#)
        let family = try await Self.postBody(of: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: Self.name(nil, "O'Brien")))
        #expect(FormEncoding.fields(family)["user"] == #"{"name":{"lastName":"O'Brien"}}"#)
        for fullName in [nil, PersonNameComponents(), Self.name(nil, nil)] {
            let bare = try await Self.postBody(of: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: fullName))
            #expect(bare == "providerId=apple.com&id_token=t&nonce=n")
        }
        // No raw nonce: none is sent (the server answers MISSING_OR_INVALID_NONCE).
        #expect(try await Self.postBody(of: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: nil, fullName: nil)) == "providerId=apple.com&id_token=t")
    }

    @Test func googleAndGenericCredentialsOnTheWire() async throws {
        #expect(GoogleAuthProvider.id == "google.com")
        let google = GoogleAuthProvider.credential(withIDToken: "google.jwt", accessToken: "ya29.token")
        #expect(google.provider == "google.com")
        #expect((google as? OAuthCredential)?.idToken == "google.jwt" && (google as? OAuthCredential)?.accessToken == "ya29.token")
        #expect(try await Self.postBody(of: google) == "providerId=google.com&id_token=google.jwt&access_token=ya29.token")
        // Firebase's generic forms with an access token.
        let withNonce = OAuthProvider.credential(withProviderID: "google.com", idToken: "g", rawNonce: "r n", accessToken: "a")
        #expect(try await Self.postBody(of: withNonce) == "providerId=google.com&id_token=g&nonce=r%20n&access_token=a")
        let withoutNonce = OAuthProvider.credential(withProviderID: "microsoft.com", idToken: "m", accessToken: nil)
        #expect(try await Self.postBody(of: withoutNonce) == "providerId=microsoft.com&id_token=m")
        // The existing forms keep their fields (now in Firebase's order).
        #expect(try await Self.postBody(of: OAuthProvider.credential(providerID: "yahoo.com", idToken: "y", rawNonce: "n")) == "providerId=yahoo.com&id_token=y&nonce=n")
    }

    @Test func anAccessTokenAloneIsRefusedWithoutARequest() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        await #expect { try await auth.signIn(with: GoogleAuthProvider.credential(withIDToken: "", accessToken: "ya29.only")) } throws: { error in
            (error as NSError).code == AuthErrorCode.invalidCredential.rawValue
        }
        #expect(backend.requests.value.isEmpty)
    }

    /// A recording backend with a signed-in anonymous user (`uid-1`, ID token `id-token-1`).
    static func signedIn() async throws -> (RecordingBackend, Auth) {
        let backend = RecordingBackend()
        backend.answer(SignUpRequest.method.clientPath, #"{"kind":"k","localId":"uid-1","idToken":"id-token-1","refreshToken":"refresh-1","expiresIn":"3600"}"#)
        backend.answer(LookupRequest.method.clientPath, #"{"kind":"k","users":[{"localId":"uid-1","emailVerified":false,"providerUserInfo":[],"validSince":"0","disabled":false,"createdAt":"0"}]}"#)
        backend.answer(RevokeTokenRequest.method.clientPath, "{}")
        let auth = EmailActionsUnitTests.auth(backend)
        _ = try await auth.signInAnonymously()
        return (backend, auth)
    }

    @Test func revokeTokenSendsWhatFirebasesAppleSDKSends() async throws {
        // Nobody signed in: nothing to revoke, nothing sent (as Firebase).
        let idle = RecordingBackend()
        try await EmailActionsUnitTests.auth(idle).revokeToken(withAuthorizationCode: "code")
        #expect(idle.requests.value.isEmpty)

        let (backend, auth) = try await Self.signedIn()
        try await auth.revokeToken(withAuthorizationCode: "c0de.apple-authorization")
        let sent = try #require(backend.requests.value.last)
        // The v2 path of the catalog (the server's route), with Firebase's body: the enum's number as a string.
        #expect(sent.path == "/identitytoolkit.googleapis.com/v2/accounts:revokeToken")
        #expect(sent.path == RevokeTokenRequest.method.clientPath)
        #expect(sent.body.count == 4)
        #expect(sent.body["providerId"] as? String == "apple.com")
        #expect(sent.body["tokenType"] as? String == "3")
        #expect(sent.body["token"] as? String == "c0de.apple-authorization")
        #expect(sent.body["idToken"] as? String == "id-token-1")
        // The server's wire type reads that body as an authorization code.
        let decoded = try JSONDecoder().decode(RevokeTokenRequest.self, from: JSONSerialization.data(withJSONObject: sent.body))
        #expect(decoded.tokenType == .code)
        #expect(decoded.token == "c0de.apple-authorization" && decoded.idToken == "id-token-1" && decoded.providerId == "apple.com")

        // The completion-handler form sends the same.
        let before = backend.requests.value.count
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            auth.revokeToken(withAuthorizationCode: "second") { continuation.resume(returning: $0) }
        }
        #expect(failure == nil)
        #expect(backend.requests.value.count == before + 1)
        #expect(backend.requests.value.last?.body["token"] as? String == "second")
    }

    @Test func accountDeletionOfTheGuideRevokesThenDeletes() async throws {
        let (backend, auth) = try await Self.signedIn()
        let before = backend.requests.value.count
        try await GuideExamples.deleteAccountRevokingApple(authorizationCode: "code-for-deletion", auth: auth)
        #expect(backend.requests.value.dropFirst(before).map(\.path) == [RevokeTokenRequest.method.clientPath, DeleteAccountRequest.method.clientPath])
        #expect(auth.currentUser == nil)
    }

    // MARK: End to end, native tokens from the dev providers

    /// What an app does with ASAuthorizationAppleIDCredential.fullName: Apple's `user` field as name components.
    static func fullName(fromAppleUserField user: String?) throws -> PersonNameComponents? {
        guard let user else { return nil }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(user.utf8)) as? [String: Any])
        let name = json["name"] as? [String: String]
        return Self.name(name?["firstName"], name?["lastName"])
    }

    /// A JWT's payload (not verified: the server did that).
    static func claims(of jwt: String) throws -> [String: Any] {
        var part = String(jwt.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        part += String(repeating: "=", count: (4 - part.count % 4) % 4)
        let data = try #require(Data(base64Encoded: part))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func nativeSignInWithAppleKeepsTheNameFromTheFirstAuthorization() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let auth = AuthSDKTests.makeAuth(h)
            let raw = GuideExamples.randomNonceString()
            #expect(raw.count == 32 && raw != GuideExamples.randomNonceString())
            let first = try await h.nativeAppleTokens(email: "ada@example.com", name: "Ada Lovelace", rawNonce: raw)
            let fullName = try #require(try Self.fullName(fromAppleUserField: first.user))
            let result = try await GuideExamples.signInWithApple(idTokenString: first.idToken, rawNonce: raw, fullName: fullName, auth: auth)
            #expect(result.additionalUserInfo?.providerID == "apple.com")
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.displayName == "Ada Lovelace")
            #expect(result.user.email == "ada@example.com")
            #expect(result.user.emailVerified)
            let identity = try #require(result.user.providerData.first)
            #expect(identity.providerID == "apple.com")
            // The federated id is Apple's `sub` (`000123.<hex>.0456` shape).
            #expect(identity.uid == (try Self.claims(of: first.idToken)["sub"] as? String))
            #expect(identity.uid.split(separator: ".").map(\.count) == [6, 32, 4])
            #expect(try await result.user.getIDTokenResult().signInProvider == "apple.com")

            // Apple sends the name only once: the next sign-in has none, and the account keeps it.
            try auth.signOut()
            let againNonce = GuideExamples.randomNonceString()
            let second = try await h.nativeAppleTokens(email: "ada@example.com", rawNonce: againNonce)
            #expect(second.user == nil)
            let again: AuthDataResult = try await withCheckedThrowingContinuation { continuation in
                GuideExamples.signInWithAppleCompletion(idTokenString: second.idToken, rawNonce: againNonce, fullName: nil, auth: auth) { result, error in
                    if let result { continuation.resume(returning: result) } else { continuation.resume(throwing: error!) }
                }
            }
            #expect(again.user.uid == result.user.uid)
            #expect(again.additionalUserInfo?.isNewUser == false)
            #expect(again.user.displayName == "Ada Lovelace")
        }
    }

    /// The App Store's account deletion, end to end: the SDK hands a fresh native authorization code to the server,
    /// which exchanges it as the bundle id and revokes the grant at the (dev) Apple provider; then the user is deleted.
    @Test func revokeTokenRevokesTheGrantAtAppleThenTheAccountIsDeleted() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let dev = try #require(h.devIdPs)
            let auth = AuthSDKTests.makeAuth(h)
            let raw = GuideExamples.randomNonceString()
            let tokens = try await h.nativeAppleTokens(email: "ada@example.com", name: "Ada Lovelace", rawNonce: raw)
            let result = try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: tokens.idToken, rawNonce: raw, fullName: nil))
            let uid = result.user.uid
            let before = dev.apple.revokedTokenCount
            let fresh = try await h.nativeAppleTokens(email: "ada@example.com", rawNonce: GuideExamples.randomNonceString())
            try await GuideExamples.deleteAccountRevokingApple(authorizationCode: fresh.authorizationCode, auth: auth)
            #expect(dev.apple.revokedTokenCount == before + 1)
            #expect(auth.currentUser == nil)
            #expect(try await h.store.user(localId: uid) == nil)
            // Someone else's code (another Apple account) is refused for a signed-in user, and nothing is revoked.
            let bobNonce = GuideExamples.randomNonceString()
            let bob = try await h.nativeAppleTokens(email: "bob@example.com", rawNonce: bobNonce)
            _ = try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: bob.idToken, rawNonce: bobNonce, fullName: nil))
            let eves = try await h.nativeAppleTokens(email: "eve@example.com", rawNonce: GuideExamples.randomNonceString())
            await #expect(throws: (any Error).self) { try await auth.revokeToken(withAuthorizationCode: eves.authorizationCode) }
            #expect(dev.apple.revokedTokenCount == before + 1)
        }
    }

    @Test func nativeSignInWithAppleRefusesAWrongOrMissingNonce() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let auth = AuthSDKTests.makeAuth(h)
            let raw = GuideExamples.randomNonceString()
            let tokens = try await h.nativeAppleTokens(email: "eve@example.com", name: "Eve", rawNonce: raw)
            for wrong in ["not-the-nonce", nil, WireDigest.sha256Hex(raw)] as [String?] {
                await #expect { try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: tokens.idToken, rawNonce: wrong, fullName: nil)) } throws: { error in
                    let error = error as NSError
                    return error.domain == AuthErrors.domain && error.code == AuthErrorCode.missingOrInvalidNonce.rawValue
                }
            }
            #expect(auth.currentUser == nil)
            #expect(try await h.store.userCount() == 0)
            // The refusals did not use the token up: with its own nonce it signs in.
            let result = try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: tokens.idToken, rawNonce: raw, fullName: nil))
            #expect(result.user.providerData.first?.providerID == "apple.com")
        }
    }

    @Test func nativeSignInWithGoogle() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let auth = AuthSDKTests.makeAuth(h)
            let tokens = try await h.nativeGoogleTokens(email: "grace@example.com", name: "Grace Hopper")
            let result = try await GuideExamples.signInWithGoogle(idToken: tokens.idToken, accessToken: tokens.accessToken, auth: auth)
            #expect(result.additionalUserInfo?.providerID == "google.com")
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.email == "grace@example.com")
            #expect(result.user.emailVerified)
            #expect(result.user.displayName == "Grace Hopper")
            #expect(result.user.providerData.first?.providerID == "google.com")
            #expect(result.credential?.provider == "google.com")
            // The same person again, through the completion form: the same account.
            try auth.signOut()
            let second = try await h.nativeGoogleTokens(email: "grace@example.com", name: "Grace Hopper")
            let again: AuthDataResult = try await withCheckedThrowingContinuation { continuation in
                GuideExamples.signInWithGoogleCompletion(idToken: second.idToken, accessToken: second.accessToken, auth: auth) { result, error in
                    if let result { continuation.resume(returning: result) } else { continuation.resume(throwing: error!) }
                }
            }
            #expect(again.user.uid == result.user.uid)
            // With a nonce in the token, the raw one must match.
            let raw = GuideExamples.randomNonceString()
            let nonced = try await h.nativeGoogleTokens(email: "grace.n@example.com", rawNonce: raw)
            await #expect { try await auth.signIn(with: OAuthProvider.credential(withProviderID: "google.com", idToken: nonced.idToken, rawNonce: "other", accessToken: nonced.accessToken)) } throws: { error in
                (error as NSError).code == AuthErrorCode.missingOrInvalidNonce.rawValue
            }
            let noncedResult = try await auth.signIn(with: OAuthProvider.credential(withProviderID: "google.com", idToken: nonced.idToken, rawNonce: raw, accessToken: nonced.accessToken))
            #expect(noncedResult.user.email == "grace.n@example.com")
        }
    }

    @Test func linkAndReauthenticateWithGoogleAndApple() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let auth = AuthSDKTests.makeAuth(h)
            let created = try await auth.createUser(withEmail: "ada@example.org", password: "correct horse")
            let google = try await h.nativeGoogleTokens(email: "ada.g@gmail.com", name: "Ada G")
            let linked = try await created.user.link(with: GoogleAuthProvider.credential(withIDToken: google.idToken, accessToken: google.accessToken))
            #expect(linked.user.uid == created.user.uid)
            let raw = GuideExamples.randomNonceString()
            let apple = try await h.nativeAppleTokens(email: "ada.a@example.org", name: "Ada A", rawNonce: raw, hideEmail: true)
            let both = try await linked.user.link(with: OAuthProvider.appleCredential(withIDToken: apple.idToken, rawNonce: raw, fullName: nil))
            #expect(Set(both.user.providerData.map(\.providerID)) == ["password", "google.com", "apple.com"])
            // Reauthentication with a fresh Apple token of the same person.
            let raw2 = GuideExamples.randomNonceString()
            let fresh = try await h.nativeAppleTokens(email: "ada.a@example.org", rawNonce: raw2, hideEmail: true)
            let reauthenticated = try await both.user.reauthenticate(with: OAuthProvider.appleCredential(withIDToken: fresh.idToken, rawNonce: raw2, fullName: nil))
            #expect(reauthenticated.user.uid == created.user.uid)
        }
    }

    // MARK: End to end, the web flow

    @Test func appleAndGoogleThroughTheWebFlow() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = AuthSDKTests.makeAuth(h)
            // OAuthProvider(providerID: "apple.com"): nothing in the SDK refuses it (Firebase's does, outside the emulator).
            let browser = ScriptedBrowserUIDelegate(email: "ada@example.com", name: "Ada Lovelace")
            let apple = try await GuideExamples.signInWithAppleOnTheWeb(auth: auth, uiDelegate: browser)
            #expect(apple.additionalUserInfo?.providerID == "apple.com")
            #expect(apple.user.providerData.first?.providerID == "apple.com")
            #expect(apple.user.displayName == "Ada Lovelace")
            #expect(apple.user.email == "ada@example.com")
            let hops = browser.visited.all
            #expect(hops.contains { $0.contains("/__dev/apple/auth/authorize") && $0.contains("response_mode=form_post") && $0.contains("locale=en_US") })
            // Apple's form_post reached the handler, which sent the browser on to the SDK's loopback listener.
            #expect(hops.contains { $0.hasSuffix("/__/auth/handler") })
            #expect(hops.last?.hasPrefix("http://127.0.0.1:") == true && hops.last?.contains("/__/auth/callback?") == true)

            try auth.signOut()
            let googleBrowser = ScriptedBrowserUIDelegate(email: "grace@example.com", name: "Grace Hopper")
            let google = try await GuideExamples.signInWithGoogleOnTheWeb(auth: auth, uiDelegate: googleBrowser, hostedDomain: "example.com")
            #expect(google.additionalUserInfo?.providerID == "google.com")
            #expect(google.user.email == "grace@example.com")
            #expect(google.user.displayName == "Grace Hopper")
            #expect(google.credential?.idToken?.isEmpty == false)
            #expect(googleBrowser.visited.all.contains { $0.contains("/__dev/google/o/oauth2/v2/auth") && $0.contains("hd=example.com") })
            // And in one call, as Firebase's signIn(with:uiDelegate:).
            try auth.signOut()
            let oneCall = try await auth.signIn(with: OAuthProvider(providerID: "apple.com", auth: auth),
                                                uiDelegate: ScriptedBrowserUIDelegate(email: "ada@example.com"))
            #expect(oneCall.user.uid == apple.user.uid)
        }
    }
}
