import Foundation
import HearthCore
import Synchronization

/// Provider client secrets at rest: with vault keys (``ProviderTokenKeys``) given to the store, every secret it
/// writes is sealed (AES-256-GCM, bound to the provider id) and opened again when read; without keys they are
/// stored as given. A secret sealed with a key the process does not have stays sealed when read (the server then
/// refuses to use the provider with a message naming the key). Both stores use this one implementation.
public final class ClientSecretSealing: Sendable {
    private let keys = Mutex<ProviderTokenKeys?>(nil)

    public init() {}

    /// The keys secrets are sealed and opened with (nil: stored in plaintext).
    public func use(_ keys: ProviderTokenKeys?) { self.keys.withLock { $0 = keys } }

    var current: ProviderTokenKeys? { keys.withLock { $0 } }

    static func context(_ providerId: String) -> String { "hearth.idp-client-secret.v1\u{0}\(providerId)" }

    /// The form to store: the secret sealed when there are keys (an already sealed one is kept as it is).
    public func forStorage(_ config: IdPConfig) throws -> IdPConfig {
        guard let keys = current, !config.clientSecret.isEmpty, !ProviderTokenKeys.isSealedSecret(config.clientSecret) else { return config }
        var sealed = config
        sealed.clientSecret = try keys.sealSecret(config.clientSecret, context: Self.context(config.providerId))
        return sealed
    }

    /// The form to use: the secret opened when it is sealed and a key opens it.
    public func fromStorage(_ config: IdPConfig) -> IdPConfig {
        guard ProviderTokenKeys.isSealedSecret(config.clientSecret), let keys = current,
              let secret = try? keys.openSecret(config.clientSecret, context: Self.context(config.providerId)) else { return config }
        var opened = config
        opened.clientSecret = secret
        return opened
    }

    /// Whether a stored secret should be written again: plaintext while there are keys, or sealed with a key other
    /// than the active one.
    public func needsResealing(_ stored: IdPConfig) -> Bool {
        guard let keys = current, !stored.clientSecret.isEmpty else { return false }
        guard let keyId = ProviderTokenKeys.sealingKeyId(stored.clientSecret) else { return true }
        return keyId != keys.activeKeyId && keys.keyIds.contains(keyId)
    }

    /// Of `stored` configurations, those to write again, with their secrets sealed by the active key.
    package func resealed(_ stored: [IdPConfig]) throws -> [IdPConfig] {
        try stored.filter(needsResealing).compactMap { config in
            let resealed = try forStorage(fromStorage(config))
            return resealed.clientSecret != config.clientSecret && ProviderTokenKeys.isSealedSecret(resealed.clientSecret) ? resealed : nil
        }
    }
}

/// Stores that seal provider client secrets at rest.
public protocol ClientSecretStore: Sendable {
    /// The sealing of this store's provider client secrets.
    var clientSecrets: ClientSecretSealing { get }
    /// Seals every stored client secret that is in plaintext (or sealed with an older key) with the active key;
    /// returns how many were rewritten.
    @discardableResult
    func sealStoredClientSecrets() async throws -> Int
}
