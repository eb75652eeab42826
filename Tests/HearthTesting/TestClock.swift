import Foundation
import HearthCore
import Synchronization

/// A clock tests move by hand.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public var wallClock: WallClock {
        WallClock({ [self] in self.now }, wait: { [self] target in
            // Time passes at once: a wait moves the clock to its end.
            self.current.withLock { if $0 < target { $0 = target } }
        })
    }
}
