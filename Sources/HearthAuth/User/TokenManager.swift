import Foundation
import HearthWire

/// The user's ID and refresh tokens. Refreshes when fewer than five minutes remain (or when forced); concurrent
/// callers share one refresh.
actor TokenManager {
    struct Tokens: Sendable, Codable, Equatable {
        var idToken: String
        var refreshToken: String
        var expirationDate: Date
    }

    private(set) var tokens: Tokens
    private var refreshing: Task<Tokens, any Error>?
    private let backend: any AuthBackend
    private let clock: @Sendable () -> Date
    private let onChange: @Sendable (Tokens) async -> Void

    init(tokens: Tokens, backend: any AuthBackend, clock: @escaping @Sendable () -> Date, onChange: @escaping @Sendable (Tokens) async -> Void) {
        self.tokens = tokens
        self.backend = backend
        self.clock = clock
        self.onChange = onChange
    }

    /// A valid ID token, refreshed first if needed.
    func idToken(forcingRefresh: Bool) async throws -> String {
        if !forcingRefresh, tokens.expirationDate.timeIntervalSince(clock()) > 300 {
            return tokens.idToken
        }
        if let refreshing { return try await refreshing.value.idToken }
        let backend = backend
        let refreshToken = tokens.refreshToken
        let clock = clock
        let task = Task { () throws -> Tokens in
            let answer = try await backend.send(GrantTokenRequest(grantType: "refresh_token", refreshToken: refreshToken))
            guard !answer.accessToken.isEmpty else { throw AuthErrorUtils.error(.internalError, message: "The refresh answer has no access_token.") }
            return Tokens(idToken: answer.accessToken, refreshToken: answer.refreshToken,
                          expirationDate: clock().addingTimeInterval(TimeInterval(answer.expiresIn) ?? 3600))
        }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        tokens = fresh
        await onChange(fresh)
        return fresh.idToken
    }

    /// Replaces the tokens (after a sign-in, link or credential change).
    func replace(_ fresh: Tokens) {
        tokens = fresh
    }
}
