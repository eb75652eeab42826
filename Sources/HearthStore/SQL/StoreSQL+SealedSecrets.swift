import Foundation
import HearthCore

extension StoreSQL {
    // MARK: Sealed TOTP secrets (issue 35, item 11)

    /// A page of the users whose `mfa` holds a sealed secret, by uid: their uid and `mfa` column. Read through the
    /// partial index `users_mfa` (users with second factors only): at start-up it costs the users with factors, not
    /// every user (issue 41).
    package static func usersWithSealedSecrets(after afterId: String?, limit: Int) -> SQLStatement {
        """
        SELECT local_id, mfa FROM users WHERE mfa IS NOT NULL AND mfa LIKE \(SealedFactorCensus.sealedPattern) AND local_id > \(afterId ?? "")
        ORDER BY local_id LIMIT \(max(0, limit))
        """
    }
}

extension SealedFactorCensus {
    /// The uid and `mfa` of each row of ``StoreSQL/usersWithSealedSecrets(after:limit:)``.
    package static func entries(_ rows: [some SQLRow]) throws -> [(localId: String, mfa: String?)] {
        try rows.compactMap { row in try row.string("local_id").map { ($0, try row.string("mfa")) } }
    }

    /// Adds a page of ``entries(_:)``; the last uid read, nil when the page is empty.
    package mutating func add(page: [(localId: String, mfa: String?)]) throws -> String? {
        for entry in page {
            if let text = entry.mfa { add(localId: entry.localId, mfa: try StoreJSON.decode(UserMultiFactor.self, text)) }
        }
        return page.last?.localId
    }
}
