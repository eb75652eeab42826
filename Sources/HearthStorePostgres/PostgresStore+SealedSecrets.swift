import Foundation
import HearthCore
import HearthStore

extension PostgresStore: SealedSecretCensus {
    public func sealedTOTPFactors() async throws -> SealedFactorCensus {
        var census = SealedFactorCensus()
        var after: String?
        while true {
            let page = try await single { [after] db in try SealedFactorCensus.entries(try await db.rows(StoreSQL.usersWithSealedSecrets(after: after, limit: SealedFactorCensus.pageSize))) }
            guard let last = try census.add(page: page), page.count == SealedFactorCensus.pageSize else { break }
            after = last
        }
        return census
    }
}
