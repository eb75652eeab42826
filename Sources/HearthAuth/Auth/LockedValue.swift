import Foundation

/// A value behind a lock (Foundation's `NSLock`, so it works on every platform the SDK supports).
final class LockedValue<Value>: @unchecked Sendable {
    // Safe: `value` is only read or written while `lock` is held.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
