import Synchronization

/// Work started after a request was answered (mail that must not make the answer slower), kept so that
/// ``settle()`` can wait for it: the dev mailbox and the emulator's code list wait before they answer, and tests
/// see the message as soon as the request that sends it has returned.
final class BackgroundSends: Sendable {
    private let running = Mutex<(next: Int, tasks: [Int: Task<Void, Never>])>((0, [:]))

    /// Starts `work`; it removes itself from the list when done.
    func run(_ work: @escaping @Sendable () async -> Void) {
        running.withLock { state in
            let id = state.next
            state.next += 1
            state.tasks[id] = Task { [weak self] in
                await work()
                _ = self?.running.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Returns once the work started before this call has finished.
    func settle() async {
        let tasks = running.withLock { Array($0.tasks.values) }
        for task in tasks { await task.value }
    }
}
