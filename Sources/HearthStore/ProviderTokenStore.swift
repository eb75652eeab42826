import Foundation
import HearthCore

/// The provider token vault's rows: sealed upstream tokens per linked identity. Stores also delete them on their
/// own when the link goes: ``UserStore/deleteUser(localId:)`` deletes the user's, ``UserStore/updateUser(_:)``
/// deletes those whose identity is no longer linked, and ``RefreshTokenStore/revokeRefreshTokens(localId:)``
/// deletes the user's (a revocation ends what the sessions could reach upstream too).
public protocol ProviderTokenStore: Sendable {
    /// Inserts or replaces the tokens of `(localId, providerId)`, only while the identity `(providerId,
    /// federatedId)` is linked to `localId`. Returns false (nothing stored) otherwise.
    func saveProviderTokens(_ record: ProviderTokenRecord) async throws -> Bool
    func providerTokens(localId: String, providerId: String) async throws -> ProviderTokenRecord?
    /// Replaces the tokens of `(record.localId, record.providerId)` if the stored `sealed` still equals
    /// `expectedSealed` (compare-and-swap: a concurrent refresh or rekey wins once). Returns whether it replaced.
    func replaceProviderTokens(_ record: ProviderTokenRecord, expectedSealed: String) async throws -> Bool
    /// Deletes a user's tokens for `providerId` (nil: for every provider). Returns how many rows went.
    @discardableResult
    func deleteProviderTokens(localId: String, providerId: String?) async throws -> Int
    /// Deletes every user's tokens for `providerId` (the vault was turned off for it). Returns how many rows went.
    @discardableResult
    func deleteProviderTokens(providerId: String) async throws -> Int
    /// Records ordered by `(localId, providerId)`, strictly after `after` when given, at most `limit`.
    func providerTokenRecords(after: ProviderTokenKey?, limit: Int) async throws -> [ProviderTokenRecord]
}

/// The key of a ``ProviderTokenRecord``: a user and a provider.
public struct ProviderTokenKey: Sendable, Equatable {
    public var localId: String
    public var providerId: String

    public init(localId: String, providerId: String) {
        self.localId = localId
        self.providerId = providerId
    }
}
