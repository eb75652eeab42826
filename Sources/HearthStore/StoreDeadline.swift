import Foundation
import Synchronization

/// The time a request may still spend waiting for the store. The server sets it for each request
/// (``withRequestDeadline(_:_:)``); a store bounds every operation by it and by its own operation timeout, so a
/// request answers within the bound however many store operations it makes, and an unreachable database turns into
/// ``StoreError/unavailable(_:)`` instead of a hang.
public enum StoreDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `body` with the store deadline `seconds` from now (or the caller's, if that is sooner).
    public static func withRequestDeadline<T>(_ seconds: TimeInterval, _ body: () async throws -> T) async rethrows -> T {
        let candidate = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        let deadline = current.map { min($0, candidate) } ?? candidate
        return try await $current.withValue(deadline, operation: body)
    }

    /// How long an operation may take: `timeout`, shortened to the request's deadline. Throws
    /// ``StoreError/unavailable(_:)`` when the request's time is up already.
    public static func limit(_ timeout: Duration) throws -> Duration {
        guard let current else { return timeout }
        let left = ContinuousClock.now.duration(to: current)
        guard left > .zero else { throw StoreError.unavailable("the request's time for the database ran out") }
        return min(timeout, left)
    }
}

/// The operation did not finish within its time (``Deadline/run(_:_:)``).
public struct DeadlineExceeded: Error, Sendable {}

/// Runs an operation with a time limit that holds even if the operation ignores cancellation: the caller gets
/// ``DeadlineExceeded`` at the limit, the operation is cancelled and left to end on its own.
public enum Deadline {
    public static func run<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.attach(continuation)
                let work = Task {
                    do { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled, once.resume(.failure(DeadlineExceeded())) { work.cancel() }
                }
                once.onResume { timer.cancel() }
                once.onCancel { work.cancel() }
            }
        } onCancel: {
            once.cancel()
        }
    }
}

/// A continuation resumed exactly once, by whichever of the work, the timer or cancellation comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var done = false
        var cancelled = false
        var afterResume: (@Sendable () -> Void)?
        var cancelWork: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<T, any Error>) {
        let cancelled = state.withLock { state -> Bool in
            state.continuation = continuation
            return state.cancelled
        }
        // The caller was cancelled before the continuation existed: answer it now.
        if cancelled { resume(.failure(CancellationError())) }
    }

    func onResume(_ action: @escaping @Sendable () -> Void) {
        let done = state.withLock { state -> Bool in
            if state.done { return true }
            state.afterResume = action
            return false
        }
        if done { action() }
    }

    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state -> Bool in
            state.cancelWork = action
            return state.cancelled
        }
        if cancelled { action() }
    }

    /// Resumes with `result` unless already resumed; true when this call resumed.
    @discardableResult
    func resume(_ result: Result<T, any Error>) -> Bool {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>, (@Sendable () -> Void)?)? in
            guard !state.done, let continuation = state.continuation else { return nil }
            state.done = true
            state.continuation = nil
            defer { state.afterResume = nil }
            return (continuation, state.afterResume)
        }
        guard let (continuation, after) = taken else { return false }
        continuation.resume(with: result)
        after?()
        return true
    }

    /// The caller's task was cancelled: the work is cancelled and the caller gets `CancellationError`.
    func cancel() {
        let work = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            return state.cancelWork
        }
        work?()
        resume(.failure(CancellationError()))
    }
}
