/// The route groups of the HTTP API. Each group has its own middleware on the server (API key, sign-in counting,
/// admin authentication, body limits) — never a match on path text.
public enum RouteGroup: String, Sendable, CaseIterable, Codable {
    /// Identity Toolkit's client methods (`accounts:*`, v3 `relyingparty/*`, Hearth's `/hearth/v1/*`): the API key.
    case clientAPI
    /// The secure token service (`securetoken.googleapis.com/v1/token`): the API key.
    case secureToken
    /// The admin API (`…/v1/projects/{project}/…`): an admin bearer token.
    case admin
    /// The Auth emulator's own endpoints (`/emulator/v1/projects/{project}/…`): the emulator credential.
    case emulator
}

/// How one RPC is reached: its route group and every route it answers at (the v1 method first, then its legacy
/// v3 alias). Paths are host-relative, as Firebase clients use them against an emulator host; admin paths hold the
/// `{project}` parameter.
public struct RPCMethod: Sendable, Hashable, CustomStringConvertible {
    /// One path and the HTTP methods it answers (`POST` for a JSON body; `GET` reads the request from the query).
    public struct Route: Sendable, Hashable {
        public let path: String
        public let httpMethods: [String]
        public init(_ path: String, _ httpMethods: [String] = ["POST"]) {
            self.path = path
            self.httpMethods = httpMethods
        }
    }

    /// The route group, and so the middleware in front of the method.
    public let group: RouteGroup
    /// The v1 method name (`signUp`, `accounts:lookup`, …), when the method has one.
    public let v1: String?
    /// The v3 relying-party alias (`signupNewUser`), when the method has one.
    public let v3: String?
    /// Every route of the method, the v1 path first.
    public let routes: [Route]

    public init(group: RouteGroup, v1: String?, v3: String?, routes: [Route]) {
        self.group = group
        self.v1 = v1
        self.v3 = v3
        self.routes = routes
    }

    public init(group: RouteGroup, v1: String?, v3: String?, paths: [String], httpMethods: [String] = ["POST"]) {
        self.init(group: group, v1: v1, v3: v3, routes: paths.map { Route($0, httpMethods) })
    }

    /// Every path the method answers at.
    public var paths: [String] { routes.map(\.path) }

    /// An Identity Toolkit client method: `…/v1/accounts:<v1>` and `…/v3/relyingparty/<v3>`.
    public static func accounts(_ v1: String, v3: String?) -> RPCMethod {
        RPCMethod(group: .clientAPI, v1: v1, v3: v3, paths: [WirePaths.accounts(v1)] + (v3.map { [WirePaths.v3($0)] } ?? []))
    }

    /// An admin method on a project, `…/v1/projects/{project}/<resource>`, and on one of its Identity Platform
    /// tenants, `…/v1/projects/{project}/tenants/{tenant}/<resource>`.
    public static func admin(_ resource: String, httpMethods: [String] = ["POST"]) -> RPCMethod {
        RPCMethod(group: .admin, v1: resource, v3: nil, paths: ["\(WirePaths.identityToolkitV1)/projects/{project}/\(resource)",
                                                                  "\(WirePaths.identityToolkitV1)/projects/{project}/tenants/{tenant}/\(resource)"],
                  httpMethods: httpMethods)
    }

    /// The path a client sends to: the v3 alias where there is one (what the Firebase Apple SDK uses), else v1.
    public var clientPath: String { v3.map(WirePaths.v3) ?? routes[0].path }

    public var description: String { v1 ?? v3 ?? routes[0].path }
}

/// A request of the wire protocol: it names its answer and how it is reached. The server registers a route for
/// every path of every RPC in ``RPCCatalog``; ``HearthAuth`` sends requests through the same description.
public protocol WireRPC: Codable, Sendable {
    /// The answer's type.
    associatedtype Response: Codable & Sendable
    /// Where and how the RPC is reached.
    static var method: RPCMethod { get }
}

/// Every RPC of the wire protocol, by route group. Adding an RPC: its request and response types conform to
/// ``WireRPC`` here in HearthWire (and are listed below), the server's service answers it (a `ServedRPC`
/// conformance beside the service method), and the OpenAPI document describes it.
public enum RPCCatalog {
    /// The client API and the secure token service.
    public static let client: [any WireRPC.Type] = [
        SignUpRequest.self, SignInWithPasswordRequest.self, LookupRequest.self, UpdateRequest.self, DeleteAccountRequest.self,
        CreateAuthUriRequest.self, SignInWithIdpRequest.self, SignInWithCustomTokenRequest.self, GetProjectConfigRequest.self,
        ProviderAccessTokenRequest.self, GrantTokenRequest.self,
        SendOobCodeRequest.self, ResetPasswordRequest.self, SignInWithEmailLinkRequest.self, RevokeTokenRequest.self,
        StartMFAEnrollmentRequest.self, FinalizeMFAEnrollmentRequest.self, WithdrawMFARequest.self, StartMFASignInRequest.self,
        FinalizeMFASignInRequest.self, GenerateRecoveryCodesRequest.self,
        StartPasskeyEnrollmentRequest.self, FinalizePasskeyEnrollmentRequest.self, StartPasskeySignInRequest.self,
        FinalizePasskeySignInRequest.self, SendVerificationCodeRequest.self, SignInWithPhoneNumberRequest.self,
    ]

    /// The admin API's methods on users, sessions and the audit log.
    public static let admin: [any WireRPC.Type] = [
        AdminCreateUserRequest.self, AdminLookupRequest.self, AdminUpdateRequest.self, AdminDeleteRequest.self,
        BatchDeleteRequest.self, ImportUsersRequest.self, QueryUsersRequest.self, CreateSessionCookieRequest.self,
        BatchGetRequest.self, AuditLogRequest.self, AdminSendOobCodeRequest.self,
    ]

    /// The Auth emulator's own endpoints (the dev mailbox, the dev SMS sink).
    public static let emulator: [any WireRPC.Type] = [EmulatorOobCodesRequest.self, EmulatorClearOobCodesRequest.self,
                                                      EmulatorVerificationCodesRequest.self, EmulatorClearVerificationCodesRequest.self]

    /// Every RPC.
    public static var all: [any WireRPC.Type] { client + admin + emulator }
}

// MARK: The client API

extension SignUpRequest: WireRPC {
    public typealias Response = SignUpResponse
    public static let method = RPCMethod.accounts("signUp", v3: "signupNewUser")
}

extension SignInWithPasswordRequest: WireRPC {
    public typealias Response = SignInWithPasswordResponse
    public static let method = RPCMethod.accounts("signInWithPassword", v3: "verifyPassword")
}

extension LookupRequest: WireRPC {
    public typealias Response = LookupResponse
    public static let method = RPCMethod.accounts("lookup", v3: "getAccountInfo")
}

extension UpdateRequest: WireRPC {
    public typealias Response = UpdateResponse
    public static let method = RPCMethod.accounts("update", v3: "setAccountInfo")
}

extension DeleteAccountRequest: WireRPC {
    public typealias Response = DeleteAccountResponse
    public static let method = RPCMethod.accounts("delete", v3: "deleteAccount")
}

extension CreateAuthUriRequest: WireRPC {
    public typealias Response = CreateAuthUriResponse
    public static let method = RPCMethod.accounts("createAuthUri", v3: "createAuthUri")
}

extension SignInWithIdpRequest: WireRPC {
    public typealias Response = SignInWithIdpResponse
    public static let method = RPCMethod.accounts("signInWithIdp", v3: "verifyAssertion")
}

extension SignInWithCustomTokenRequest: WireRPC {
    public typealias Response = SignInWithCustomTokenResponse
    public static let method = RPCMethod.accounts("signInWithCustomToken", v3: "verifyCustomToken")
}

/// `getProjectConfig` (v3, `GET` as the iOS SDK sends it, or `POST`) and `GET v1/projects`: no parameters.
public struct GetProjectConfigRequest: Codable, Sendable, Equatable {
    public init() {}
}

extension GetProjectConfigRequest: WireRPC {
    public typealias Response = GetProjectConfigResponse
    public static let method = RPCMethod(group: .clientAPI, v1: "projects", v3: "getProjectConfig",
                                         routes: [.init(WirePaths.v3("getProjectConfig"), ["GET", "POST"]),
                                                  .init(WirePaths.identityToolkitV1 + "/projects", ["GET"])])
}

extension ProviderAccessTokenRequest: WireRPC {
    public typealias Response = ProviderAccessTokenResponse
    public static let method = RPCMethod(group: .clientAPI, v1: "providerAccessToken", v3: nil, paths: [WirePaths.providerAccessToken])
}

extension GrantTokenRequest: WireRPC {
    public typealias Response = GrantTokenResponse
    public static let method = RPCMethod(group: .secureToken, v1: "token", v3: nil, paths: [WirePaths.secureToken])
}

extension SendOobCodeRequest: WireRPC {
    public typealias Response = SendOobCodeResponse
    public static let method = RPCMethod.accounts("sendOobCode", v3: "getOobConfirmationCode")
}

extension ResetPasswordRequest: WireRPC {
    public typealias Response = ResetPasswordResponse
    public static let method = RPCMethod.accounts("resetPassword", v3: "resetPassword")
}

extension SignInWithEmailLinkRequest: WireRPC {
    public typealias Response = SignInWithEmailLinkResponse
    public static let method = RPCMethod.accounts("signInWithEmailLink", v3: "emailLinkSignin")
}

extension RevokeTokenRequest: WireRPC {
    public typealias Response = RevokeTokenResponse
    /// Identity Platform's v2 method (the Apple SDK sends it there); the v1 path answers too.
    public static let method = RPCMethod(group: .clientAPI, v1: "accounts:revokeToken", v3: nil,
                                         paths: [WirePaths.identityToolkitV2 + "/accounts:revokeToken",
                                                 WirePaths.accounts("revokeToken")])
}

// MARK: Second factors (Identity Platform's v2 methods)

extension RPCMethod {
    /// A v2 `accounts/<resource>:<verb>` client method.
    static func accountsV2(_ name: String, _ path: String) -> RPCMethod {
        RPCMethod(group: .clientAPI, v1: name, v3: nil, paths: [path])
    }
}

extension StartMFAEnrollmentRequest: WireRPC {
    public typealias Response = StartMFAEnrollmentResponse
    public static let method = RPCMethod.accountsV2("mfaEnrollment:start", WirePaths.mfaEnrollmentStart)
}

extension FinalizeMFAEnrollmentRequest: WireRPC {
    public typealias Response = FinalizeMFAEnrollmentResponse
    public static let method = RPCMethod.accountsV2("mfaEnrollment:finalize", WirePaths.mfaEnrollmentFinalize)
}

extension WithdrawMFARequest: WireRPC {
    public typealias Response = WithdrawMFAResponse
    public static let method = RPCMethod.accountsV2("mfaEnrollment:withdraw", WirePaths.mfaEnrollmentWithdraw)
}

extension StartMFASignInRequest: WireRPC {
    public typealias Response = StartMFASignInResponse
    public static let method = RPCMethod.accountsV2("mfaSignIn:start", WirePaths.mfaSignInStart)
}

extension FinalizeMFASignInRequest: WireRPC {
    public typealias Response = FinalizeMFASignInResponse
    public static let method = RPCMethod.accountsV2("mfaSignIn:finalize", WirePaths.mfaSignInFinalize)
}

extension GenerateRecoveryCodesRequest: WireRPC {
    public typealias Response = GenerateRecoveryCodesResponse
    /// Hearth extension.
    public static let method = RPCMethod.accountsV2("mfaRecoveryCodes:generate", WirePaths.mfaRecoveryCodesGenerate)
}

extension StartPasskeyEnrollmentRequest: WireRPC {
    public typealias Response = StartPasskeyEnrollmentResponse
    public static let method = RPCMethod.accountsV2("passkeyEnrollment:start", WirePaths.passkeyEnrollmentStart)
}

extension FinalizePasskeyEnrollmentRequest: WireRPC {
    public typealias Response = PasskeySessionResponse
    public static let method = RPCMethod.accountsV2("passkeyEnrollment:finalize", WirePaths.passkeyEnrollmentFinalize)
}

extension StartPasskeySignInRequest: WireRPC {
    public typealias Response = StartPasskeySignInResponse
    public static let method = RPCMethod.accountsV2("passkeySignIn:start", WirePaths.passkeySignInStart)
}

extension FinalizePasskeySignInRequest: WireRPC {
    public typealias Response = PasskeySessionResponse
    public static let method = RPCMethod.accountsV2("passkeySignIn:finalize", WirePaths.passkeySignInFinalize)
}

// MARK: The admin API

extension AdminSendOobCodeRequest: WireRPC {
    public typealias Response = SendOobCodeResponse
    public static let method = RPCMethod.admin("accounts:sendOobCode")
}

extension AdminCreateUserRequest: WireRPC {
    public typealias Response = SignUpResponse
    public static let method = RPCMethod.admin("accounts")
}

extension AdminLookupRequest: WireRPC {
    public typealias Response = AdminLookupResponse
    public static let method = RPCMethod.admin("accounts:lookup")
}

extension AdminUpdateRequest: WireRPC {
    public typealias Response = AdminUpdateResponse
    public static let method = RPCMethod.admin("accounts:update")
}

extension AdminDeleteRequest: WireRPC {
    public typealias Response = AdminDeleteResponse
    public static let method = RPCMethod.admin("accounts:delete")
}

extension BatchDeleteRequest: WireRPC {
    public typealias Response = BatchDeleteResponse
    public static let method = RPCMethod.admin("accounts:batchDelete")
}

extension ImportUsersRequest: WireRPC {
    public typealias Response = ImportUsersResponse
    public static let method = RPCMethod.admin("accounts:batchCreate")
}

extension QueryUsersRequest: WireRPC {
    public typealias Response = QueryUsersResponse
    public static let method = RPCMethod.admin("accounts:query")
}

extension CreateSessionCookieRequest: WireRPC {
    public typealias Response = CreateSessionCookieResponse
    public static let method = RPCMethod(group: .admin, v1: "createSessionCookie", v3: nil,
                                         paths: ["\(WirePaths.identityToolkitV1)/projects/{project}:createSessionCookie",
                                                 "\(WirePaths.identityToolkitV1)/projects/{project}/tenants/{tenant}:createSessionCookie"])
}

/// `GET …/v1/projects/{p}/accounts:batchGet?maxResults=&nextPageToken=`: a page of users.
public struct BatchGetRequest: Codable, Sendable, Equatable {
    public var maxResults: String?
    public var nextPageToken: String?
    /// The Identity Platform tenant whose users to list (the path's tenant, when the request goes to one).
    public var tenantId: String?
    public init(maxResults: String? = nil, nextPageToken: String? = nil) {
        self.maxResults = maxResults
        self.nextPageToken = nextPageToken
    }
}

extension BatchGetRequest: WireRPC {
    public typealias Response = BatchGetResponse
    public static let method = RPCMethod.admin("accounts:batchGet", httpMethods: ["GET"])
}

/// `GET …/v1/projects/{p}/auditLog?pageSize=&pageToken=`: the audit log, newest first.
public struct AuditLogRequest: Codable, Sendable, Equatable {
    public var pageSize: String?
    public var pageToken: String?
    public init(pageSize: String? = nil, pageToken: String? = nil) {
        self.pageSize = pageSize
        self.pageToken = pageToken
    }
}

extension AuditLogRequest: WireRPC {
    public typealias Response = AuditLogResponse
    public static let method = RPCMethod.admin("auditLog", httpMethods: ["GET"])
}

// MARK: The emulator's endpoints

extension EmulatorOobCodesRequest: WireRPC {
    public typealias Response = EmulatorOobCodesResponse
    public static let method = RPCMethod(group: .emulator, v1: "oobCodes", v3: nil,
                                         routes: [.init(WirePaths.emulatorOobCodes, ["GET"])])
}

extension EmulatorClearOobCodesRequest: WireRPC {
    public typealias Response = EmptyResponse
    public static let method = RPCMethod(group: .emulator, v1: "oobCodes:clear", v3: nil,
                                         routes: [.init(WirePaths.emulatorOobCodes, ["DELETE"])])
}
