import Foundation
import HearthCore
import HearthStore
import Synchronization

/// The console's user counts, one per scope (the project's users, each tenant's), counted at most every ``maxAge``
/// seconds (issue 41): a count of a million users reads a million index entries, too much for every page view. The
/// pages say how old a count is (``Count/ageNote(at:)``) when it was not made for this view, and a page that shows more
/// users than the count says counts again.
final class ConsoleUserCounts: Sendable {
    /// How long a count is shown before the next page view counts again.
    static let maxAge: TimeInterval = 60

    /// A count and when it was made.
    struct Count: Sendable, Equatable {
        var users: Int
        var countedAt: Date
        /// Counted for this view (not taken from an earlier one).
        var fresh: Bool

        /// Whole seconds since the count was made.
        func age(at now: Date) -> Int { max(0, Int(now.timeIntervalSince(countedAt))) }

        /// "" when counted for this view, else " (counted 40 s ago)": the pages never pass an old count as current.
        func ageNote(at now: Date) -> String { fresh ? "" : " (counted \(age(at: now)) s ago)" }
    }

    private let counts = Mutex<[String: Count]>([:])

    /// The users of `store`'s tenant (the project's when it is bound to none), counted again when the last count is
    /// ``maxAge`` old or older, or below `atLeast` (the page shows that many: the count is known to be stale).
    func users(of store: any HearthStore, now: Date, atLeast: Int = 0) async throws -> Count {
        let key = store.tenantId ?? ""
        if var cached = counts.withLock({ $0[key] }), now.timeIntervalSince(cached.countedAt) < Self.maxAge, cached.countedAt <= now,
           cached.users >= atLeast {
            cached.fresh = false
            return cached
        }
        let fresh = Count(users: try await store.userCount(), countedAt: now, fresh: true)
        counts.withLock { $0[key] = fresh }
        return fresh
    }

    /// Forgets every count (a tenant deleted, all users deleted): the next view counts.
    func forget() {
        counts.withLock { $0.removeAll() }
    }
}
