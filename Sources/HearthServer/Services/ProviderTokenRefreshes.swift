import Foundation
import Synchronization

/// One provider refresh at a time per user and provider in this process: concurrent calls share the first one's
/// result, so a provider that rotates refresh tokens never sees the same one twice from here.
final class ProviderTokenRefreshes: Sendable {
    private let running = Mutex<[String: Task<ProviderAccessTokenResult, any Error>]>([:])

    func run(key: String, _ body: @escaping @Sendable () async throws -> ProviderAccessTokenResult) async throws -> ProviderAccessTokenResult {
        let task: Task<ProviderAccessTokenResult, any Error> = running.withLock { tasks in
            if let existing = tasks[key] { return existing }
            let task = Task { try await body() }
            tasks[key] = task
            return task
        }
        defer { running.withLock { tasks in if tasks[key] == task { tasks[key] = nil } } }
        return try await task.value
    }
}

/// A provider access token handed out by the vault.
struct ProviderAccessTokenResult: Sendable {
    var accessToken: String
    var expiresAt: Date
    var scope: String?
}
