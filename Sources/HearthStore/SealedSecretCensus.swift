import Foundation
import HearthCore

/// Which keys the users' TOTP secrets are sealed with, so that a server missing one says so instead of answering
/// 503 at every second factor: `hearth serve` refuses to make a new local key over sealed factors, `/readyz`
/// reports factors it cannot open, `hearth backup` names the keys its copy needs (issue 35, item 11).
public protocol SealedSecretCensus: HearthStore {
    /// Every enrolled TOTP factor whose secret is sealed, counted by the sealing key's id.
    func sealedTOTPFactors() async throws -> SealedFactorCensus
}

/// The sealed TOTP factors of a store, by the id of the key that sealed them.
public struct SealedFactorCensus: Sendable, Equatable {
    /// For one key id: how many factors, and the users holding them (uids, sorted).
    public struct Entry: Sendable, Equatable {
        public var factors: Int
        public var users: [String]
    }

    public var byKey: [String: Entry]

    public init(byKey: [String: Entry] = [:]) { self.byKey = byKey }

    /// Adds one user's factors (unsealed secrets are not counted: no key opens them).
    public mutating func add(localId: String, mfa: UserMultiFactor) {
        var counted: Set<String> = []
        for factor in mfa.factors {
            guard let keyId = ProviderTokenKeys.sealingKeyId(factor.secret) else { continue }
            byKey[keyId, default: Entry(factors: 0, users: [])].factors += 1
            if counted.insert(keyId).inserted { byKey[keyId]?.users.append(localId) }
        }
    }

    /// The part sealed with none of `keyIds`: factors no key of this server opens.
    public func missing(from keyIds: some Sequence<String>) -> SealedFactorCensus {
        let known = Set(keyIds)
        return SealedFactorCensus(byKey: byKey.filter { !known.contains($0.key) })
    }

    public var isEmpty: Bool { byKey.isEmpty }
    /// The number of factors counted.
    public var factorCount: Int { byKey.values.reduce(0) { $0 + $1.factors } }
    /// The users holding a counted factor, sorted, each once.
    public var users: [String] { Set(byKey.values.flatMap(\.users)).sorted() }
    /// The key ids, sorted.
    public var keyIds: [String] { byKey.keys.sorted() }

    /// "3 TOTP factor(s) of 2 user(s) sealed with key local-ab12cd" (no secret, no key material).
    public var summary: String {
        "\(factorCount) TOTP second factor(s) of \(users.count) user(s) sealed with key \(keyIds.joined(separator: ", "))"
    }

    /// The page size the stores read users in.
    package static let pageSize = 500
    /// What a users row's `mfa` column holds when a secret in it is sealed (a pattern for `LIKE`).
    package static let sealedPattern = "%" + ProviderTokenKeys.sealedSecretPrefix + "%"
}
