import Foundation
import HearthCore
import HearthStore
import Testing

/// Conformance tests for the federation and flow stores and refresh-token pruning (every `StoreKind`).
@Suite struct FederationStoreTests {
    @Test(arguments: StoreKind.allCases)
    func pruningKeepsLiveTokens(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let old = t0.addingTimeInterval(-40 * 86_400)
            let live = RefreshTokenRecord.issue(localId: "u1", authTime: old, signInProvider: "password", now: old).record
            var rotated = RefreshTokenRecord.issue(localId: "u1", authTime: old, signInProvider: "password", now: old).record
            rotated.rotatedAt = old
            var recentlyRotated = RefreshTokenRecord.issue(localId: "u1", authTime: old, signInProvider: "password", now: old).record
            recentlyRotated.rotatedAt = t0
            var revoked = RefreshTokenRecord.issue(localId: "u2", authTime: old, signInProvider: "password", now: old).record
            revoked.revoked = true
            for record in [live, rotated, recentlyRotated, revoked] { try await store.insertRefreshToken(record) }
            #expect(try await store.pruneRefreshTokens(before: t0.addingTimeInterval(-30 * 86_400)) == 2)
            #expect(try await store.refreshToken(hash: live.tokenHash) != nil)
            #expect(try await store.refreshToken(hash: recentlyRotated.tokenHash) != nil)
            #expect(try await store.refreshToken(hash: rotated.tokenHash) == nil)
            #expect(try await store.refreshToken(hash: revoked.tokenHash) == nil)
        }
    }

    static func session(_ state: String) -> AuthorizationSession {
        AuthorizationSession(state: state, providerId: "microsoft.com", nonce: "n", codeVerifier: "v", sessionIdHash: "h", eventId: "E",
                             authType: "signInWithRedirect", entraTenantOrHostedDomain: "common", redirect: .loopback("http://127.0.0.1:5/cb"),
                             redirectUri: "http://x/__/auth/handler", scopes: ["openid", "email"], createdAt: t0, expiresAt: t0.addingTimeInterval(600))
    }

    @Test(arguments: StoreKind.allCases)
    func authorizationSessionsAreSingleUseAndExpire(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let session = Self.session("s1")
            try await store.insertAuthorizationSession(session)
            #expect(try await store.authorizationSession(state: "s1") == session)
            #expect(try await store.markCallback(state: "s1", now: t0.addingTimeInterval(1)))
            #expect(try await !store.markCallback(state: "s1", now: t0.addingTimeInterval(2)))
            var consumed = session
            consumed.callbackAt = t0.addingTimeInterval(1)
            consumed.consumedAt = t0.addingTimeInterval(3)
            #expect(try await store.consumeAuthorizationSession(state: "s1", sessionIdHash: "h", now: t0.addingTimeInterval(3)) == .consumed(consumed))
            #expect(try await store.consumeAuthorizationSession(state: "s1", sessionIdHash: "h", now: t0.addingTimeInterval(4)) == .alreadyUsed)
            #expect(try await store.consumeAuthorizationSession(state: "nope", sessionIdHash: "h", now: t0) == .unknown)
            // A wrong session id burns the session.
            try await store.insertAuthorizationSession(Self.session("s2"))
            #expect(try await store.consumeAuthorizationSession(state: "s2", sessionIdHash: "wrong", now: t0) == .sessionMismatch)
            #expect(try await store.consumeAuthorizationSession(state: "s2", sessionIdHash: "h", now: t0) == .alreadyUsed)
            // Past its expiry, neither the callback nor the consumption works.
            try await store.insertAuthorizationSession(Self.session("s3"))
            #expect(try await !store.markCallback(state: "s3", now: t0.addingTimeInterval(601)))
            #expect(try await store.consumeAuthorizationSession(state: "s3", sessionIdHash: "h", now: t0.addingTimeInterval(601)) == .expired)
            try await store.pruneExpiredFlows(now: t0.addingTimeInterval(7200))
            #expect(try await store.authorizationSession(state: "s1") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pendingCredentialsAreSingleUseAndExpire(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let pending = PendingCredential(tokenHash: "p1", identity: ProviderIdentity(providerId: "yahoo.com", federatedId: "G", email: "a@yahoo.com"),
                                            emailVerified: true, rawUserInfo: "{}", createdAt: t0, expiresAt: t0.addingTimeInterval(60))
            try await store.insertPendingCredential(pending)
            #expect(try await store.takePendingCredential(tokenHash: "p1", now: t0) == pending)
            #expect(try await store.takePendingCredential(tokenHash: "p1", now: t0) == nil)
            var late = pending
            late.tokenHash = "p2"
            try await store.insertPendingCredential(late)
            #expect(try await store.takePendingCredential(tokenHash: "p2", now: t0.addingTimeInterval(61)) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func providersAndApps(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let config = IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: "c", clientSecret: "secret")
            try await store.saveIdPConfig(config)
            #expect(try await store.idpConfig(providerId: "microsoft.com") == config)
            #expect(try await store.idpConfig(providerId: "yahoo.com") == nil)
            var disabled = config
            disabled.enabled = false
            try await store.saveIdPConfig(disabled)
            #expect(try await store.idpConfigs() == [disabled])
            #expect(try await store.deleteIdPConfig(providerId: "microsoft.com"))
            #expect(try await !store.deleteIdPConfig(providerId: "microsoft.com"))
            // The team id rides in the app's JSON (issue 23: no column, no migration).
            let app = AppRegistration(id: "ios", kind: .apple, bundleId: "com.example", appId: "1:2:ios:3", teamId: "ABCDE12345")
            try await store.saveApp(app)
            #expect(try await store.apps() == [app])
            #expect(try await store.deleteApp(id: "ios"))
            #expect(try await store.apps().isEmpty)
        }
    }
}
