import Foundation
import HearthCore
import HearthStore
import HearthWire

/// The project's passkey setting as the relying party applies it, for `hearth project passkeys` and the console's
/// Settings card (the admin API's `GET …/config` answers the same values as `passkeys`).
public struct PasskeySetting: Sendable, Equatable {
    /// Users may enroll and sign in with passkeys.
    public var enabled: Bool
    /// The rp id in force: the stored one, else the host of the server's public URL.
    public var rpId: String
    /// The stored rp id; nil: the default (``publicHost``).
    public var storedRpId: String?
    /// The host of the server's public URL (the default rp id; a stored rp id is it or a parent domain of it).
    public var publicHost: String
    /// The origins added by the setting (`passkeys.allowedOrigins`).
    public var allowedOrigins: [String]
    /// The origins always accepted: the server's own and `https://<rp id>` (Apple's apps with an associated domain).
    public var builtInOrigins: [String]
    /// `REQUIRED` or `PREFERRED`.
    public var userVerification: String

    /// The rp id in force is an IPv4 or IPv6 address (the default on a server reached by address): browsers refuse
    /// passkeys there.
    public var rpIdIsIPAddress: Bool {
        AuthorizedDomains.isAddressLiteral(rpId)
    }

    /// A setting as shown.
    public init(enabled: Bool, rpId: String, storedRpId: String?, publicHost: String, allowedOrigins: [String],
                builtInOrigins: [String], userVerification: String) {
        self.enabled = enabled
        self.rpId = rpId
        self.storedRpId = storedRpId
        self.publicHost = publicHost
        self.allowedOrigins = allowedOrigins
        self.builtInOrigins = builtInOrigins
        self.userVerification = userVerification
    }
}

extension AdminService {
    /// The project's passkey setting with its effective values.
    public func passkeySetting() async throws -> PasskeySetting {
        let config = try await projectScope.config()
        let publicURL = configuration.publicURL.url
        let rpId = AccountService.passkeyRPId(config, publicURL: publicURL)
        let stored = config.passkeys?.rpId.flatMap { $0.isEmpty ? nil : $0 }
        return PasskeySetting(enabled: config.passkeysEnabled, rpId: rpId, storedRpId: stored,
                              publicHost: AccountService.publicHost(publicURL), allowedOrigins: config.passkeys?.allowedOrigins ?? [],
                              builtInOrigins: AccountService.builtInPasskeyOrigins(rpId: rpId, publicURL: publicURL),
                              userVerification: config.passkeys?.userVerification?.uppercased() ?? "REQUIRED")
    }

    /// Changes the given parts of the `passkeys` setting (``ProjectSettingChange/passkeys(enabled:rpId:allowedOrigins:userVerification:)``,
    /// checked and audited as one `config.update`); nil leaves a part as it is. `rpId` "" returns to the default;
    /// `allowedOrigins` [] removes them all.
    public func updatePasskeySetting(enabled: Bool? = nil, rpId: String? = nil, allowedOrigins: [String]? = nil,
                                     userVerification: String? = nil, by principal: AdminPrincipal) async throws -> PasskeySetting {
        let changes = ProjectSettingChange.passkeys(enabled: enabled, rpId: rpId, allowedOrigins: allowedOrigins, userVerification: userVerification)
        if !changes.isEmpty { try await updateProjectSettings(changes, by: principal, in: projectScope) }
        return try await passkeySetting()
    }

    /// A user's passkeys, oldest first, as stored (name, credential id, created and last used; never the key).
    public func passkeys(localId: String, in scope: Scope) async throws -> [PasskeyCredential] {
        let localId = try Self.checkLocalId(localId)
        guard try await scope.store.user(localId: localId) != nil else { throw HearthAPIError(.userNotFound, "no user has the UID \(localId)") }
        return try await store.passkeys(localId: localId)
    }

    /// Removes passkeys of a user by credential id through the admin API's `accounts:update` `deletePasskey`
    /// (`PASSKEY_ENROLLMENT_NOT_FOUND` when one is not the user's, and then nothing is removed; audited as
    /// `passkey.remove` and `accounts.update`) in `scope`, the user's tenant or the project.
    public func removePasskeys(localId: String, credentialIds: [String], by principal: AdminPrincipal, in scope: Scope) async throws {
        var update = AdminUpdateRequest(localId: localId)
        update.deletePasskey = credentialIds
        _ = try await self.update(update, by: principal, in: scope)
    }
}
