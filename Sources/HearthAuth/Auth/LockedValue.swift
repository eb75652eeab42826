import Synchronization

/// A value behind a `Synchronization.Mutex` (the project's one lock type), in a class so that it can be shared
/// and captured.
final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<T: Sendable, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try mutex.withLock { (value: inout sending Value) throws(E) -> T in try body(&value) }
    }
}
