import Foundation
@testable import HearthAuth
import HearthTesting
import HearthWire
import Testing

/// Identity Platform tenants in HearthAuth: `Auth.tenantID` on the requests Firebase's Apple SDK sends it on,
/// `User.tenantID`, the tenant rules of the current user, the tenant errors and the handler URL's `tid`.
@Suite struct TenantSDKTests {
    static let tenant = "acme-x7k2p"

    /// An unsigned JWT whose payload the SDK reads, with `firebase.tenant` when `tenant` is set.
    static func token(_ uid: String, tenant: String?, secondFactor: String? = nil) -> String {
        let now = Int(Date().timeIntervalSince1970)
        var firebase: [String: Any] = ["sign_in_provider": "password"]
        if let tenant { firebase["tenant"] = tenant }
        if let secondFactor { firebase["sign_in_second_factor"] = secondFactor }
        let payload: [String: Any] = ["sub": uid, "iat": now, "exp": now + 3600, "auth_time": now, "firebase": firebase]
        let header = Data(#"{"alg":"none"}"#.utf8).base64URLEncodedString()
        return header + "." + (try! JSONSerialization.data(withJSONObject: payload)).base64URLEncodedString() + ".sig"
    }

    static func session(_ uid: String, tenant: String?) -> String {
        #"{"kind":"k","localId":"\#(uid)","registered":true,"idToken":"\#(token(uid, tenant: tenant))","refreshToken":"r-\#(uid)","expiresIn":"3600"}"#
    }

    static func lookup(_ uid: String) -> String { MultiFactorUnitTests.lookup(uid, factors: []) }

    /// The paths of the requests that went out with `tenantId` = `tenant`, and of those that went out without one.
    static func split(_ backend: RecordingBackend, tenant: String) -> (with: Set<String>, without: Set<String>, other: [String]) {
        var with = Set<String>(), without = Set<String>(), other: [String] = []
        for request in backend.requests.value {
            switch request.body["tenantId"] {
            case nil: without.insert(request.path)
            case let value as String where value == tenant: with.insert(request.path)
            case let value: other.append("\(request.path): \(String(describing: value))")
            }
        }
        return (with, without, other)
    }

    /// Issue 38, item 4: with `Auth.tenantID` set, `tenantId` goes out on exactly the requests Firebase's Apple SDK
    /// sends it on (sign-up, password, custom token, createAuthUri, verifyAssertion, email link, oob codes,
    /// resetPassword, setAccountInfo, second-factor enrollment and sign-in, passkeys) and never on getAccountInfo,
    /// deleteAccount or the token refresh; the user keeps the tenant of its ID token.
    @Test func tenantIDGoesOutOnTheAppleSDKsRequestsOnly() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        #expect(auth.tenantID == nil)
        auth.tenantID = Self.tenant
        #expect(auth.tenantID == Self.tenant)
        #expect(Auth(core: auth.core).tenantID == Self.tenant, "instances of one configuration share the tenant")

        // Sign-ups and sign-ins.
        backend.answer(SignUpRequest.method.clientPath, Self.session("u1", tenant: Self.tenant))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        let created = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
        #expect(created.tenantID == Self.tenant)
        try auth.signOut()
        _ = try await auth.signInAnonymously()
        try auth.signOut()
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.session("u1", tenant: Self.tenant))
        _ = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse")
        backend.answer(SignInWithCustomTokenRequest.method.clientPath,
                       #"{"kind":"k","isNewUser":false,"idToken":"\#(Self.token("u1", tenant: Self.tenant))","refreshToken":"r"}"#)
        _ = try await auth.signIn(withCustomToken: "custom-token")
        backend.answer(CreateAuthUriRequest.method.clientPath, #"{"kind":"k","sessionId":"s","signinMethods":["password"]}"#)
        #expect(try await auth.fetchSignInMethods(forEmail: "ada@example.com") == ["password"])
        backend.answer(SignInWithIdpRequest.method.clientPath,
                       #"{"kind":"k","providerId":"microsoft.com","localId":"u1","idToken":"\#(Self.token("u1", tenant: Self.tenant))","refreshToken":"r"}"#)
        _ = try await auth.signIn(with: OAuthProvider.credential(providerID: "microsoft.com", idToken: "provider-id-token", rawNonce: nil))
        backend.answer(SignInWithEmailLinkRequest.method.clientPath,
                       #"{"kind":"k","localId":"u1","email":"ada@example.com","isNewUser":false,"idToken":"\#(Self.token("u1", tenant: Self.tenant))","refreshToken":"r"}"#)
        _ = try await auth.signIn(withEmail: "ada@example.com", link: EmailActionsUnitTests.link)
        backend.answer(WirePaths.passkeySignInStart, #"{"credentialRequestOptions":{"rpId":"auth.example.com","challenge":"AQID"}}"#)
        _ = try await auth.passkeySignInChallenge()
        backend.answer(WirePaths.passkeySignInFinalize, Self.session("u1", tenant: Self.tenant))
        _ = try await auth.finalizePasskeySignIn(with: PasskeyAssertion(credentialId: Data([1]), clientDataJSON: Data("{}".utf8),
                                                                        authenticatorData: Data([1]), signature: Data([1]), userHandle: Data([1])))

        // Email actions.
        backend.answer(SendOobCodeRequest.method.clientPath, #"{"kind":"k","email":"ada@example.com"}"#)
        try await auth.sendPasswordReset(withEmail: "ada@example.com")
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://app.example.com/finish")
        settings.handleCodeInApp = true
        try await auth.sendSignInLink(toEmail: "ada@example.com", actionCodeSettings: settings)
        backend.answer(ResetPasswordRequest.method.clientPath, #"{"kind":"k","email":"ada@example.com","requestType":"PASSWORD_RESET"}"#)
        try await auth.confirmPasswordReset(withCode: "code", newPassword: "new password")
        _ = try await auth.checkActionCode("code")
        backend.answer(UpdateRequest.method.clientPath, #"{"kind":"k","localId":"u1","emailVerified":true,"providerUserInfo":[]}"#)
        try await auth.applyActionCode("code")

        // The signed-in user's requests.
        let user = try #require(auth.currentUser)
        #expect(user.tenantID == Self.tenant)
        try await user.updatePassword(to: "another password")
        try await user.sendEmailVerification()
        try await user.reload()
        backend.answer(WirePaths.mfaEnrollmentStart, #"""
            {"totpSessionInfo":{"sharedSecretKey":"JBSWY3DPEHPK3PXP","verificationCodeLength":6,"hashingAlgorithm":"SHA1","periodSec":30,
             "sessionInfo":"enroll-session","finalizeEnrollmentTime":"2026-11-24T06:10:00.5Z"}}
            """#)
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        backend.answer(WirePaths.mfaEnrollmentFinalize,
                       #"{"idToken":"\#(Self.token("u1", tenant: Self.tenant, secondFactor: "totp"))","refreshToken":"r-2","totpAuthInfo":{}}"#)
        try await user.multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "123456"),
                                          displayName: "Phone")
        backend.answer(WirePaths.mfaRecoveryCodesGenerate, #"{"recoveryCodes":["aaaaa-bbbbb"]}"#)
        _ = try await user.multiFactor.generateRecoveryCodes()
        backend.answer(WirePaths.mfaEnrollmentWithdraw, #"{"idToken":"\#(Self.token("u1", tenant: Self.tenant))","refreshToken":"r-3"}"#)
        try await user.multiFactor.unenroll(withFactorUID: "enr-1")
        backend.answer(WirePaths.passkeyEnrollmentStart, PasskeyUnitTests.creationOptions(challenge: "AQID", userId: "AQID"))
        _ = try await user.passkeyEnrollmentChallenge(withName: "Key")
        backend.answer(WirePaths.passkeyEnrollmentFinalize, Self.session("u1", tenant: Self.tenant))
        _ = try await user.finalizePasskeyEnrollment(with: PasskeyRegistration(credentialId: Data([1]), clientDataJSON: Data("{}".utf8),
                                                                                attestationObject: Data([1])))
        backend.answer(WirePaths.secureToken, #"""
            {"access_token":"\#(Self.token("u1", tenant: Self.tenant))","expires_in":"3600","id_token":"\#(Self.token("u1", tenant: Self.tenant))",
             "refresh_token":"r-4","token_type":"Bearer","user_id":"u1","project_id":"p"}
            """#)
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(user.tenantID == Self.tenant, "a refresh keeps the user's tenant")
        backend.answer(DeleteAccountRequest.method.clientPath, #"{"kind":"k"}"#)
        try await user.delete()

        let (with, without, other) = Self.split(backend, tenant: Self.tenant)
        #expect(other.isEmpty, "a request carried another tenantId: \(other)")
        #expect(with == [
            SignUpRequest.method.clientPath, SignInWithPasswordRequest.method.clientPath, SignInWithCustomTokenRequest.method.clientPath,
            CreateAuthUriRequest.method.clientPath, SignInWithIdpRequest.method.clientPath, SignInWithEmailLinkRequest.method.clientPath,
            SendOobCodeRequest.method.clientPath, ResetPasswordRequest.method.clientPath, UpdateRequest.method.clientPath,
            WirePaths.mfaEnrollmentStart, WirePaths.mfaEnrollmentFinalize, WirePaths.mfaEnrollmentWithdraw, WirePaths.mfaRecoveryCodesGenerate,
            WirePaths.passkeyEnrollmentStart, WirePaths.passkeyEnrollmentFinalize, WirePaths.passkeySignInStart, WirePaths.passkeySignInFinalize,
        ])
        #expect(without == [LookupRequest.method.clientPath, DeleteAccountRequest.method.clientPath, WirePaths.secureToken])
        // The passkey sign-in start is `{"tenantId": …}` alone, as the Apple SDK sends it.
        let start = try #require(backend.requests.value.first { $0.path == WirePaths.passkeySignInStart })
        #expect(start.body.keys.sorted() == ["tenantId"])
        // Both anonymous sign-ups and the password sign-up carried it.
        #expect(backend.requests.value.filter { $0.path == SignUpRequest.method.clientPath }.count == 2)
    }

    /// Issue 38, item 4: without a tenant no request carries `tenantId`; an empty `tenantID` is no tenant (it reads
    /// back as nil, and a project user signs in under it).
    @Test func noTenantSendsNoTenantIdAndAnEmptyOneIsNone() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        auth.tenantID = ""
        #expect(auth.tenantID == nil)
        backend.answer(SignUpRequest.method.clientPath, Self.session("u1", tenant: nil))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
        #expect(user.tenantID == nil && auth.currentUser === user)
        backend.answer(UpdateRequest.method.clientPath, #"{"kind":"k","localId":"u1","emailVerified":true,"providerUserInfo":[]}"#)
        try await user.updatePassword(to: "another password")
        backend.answer(WirePaths.passkeySignInStart, #"{"credentialRequestOptions":{"rpId":"auth.example.com","challenge":"AQID"}}"#)
        _ = try await auth.passkeySignInChallenge()
        #expect(backend.requests.value.allSatisfy { $0.body["tenantId"] == nil })
        // A token whose `firebase.tenant` is empty is the project's too.
        #expect(AuthTenant.tenant(ofIDToken: Self.token("u1", tenant: "")) == nil)
        auth.tenantID = "x"
        auth.tenantID = nil
        #expect(auth.tenantID == nil)
    }

    /// Issue 38, item 4: a sign-in answered with tokens of another tenant (or of the project while a tenant is set,
    /// or the reverse) fails with `tenantIDMismatch` before anything else: nobody is signed in, nothing is looked up.
    @Test func tokensOfAnotherTenantSignNobodyIn() async throws {
        let cases: [(String?, String?)] = [(Self.tenant, "other-t0k3n"), (Self.tenant, nil), (nil, Self.tenant), ("caf\u{E9}-a1b2c", "cafe\u{301}-a1b2c")]
        for (authTenant, tokenTenant) in cases {
            let backend = RecordingBackend()
            let auth = EmailActionsUnitTests.auth(backend)
            auth.tenantID = authTenant
            backend.answer(SignInWithPasswordRequest.method.clientPath, Self.session("u1", tenant: tokenTenant))
            await #expect { try await auth.signIn(withEmail: "ada@example.com", password: "pw") } throws: { error in
                let error = error as NSError
                return error.domain == AuthErrorDomain && error.code == AuthErrorCode.tenantIDMismatch.rawValue && error.code == 17072
            }
            #expect(auth.currentUser == nil, "\(String(describing: authTenant)) / \(String(describing: tokenTenant))")
            #expect(!backend.requests.value.contains { $0.path == LookupRequest.method.clientPath })
        }
    }

    /// Issue 38, item 4: `updateCurrentUser` refuses a user of another tenant (`tenantIDMismatch`, the Apple SDK's
    /// rule: either has a tenant and they differ), takes one of the same tenant — from another instance too, after
    /// reloading it there — and a nil user is `nullUser`.
    @Test func updateCurrentUserChecksTheTenant() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        auth.tenantID = Self.tenant
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.session("u1", tenant: Self.tenant))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        let tenantUser = try await auth.signIn(withEmail: "ada@example.com", password: "pw").user

        let otherBackend = RecordingBackend()
        otherBackend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        let persistence = InMemoryUserPersistence()
        let other = Auth(configuration: AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:2")!, apiKey: "other-\(UUID().uuidString.prefix(8))",
                                                          projectId: "p", persistence: persistence, backend: otherBackend))
        // The project's instance refuses the tenant's user, and another tenant's instance too.
        await #expect { try await other.updateCurrentUser(tenantUser) } throws: { ($0 as NSError).code == AuthErrorCode.tenantIDMismatch.rawValue }
        other.tenantID = "other-t0k3n"
        await #expect { try await other.updateCurrentUser(tenantUser) } throws: { ($0 as NSError).code == AuthErrorCode.tenantIDMismatch.rawValue }
        #expect(other.currentUser == nil && otherBackend.requests.value.isEmpty, "refused before any request")
        // The same tenant: reloaded through `other`, then current and stored there.
        other.tenantID = Self.tenant
        try await other.updateCurrentUser(tenantUser)
        let moved = try #require(other.currentUser)
        #expect(moved.uid == "u1" && moved.tenantID == Self.tenant)
        #expect(otherBackend.requests.value.map(\.path) == [LookupRequest.method.clientPath])
        #expect(try persistence.load(key: other.configuration.storageKey) != nil)
        #expect(try await moved.getIDToken() == (try await tenantUser.getIDToken()))
        // The project's user cannot become current in a tenant's instance.
        let projectBackend = RecordingBackend()
        let project = EmailActionsUnitTests.auth(projectBackend)
        projectBackend.answer(SignInWithPasswordRequest.method.clientPath, Self.session("u2", tenant: nil))
        projectBackend.answer(LookupRequest.method.clientPath, Self.lookup("u2"))
        let projectUser = try await project.signIn(withEmail: "bob@example.com", password: "pw").user
        #expect(projectUser.tenantID == nil)
        await #expect { try await auth.updateCurrentUser(projectUser) } throws: { ($0 as NSError).code == AuthErrorCode.tenantIDMismatch.rawValue }
        #expect(auth.currentUser === tenantUser)
        // Its own user again: fine, no request.
        let sent = backend.requests.value.count
        try await auth.updateCurrentUser(tenantUser)
        #expect(backend.requests.value.count == sent)
        let nilError: NSError? = await withCheckedContinuation { continuation in
            auth.updateCurrentUser(nil) { error in continuation.resume(returning: error.map { $0 as NSError }) }
        }
        #expect(nilError?.code == AuthErrorCode.nullUser.rawValue)
    }

    /// Issue 38, item 4: a stored tenant user is restored with its tenant, and the instance continues in that tenant
    /// (Firebase sets `tenantID` from the restored user).
    @Test func restoredUserSetsTheTenant() async throws {
        let persistence = InMemoryUserPersistence()
        let apiKey = "restore-\(UUID().uuidString.prefix(8))"
        let backend = RecordingBackend()
        let first = Auth(configuration: AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:3")!, apiKey: apiKey, projectId: "p",
                                                          persistence: persistence, backend: backend))
        first.tenantID = Self.tenant
        backend.answer(SignInWithPasswordRequest.method.clientPath, Self.session("u1", tenant: Self.tenant))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        _ = try await first.signIn(withEmail: "ada@example.com", password: "pw")
        // Another server URL: another instance, same storage key.
        let second = Auth(configuration: AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:4")!, apiKey: apiKey, projectId: "p",
                                                           persistence: persistence, backend: backend))
        #expect(second.currentUser?.uid == "u1")
        #expect(second.currentUser?.tenantID == Self.tenant)
        #expect(second.tenantID == Self.tenant)
    }

    /// Issue 38, item 4: a second factor completes in the tenant of its first factor; a link and a profile change
    /// act in the user's tenant even after the app moved `Auth.tenantID` elsewhere — and a sign-in completing after
    /// that move is refused (`tenantIDMismatch`).
    @Test func userRequestsStayInTheUsersTenant() async throws {
        let backend = RecordingBackend()
        let auth = EmailActionsUnitTests.auth(backend)
        auth.tenantID = Self.tenant
        backend.answer(SignInWithPasswordRequest.method.clientPath,
                       #"{"kind":"k","localId":"u1","email":"ada@example.com","registered":true,"mfaPendingCredential":"pending-1","mfaInfo":[\#(MultiFactorUnitTests.factor)]}"#)
        func pendingSignIn() async throws -> MultiFactorResolver {
            var caught: NSError?
            do { _ = try await auth.signIn(withEmail: "ada@example.com", password: "pw") } catch { caught = error as NSError }
            return try #require(caught?.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        }
        let resolver = try await pendingSignIn()
        let stale = try await pendingSignIn()
        backend.answer(WirePaths.mfaSignInFinalize, MultiFactorUnitTests.tokens(Self.token("u1", tenant: Self.tenant, secondFactor: "totp"), refresh: "r"))
        backend.answer(LookupRequest.method.clientPath, Self.lookup("u1"))
        let user = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "enr-1", oneTimePassword: "123456")).user
        #expect(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize }?.body["tenantId"] as? String == Self.tenant)
        #expect(user.tenantID == Self.tenant)

        // The app moves to another tenant: the signed-in user's own requests still name its tenant.
        auth.tenantID = "other-t0k3n"
        backend.answer(UpdateRequest.method.clientPath, #"{"kind":"k","localId":"u1","emailVerified":true,"providerUserInfo":[]}"#)
        let change = user.createProfileChangeRequest()
        change.displayName = "Ada"
        try await change.commitChanges()
        #expect(backend.requests.value.last { $0.path == UpdateRequest.method.clientPath }?.body["tenantId"] as? String == Self.tenant)
        backend.answer(SignInWithIdpRequest.method.clientPath,
                       #"{"kind":"k","providerId":"yahoo.com","localId":"u1","idToken":"\#(Self.token("u1", tenant: Self.tenant))","refreshToken":"r"}"#)
        _ = try await user.link(with: OAuthProvider.credential(providerID: "yahoo.com", idToken: "provider-id-token", rawNonce: nil))
        #expect(backend.requests.value.last { $0.path == SignInWithIdpRequest.method.clientPath }?.body["tenantId"] as? String == Self.tenant)
        // A second factor begun in the first tenant and completed after the move: it completes there (as begun), and
        // its tokens, the first tenant's, are refused for the instance now in another.
        await #expect { try await stale.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "enr-1", oneTimePassword: "1")) } throws: {
            ($0 as NSError).code == AuthErrorCode.tenantIDMismatch.rawValue
        }
        #expect(backend.requests.value.last { $0.path == WirePaths.mfaSignInFinalize }?.body["tenantId"] as? String == Self.tenant)
        #expect(auth.currentUser === user, "the refused sign-in replaced nobody")
    }

    /// Issue 38, item 4: the server's tenant errors map to the Apple SDK's codes (`TENANT_ID_MISMATCH` 17072,
    /// `UNSUPPORTED_TENANT_OPERATION` 17073; the web flow's `auth/unsupported-tenant-operation` too) and
    /// `TENANT_NOT_FOUND` / `INVALID_TENANT_ID`, which the Apple SDK has no code for, to Hearth's `tenantNotFound`.
    @Test func tenantErrorsMap() {
        #expect(AuthErrorUtils.code(forServerError: "TENANT_ID_MISMATCH") == .tenantIDMismatch)
        #expect(AuthErrorUtils.code(forServerError: "UNSUPPORTED_TENANT_OPERATION") == .unsupportedTenantOperation)
        #expect(AuthErrorCode.unsupportedTenantOperation.rawValue == 17073)
        #expect(AuthErrorUtils.code(forServerError: "TENANT_NOT_FOUND") == .tenantNotFound)
        #expect(AuthErrorUtils.code(forServerError: "INVALID_TENANT_ID") == .tenantNotFound)
        #expect(AuthErrorUtils.code(forServerError: "TENANT_ID_MISMATCHX") == .internalError)
        let web = AuthErrorUtils.webError(FirebaseWebError(jsonString: #"{"code":"auth/unsupported-tenant-operation","message":"m"}"#)!)
        #expect(web.code == AuthErrorCode.unsupportedTenantOperation.rawValue)
        #expect(AuthErrorCode.tenantIDMismatch.message == "The provided user's tenant ID does not match the Auth instance's tenant ID.")
        #expect(AuthErrorCode.unsupportedTenantOperation.message == "This operation is not supported in a multi-tenant context.")
    }

    /// Issue 38, item 4: against a real server, a tenant it does not have — an id in Identity Platform's form, one
    /// in another script — is `tenantNotFound` with the server's name in `userInfo`, and nobody is signed in; one
    /// with a NUL travels JSON-escaped, not cut off, and is refused as the server refuses every NUL.
    @Test func unknownTenantsAreRefusedByTheServer() async throws {
        try await HearthHarness.run { h in
            let recorder = Locked<[String]>([])
            let backend = BodyRecordingBackend(URLSessionAuthBackend(serverURL: URL(string: h.baseURL)!, apiKey: "test-key"), recorder)
            let auth = AuthSDKTests.makeAuth(h, backend: backend)
            for tenant in ["nosuch-x7k2p", "acme\u{0}-x7k2p", "тенант-x7k2p"] {
                auth.tenantID = tenant
                await #expect { try await auth.createUser(withEmail: "ada@example.com", password: "correct horse") } throws: { error in
                    let error = error as NSError
                    let name = error.userInfo[AuthErrorUserInfoNameKey] as? String ?? ""
                    if tenant.contains("\u{0}") { return name == "INVALID_ARGUMENT" && error.localizedDescription.contains("NUL") }
                    return error.code == AuthErrorCode.tenantNotFound.rawValue && error.code == 19008
                        && ["TENANT_NOT_FOUND", "INVALID_TENANT_ID"].contains(name)
                }
                #expect(auth.currentUser == nil)
            }
            let bodies = recorder.value
            #expect(bodies.count == 3)
            #expect(bodies[1].contains(#""tenantId":"acme\u0000-x7k2p""#), "\(bodies[1])")
            // The project itself still signs up.
            auth.tenantID = nil
            let created = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse")
            #expect(created.user.tenantID == nil)
        }
    }

    /// Issue 38, item 4: the web sign-in's handler URL carries `tid` when a tenant is set (as the Apple SDK adds
    /// it), none without; a tenant with `&`, `=`, `#` or a NUL stays one parameter's value.
    @Test func handlerURLCarriesTid() throws {
        let configuration = AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:9099")!, apiKey: "k", projectId: "p", appId: "1:2:ios:3",
                                              bundleId: "com.example", persistence: InMemoryUserPersistence())
        func items(_ tenant: String?) throws -> [URLQueryItem] {
            let url = try WebSignInFlow.handlerURL(configuration: configuration, providerID: "microsoft.com", sessionID: "ABCDEFGHIJ", eventID: "E",
                                                   scopes: [], customParameters: [:], redirectUrl: nil, tenantID: tenant)
            return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        }
        #expect(try items(Self.tenant).filter { $0.name == "tid" }.map(\.value) == [Self.tenant])
        #expect(try !items(nil).contains { $0.name == "tid" })
        #expect(try !items("").contains { $0.name == "tid" })
        let hostile = "a&providerId=evil#x\u{0}=y"
        let parsed = try items(hostile)
        #expect(parsed.filter { $0.name == "tid" }.map(\.value) == [hostile])
        #expect(parsed.filter { $0.name == "providerId" }.map(\.value) == ["microsoft.com"])
    }

    /// Issue 38, item 4: `OAuthProvider.credential(with:)` opens the handler URL with `Auth.tenantID` as `tid`.
    @Test func webSignInOpensTheHandlerWithTheTenant() async throws {
        let auth = EmailActionsUnitTests.auth(RecordingBackend())
        auth.tenantID = Self.tenant
        let opened = OpenedURLs()
        await #expect(throws: (any Error).self) { _ = try await OAuthProvider(providerID: "microsoft.com", auth: auth).credential(with: opened) }
        let url = try #require(opened.urls.value.first)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "tid" }?.value == Self.tenant)
        #expect(query.first { $0.name == "providerId" }?.value == "microsoft.com")
    }
}

/// A UI delegate that records the URL and cancels.
final class OpenedURLs: AuthUIDelegate {
    let urls = Locked<[URL]>([])
    struct Cancelled: Error {}
    func open(_ url: URL) async throws {
        urls.mutate { $0.append(url) }
        throw Cancelled()
    }
}

/// Passes requests to a real backend and records each body's JSON text.
final class BodyRecordingBackend: AuthBackend {
    let inner: URLSessionAuthBackend
    let bodies: Locked<[String]>

    init(_ inner: URLSessionAuthBackend, _ bodies: Locked<[String]>) {
        self.inner = inner
        self.bodies = bodies
    }

    func post<Body: Encodable & Sendable, Answer: Decodable & Sendable>(_ path: String, _ body: Body, as type: Answer.Type) async throws -> Answer {
        bodies.mutate { $0.append(String(decoding: (try? JSONEncoder().encode(body)) ?? Data(), as: UTF8.self)) }
        return try await inner.post(path, body, as: type)
    }
}
