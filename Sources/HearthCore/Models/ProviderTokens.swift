import Foundation

/// The upstream provider's tokens kept for one linked identity by the provider token vault: a refresh token (and
/// the last access token) sealed with AES-GCM under a vault key. The store only ever sees the sealed form.
public struct ProviderTokenRecord: Sendable, Equatable {
    public var localId: String
    public var providerId: String
    /// The linked identity the tokens belong to: a record never outlives its link.
    public var federatedId: String
    /// The id of the vault key that sealed `sealed` (older keys still open it; `hearth vault rekey` moves it on).
    public var keyId: String
    /// Base64 of the AES-GCM box (nonce, ciphertext, tag) of the tokens, bound to the user and provider.
    public var sealed: String
    /// When the sealed access token expires (nil: no access token kept).
    public var accessTokenExpiresAt: Date?
    public var updatedAt: Date

    public init(localId: String, providerId: String, federatedId: String, keyId: String, sealed: String,
                accessTokenExpiresAt: Date?, updatedAt: Date) {
        self.localId = localId
        self.providerId = providerId
        self.federatedId = federatedId
        self.keyId = keyId
        self.sealed = sealed
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.updatedAt = updatedAt
    }
}
