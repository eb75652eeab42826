import Foundation
import HearthCore
import HearthOIDC
import HearthStore
import HearthWire
import Logging

extension FederationService {
    /// `signInWithIdp` with `id_token` in `postBody`: a provider ID token the app obtained natively (MSAL, Yahoo's
    /// SDK, Sign in with Apple, Google Sign-In, an OpenID library). Accepted for microsoft.com, yahoo.com, apple.com,
    /// google.com and oidc.* only when it verifies against the
    /// provider's published keys, its issuer is the provider's (Microsoft's tenant template), its audience is the
    /// provider's client ID or one of its allowed native client IDs, it is fresh, and — when the app sent `nonce`
    /// (the raw nonce) — it carries that nonce's SHA-256, as Firebase requires. Then sign-in, link (with the
    /// user's `idToken`) and reauthentication (`autoCreate: false`) follow the usual account rules.
    func signInWithNativeIDToken(_ token: String, postBody: [String: String], request: SignInWithIdpRequest,
                                 returnCredential: Bool, in scope: Scope) async throws -> SignInWithIdpResponse {
        guard let claimed = postBody["providerId"]?.lowercased(), !claimed.isEmpty else {
            throw HearthAPIError(.invalidCredentialOrProviderId, "an id_token needs providerId in postBody")
        }
        guard IdPConfig.kind(forProviderId: claimed) != nil else {
            throw HearthAPIError(.invalidProviderId, "\(String(claimed.prefix(64))) ID tokens are not accepted: microsoft.com, yahoo.com, apple.com, google.com and oidc.<name> are")
        }
        let config = try await enabledProvider(claimed, in: scope)
        let rawNonce = postBody["nonce"].flatMap { $0.isEmpty ? nil : $0 }
        // Microsoft: the app may narrow the accepted tenant (a GUID, a verified domain, organizations, consumers).
        let entraTenant = config.kind == .microsoft ? postBody["tenant"].flatMap { $0.isEmpty ? nil : $0 } : nil
        let signIn: FederatedSignIn
        do {
            let provider = try await relyingParty.resolve(config, entraTenantOrHostedDomain: entraTenant)
            var native = try await relyingParty.signIn(nativeIDToken: token, provider: provider, rawNonce: rawNonce)
            // Apple's token carries no name: the app may send the name Apple gave it (the `user` JSON of the code
            // flow, `{"name":{"firstName":…,"lastName":…}}`). Only the name is read, never an email.
            if config.kind == .apple, let user = AppleUserField.parse(postBody["user"]), user.displayName != nil {
                native.firstName = user.firstName
                native.lastName = user.lastName
                native.identity.displayName = user.displayName
            }
            signIn = native
        } catch let error as RelyingPartyError {
            throw diagnostics.refusal(error, providerId: config.providerId, code: error.kind == .nonce ? .missingOrInvalidNonce : .invalidIdpResponse,
                                      message: "native ID-token sign-in refused")
        }
        // The same token (issuer, subject, nonce or token id) signs in once: a copy seen again is a replay.
        if let use = signIn.tokenUse, try await !scope.store.markIDTokenUsed(keyHash: use.keyHash, expiresAt: use.expiresAt, now: now) {
            let refusal = RelyingPartyError(.idToken, "this ID token was used already; obtain a new one from the provider")
            throw diagnostics.refusal(refusal, providerId: config.providerId, code: .invalidIdpResponse,
                                      message: "native ID-token sign-in refused (replay)")
        }
        // Recorded before the account rules run (two copies racing cannot both pass); taken back when this use gave
        // no session, so the token can still complete what it started (a link after needConfirmation, a retry after
        // a 503 or a refused link).
        do {
            let answer = try await finish(signIn, request: request, returnCredential: returnCredential, in: scope)
            if answer.idToken == nil, answer.mfaPendingCredential == nil, let use = signIn.tokenUse { try? await scope.store.forgetIDTokenUse(keyHash: use.keyHash) }
            return answer
        } catch {
            if let use = signIn.tokenUse { try? await scope.store.forgetIDTokenUse(keyHash: use.keyHash) }
            throw error
        }
    }
}
