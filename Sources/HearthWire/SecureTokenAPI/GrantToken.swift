/// `POST /securetoken.googleapis.com/v1/token`: the refresh grant. Accepted as JSON in camelCase
/// (`grantType`, `refreshToken`, what the iOS SDK sends) or snake_case, or as a form (`grant_type`, `refresh_token`).
public struct GrantTokenRequest: Codable, Sendable, Equatable {
    public var grantType: String?
    public var refreshToken: String?

    public init(grantType: String?, refreshToken: String?) {
        self.grantType = grantType
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case grantType, refreshToken
        case grantTypeSnake = "grant_type"
        case refreshTokenSnake = "refresh_token"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        grantType = try container.decodeIfPresent(String.self, forKey: .grantType)
            ?? container.decodeIfPresent(String.self, forKey: .grantTypeSnake)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
            ?? container.decodeIfPresent(String.self, forKey: .refreshTokenSnake)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(grantType, forKey: .grantType)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
    }
}

/// The answer to the refresh grant. Clients take the new ID token from `access_token`.
public struct GrantTokenResponse: Codable, Sendable, Equatable {
    public var accessToken: String
    public var expiresIn: String
    public var idToken: String
    public var refreshToken: String
    public var tokenType: String = "Bearer"
    public var userId: String
    public var projectId: String

    public init(idToken: String, refreshToken: String, expiresIn: String, userId: String, projectId: String) {
        self.accessToken = idToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.userId = userId
        self.projectId = projectId
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case userId = "user_id"
        case projectId = "project_id"
    }
}
