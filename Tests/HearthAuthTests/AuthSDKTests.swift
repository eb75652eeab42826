import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// The SDK end to end against a real Hearth server with the dev IdPs, through a scripted browser.
@Suite struct AuthSDKTests {
    /// A fresh Auth (own state, in-memory persistence) pointed at the harness's server.
    static func makeAuth(_ h: HearthHarness, persistence: (any UserPersistence)? = nil, clock: @escaping @Sendable () -> Date = { Date() },
                         backend: (any AuthBackend)? = nil) -> Auth {
        Auth(configuration: AuthConfiguration(
            serverURL: URL(string: h.baseURL)!, apiKey: "key-\(UUID().uuidString.prefix(8))", projectId: h.projectId, appId: "hearth-tests",
            bundleId: nil, persistence: persistence ?? InMemoryUserPersistence(), backend: backend, clock: clock, webSignInTimeout: 20))
    }

    func nsError(_ error: any Error) -> NSError { error as NSError }

    @Test func signInWithMicrosoftThroughTheGuideCode() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let changes = Locked<[String?]>([])
            let handle = auth.addStateDidChangeListener { _, user in changes.mutate { $0.append(user?.uid) } }
            let browser = ScriptedBrowserUIDelegate(email: "ada@outlook.com", name: "Ada Lovelace")
            let result = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: browser, tenant: "consumers")
            #expect(result.user.uid == auth.currentUser?.uid)
            #expect(result.additionalUserInfo?.providerID == "microsoft.com")
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.additionalUserInfo?.profile?["displayName"] as? String == "Ada Lovelace")
            #expect(result.credential?.accessToken?.isEmpty == false)
            #expect(result.credential?.idToken?.isEmpty == false)
            #expect(result.credential?.provider == "microsoft.com")
            let provider = try #require(result.user.providerData.first)
            #expect(provider.providerID == "microsoft.com")
            #expect(provider.uid.count == 16)
            #expect(result.user.email == "ada@outlook.com")
            #expect(result.user.emailVerified)
            // The browser went handler → dev IdP → Hearth callback → the SDK's loopback listener.
            let hops = browser.visited.all
            #expect(hops.first?.contains("/__/auth/handler?") == true)
            #expect(hops.contains { $0.contains("/__dev/microsoft/consumers/oauth2/v2.0/authorize") })
            #expect(hops.last?.hasPrefix("http://127.0.0.1:") == true && hops.last?.contains("/__/auth/callback?") == true)
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInProvider == "microsoft.com")
            #expect(token.claims["sub"] as? String == result.user.uid)
            #expect(changes.value == [nil, result.user.uid])
            auth.removeStateDidChangeListener(handle)
        }
    }

    @Test func completionHandlerFormOfTheGuide() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let result: AuthDataResult = try await withCheckedThrowingContinuation { continuation in
                GuideExamples.signInWithMicrosoftCompletion(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "grace@contoso.com")) { result, error in
                    if let result { continuation.resume(returning: result) } else { continuation.resume(throwing: error!) }
                }
            }
            #expect(result.user.providerData.first?.providerID == "microsoft.com")
            // Her tenant verified contoso.com (the dev IdP's xms_edov): Microsoft vouches for the email.
            #expect(result.user.emailVerified == true)
        }
    }

    @Test func signInWithYahoo() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let result = try await GuideExamples.signInWithYahoo(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@yahoo.com", name: "Ada"))
            #expect(result.additionalUserInfo?.profile?["sub"] as? String == result.user.providerData.first?.uid)
            #expect(result.credential?.idToken != nil)
            #expect(result.user.photoURL != nil)
            #expect(result.additionalUserInfo?.username == "ada@yahoo.com")
        }
    }

    @Test func linkAndProviderAlreadyLinked() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let created = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse")
            let linked = try await GuideExamples.link(providerID: "yahoo.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada.l@yahoo.com"))
            #expect(linked.user.uid == created.user.uid)
            #expect(Set(linked.user.providerData.map(\.providerID)) == ["password", "yahoo.com"])
            // Linking the same kind of provider again fails on the client, without a request.
            let credential = OAuthCredential(providerID: "yahoo.com", sessionID: "X", requestURI: "http://localhost")
            await #expect { try await linked.user.link(with: credential) } throws: { error in
                (error as NSError).code == AuthErrorCode.providerAlreadyLinked.rawValue
            }
            // Another user linking that Yahoo account: credentialAlreadyInUse with the updated credential.
            try auth.signOut()
            _ = try await auth.createUser(withEmail: "bob@example.com", password: "correct horse")
            await #expect { try await GuideExamples.link(providerID: "yahoo.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada.l@yahoo.com")) } throws: { error in
                let error = error as NSError
                return error.code == AuthErrorCode.credentialAlreadyInUse.rawValue
                    && (error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)?.accessToken != nil
                    && error.userInfo[AuthErrorUserInfoEmailKey] as? String == "ada.l@yahoo.com"
            }
            // Unlink.
            try auth.signOut()
            let ada = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse")
            let after = try await ada.user.unlink(fromProvider: "yahoo.com")
            #expect(after.providerData.map(\.providerID) == ["password"])
        }
    }

    @Test func reauthenticateAndUserMismatch() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let first = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com"))
            let again = try await GuideExamples.reauthenticate(providerID: "microsoft.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com"))
            #expect(again.user.uid == first.user.uid)
            // An account Hearth does not know: userMismatch (the server's USER_NOT_FOUND), nothing created.
            await #expect { try await GuideExamples.reauthenticate(providerID: "microsoft.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "eve@outlook.com")) } throws: { error in
                (error as NSError).code == AuthErrorCode.userMismatch.rawValue
            }
            // Another existing account: userMismatch too.
            let other = Self.makeAuth(h)
            _ = try await GuideExamples.signInWithMicrosoft(auth: other, uiDelegate: ScriptedBrowserUIDelegate(email: "bob@outlook.com"))
            await #expect { try await GuideExamples.reauthenticate(providerID: "microsoft.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "bob@outlook.com")) } throws: { error in
                (error as NSError).code == AuthErrorCode.userMismatch.rawValue
            }
            #expect(auth.currentUser?.uid == first.user.uid)
        }
    }

    @Test func accountExistsFlowOfTheGuide() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let existing = try await auth.createUser(withEmail: "ada@outlook.com", password: "correct horse")
            try GuideExamples.signOut(auth: auth)
            #expect(auth.currentUser == nil)
            // Directly: the error carries the email and the pending credential.
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            let credential = try await provider.credential(with: ScriptedBrowserUIDelegate(email: "ada@outlook.com"))
            await #expect { try await auth.signIn(with: credential) } throws: { error in
                let error = error as NSError
                return error.domain == AuthErrorDomain && error.code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue
                    && error.userInfo[AuthErrorUserInfoEmailKey] as? String == "ada@outlook.com"
                    && error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] is AuthCredential
            }
            // The guide's whole flow: fetchSignInMethods → password sign-in → link the pending credential.
            let askedFor = Locked<[String]>([])
            let result = try await GuideExamples.signInHandlingExistingAccount(
                providerID: "microsoft.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com")
            ) { email, methods in
                askedFor.mutate { $0 = [email] + methods }
                return "correct horse"
            }
            #expect(askedFor.value == ["ada@outlook.com", "password"])
            #expect(result.user.uid == existing.user.uid)
            #expect(Set(result.user.providerData.map(\.providerID)) == ["password", "microsoft.com"])
            // From now on Microsoft signs in directly to that account.
            try auth.signOut()
            let direct = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com"))
            #expect(direct.user.uid == existing.user.uid)
        }
    }

    @Test func signOutAndStateStream() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let persistence = InMemoryUserPersistence()
            let auth = Self.makeAuth(h, persistence: persistence)
            var states = auth.authStateChanges.makeAsyncIterator()
            let initial = await states.next()
            #expect(initial != nil && initial! == nil)
            let created = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse")
            let signedIn = await states.next()
            #expect(signedIn??.uid == created.user.uid)
            try await auth.core.persistNow()
            #expect(try persistence.load(key: auth.configuration.storageKey) != nil)
            try auth.signOut()
            let signedOut = await states.next()
            #expect(signedOut != nil && signedOut! == nil)
            #expect(auth.currentUser == nil)
            #expect(try persistence.load(key: auth.configuration.storageKey) == nil)
        }
    }

    @Test func tokensRefreshWhenFewerThanFiveMinutesRemainAndConcurrentCallersShareOneRefresh() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let offset = Locked<TimeInterval>(0)
            let counting = CountingBackend(h)
            let auth = Self.makeAuth(h, clock: { Date().addingTimeInterval(offset.value) }, backend: counting)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            let first = try await user.getIDToken()
            #expect(try await user.getIDToken() == first)
            #expect(counting.refreshes == 0)
            // 56 minutes later (fewer than 5 remain): refreshed; the server clock moves too.
            offset.mutate { $0 = 56 * 60 }
            h.clock.advance(by: 56 * 60)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 { group.addTask { try await user.getIDToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(tokens).count == 1)
            #expect(tokens[0] != first)
            #expect(counting.refreshes == 1)
            // Forcing refreshes again; the refresh token was rotated and still works.
            let forced = try await user.getIDToken(forcingRefresh: true)
            #expect(counting.refreshes == 2)
            #expect(try AuthTokenResult.parse(forced).authDate == (try AuthTokenResult.parse(first)).authDate)
        }
    }

    @Test func userIsSignedOutWhenTheServerDisablesIt() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
            var record = try #require(try await h.store.user(localId: user.uid))
            record.disabled = true
            try await h.store.updateUser(record)
            await #expect { try await user.getIDToken(forcingRefresh: true) } throws: { error in
                (error as NSError).code == AuthErrorCode.userDisabled.rawValue
            }
            #expect(auth.currentUser == nil)
        }
    }

    @Test func persistedUserIsRestoredFromA0600File() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let persistence = FileUserPersistence(directory: directory)
            let configuration = AuthConfiguration(serverURL: URL(string: h.baseURL)!, apiKey: "persist-key", projectId: h.projectId,
                                                  appId: "hearth-tests", persistence: persistence)
            let auth = Auth(configuration: configuration)
            let result = try await GuideExamples.signInWithYahoo(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@yahoo.com", name: "Ada"))
            try await auth.core.persistNow()
            let file = persistence.url(for: configuration.storageKey)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory.path)
            #expect((directoryAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            // A new process (a fresh core) restores the user, with working tokens.
            let restored = AuthCore(configuration: configuration)
            let user = try #require(restored.currentUser)
            #expect(user.uid == result.user.uid)
            #expect(user.providerData.first?.providerID == "yahoo.com")
            #expect(user.displayName == "Ada")
            #expect(try await user.getIDTokenResult(forcingRefresh: true).claims["sub"] as? String == result.user.uid)
        }
    }

    @Test func cancelAtTheProviderAndTimeout() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            await #expect { try await provider.credential(with: ScriptedBrowserUIDelegate(email: "ada@outlook.com", cancel: true)) } throws: { error in
                (error as NSError).code == AuthErrorCode.webContextCancelled.rawValue
            }
            // Nobody completes the sign-in: the listener gives up at the timeout.
            let impatient = Auth(configuration: AuthConfiguration(serverURL: URL(string: h.baseURL)!, apiKey: "timeout-key", projectId: h.projectId,
                                                                   appId: "hearth-tests", persistence: InMemoryUserPersistence(), webSignInTimeout: 1))
            let started = Date()
            await #expect { try await OAuthProvider(providerID: "yahoo.com", auth: impatient).credential(with: DoNothingUIDelegate()) } throws: { error in
                (error as NSError).code == AuthErrorCode.webContextCancelled.rawValue
            }
            #expect(Date().timeIntervalSince(started) < 10)
            // A disabled provider comes back as operationNotAllowed.
            try await h.storeDevProviderConfig("yahoo.com", enabled: false)
            await #expect { try await OAuthProvider(providerID: "yahoo.com", auth: auth).credential(with: ScriptedBrowserUIDelegate(email: "a@yahoo.com")) } throws: { error in
                (error as NSError).code == AuthErrorCode.operationNotAllowed.rawValue
            }
        }
    }

    @Test func emailPasswordAnonymousAndErrors() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            _ = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse")
            #expect(try await auth.fetchSignInMethods(forEmail: "ada@example.com") == ["password"])
            #expect(try await auth.fetchSignInMethods(forEmail: "nobody@example.com") == [])
            await #expect { try await auth.createUser(withEmail: "ada@example.com", password: "correct horse") } throws: { error in
                (error as NSError).code == AuthErrorCode.emailAlreadyInUse.rawValue
            }
            await #expect { try await auth.signIn(withEmail: "ada@example.com", password: "wrong password") } throws: { error in
                (error as NSError).code == AuthErrorCode.invalidCredential.rawValue
            }
            await #expect { try await auth.createUser(withEmail: "bob@example.com", password: "123") } throws: { error in
                let error = error as NSError
                return error.code == AuthErrorCode.weakPassword.rawValue && error.userInfo[AuthErrorUserInfoNameKey] as? String == "WEAK_PASSWORD"
            }
            try auth.signOut()
            let anonymous = try await auth.signInAnonymously()
            #expect(anonymous.user.isAnonymous)
            // Profile change.
            let change = anonymous.user.createProfileChangeRequest()
            change.displayName = "Anon"
            try await change.commitChanges()
            #expect(auth.currentUser?.displayName == "Anon")
            // Delete.
            try await anonymous.user.delete()
            #expect(auth.currentUser == nil)
        }
    }

    @Test func everyServerErrorStringMapsAsFirebaseDoes() {
        let expected: [ServerErrorCode: AuthErrorCode] = [
            .emailExists: .emailAlreadyInUse, .emailNotFound: .userNotFound, .invalidEmail: .invalidEmail,
            .invalidIdentifier: .invalidEmail, .weakPassword: .weakPassword, .invalidLoginCredentials: .invalidCredential,
            .invalidPassword: .wrongPassword, .userDisabled: .userDisabled, .userNotFound: .userNotFound,
            .operationNotAllowed: .operationNotAllowed, .tooManyAttempts: .tooManyRequests,
            .credentialTooOldLoginAgain: .requiresRecentLogin, .missingContinueUri: .missingContinueURI,
            .invalidContinueUri: .invalidContinueURI, .invalidIdToken: .invalidUserToken, .tokenExpired: .userTokenExpired,
            .invalidCustomToken: .invalidCustomToken, .credentialMismatch: .customTokenMismatch, .invalidIdpResponse: .invalidCredential,
            .invalidPendingToken: .invalidCredential, .federatedUserIdAlreadyLinked: .credentialAlreadyInUse,
            .providerAlreadyLinked: .providerAlreadyLinked, .invalidProviderId: .invalidProviderID, .unauthorizedDomain: .unauthorizedDomain,
            .missingEmail: .missingEmail, .missingOrInvalidNonce: .missingOrInvalidNonce, .noProviderToken: .providerTokenUnavailable,
            .providerTokenVaultDisabled: .providerTokenVaultDisabled, .providerUnavailable: .providerUnavailable,
            .appNotAuthorized: .appNotAuthorized, .unavailable: .networkError,
            // Email actions.
            .expiredOobCode: .expiredActionCode, .invalidOobCode: .invalidActionCode, .missingOobCode: .invalidActionCode,
            .missingRequestType: .invalidReqType, .invalidRequestType: .invalidReqType, .missingNewEmail: .missingEmail,
            .missingIosBundleId: .missingIosBundleID, .missingAndroidPackageName: .missingAndroidPackageName,
            .resetPasswordExceedLimit: .tooManyRequests, .quotaExceeded: .quotaExceeded, .emailNotConfigured: .emailSendingNotConfigured,
            // Second factors (TOTP).
            .missingMfaPendingCredential: .missingMultiFactorSession, .invalidMfaPendingCredential: .invalidMultiFactorSession,
            .missingMfaEnrollmentId: .missingMultiFactorInfo, .mfaEnrollmentNotFound: .multiFactorInfoNotFound, .unverifiedEmail: .unverifiedEmail,
            .secondFactorExists: .secondFactorAlreadyEnrolled, .secondFactorLimitExceeded: .maximumSecondFactorCountExceeded,
            .unsupportedFirstFactor: .unsupportedFirstFactor, .emailChangeNeedsVerification: .emailChangeNeedsVerification, .invalidCode: .invalidVerificationCode, .missingCode: .missingVerificationCode,
            .invalidSessionInfo: .invalidVerificationID, .missingSessionInfo: .missingVerificationID, .sessionExpired: .sessionExpired,
            // Passkeys (the preview's 17211/17212, Hearth's 1900x for the rest).
            .passkeyNotEnabled: .operationNotAllowed, .passkeyExists: .passkeyAlreadyEnrolled, .passkeyLimitExceeded: .passkeyLimitExceeded,
            .passkeyChallengeTimeout: .passkeyChallengeExpired, .passkeyEnrollmentNotFound: .missingPasskeyEnrollment,
            .invalidAuthenticatorResponse: .invalidAuthenticatorResponse,
            // Blocking functions (the Apple SDK's 17105).
            .blockingFunctionError: .blockingCloudFunctionError,
            // Phone sign-in and SMS codes (issue 40, item 6: the Apple SDK's 17041/17042/17047/17048/17056, 17201).
            .invalidPhoneNumber: .invalidPhoneNumber, .missingPhoneNumber: .missingPhoneNumber, .phoneNumberExists: .credentialAlreadyInUse,
            .invalidTemporaryProof: .invalidCredential, .invalidVerificationProof: .invalidCredential,
            .captchaCheckFailed: .captchaCheckFailed, .invalidRecaptchaToken: .captchaCheckFailed, .missingRecaptchaToken: .missingRecaptchaToken,
            .invalidAppCredential: .invalidAppCredential, .missingAppCredential: .missingAppCredential,
        ]
        // The tenant errors, by name (the Apple SDK's codes; Hearth's for an unknown tenant).
        let tenants: [String: AuthErrorCode] = ["TENANT_ID_MISMATCH": .tenantIDMismatch, "UNSUPPORTED_TENANT_OPERATION": .unsupportedTenantOperation,
                                                "TENANT_NOT_FOUND": .tenantNotFound, "INVALID_TENANT_ID": .tenantNotFound]
        for code in ServerErrorCode.allCases {
            let mapped = AuthErrorUtils.code(forServerError: code.rawValue, reason: code.reason)
            if code == .invalidApiKey {
                #expect(mapped == .invalidAPIKey)
            } else {
                #expect(mapped == expected[code] ?? tenants[code.rawValue] ?? .internalError, "\(code.rawValue)")
            }
        }
        #expect(AuthErrorUtils.code(forServerError: "ANYTHING", reason: "ipRefererBlocked") == .appNotAuthorized)
        func web(_ code: String) -> Int { AuthErrorUtils.webError(FirebaseWebError(jsonString: #"{"code":"\#(code)"}"#)!).code }
        #expect(web(WebAuthErrorCode.invalidOAuthClientId.rawValue) == AuthErrorCode.invalidClientID.rawValue)
        #expect(web(WebAuthErrorCode.networkRequestFailed.rawValue) == AuthErrorCode.webNetworkRequestFailed.rawValue)
        #expect(web(WebAuthErrorCode.internalError.rawValue) == AuthErrorCode.webInternalError.rawValue)
        #expect(web(WebAuthErrorCode.webContextCancelled.rawValue) == AuthErrorCode.webContextCancelled.rawValue)
        #expect(web(WebAuthErrorCode.invalidCredential.rawValue) == AuthErrorCode.invalidCredential.rawValue)
        #expect(web("auth/something") == AuthErrorCode.webSignInUserInteractionFailure.rawValue)
    }

    @Test func invalidAPIKeyIsReported() async throws {
        try await HearthHarness.run(configure: { $0.apiKeys = ["right-key"] }) { h in
            let auth = Auth(configuration: AuthConfiguration(serverURL: URL(string: h.baseURL)!, apiKey: "wrong-key", projectId: h.projectId,
                                                             persistence: InMemoryUserPersistence()))
            await #expect { try await auth.signInAnonymously() } throws: { error in
                (error as NSError).code == AuthErrorCode.invalidAPIKey.rawValue
            }
        }
    }

    @Test func providerRefusalIsNotACancelAndKeepsTheProvidersCode() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            provider.customParameters = ["tenant": "organizations"]
            do {
                _ = try await provider.credential(with: ScriptedBrowserUIDelegate(email: "personal@outlook.com"))
                Issue.record("a personal account signed in on organizations")
            } catch {
                let error = error as NSError
                #expect(error.code == AuthErrorCode.invalidCredential.rawValue)
                #expect(error.code != AuthErrorCode.webContextCancelled.rawValue)
                #expect(error.userInfo[AuthErrors.userInfoProviderErrorCodeKey] as? String == "AADSTS50020")
                #expect(error.userInfo[AuthErrors.userInfoProviderErrorKey] as? String == "access_denied")
                #expect((error.userInfo[AuthErrors.userInfoProviderErrorDescriptionKey] as? String)?.contains("AADSTS50020") == true)
                #expect(error.localizedDescription.contains("work or school accounts only"))
                #expect(error.userInfo[AuthErrors.userInfoCorrelationIdKey] is String)
            }
        }
    }

    @Test func oneCallSignInShowsTheFinalOutcomeOnTheLoopbackPage() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = Self.makeAuth(h)
            // Signed in.
            let browser = ScriptedBrowserUIDelegate(email: "onecall@yahoo.com")
            let result = try await auth.signIn(with: OAuthProvider(providerID: "yahoo.com", auth: auth), uiDelegate: browser)
            #expect(result.user.email == "onecall@yahoo.com")
            #expect(browser.visited.lastPage?.contains("Signed in with yahoo.com") == true, "\(browser.visited.lastPage ?? "")")
            #expect(browser.visited.lastPage?.contains("onecall@yahoo.com") == true)
            // Another account has the email: the page says so and names its methods.
            _ = try await h.signUp(email: "taken@outlook.com")
            let second = ScriptedBrowserUIDelegate(email: "taken@outlook.com")
            await #expect { try await Self.makeAuth(h).signIn(with: OAuthProvider(providerID: "microsoft.com", auth: auth), uiDelegate: second) } throws: { error in
                (error as NSError).code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue
                    && (error as NSError).userInfo[AuthErrors.userInfoSignInMethodsKey] as? [String] == ["password"]
            }
            #expect(second.visited.lastPage?.contains("An account already exists for taken@outlook.com") == true, "\(second.visited.lastPage ?? "")")
            #expect(second.visited.lastPage?.contains("password") == true)
            #expect(second.visited.lastPage?.contains("Signed in") == false)
            // Refused.
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            provider.customParameters = ["tenant": "organizations"]
            let third = ScriptedBrowserUIDelegate(email: "personal@outlook.com")
            await #expect(throws: NSError.self) { try await auth.signIn(with: provider, uiDelegate: third) }
            #expect(third.visited.lastPage?.contains("refused the sign-in") == true, "\(third.visited.lastPage ?? "")")
            // Linking in one call.
            let linked = try await result.user.link(with: OAuthProvider(providerID: "microsoft.com", auth: auth),
                                                    uiDelegate: ScriptedBrowserUIDelegate(email: "onecall@contoso.com"))
            #expect(linked.user.providerData.map(\.providerID).sorted() == ["microsoft.com", "yahoo.com"])
        }
    }

    @Test func loopbackPageSaysWhatCameBack() throws {
        func url(_ query: [(AuthHandlerParameter, String)]) -> URL {
            var components = URLComponents(string: "http://127.0.0.1:5000/__/auth/callback")!
            components.queryItems = query.map { URLQueryItem(name: $0.0.rawValue, value: $0.1) }
            return components.url!
        }
        // As the server sends a provider's refusal: with the provider's own answer (issue 18.8 titles by who refused).
        let refused = FirebaseWebError(code: .invalidCredential, message: "This app accepts work or school accounts only (AADSTS50020).",
                                       providerError: "access_denied", providerErrorCode: "AADSTS50020")
        let cancelled = FirebaseWebError(code: .webContextCancelled, message: "You cancelled the sign-in at yahoo.com.")
        #expect(LoopbackReceiver.outcome(of: url([(.link, "http://h/__/auth/handler?code=c&state=s"), (.eventId, "E")]), providerID: "yahoo.com")
            == .confirmed(providerID: "yahoo.com"))
        let refusedOutcome = LoopbackReceiver.outcome(of: url([(.firebaseError, refused.jsonString), (.eventId, "E")]), providerID: "microsoft.com")
        #expect(refusedOutcome == .refused(providerID: "microsoft.com", message: refused.message))
        #expect(LoopbackReceiver.outcome(of: url([(.firebaseError, cancelled.jsonString)]), providerID: "yahoo.com")
            == .cancelled(providerID: "yahoo.com", message: cancelled.message))
        let page = LoopbackReceiver.plainPage(refusedOutcome)
        #expect(page.contains("refused the sign-in"))
        #expect(page.contains("work or school accounts only"))
        #expect(!page.contains("complete"))
    }

    @Test func callbackChecks() throws {
        // A callback for another sign-in (event id) is refused; firebaseError is mapped.
        let other = URL(string: "http://127.0.0.1:1/__/auth/callback?authType=signInWithRedirect&link=x&eventId=OTHER")!
        #expect(throws: NSError.self) { try WebSignInFlow.credential(fromCallback: other, providerID: "microsoft.com", sessionID: "S", eventID: "MINE") }
        let failed = URL(string: "http://127.0.0.1:1/cb?eventId=MINE&firebaseError=%7B%22code%22%3A%22auth%2Finternal-error%22%7D")!
        do {
            _ = try WebSignInFlow.credential(fromCallback: failed, providerID: "microsoft.com", sessionID: "S", eventID: "MINE")
            Issue.record("expected an error")
        } catch {
            #expect((error as NSError).code == AuthErrorCode.webInternalError.rawValue)
        }
        // The Apple deep link form.
        let inner = "https://h/__/auth/callback?authType=signInWithRedirect&link=\(FormEscape.escape("https://h/__/auth/handler?code=c&state=s"))&eventId=MINE"
        let deep = URL(string: "app-1-2-ios-3://firebaseauth/link?deep_link_id=\(FormEscape.escape(inner))")!
        let credential = try WebSignInFlow.credential(fromCallback: deep, providerID: "microsoft.com", sessionID: "S", eventID: "MINE")
        #expect(credential.requestURI == "https://h/__/auth/handler?code=c&state=s")
        #expect(credential.sessionID == "S")
        // The handler URL carries the hashed session id, never the raw one.
        let configuration = AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:9099")!, apiKey: "k", projectId: "p", appId: "1:2:ios:3",
                                              bundleId: "com.example", persistence: InMemoryUserPersistence())
        let url = try WebSignInFlow.handlerURL(configuration: configuration, providerID: "microsoft.com", sessionID: "ABCDEFGHIJ", eventID: "E",
                                               scopes: ["mail.read"], customParameters: ["tenant": "a+b"], redirectUrl: nil)
        #expect(!url.absoluteString.contains("ABCDEFGHIJ"))
        #expect(url.absoluteString.contains(AuthHandlerProtocol.sessionIdHash("ABCDEFGHIJ")))
        #expect(url.absoluteString.contains("%2B"))
        #expect(configuration.callbackScheme == "app-1-2-ios-3")
    }
}

/// A UI delegate that never completes the sign-in.
struct DoNothingUIDelegate: AuthUIDelegate {
    func open(_ url: URL) async throws {}
}

enum FormEscape {
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"))!
    }
}

/// Counts refresh requests through the SDK's backend seam.
final class CountingBackend: AuthBackend {
    let inner: URLSessionAuthBackend
    let count = Locked(0)

    init(_ h: HearthHarness) {
        inner = URLSessionAuthBackend(serverURL: URL(string: h.baseURL)!, apiKey: "counting")
    }

    var refreshes: Int { count.value }

    func post<Body: Encodable & Sendable, Answer: Decodable & Sendable>(_ path: String, _ body: Body, as type: Answer.Type) async throws -> Answer {
        if path == WirePaths.secureToken { count.mutate { $0 += 1 } }
        return try await inner.post(path, body, as: type)
    }
}
