import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Issue 13 items 3 and 5 through the SDK: a refused sign-in carries the provider's answer in its parts in the
/// error's userInfo, not only a generic code.
@Suite struct ProviderErrorUserInfoTests {
    @Test func codeExchangeRefusalReachesTheAppInItsParts() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.clientSecret = "a-secret-id-instead-of-its-value"
            try await h.store.saveIdPConfig(config)
            let auth = AuthSDKTests.makeAuth(h)
            do {
                _ = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "ada@outlook.com"))
                Issue.record("signed in with a wrong client secret")
            } catch {
                let error = error as NSError
                #expect(error.code == AuthErrorCode.invalidCredential.rawValue)
                #expect(error.userInfo[AuthErrors.userInfoNameKey] as? String == "INVALID_IDP_RESPONSE")
                #expect(error.userInfo[AuthErrors.userInfoProviderErrorKey] as? String == "invalid_client")
                #expect(error.userInfo[AuthErrors.userInfoProviderErrorCodeKey] as? String == "AADSTS7000215")
                #expect((error.userInfo[AuthErrors.userInfoProviderErrorDescriptionKey] as? String)?.contains("Invalid client secret") == true)
                #expect((error.userInfo[AuthErrors.userInfoProviderTraceIdKey] as? String)?.count == 36)
                #expect((error.userInfo[AuthErrors.userInfoProviderCorrelationIdKey] as? String)?.count == 36)
                #expect(error.userInfo[AuthErrors.userInfoProviderReasonKey] as? String == "invalid_client")
                let correlationId = try #require(error.userInfo[AuthErrors.userInfoCorrelationIdKey] as? String)
                #expect(error.localizedDescription.contains(correlationId))
            }
            #expect(auth.currentUser == nil)
        }
    }

    @Test func tenantOutsideTheAllowListIsRefusedWithItsReason() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.allowedEntraTenants = ["consumers", "contoso.com"]
            try await h.store.saveIdPConfig(config)
            let auth = AuthSDKTests.makeAuth(h)
            // A token of another tenant (the authority is `common`): refused on its tid.
            do {
                _ = try await GuideExamples.signInWithMicrosoft(auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: "mallory@fabrikam.com"))
                Issue.record("a tenant outside the allow-list signed in")
            } catch {
                let error = error as NSError
                #expect(error.code == AuthErrorCode.invalidCredential.rawValue)
                #expect(error.userInfo[AuthErrors.userInfoProviderReasonKey] as? String == "tenant_not_allowed")
                #expect(error.localizedDescription.contains("not allowed to sign in to this app"))
            }
            // The app asking for another tenant: refused before the provider, as operationNotAllowed.
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            provider.customParameters = ["tenant": "fabrikam.com"]
            do {
                _ = try await provider.credential(with: ScriptedBrowserUIDelegate(email: "mallory@fabrikam.com"))
                Issue.record("the tenant parameter widened the allow-list")
            } catch {
                let error = error as NSError
                #expect(error.code == AuthErrorCode.operationNotAllowed.rawValue, "\(error)")
                #expect(error.localizedDescription.contains("fabrikam.com is not allowed"))
            }
            #expect(try await h.store.userCount() == 0)
        }
    }
}

/// Issue 18.8: the CLI's loopback page is titled by who stopped the sign-in.
@Suite struct LoopbackOutcomeTitleTests {
    @Test func outcomesNameWhoRefused() {
        let inUse = NSError(domain: AuthErrors.domain, code: AuthErrorCode.credentialAlreadyInUse.rawValue, userInfo: [NSLocalizedDescriptionKey: "in use"])
        #expect(LoopbackReceiver.outcome(of: inUse, providerID: "microsoft.com") == .notAllowed(providerID: "microsoft.com", message: "in use"))
        let network = NSError(domain: AuthErrors.domain, code: AuthErrorCode.networkError.rawValue, userInfo: [NSLocalizedDescriptionKey: "down"])
        #expect(LoopbackReceiver.outcome(of: network, providerID: "microsoft.com") == .failed(providerID: "microsoft.com", message: "down"))
        let refused = NSError(domain: AuthErrors.domain, code: AuthErrorCode.invalidCredential.rawValue,
                              userInfo: [NSLocalizedDescriptionKey: "no", AuthErrors.userInfoProviderErrorKey: "access_denied"])
        #expect(LoopbackReceiver.outcome(of: refused, providerID: "microsoft.com") == .refused(providerID: "microsoft.com", message: "no"))
        #expect(LoopbackReceiver.plainPage(.failed(providerID: "microsoft.com", message: "m")).contains("The sign-in could not be completed"))
        #expect(!LoopbackReceiver.plainPage(.notAllowed(providerID: "microsoft.com", message: "m")).contains("refused"))
    }
}

/// Issue 18.11: `hearth link` / `User.link` ends on a page that says linked, not "Signed in with".
@Suite struct LoopbackLinkedPageTests {
    @Test func linkingSaysLinked() {
        let page = LoopbackReceiver.plainPage(.linked(providerID: "yahoo.com", email: "ada@yahoo.com"))
        #expect(page.contains("yahoo.com linked"))
        #expect(!page.contains("Signed in with"))
    }
}
