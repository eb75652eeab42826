import Foundation

/// `POST /hearth/v1/providerAccessToken` (Hearth's provider token vault): a fresh access token of `providerId` for
/// the signed-in user. The Hearth ID token goes in `Authorization: Bearer …` or in `idToken`.
public struct ProviderAccessTokenRequest: Codable, Sendable, Equatable {
    /// `microsoft.com`, `yahoo.com` or `oidc.<name>`.
    public var providerId: String?
    /// The user's Hearth ID token, when not sent as a bearer token.
    public var idToken: String?
    /// Renew at the provider even when the kept access token is still valid (at most every 30 seconds).
    public var forceRefresh: Bool?

    public init(providerId: String?, idToken: String? = nil, forceRefresh: Bool? = nil) {
        self.providerId = providerId
        self.idToken = idToken
        self.forceRefresh = forceRefresh
    }
}

/// The answer: the provider's access token (a secret of the user's: never log it) and how long it lives.
public struct ProviderAccessTokenResponse: Codable, Sendable, Equatable {
    public var providerId: String
    public var accessToken: String
    /// Seconds until the access token expires, as a decimal string (Firebase's `expiresIn` form).
    public var expiresIn: String
    /// The scopes the provider granted, when it said.
    public var scope: String?

    public init(providerId: String, accessToken: String, expiresIn: String, scope: String?) {
        self.providerId = providerId
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.scope = scope
    }
}
