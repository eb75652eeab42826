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
        try await store.saveServiceAccountKey(generated.key)
        try await audit(principal, "serviceAccountKeys.create", target: "\(email)/\(generated.key.keyId)")
        return generated
    }

    /// Removes a service-account key: access tokens it obtained stop working at once.
    public func removeServiceAccountKey(clientEmail: String, keyId: String, by principal: AdminPrincipal) async throws {
        guard try await store.deleteServiceAccountKey(clientEmail: clientEmail, keyId: keyId) else {
            throw HearthAPIError(.configurationNotFound, "no key \(keyId) for \(clientEmail)")
        }
        try await audit(principal, "serviceAccountKeys.delete", target: "\(clientEmail)/\(keyId)")
    }

    /// Every registered service-account key, by email then key id.
    public func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await store.allServiceAccountKeys().sorted { ($0.clientEmail, $0.keyId) < ($1.clientEmail, $1.keyId) }
    }

    /// Starts a key rotation now: a new signing key is published at once and signs from one pre-publication
    /// period later (so verifiers that cache the keys have it before any token uses it). Refused while a new key
    /// is already waiting to take over.
    public func rotateSigningKey(by principal: AdminPrincipal) async throws -> SigningKey {
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
        } catch StoreError.duplicateKeyGeneration {
            throw HearthAPIError(.invalidArgument, "another server rotated the keys at the same moment; reload to see its key")
        }
        try await accounts.keyRing.maintain(force: true)
        try await audit(principal, "signingKeys.rotate", target: key.kid)
        return key
    }

    /// Records one started session (the overview's sign-ins per day and provider). Best effort: never fails a sign-in.
    static func countSignIn(store: any HearthStore, provider: String, at time: Date) async {
        try? await store.incrementDailyCount(day: day(time), kind: "signIn", key: provider)
    }

    /// Records one refused sign-in by its error code. Best effort.
    static func countRefusal(store: any HearthStore, reason: String, at time: Date) async {
        try? await store.incrementDailyCount(day: day(time), kind: "refused", key: reason)
    }

    /// `yyyy-MM-dd` in UTC.
    public static func day(_ time: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: time)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
