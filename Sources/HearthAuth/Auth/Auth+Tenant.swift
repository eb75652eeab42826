import Foundation
import HearthWire

// Identity Platform tenants, as Firebase's Apple SDK has them: `Auth.tenantID` names the tenant sign-ins happen in,
// `User.tenantID` the tenant a user belongs to, and `updateCurrentUser(_:)` refuses a user of another tenant.
extension Auth {
    /// The Identity Platform tenant this instance signs users in to (Firebase's `Auth.auth().tenantID`); nil: the
    /// project's own users. Set it before signing in: sign-up, password, email link, custom token, federated and
    /// passkey sign-ins, `fetchSignInMethods`, email actions and second-factor sign-ins then carry it as `tenantId`,
    /// on the same requests Firebase's Apple SDK sends it on, and the web sign-in's handler URL carries it as `tid`.
    /// Requests made for a signed-in user (profile and password changes, linking, reauthentication, second-factor
    /// and passkey enrollment, verification emails) carry that user's `User.tenantID`.
    ///
    /// An empty string means no tenant and reads back as nil (the server treats both alike). Instances with the same
    /// configuration share it, as they share the user; restoring a stored user sets it to that user's tenant, as
    /// Firebase does. A sign-in whose tokens belong to another tenant than this one (the value changed while it ran)
    /// fails with `tenantIDMismatch` and signs nobody in.
    public var tenantID: String? {
        get { core.tenantID }
        set { core.setTenantID(newValue) }
    }

    /// Makes `user` (signed in through this or another `Auth` of the same project) the current user and stores it
    /// (Firebase's `updateCurrentUser(_:)`). `tenantIDMismatch` when the user's tenant is not `tenantID` (a user of
    /// the project with a tenant set, or the reverse, included). A user of another instance is checked first by
    /// reloading it through this one (another project's user fails there); this instance's `currentUser` is then a
    /// user bound to this instance, with the same profile and tokens.
    public func updateCurrentUser(_ user: User) async throws {
        guard AuthTenant.same(user.tenantID, tenantID) else { throw AuthErrorUtils.error(.tenantIDMismatch) }
        var current = user
        if user.auth !== core {
            current = User(profile: user.profile, tokens: await user.tokens.tokens, auth: core)
            try await current.reload()
            // The reload may have waited on the network: the tenant may have changed meanwhile.
            guard AuthTenant.same(current.tenantID, tenantID) else { throw AuthErrorUtils.error(.tenantIDMismatch) }
        }
        core.setCurrentUser(current)
        do {
            try await core.persistNow()
        } catch {
            throw AuthErrorUtils.error(.keychainError, message: "The user is signed in but could not be stored.")
        }
    }

    /// Completion-handler form of ``updateCurrentUser(_:)``; a nil user is `nullUser`, as in Firebase.
    public func updateCurrentUser(_ user: User?, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task {
            guard let user else {
                completion?(AuthErrorUtils.error(.nullUser))
                return
            }
            do { try await updateCurrentUser(user); completion?(nil) } catch { completion?(error) }
        }
    }
}

extension AuthCore {
    /// `Auth.tenantID`.
    var tenantID: String? { state.withLock { $0.tenantID } }

    func setTenantID(_ tenantID: String?) {
        let normalized = tenantID.flatMap { $0.isEmpty ? nil : $0 }
        state.withLock { $0.tenantID = normalized }
    }

    /// Sends a request that carries `tenantId`, with `tenantID` in it (nil: none, the project's users).
    func send<R: TenantCarryingRequest>(_ request: R, tenantID: String?) async throws -> R.Response {
        var request = request
        request.tenantId = tenantID
        return try await backend.send(request)
    }

    /// Refuses tokens of another tenant than `expected` (the Apple SDK's rule for the current user:
    /// `tenantIDMismatch` when either has a tenant and they differ).
    static func checkTenant(ofIDToken idToken: String, expected: String?) throws {
        guard AuthTenant.same(AuthTenant.tenant(ofIDToken: idToken), expected) else { throw AuthErrorUtils.error(.tenantIDMismatch) }
    }
}

/// The tenant of an ID token (its `firebase.tenant`), read without verification, as the SDK reads every claim.
enum AuthTenant {
    static func tenant(ofIDToken idToken: String) -> String? {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, let data = Data(base64URLEncoded: String(parts[1])),
              let claims = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let firebase = claims["firebase"] as? [String: Any],
              let tenant = firebase["tenant"] as? String, !tenant.isEmpty
        else { return nil }
        return tenant
    }

    /// Whether two tenants (nil: the project) are the same: their UTF-8 bytes, since Swift's `==` would take a
    /// decomposed "é" for a precomposed one, which the server does not.
    static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }
}

/// A request whose body carries `tenantId`: the RPCs Firebase's Apple SDK sends it on (`signUp`, `verifyPassword`,
/// `verifyCustomToken`, `createAuthUri`, `verifyAssertion`, `emailLinkSignin`, `getOobConfirmationCode`,
/// `resetPassword`, `setAccountInfo`, `sendVerificationCode`, `verifyPhoneNumber`, second-factor enrollment and sign-in, passkey enrollment and sign-in), plus
/// Hearth's recovery codes beside their second-factor siblings. Never on `getAccountInfo`, `deleteAccount`, the
/// token refresh or `revokeToken`, which Firebase sends without it (the server takes the tenant from the token).
protocol TenantCarryingRequest: WireRPC {
    var tenantId: String? { get set }
}

extension SignUpRequest: TenantCarryingRequest {}
extension SignInWithPasswordRequest: TenantCarryingRequest {}
extension SignInWithCustomTokenRequest: TenantCarryingRequest {}
extension CreateAuthUriRequest: TenantCarryingRequest {}
extension SignInWithIdpRequest: TenantCarryingRequest {}
extension SignInWithEmailLinkRequest: TenantCarryingRequest {}
extension SendOobCodeRequest: TenantCarryingRequest {}
extension ResetPasswordRequest: TenantCarryingRequest {}
extension UpdateRequest: TenantCarryingRequest {}
extension StartMFAEnrollmentRequest: TenantCarryingRequest {}
extension FinalizeMFAEnrollmentRequest: TenantCarryingRequest {}
extension WithdrawMFARequest: TenantCarryingRequest {}
extension GenerateRecoveryCodesRequest: TenantCarryingRequest {}
extension StartMFASignInRequest: TenantCarryingRequest {}
extension FinalizeMFASignInRequest: TenantCarryingRequest {}
extension SendVerificationCodeRequest: TenantCarryingRequest {}
extension SignInWithPhoneNumberRequest: TenantCarryingRequest {}
extension StartPasskeyEnrollmentRequest: TenantCarryingRequest {}
extension FinalizePasskeyEnrollmentRequest: TenantCarryingRequest {}
extension StartPasskeySignInRequest: TenantCarryingRequest {}
extension FinalizePasskeySignInRequest: TenantCarryingRequest {}
