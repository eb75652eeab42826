import Foundation
import HearthCore
import HearthStore
import Logging
import ServiceLifecycle

/// Background upkeep: key rotation once a minute (so keys are pre-published even when nothing is signed), and
/// hourly removal of expired sign-in sessions and of refresh tokens rotated or revoked more than 30 days ago.
struct MaintenanceService: Service {
    let keyRing: KeyRing
    let store: any HearthStore
    let clock: WallClock
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var round = 0
            while !Task.isCancelled {
                // The first round waits: keys are created once the listener is bound (`HearthApp.start`).
                try await Task.sleep(for: .seconds(60))
                do {
                    try await keyRing.maintain()
                    if round % 60 == 0 {
                        let now = clock.now()
                        try await store.pruneExpiredFlows(now: now)
                        try await store.pruneRateLimits(now: now)
                        // Used and expired action codes a day past expiry (a late click still hears "expired").
                        try await store.pruneOobCodes(before: now.addingTimeInterval(-86_400))
                        let pruned = try await store.pruneRefreshTokens(before: now.addingTimeInterval(-30 * 86_400))
                        if pruned > 0 { logger.info("pruned dead refresh tokens", metadata: ["count": "\(pruned)"]) }
                    }
                } catch {
                    logger.error("maintenance failed", metadata: ["error.type": "\(type(of: error))"])
                }
                round += 1
            }
        }
    }
}
