import HTTPTypes
import Foundation
import HearthCore
import HearthPages
import HearthOIDC
import HearthStore
import HearthWire
import Hummingbird
import Logging
import ServiceLifecycle

/// A configured Hearth server: its services and its router — the composition root of the server module.
/// `buildApplication` wraps it in a Hummingbird application; tests use the same builder. Development providers
/// (`hearth serve --dev`, the test harness) come in through ``DevelopmentProviders``: this module does not know them.
public final class HearthApp: Sendable {
    public let configuration: HearthServerConfiguration
    public let store: any HearthStore
    public let keyRing: KeyRing
    public let accounts: AccountService
    public let federation: FederationService
    /// The admin API's, the console's and the CLI's service.
    public let admin: AdminService
    /// Email actions and the mail they send.
    public let emailActions: EmailActionService
    /// Wakes the outbox service when a message is queued.
    let mailWake: OutboxWake
    /// The development providers, served under `/__dev/…` when present.
    public let devProviders: (any DevelopmentProviders)?
    /// Whether every stored TOTP secret opens with this server's keys (counted at start; `/readyz` reports it).
    public let multiFactorKeys: MultiFactorKeyCheck
    let logger: Logger

    public init(configuration: HearthServerConfiguration, store: any HearthStore, devProviders: (any DevelopmentProviders)? = nil,
                logger: Logger = Logger(label: "hearth")) async throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.devProviders = devProviders
        self.multiFactorKeys = MultiFactorKeyCheck(store: store, configuration: configuration, logger: logger)
        // Provider client secrets are sealed at rest with the vault keys, when the server has them.
        store.clientSecrets.use(configuration.providerTokenKeys)
        self.keyRing = KeyRing(store: store, policy: configuration.keyRotation, clock: configuration.clock,
                               logger: Logger(label: "hearth.keys"), metrics: configuration.metrics, signer: configuration.rsaSigner)
        let relyingParty = RelyingParty(clock: configuration.clock, configuration: configuration.relyingParty, logger: Logger(label: "hearth.oidc"))
        self.accounts = AccountService(
            configuration: configuration, store: store, keyRing: keyRing, logger: logger,
            appleRevocation: AppleGrantRevocation(store: store, relyingParty: relyingParty, keys: configuration.providerTokenKeys,
                                                  devProviders: devProviders, logger: logger))
        self.federation = FederationService(accounts: accounts, relyingParty: relyingParty, logger: logger, devProviders: devProviders)
        let mailWake = OutboxWake()
        self.mailWake = mailWake
        let mailer = Mailer(configuration: configuration.mail, store: store, devMailbox: configuration.mail.devMailbox ? DevMailbox() : nil,
                            clock: configuration.clock, metrics: configuration.metrics, logger: Logger(label: "hearth.mail"),
                            wake: configuration.mail.transport == nil ? nil : mailWake)
        self.admin = AdminService(accounts: accounts, logger: logger, mailer: mailer)
        self.emailActions = EmailActionService(
            accounts: accounts, mailer: mailer,
            limiter: configuration.rateLimits.enabled
                ? RateLimiter(configuration: configuration.rateLimits, store: store, projectId: configuration.projectId,
                              clock: configuration.clock, logger: logger, metrics: configuration.metrics)
                : nil,
            logger: logger)
        if try await store.projectConfig(projectId: configuration.projectId) == nil {
            var initial = configuration.initialProjectConfig ?? ProjectConfig(projectId: configuration.projectId)
            // A database never served before holds only what this version wrote, every email in canonical form (an
            // older version's database has its project configuration): `start()` need not scan its users (issue 41:
            // a million users imported into a new data directory, then the first start).
            initial.emailsCanonical = true
            try await store.saveProjectConfig(initial)
        }
    }

    /// Work done once the listener is bound (never before, so a failed start leaves nothing behind): creates or
    /// rotates the signing keys, and with `--dev` removes provider settings that older versions stored for the dev
    /// IdPs (the dev IdPs now serve unconfigured providers from memory only). Returns where each provider comes from.
    @discardableResult
    public func start() async throws -> [ProviderSource] {
        try await keyRing.maintain()
        var project = try await accounts.scopes.project.config()
        var changed = false
        if !project.emailsCanonical {
            // Once per database: emails stored by older versions in another Unicode form than the one lookups use.
            let emails = try await store.canonicalizeStoredEmails()
            if emails.rewritten > 0 { logger.notice("stored emails rewritten in canonical form (NFC)", metadata: ["count": "\(emails.rewritten)"]) }
            if !emails.conflicts.isEmpty {
                logger.warning("accounts whose email differs from another account's only in Unicode form: resolve them (hearth users get <uid>)",
                               metadata: ["uids": "\(emails.conflicts.prefix(20).joined(separator: ","))"])
            }
            project.emailsCanonical = true
            changed = true
        }
        // Commands run on the same data (service-accounts create, providers test, console login-link) use the URL
        // this server is reached at, not a default port.
        if project.servedPublicURL != configuration.publicURL.url {
            project.servedPublicURL = configuration.publicURL.url
            changed = true
        }
        // And how it sends mail, so that a command's notice (hearth users mfa remove) queued in the outbox is delivered.
        let mail = ServedMail(from: configuration.mail.from, relay: configuration.mail.transport != nil, devMailbox: emailActions.mailer.devMailbox != nil)
        if project.servedMail != mail {
            project.servedMail = mail
            changed = true
        }
        if changed { try await store.saveProjectConfig(project) }
        // A restored database whose key file was left behind: said now, and by /readyz until repaired.
        await multiFactorKeys.run()
        if configuration.providerTokenKeys != nil {
            let sealed = try await store.sealStoredClientSecrets()
            if sealed > 0 { logger.info("provider client secrets sealed with the vault key", metadata: ["count": "\(sealed)"]) }
        }
        if devProviders != nil {
            for config in try await store.idpConfigs() where config.isDevLeftover {
                _ = try await store.deleteIdPConfig(providerId: config.providerId)
            }
        }
        return try await federation.providerSources(in: accounts.scopes.project)
    }

    /// The background services: key and store upkeep; the outboxes' delivery when the server has an SMTP relay, an
    /// SMS gateway.
    public func backgroundServices() -> [any Service] {
        var services: [any Service] = [MaintenanceService(keyRing: keyRing, store: store, clock: configuration.clock, logger: logger)]
        if let outbox = outboxService { services.append(outbox) }
        if let outbox = smsOutboxService { services.append(outbox) }
        return services
    }

    /// The SMS outbox's delivery service, when the server has a gateway (`sms.url`).
    public var smsOutboxService: SmsOutboxService? { accounts.sms.outboxService(maxAttempts: configuration.sms.maxAttempts) }

    /// The outbox's delivery service, when the server has an SMTP relay; without one, a dev mailbox receives what
    /// commands run on the same data queued (the server's own mail goes there directly).
    public var outboxService: MailOutboxService? {
        (configuration.mail.transport ?? emailActions.mailer.devMailbox.map { DevMailboxTransport(mailbox: $0, clock: configuration.clock) as any MailTransport }).map {
            MailOutboxService(channel: MailOutbox(transport: $0, store: store), clock: configuration.clock, metrics: configuration.metrics,
                              logger: Logger(label: "hearth.mail"), maxAttempts: configuration.mail.maxAttempts, wake: mailWake)
        }
    }

    /// Whether a browser asked for HTML (`Accept: text/html` before any JSON).
    static func wantsHTML(_ request: Request) -> Bool {
        let accept = request.headers[.accept]?.lowercased() ?? ""
        guard let html = accept.range(of: "text/html") else { return false }
        if let json = accept.range(of: "application/json") { return html.lowerBound < json.lowerBound }
        return true
    }

    /// The router with every endpoint and middleware.
    public func router() -> Router<HearthRequestContext> {
        let router = Router(context: HearthRequestContext.self)
        // The request id outermost (every response carries it, every log line below has it), then the request
        // metrics (they see the final status of every answer, errors included).
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: HTTPMetricsMiddleware(metrics: configuration.metrics))
        // CORS next, the envelope inside it: every error becomes a response (status, envelope) before CORS
        // adds its headers, for any origin.
        router.add(middleware: CORSMiddleware(
            allowOrigin: .originBased,
            allowHeaders: [.contentType, .authorization, HTTPField.Name("X-Goog-Api-Key")!, HTTPField.Name("X-Client-Version")!,
                           HTTPField.Name("X-Firebase-GMPID")!, HTTPField.Name("X-Firebase-Client")!, HTTPField.Name("X-Firebase-Locale")!,
                           HearthRequestID.headerName],
            allowMethods: [.get, .post, .patch, .delete, .options],
            exposedHeaders: [HearthRequestID.headerName.canonicalName]))
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(middleware: StoreDeadlineMiddleware(seconds: configuration.storeTimeout))
        router.add(middleware: BodyLimitMiddleware(maxBodySize: configuration.maxBodySize))
        router.add(middleware: NULQueryMiddleware())
        if !configuration.trustedProxies.isEmpty { router.add(middleware: ClientAddressMiddleware(proxies: configuration.trustedProxies)) }
        let limiter: RateLimiter? = configuration.rateLimits.enabled
            ? RateLimiter(configuration: configuration.rateLimits, store: store, projectId: configuration.projectId,
                          clock: configuration.clock, logger: logger, metrics: configuration.metrics)
            : nil
        let devMode = devProviders != nil
        let devMail = emailActions.mailer.devMailbox != nil
        let devSms = accounts.sms.devSink != nil
        let configuration = configuration
        router.get("/") { request, context -> Response in
            if Self.wantsHTML(request) { return HTMLPage.index(configuration: configuration, dev: devMode, devMail: devMail, devSms: devSms) }
            return try JSONResponse(["service": "hearth", "projectId": configuration.projectId]).response(from: request, context: context)
        }
        OperationsController(store: store, keyRing: keyRing, configuration: configuration, multiFactorKeys: multiFactorKeys).register(on: router)
        PublicKeysController(keyRing: keyRing).register(on: router)
        AppleAppSiteAssociationController(store: store).register(on: router)
        AuthHandlerController(federation: federation, accounts: accounts, maxBodySize: configuration.maxBodySize, limiter: limiter).register(on: router)
        if let devProviders {
            devProviders.register(on: router)
            DevTryController(federation: federation, publicURL: configuration.publicURL, listenHost: configuration.host).register(on: router)
        }
        ActionHandlerController(emailActions: emailActions).register(on: router)
        PasskeyPageController(federation: federation).register(on: router)
        if let mailbox = emailActions.mailer.devMailbox {
            DevMailController(mailbox: mailbox, publicURL: configuration.publicURL, summary: emailActions.deliverySummary,
                              settle: { [emailActions] in await emailActions.settle() }).register(on: router)
        }
        if let sink = accounts.sms.devSink {
            DevSmsController(sink: sink, publicURL: configuration.publicURL, summary: accounts.sms.deliverySummary).register(on: router)
        }
        ConsoleController(service: admin, access: ConsoleAccess(store: store, configuration: configuration),
                          configuration: configuration, store: store, federation: federation, emailActions: emailActions).register(on: router)
        OAuthTokenController(configuration: configuration, store: store, keyRing: keyRing, logger: logger).register(on: router)

        // The RPC catalog, each RPC in its route group's middleware; then the admin resources in the admin groups.
        let authorizer = AdminAuthorizer(configuration: configuration, store: store, keyRing: keyRing)
        let adminAuthenticator = AdminAuthenticator(authorizer: authorizer)
        let emulatorAuthenticator = EmulatorAuthenticator(authorizer: authorizer)
        RPCRoutes(services: HearthServices(accounts: accounts, federation: federation, admin: admin, emailActions: emailActions), router: router,
                  apiKeys: APIKeyMiddleware(acceptedKeys: configuration.apiKeys, acceptsAny: configuration.acceptsAnyAPIKey),
                  stats: accounts.stats, limiter: limiter, authenticator: adminAuthenticator, emulatorAuthenticator: emulatorAuthenticator,
                  adminBodyLimit: max(configuration.maxBodySize, 8 * 1024 * 1024)).register()
        let adminGroup = router.group().add(middleware: adminAuthenticator)
        AdminController(service: admin).register(admin: adminGroup, emulator: router.group().add(middleware: emulatorAuthenticator))
        ProviderCheckController(federation: federation).register(on: adminGroup)
        return router
    }
}

/// Builds the Hummingbird application for `configuration` over `store`, with the key-maintenance service.
/// The caller owns `store` and closes it after the application has stopped.
/// `onServerRunning` receives the bound port (useful with port 0).
public func buildApplication(
    configuration: HearthServerConfiguration, store: any HearthStore, devProviders: (any DevelopmentProviders)? = nil,
    logger: Logger = Logger(label: "hearth"), onServerRunning: @escaping @Sendable (StartupReport) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let server = try await HearthApp(configuration: configuration, store: store, devProviders: devProviders, logger: logger)
    return Application(
        router: server.router(),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Hearth"),
        services: server.backgroundServices(),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            if configuration.port == 0, configuration.publicURL.isDerived {
                // A derived public URL follows the port actually bound (an operator's `--public-url` stays).
                // A wildcard address is not reachable as such: loopback stands in (`--public-url` says better).
                let bound = ["0.0.0.0", "::", "[::]"].contains(configuration.host) ? "127.0.0.1" : configuration.host
                let host = bound.contains(":") ? "[\(bound)]" : bound
                configuration.publicURL.set("http://\(host):\(port)")
            }
            var providers: [ProviderSource] = []
            do {
                providers = try await server.start()
            } catch {
                logger.error("could not prepare signing keys or providers", metadata: ["error.type": "\(type(of: error))"])
            }
            await onServerRunning(StartupReport(port: port, providers: providers))
        },
        logger: logger
    )
}

/// What the server reports once it listens: the bound port and where each sign-in provider comes from.
public struct StartupReport: Sendable {
    public var port: Int
    public var providers: [ProviderSource]
}
