import Foundation
import HearthCore
import HearthStore

extension SQLiteStore: SealedSecretCensus {
    public func sealedTOTPFactors() async throws -> SealedFactorCensus {
        var census = SealedFactorCensus()
        var after: String?
        while true {
            let page = try await read { [after] db in try SealedFactorCensus.entries(try db.rows(StoreSQL.usersWithSealedSecrets(after: after, limit: SealedFactorCensus.pageSize))) }
            guard let last = try census.add(page: page), page.count == SealedFactorCensus.pageSize else { break }
            after = last
        }
        return census
    }
}
