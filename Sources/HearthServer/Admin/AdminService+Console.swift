import Foundation
import HearthCore
import HearthStore
import HearthWire

/// Admin operations the web console needs beyond the Identity Toolkit API: service-account keys and the
/// overview's figures. Writes are audited like every other admin write.
extension AdminService {
    /// Registers a new service-account key and returns its JSON key file (shown once, never stored).
    public func createServiceAccountKey(clientEmail: String, by principal: AdminPrincipal) async throws -> (key: ServiceAccountKey, file: Data) {
        let email = clientEmail.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.normalize(email) != nil else {
            throw HearthAPIError(.invalidEmail, "a service account is named by an email, e.g. admin@\(configuration.projectId).iam.gserviceaccount.com")
        }
        let generated = try ServiceAccountKey.generate(clientEmail: email, projectId: configuration.projectId,
                                                       publicURL: configuration.publicURL.url, now: now)
        try await registerServiceAccountKey(generated.key, by: principal)
        return generated
    }

    /// Removes a service-account key: access tokens it obtained stop working at once.
    public func removeServiceAccountKey(clientEmail: String, keyId: String, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        guard try await store.deleteServiceAccountKey(clientEmail: clientEmail, keyId: keyId) else {
            throw HearthAPIError(.configurationNotFound, "no key \(keyId) for \(clientEmail)")
        }
        try await audit(principal, "serviceAccountKeys.delete", target: "\(clientEmail)/\(keyId)", in: scope)
    }

    /// Every registered service-account key, by email then key id.
    public func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await store.allServiceAccountKeys().sorted { ($0.clientEmail, $0.keyId) < ($1.clientEmail, $1.keyId) }
    }

    /// Registers an Apple app (bundle id plus Firebase app id or OAuth client id, which give its URL scheme; with its
    /// team id, it is listed in `/.well-known/apple-app-site-association` for passkeys) or a desktop app (loopback
    /// redirects). An Apple app's bundle id may be registered once.
    public func registerApp(_ app: AppRegistration, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        switch app.kind {
        case .apple:
            guard let bundleId = app.bundleId, AppRegistration.isBundleId(bundleId) else {
                throw HearthAPIError(.invalidArgument, "a bundle id is dot-separated letters, digits and hyphens, e.g. com.example.notes")
            }
            guard app.appId != nil || app.clientId != nil else {
                throw HearthAPIError(.invalidArgument, "give the Firebase app id or the OAuth client id (they give the app's URL scheme)")
            }
            if let appId = app.appId, !AppRegistration.isAppId(appId) {
                throw HearthAPIError(.invalidArgument, "\(appId) is not a Firebase Apple app id (1:<project number>:ios:<hex>)")
            }
            if let clientId = app.clientId, !AppRegistration.isClientId(clientId) {
                throw HearthAPIError(.invalidArgument, "\(clientId) is not an OAuth client id (e.g. 1234-abcd.apps.googleusercontent.com)")
            }
            if let teamId = app.teamId, !AppRegistration.isTeamId(teamId) {
                throw HearthAPIError(.invalidArgument, "\(teamId.prefix(64)) is not a team id: \(AppRegistration.teamIdProblem)")
            }
        case .desktop:
            guard app.teamId == nil else { throw HearthAPIError(.invalidArgument, "a team id belongs to an Apple app, not a desktop app") }
            guard AppRegistration.isDesktopId(app.id) else {
                throw HearthAPIError(.invalidArgument, "a desktop app id is letters, digits, '.', '-' or '_', e.g. hearth-cli")
            }
        }
        if try await store.apps().contains(where: { $0.id == app.id }) {
            throw HearthAPIError(.configurationExists, "\(app.id) is registered already: remove it first to change it")
        }
        try await store.saveApp(app)
        try await audit(principal, "apps.create", target: app.id, in: scope)
    }

    public func removeApp(id: String, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        guard try await store.deleteApp(id: id) else { throw HearthAPIError(.configurationNotFound, "no app \(id)") }
        try await audit(principal, "apps.delete", target: id, in: scope)
    }

    /// Starts a key rotation now: a new signing key is published at once and signs from one pre-publication
    /// period later (so verifiers that cache the keys have it before any token uses it). Refused while a new key
    /// is already waiting to take over.
    public func rotateSigningKey(by principal: AdminPrincipal) async throws -> SigningKey {
        let scope = projectScope
        let policy = configuration.keyRotation
        let keys = try await store.signingKeys().sorted { $0.generation < $1.generation }
        let now = self.now
        if let pending = keys.last, pending.activatesAt > now {
            throw HearthAPIError(.invalidArgument, "the key \(pending.kid) is already published and takes over at \(pending.activatesAt.formatted(.iso8601)); rotate again after that")
        }
        let activation = now.addingTimeInterval(policy.prepublish)
        let key = try SigningKey.generate(generation: (keys.last?.generation ?? 0) + 1, now: now, activatesAt: activation,
                                          validUntil: policy.certificateExpiry(activatesAt: activation))
        do {
            try await store.insertSigningKey(key)
            accounts.configuration.metrics.count(.keyRotations)
        } catch StoreError.duplicateKeyGeneration {
            throw HearthAPIError(.invalidArgument, "another server rotated the keys at the same moment; reload to see its key")
        }
        try await accounts.keyRing.maintain()
        try await audit(principal, "signingKeys.rotate", target: key.kid, in: scope)
        return key
    }

    /// `yyyy-MM-dd` in UTC (``DailyCount/day(of:)``).
    public static func day(_ time: Date) -> String { DailyCount.day(of: time) }
}
