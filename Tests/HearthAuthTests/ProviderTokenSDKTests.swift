import Crypto
import Foundation
@testable import HearthAuth
import HearthCore
import HearthTesting
import HearthWire
import Testing

/// Items 13.1 and 13.2 through the SDK: `user.providerAccessToken(for:)` and
/// `OAuthProvider.credential(providerID:idToken:rawNonce:)`, against a real server and the dev IdPs.
@Suite struct ProviderTokenSDKTests {
    static let vault = HearthHarness.vault(ProviderTokenKeys.generate(id: "sdk"))

    @Test func providerAccessTokenOutlivesTheProvidersHour() async throws {
        try await HearthHarness.run(configure: Self.vault, devIdPs: true) { h in
            let auth = AuthSDKTests.makeAuth(h)
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            let result = try await auth.signIn(with: provider, uiDelegate: ScriptedBrowserUIDelegate(email: "sdk@contoso.com"))
            let first = try #require(result.credential?.accessToken)
            #expect(try await result.user.providerAccessToken(for: "microsoft.com") == first)
            // The provider's token expired: the SDK gets a renewed one without a new sign-in.
            h.clock.advance(by: 601)
            let renewed = try await result.user.providerAccessToken(for: "microsoft.com")
            #expect(renewed != first && !renewed.isEmpty)
            #expect(await h.devIdPs!.refreshGrantCount(.microsoft) == 1)
            // A provider the user has not linked.
            do {
                _ = try await result.user.providerAccessToken(for: "yahoo.com")
                Issue.record("expected an error")
            } catch {
                #expect((error as NSError).code == AuthErrorCode.providerTokenUnavailable.rawValue)
            }
        }
    }

    @Test func providerAccessTokenWithoutVaultKeysSaysSo() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = AuthSDKTests.makeAuth(h)
            let result = try await auth.signIn(with: OAuthProvider(providerID: "microsoft.com", auth: auth),
                                               uiDelegate: ScriptedBrowserUIDelegate(email: "nokeys@contoso.com"))
            do {
                _ = try await result.user.providerAccessToken(for: "microsoft.com")
                Issue.record("expected an error")
            } catch {
                #expect((error as NSError).code == AuthErrorCode.providerTokenVaultDisabled.rawValue)
            }
        }
    }

    @Test func signInWithANativelyObtainedIDToken() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let auth = AuthSDKTests.makeAuth(h)
            let raw = RandomID.token(byteCount: 16)
            let hashed = Data(SHA256.hash(data: Data(raw.utf8))).hexString
            let tokens = try await h.nativeProviderTokens(.microsoft, email: "msal@contoso.com", nonce: hashed)
            let result = try await auth.signIn(with: OAuthProvider.credential(providerID: "microsoft.com", idToken: tokens.idToken, rawNonce: raw))
            #expect(result.user.email == "msal@contoso.com")
            #expect(result.user.providerData.first?.providerID == "microsoft.com")
            #expect(result.additionalUserInfo?.isNewUser == true)
            // The wrong raw nonce is refused as Firebase refuses it.
            do {
                _ = try await auth.signIn(with: OAuthProvider.credential(providerID: "microsoft.com", idToken: tokens.idToken, rawNonce: "not-it"))
                Issue.record("expected an error")
            } catch {
                #expect((error as NSError).code == AuthErrorCode.missingOrInvalidNonce.rawValue)
            }
            // Yahoo too (Yahoo requires a nonce: the app keeps the raw one and sends it).
            let yahooRaw = RandomID.token(byteCount: 16)
            let yahoo = try await h.nativeProviderTokens(.yahoo, email: "sdk@yahoo.com", nonce: Data(SHA256.hash(data: Data(yahooRaw.utf8))).hexString)
            let second = try await auth.signIn(with: OAuthProvider.credential(withProviderID: "yahoo.com", idToken: yahoo.idToken, rawNonce: yahooRaw))
            #expect(second.user.email == "sdk@yahoo.com")
        }
    }
}
