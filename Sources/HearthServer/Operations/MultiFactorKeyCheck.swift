import Foundation
import HearthCore
import HearthStore
import Logging
import Synchronization

/// Whether every stored TOTP secret opens with this server's keys (the vault keys and the local key file). A database
/// restored without its key file, or a vault key dropped while secrets are still sealed with it, leaves users whose
/// second factor answers 503: the start-up says so in the log, and `/readyz` reports not ready with the reason until
/// the key is back (a restart with it) or the factors are removed (`hearth users mfa remove-unopenable`), which the
/// probe notices by counting again, at most every ``recheckInterval`` (issue 35, item 11).
public final class MultiFactorKeyCheck: Sendable {
    let store: any HearthStore
    let keyIds: [String]
    let logger: Logger
    let clock: WallClock
    /// How often `/readyz` counts again while factors cannot be opened.
    static let recheckInterval: TimeInterval = 30

    private struct State {
        var unopenable: SealedFactorCensus?
        var checkedAt: Date?
    }

    private let state = Mutex(State())

    init(store: any HearthStore, configuration: HearthServerConfiguration, logger: Logger) {
        self.store = store
        self.keyIds = (configuration.providerTokenKeys?.keyIds ?? []) + (configuration.localSecretKeys?.keyIds ?? [])
        self.logger = logger
        self.clock = configuration.clock
    }

    /// The factors this server cannot open, as last counted (nil: not counted, or the store cannot count).
    public var unopenable: SealedFactorCensus? { state.withLock { $0.unopenable } }

    /// Counts the sealed factors whose key this server lacks; logs an error when there are any. A store that cannot
    /// count (a test double) or fails to is not a finding.
    @discardableResult
    public func run() async -> SealedFactorCensus? {
        guard let census = store as? any SealedSecretCensus else { return nil }
        let found: SealedFactorCensus
        do {
            found = try await census.sealedTOTPFactors().missing(from: keyIds)
        } catch {
            logger.warning("could not count the stored TOTP secrets' keys", metadata: ["error.type": "\(type(of: error))"])
            return nil
        }
        let before = state.withLock { current in
            let before = current.unopenable
            current.unopenable = found
            current.checkedAt = clock.now()
            return before
        }
        let wasFound = before.map { !$0.isEmpty } ?? false
        // Said once per finding (the probe's recounts repeat it only when it changed).
        if !found.isEmpty, found != before {
            logger.error("\(Self.problem(found))", metadata: ["keys": "\(found.keyIds.joined(separator: ","))",
                                                             "uids": "\(found.users.prefix(20).joined(separator: ","))"])
        } else if wasFound {
            logger.notice("every stored TOTP secret opens with this server's keys again")
        }
        return found
    }

    /// The readiness problem, nil when every factor opens. While there is one, counts again at most every
    /// ``recheckInterval`` (in the probe's own task: a removal of the factors clears it without a restart).
    func readinessProblem() async -> String? {
        let (current, due) = state.withLock { state in
            (state.unopenable, state.checkedAt.map { clock.now().timeIntervalSince($0) >= Self.recheckInterval } ?? false)
        }
        guard let current, !current.isEmpty else { return nil }
        guard due else { return Self.problem(current) }
        let moment = clock.now()
        state.withLock { $0.checkedAt = moment }
        guard let fresh = await run(), !fresh.isEmpty else { return nil }
        return Self.problem(fresh)
    }

    /// What is wrong and what to do, without key material.
    static func problem(_ unopenable: SealedFactorCensus) -> String {
        "\(unopenable.summary), which this server does not have: those users cannot finish a second-factor sign-in (503). "
            + "Put the key back — the data directory's totp-secrets.key (hearth backup copies it beside the database) or the vault keys file — and restart, "
            + "or remove those factors with hearth users mfa remove-unopenable (docs/operations.md#backups-and-the-totp-key)"
    }
}
