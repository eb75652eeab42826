import Foundation
import HearthCore
import HearthStore

/// Whole-vault work for `hearth vault`: counting records per key and moving every record to the active key.
public enum ProviderTokenVaultMaintenance {
    /// What a pass over the vault found (and, for a rekey, did).
    public struct Report: Sendable, Equatable {
        /// Records per key id, before the pass.
        public var recordsByKey: [String: Int] = [:]
        /// Records sealed again with the active key.
        public var resealed = 0
        /// Records whose key is not configured or that do not open (left as they are).
        public var unreadable = 0
        /// Provider client secrets sealed again with the active key (`hearth vault rekey`).
        public var clientSecretsResealed = 0
    }

    /// Seals every record not sealed with the active key again with it (`rekey`), or only counts (`rekey: false`).
    /// A record that changed meanwhile (a renewal) is skipped: the renewal sealed it with the active key.
    public static func pass(store: any HearthStore, keys: ProviderTokenKeys, rekey: Bool, now: Date = Date()) async throws -> Report {
        var report = Report()
        var after: ProviderTokenKey?
        while true {
            let page = try await store.providerTokenRecords(after: after, limit: 500)
            guard let last = page.last else { break }
            after = ProviderTokenKey(localId: last.localId, providerId: last.providerId)
            for record in page {
                report.recordsByKey[record.keyId, default: 0] += 1
                guard let tokens = try? keys.open(sealed: record.sealed, keyId: record.keyId, localId: record.localId, providerId: record.providerId) else {
                    report.unreadable += 1
                    continue
                }
                guard rekey, record.keyId != keys.activeKeyId else { continue }
                let (keyId, sealed) = try keys.seal(tokens, localId: record.localId, providerId: record.providerId)
                var next = record
                next.keyId = keyId
                next.sealed = sealed
                next.updatedAt = now
                if try await store.replaceProviderTokens(next, expectedSealed: record.sealed) { report.resealed += 1 }
            }
        }
        return report
    }
}
