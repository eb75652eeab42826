import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

extension AdminPrincipal {
    /// `cli:<login>`: the operator running a `hearth` command on the server's data.
    public static func commandLine(login: String) -> AdminPrincipal { AdminPrincipal(actor: "cli:\(login)") }
}

/// What the `hearth` administration commands need beyond the admin API's calls: the service over a store the
/// command opened, and the writes only an operator of the machine makes (provider settings as one record,
/// console administrators, project switches the API does not expose). Every write is checked by the same
/// validators and audited like the admin API's and the console's.
extension AdminService {
    /// The admin service over `store` for one command: the project `projectId`, no signing (the key ring is loaded
    /// only to send a blocking function's test event), log lines dropped (the command prints its own outcome). With `mail` (what the server recorded at
    /// start, ``ProjectConfig/servedMail``) the notices the admin API sends — second factors removed — are queued in
    /// the outbox, which that server delivers through its relay or into its dev mailbox. `blockingFunctions`: the URL
    /// policy of the blocking functions a command sets or tests (`hooks.allow.private.networks`, `--dev`).
    public static func commandLine(store: any HearthStore, projectId: String, publicURL: String? = nil, mail: ServedMail? = nil,
                                   blockingFunctions: BlockingFunctionSettings = BlockingFunctionSettings()) -> AdminService {
        let logger = Logger(label: "hearth.cli") { _ in SwiftLogNoOpLogHandler() }
        var configuration = HearthServerConfiguration(projectId: projectId, publicURL: publicURL.map { PublicBaseURL($0) })
        configuration.blockingFunctions = blockingFunctions
        let keyRing = KeyRing(store: store, policy: configuration.keyRotation, clock: configuration.clock, logger: logger)
        let mailer = mail.flatMap { mail in
            mail.delivers
                ? Mailer(configuration: MailConfiguration(transport: ServerOutbox(), from: mail.from), store: store, devMailbox: nil,
                         clock: configuration.clock, metrics: configuration.metrics, logger: logger, wake: nil)
                : nil
        }
        return AdminService(accounts: AccountService(configuration: configuration, store: store, keyRing: keyRing, logger: logger), logger: logger,
                            mailer: mailer)
    }

    /// A command's mail goes into the outbox only: the running server delivers it (this transport is never asked to).
    struct ServerOutbox: MailTransport {
        func deliver(_ mail: OutgoingMail) async throws {
            throw MailTransportError(transient: true, "a command's mail is delivered by the server, from the outbox")
        }

        var summary: String { "the server's outbox" }
    }

    /// Records a write made outside the calls below (a command's summary of many, e.g. an import's).
    public func record(_ action: String, target: String, detail: String? = nil, by principal: AdminPrincipal, in scope: Scope) async throws {
        try await audit(principal, action, target: target, detail: detail, in: scope)
    }

    /// The scope a command's `--tenant` names (nil or empty: the project's): the stored tenant, else
    /// `TENANT_NOT_FOUND` saying to check `hearth tenants list`. `place` names the option, for the message.
    public func scope(tenantId: String?, in place: String) async throws -> Scope {
        try await accounts.scopes.resolve(tenantId: tenantId, in: place)
    }

    // MARK: Users

    /// `DUPLICATE_LOCAL_ID` for a uid (imported or chosen by an administrator) that a user of another tenant (or of
    /// the project) holds; `then` says what to do instead.
    static func uidInAnotherTenant(_ localId: String, scope: Scope, then: String) -> HearthAPIError {
        let here = scope.tenantId.map { "tenant \($0)" } ?? "the project"
        return HearthAPIError(.duplicateLocalId, "uid \(String(localId.withoutControlCharacters.prefix(128))) belongs to a user outside \(here) (another tenant's or the project's): uids are unique across a Hearth server's tenants, unlike Identity Platform's; \(then)")
    }

    // MARK: Providers

    /// Saves a provider's whole settings (`hearth providers enable`, which merges the given options over the stored
    /// ones): the admin API's checks (client id, URLs, tenant allow-list, native client IDs), its token-vault rule
    /// (tokens kept for the provider go when the vault is turned off for it) and its audit actions.
    public func saveProvider(_ config: IdPConfig, by principal: AdminPrincipal, in scope: Scope) async throws {
        guard let kind = IdPConfig.kind(forProviderId: config.providerId), kind == config.kind else {
            throw HearthAPIError(.invalidProviderIdAdmin, "\(config.providerId) is not supported: use microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>")
        }
        var checked = try Self.checkedProvider(config)
        try Self.applyVaultFields(tokenVault: nil, nativeClientIds: config.nativeClientIds ?? [], to: &checked)
        let existed = try await scope.store.idpConfig(providerId: config.providerId) != nil
        try await saveProviderConfig(checked, in: scope)
        let resource = kind == .oidc ? "oauthIdpConfigs" : "defaultSupportedIdpConfigs"
        try await audit(principal, "\(resource).\(existed ? "update" : "create")", target: config.providerId, in: scope)
    }

    /// Turns a configured provider on or off (as the console's switch): `CONFIGURATION_NOT_FOUND` when it is not configured.
    public func setProviderEnabled(_ providerId: String, _ enabled: Bool, by principal: AdminPrincipal, in scope: Scope) async throws {
        if IdPConfig.kind(forProviderId: providerId) == .oidc {
            try await updateOAuthIdpConfig(providerId, [.enabled(enabled)], by: principal, in: scope)
        } else {
            try await updateDefaultIdpConfig(providerId, [.enabled(enabled)], by: principal, in: scope)
        }
    }

    /// Removes a provider's settings and its kept tokens: `CONFIGURATION_NOT_FOUND` when it is not configured.
    public func removeProvider(_ providerId: String, by principal: AdminPrincipal, in scope: Scope) async throws {
        let resource = IdPConfig.kind(forProviderId: providerId) == .oidc ? "oauthIdpConfigs" : "defaultSupportedIdpConfigs"
        _ = try await deleteIdpConfig(providerId, action: "\(resource).delete", by: principal, in: scope)
    }

    // MARK: Project

    /// `accept any app` (development only; `hearth project --accept-any-app`), which the admin API does not expose.
    public func setAcceptAnyApp(_ accept: Bool, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        var config = try await scope.config()
        config.chooseAcceptAnyApp(accept)
        try await store.saveProjectConfig(config)
        try await audit(principal, "config.update", target: "projects/\(config.projectId)/config", detail: "acceptAnyApp", in: scope)
    }

    // MARK: Service accounts

    /// Registers a service-account public key (one made elsewhere, or by ``createServiceAccountKey(clientEmail:by:)``).
    public func registerServiceAccountKey(_ key: ServiceAccountKey, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        guard EmailAddress.normalize(key.clientEmail) != nil, key.clientEmail == key.clientEmail.trimmingCharacters(in: .whitespaces) else {
            throw HearthAPIError(.invalidEmail, "a service account is named by an email, e.g. admin@\(configuration.projectId).iam.gserviceaccount.com")
        }
        guard ServiceAccountKey.rsaPublicKey(pem: key.publicKeyPEM) != nil else {
            throw HearthAPIError(.invalidArgument, "the key holds no PEM RSA public key or certificate")
        }
        try await store.saveServiceAccountKey(key)
        try await audit(principal, "serviceAccountKeys.create", target: "\(key.clientEmail)/\(key.keyId)", in: scope)
    }

    // MARK: Console administrators

    /// Adds a named console administrator, or sets its password (`passwordHash`: scrypt, never the password).
    /// Returns whether it existed.
    @discardableResult
    public func saveConsoleAdmin(name: String, passwordHash: String, by principal: AdminPrincipal) async throws -> Bool {
        let scope = projectScope
        let existed = try await store.consoleAdmin(name: name) != nil
        try await store.saveConsoleAdmin(ConsoleAdmin(name: name, passwordHash: passwordHash, createdAt: now))
        try await audit(principal, existed ? "consoleAdmins.update" : "consoleAdmins.create", target: name, in: scope)
        return existed
    }

    /// Removes a console administrator (its sessions end): `CONFIGURATION_NOT_FOUND` when there is none.
    public func removeConsoleAdmin(name: String, by principal: AdminPrincipal) async throws {
        let scope = projectScope
        guard try await store.deleteConsoleAdmin(name: name) else {
            throw HearthAPIError(.configurationNotFound, "no console administrator named \(name)")
        }
        try await audit(principal, "consoleAdmins.delete", target: name, in: scope)
    }
}
