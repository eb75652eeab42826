/// `accounts:createAuthUri` (v3 `createAuthUri`): which sign-in methods an email has; with `providerId` (and no
/// `identifier`), whether that provider is enabled and where its sign-in starts.
public struct CreateAuthUriRequest: Codable, Sendable, Equatable {
    public var identifier: String?
    public var continueUri: String?
    public var providerId: String?
    public var sessionId: String?
    public var tenantId: String?
    /// With `providerId`: the app that will open the auth handler (a desktop app's id). The server then also checks
    /// that the app is registered (`APP_NOT_AUTHORIZED` otherwise), so a client can say so before a browser opens.
    public var appId: String?

    public init(identifier: String?, continueUri: String? = "http://localhost", providerId: String? = nil, appId: String? = nil) {
        self.identifier = identifier
        self.continueUri = continueUri
        self.providerId = providerId
        self.appId = appId
    }
}

/// The answer to `accounts:createAuthUri`. With email enumeration protection only `kind` and `sessionId`.
public struct CreateAuthUriResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#CreateAuthUriResponse"
    public var registered: Bool?
    public var allProviders: [String]?
    public var signinMethods: [String]?
    public var sessionId: String
    /// The provider asked about (`providerId` requests).
    public var providerId: String?
    /// Where that provider's sign-in starts (Hearth: its auth handler).
    public var authUri: String?

    public init(registered: Bool?, allProviders: [String]?, signinMethods: [String]?, sessionId: String, providerId: String? = nil,
                authUri: String? = nil) {
        self.registered = registered
        self.allProviders = allProviders
        self.signinMethods = signinMethods
        self.sessionId = sessionId
        self.providerId = providerId
        self.authUri = authUri
    }
}

/// The answer to `getProjectConfig` (v3) / `GET v1/projects`.
public struct GetProjectConfigResponse: Codable, Sendable, Equatable {
    public var projectId: String
    public var authorizedDomains: [String]

    public init(projectId: String, authorizedDomains: [String]) {
        self.projectId = projectId
        self.authorizedDomains = authorizedDomains
    }
}
