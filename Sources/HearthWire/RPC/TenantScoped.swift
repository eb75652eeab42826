/// A request that may name an Identity Platform tenant in its `tenantId`. The server resolves the call's scope
/// from it in one place, before the RPC is answered (a tenant is never ignored).
public protocol TenantScopedRequest {
    /// The tenant the request names; nil or empty: the project's own users.
    var tenantId: String? { get }
}

extension SignUpRequest: TenantScopedRequest {}
extension SignInWithPasswordRequest: TenantScopedRequest {}
extension LookupRequest: TenantScopedRequest {}
extension UpdateRequest: TenantScopedRequest {}
extension DeleteAccountRequest: TenantScopedRequest {}
extension CreateAuthUriRequest: TenantScopedRequest {}
extension SignInWithIdpRequest: TenantScopedRequest {}
extension SignInWithCustomTokenRequest: TenantScopedRequest {}
extension SendOobCodeRequest: TenantScopedRequest {}
extension ResetPasswordRequest: TenantScopedRequest {}
extension SignInWithEmailLinkRequest: TenantScopedRequest {}
extension RevokeTokenRequest: TenantScopedRequest {}
extension StartMFAEnrollmentRequest: TenantScopedRequest {}
extension FinalizeMFAEnrollmentRequest: TenantScopedRequest {}
extension WithdrawMFARequest: TenantScopedRequest {}
extension StartMFASignInRequest: TenantScopedRequest {}
extension FinalizeMFASignInRequest: TenantScopedRequest {}
extension GenerateRecoveryCodesRequest: TenantScopedRequest {}
extension StartPasskeyEnrollmentRequest: TenantScopedRequest {}
extension FinalizePasskeyEnrollmentRequest: TenantScopedRequest {}
extension StartPasskeySignInRequest: TenantScopedRequest {}
extension FinalizePasskeySignInRequest: TenantScopedRequest {}
extension AdminCreateUserRequest: TenantScopedRequest {}
extension AdminLookupRequest: TenantScopedRequest {}
extension AdminUpdateRequest: TenantScopedRequest {}
extension AdminDeleteRequest: TenantScopedRequest {}
extension BatchDeleteRequest: TenantScopedRequest {}
extension BatchGetRequest: TenantScopedRequest {}
extension ImportUsersRequest: TenantScopedRequest {}
extension QueryUsersRequest: TenantScopedRequest {}
extension CreateSessionCookieRequest: TenantScopedRequest {}
extension AdminSendOobCodeRequest: TenantScopedRequest {
    public var tenantId: String? { request.tenantId }
}
