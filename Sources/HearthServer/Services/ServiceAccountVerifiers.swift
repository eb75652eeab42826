import HearthCore
import JWTKit
import Synchronization

/// Built verification keys of registered service accounts, by public-key PEM, so a custom-token sign-in does not
/// parse a PEM and build a key collection every time. Keys are still looked up in the store on every sign-in (a
/// removed key stops working at once); only the parsed form is kept. Bounded: cleared past 256 entries.
final class ServiceAccountVerifiers: Sendable {
    private let cache = Mutex<[String: JWTKeyCollection]>([:])

    func collection(for key: ServiceAccountKey) async -> JWTKeyCollection? {
        if let hit = cache.withLock({ $0[key.publicKeyPEM] }) { return hit }
        guard let publicKey = key.rsaPublicKey else { return nil }
        let collection = JWTKeyCollection()
        await collection.add(rsa: publicKey, digestAlgorithm: .sha256)
        cache.withLock { entries in
            if entries.count >= 256 { entries.removeAll() }
            entries[key.publicKeyPEM] = collection
        }
        return collection
    }
}
