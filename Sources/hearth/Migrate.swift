import ArgumentParser
import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import Logging

/// `hearth migrate --from <store> --to <store>`: copies everything durable from one store into another.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy all of Hearth's data from one store into another (SQLite → PostgreSQL, or back).",
        discussion: """
            Copies projects' settings, tenants, users with their identities and password hashes (each in its tenant),
            refresh tokens, signing keys, service-account keys, identity providers with their secrets (per tenant), apps
            and the audit log; then counts every kind
            on both sides and fails if the target holds fewer. Sign-ins in progress (minutes-long) are not copied: stop
            the servers first. A store is a data directory or .sqlite file, or a postgres://user:password@host/db URL
            (TLS from its ?sslmode=; the password is never printed).
            Example: hearth migrate --from ./.hearth --to postgres://hearth@db.internal/hearth
            """)

    @Option(help: "The store to copy from: a data directory, a hearth.sqlite file or a postgres:// URL.")
    var from: String

    @Option(help: "The store to copy into (created when it is a new SQLite path; a PostgreSQL database must exist).")
    var to: String

    @Flag(name: .customLong("allow-non-empty"), help: "Copy into a store that already holds data: rows already there (same uid, key generation, token) are kept, not overwritten.")
    var allowNonEmpty = false

    func run() async throws {
        guard Self.normalized(from) != Self.normalized(to) else { throw ValidationError("--from and --to name the same store") }
        let source = try await Self.open(from, create: false)
        let target: any StoreCopying
        do {
            target = try await Self.open(to, create: true)
        } catch {
            try? await source.close()
            throw error
        }
        do {
            try await copy(from: source, to: target)
        } catch {
            try? await source.close()
            try? await target.close()
            throw error
        }
        try await source.close()
        try await target.close()
    }

    static func normalized(_ text: String) -> String {
        PostgresStoreConfiguration.isPostgresURL(text) ? text : (text as NSString).standardizingPath
    }

    /// A store by its name: a PostgreSQL URL, a `.sqlite` file or a data directory.
    static func open(_ name: String, create: Bool) async throws -> any StoreCopying {
        let logger = Logger(label: "hearth.store")
        if PostgresStoreConfiguration.isPostgresURL(name) {
            var configuration: PostgresStoreConfiguration
            do {
                configuration = try PostgresStoreConfiguration(url: name)
            } catch {
                throw ValidationError("\(error.description)")
            }
            do {
                // A copy is long work, not a request: no 5-second bound on its statements.
                configuration.operationTimeout = 3600
                return try await PostgresStore.open(configuration, logger: logger)
            } catch let error as StoreError {
                let reason = if case .backend(let message) = error { message } else { "\(error)" }
                throw CLIError("cannot open the PostgreSQL database \(configuration.maskedURL): \(reason)")
            }
        }
        if name.hasSuffix(".sqlite") {
            guard create || FileManager.default.fileExists(atPath: name) else { throw CLIError("no SQLite database at \(name)") }
            do {
                return try await SQLiteStore.open(path: name, logger: logger)
            } catch {
                throw CLIError("cannot open the database \(name): it may be damaged or not a Hearth database")
            }
        }
        return try await HearthCLI.openStore(directory: name, create: create, logger: logger)
    }

    /// What the copy found and wrote, per kind.
    struct Tally {
        var copied = 0
        var kept = 0
    }

    func copy(from source: any StoreCopying, to target: any StoreCopying) async throws {
        var standardError = StandardError()
        func progress(_ line: String) { print(line, to: &standardError) }
        if !allowNonEmpty {
            let users = try await target.userCount()
            let keys = try await target.signingKeys()
            let projects = try await target.projectConfigs()
            let providers = try await target.idpConfigs()
            let tenants = try await target.tenants(after: nil, limit: 1)
            if users > 0 || !keys.isEmpty || !projects.isEmpty || !providers.isEmpty || !tenants.isEmpty {
                throw CLIError("the target \(Self.describe(to)) already holds Hearth data; copy into an empty store, or pass --allow-non-empty to add to it (rows already there are kept)")
            }
        }
        var tallies: [(String, Tally)] = []

        var projects = Tally()
        for config in try await source.projectConfigs() {
            if allowNonEmpty, try await target.projectConfig(projectId: config.projectId) != nil { projects.kept += 1; continue }
            try await target.saveProjectConfig(config)
            projects.copied += 1
        }
        tallies.append(("projects", projects))

        // Tenants first: each tenant's users, providers, codes and audit entries are copied into it below.
        var tenants = Tally()
        let sourceTenants = try await source.allTenants()
        for tenant in sourceTenants {
            do {
                try await target.insertTenant(tenant)
                tenants.copied += 1
            } catch StoreError.tenantExists where allowNonEmpty {
                tenants.kept += 1
            }
        }
        tallies.append(("tenants", tenants))
        // The project's own rows (nil), then each tenant's, through stores bound to it.
        let scopes: [String?] = [nil] + sourceTenants.map(\.id)

        var keys = Tally()
        for key in try await source.signingKeys() {
            do {
                try await target.insertSigningKey(key)
                keys.copied += 1
            } catch StoreError.duplicateKeyGeneration where allowNonEmpty {
                keys.kept += 1
            }
        }
        tallies.append(("signing keys", keys))

        var accounts = Tally()
        for key in try await source.allServiceAccountKeys() {
            if allowNonEmpty, try await target.serviceAccountKeys(clientEmail: key.clientEmail).contains(where: { $0.keyId == key.keyId }) {
                accounts.kept += 1
                continue
            }
            try await target.saveServiceAccountKey(key)
            accounts.copied += 1
        }
        tallies.append(("service-account keys", accounts))

        var providers = Tally()
        for scope in scopes {
            let (from, into) = (source.bound(toTenant: scope), target.bound(toTenant: scope))
            for config in try await from.idpConfigs() {
                if allowNonEmpty, try await into.idpConfig(providerId: config.providerId) != nil { providers.kept += 1; continue }
                try await into.saveIdPConfig(config)
                providers.copied += 1
            }
        }
        tallies.append(("identity providers", providers))

        var apps = Tally()
        let existingApps = Set(try await target.apps().map(\.id))
        for app in try await source.apps() {
            if existingApps.contains(app.id) { apps.kept += 1; continue }
            try await target.saveApp(app)
            apps.copied += 1
        }
        tallies.append(("apps", apps))

        var users = Tally()
        var totalUsers = 0
        for scope in scopes { totalUsers += try await source.bound(toTenant: scope).userCount() }
        for scope in scopes {
            let (from, into) = (source.bound(toTenant: scope), target.bound(toTenant: scope))
            let place = scope.map { " (tenant \($0))" } ?? ""
            var after: String?
            while true {
                let page = try await from.listUsers(after: after, limit: 500)
                guard let last = page.last else { break }
                for user in page {
                    do {
                        try await into.createUser(user)
                        users.copied += 1
                    } catch StoreError.duplicateLocalId where allowNonEmpty {
                        users.kept += 1
                    } catch StoreError.emailExists {
                        throw CLIError("user \(user.localId)\(place): another user in the target already has the email \(user.email ?? "")")
                    } catch StoreError.federatedIdTaken(let providerId) {
                        throw CLIError("user \(user.localId)\(place): another user in the target already holds its \(providerId) identity")
                    }
                }
                after = last.localId
                progress("users: \(users.copied + users.kept) of \(totalUsers)")
            }
        }
        tallies.append(("users", users))

        var tokens = Tally()
        var afterHash: String?
        while true {
            let page = try await source.refreshTokens(after: afterHash, limit: 1000)
            guard let last = page.last else { break }
            for token in page {
                // Every tenant's tokens are read; each is written through a store bound to its tenant (which stamps it).
                let into = target.bound(toTenant: token.tenantId)
                if allowNonEmpty, try await into.refreshToken(hash: token.tokenHash) != nil { tokens.kept += 1; continue }
                try await into.insertRefreshToken(token)
                tokens.copied += 1
            }
            afterHash = last.tokenHash
            progress("refresh tokens: \(tokens.copied + tokens.kept)")
        }
        tallies.append(("refresh tokens", tokens))

        // The provider token vault's sealed records, unchanged (the same vault keys open them on the target).
        var vault = Tally()
        var afterKey: ProviderTokenKey?
        while true {
            let page = try await source.providerTokenRecords(after: afterKey, limit: 1000)
            guard let last = page.last else { break }
            for record in page {
                if allowNonEmpty, try await target.providerTokens(localId: record.localId, providerId: record.providerId) != nil {
                    vault.kept += 1
                    continue
                }
                if try await target.saveProviderTokens(record) { vault.copied += 1 }
            }
            afterKey = ProviderTokenKey(localId: last.localId, providerId: last.providerId)
        }
        tallies.append(("provider tokens", vault))

        // Passkeys (public keys and counters) with their users.
        var passkeys = Tally()
        var afterPasskey: String?
        while true {
            let page = try await source.passkeys(after: afterPasskey, limit: 1000)
            guard let last = page.last else { break }
            for passkey in page {
                if try await target.insertPasskey(passkey) { passkeys.copied += 1 } else { passkeys.kept += 1 }
            }
            afterPasskey = last.credentialId
        }
        tallies.append(("passkeys", passkeys))

        // Email action codes (hashed) and the mail outbox: pending links keep working, queued mail is not lost.
        var codes = Tally()
        var afterCode: String?
        while true {
            let page = try await source.oobCodes(after: afterCode, limit: 1000)
            guard let last = page.last else { break }
            for code in page {
                let into = target.bound(toTenant: code.tenantId)
                if allowNonEmpty, try await into.oobCode(hash: code.codeHash) != nil { codes.kept += 1; continue }
                try await into.insertOobCode(code)
                codes.copied += 1
            }
            afterCode = last.codeHash
        }
        tallies.append(("email action codes", codes))
        var outbox = Tally()
        var queued = Set<String>()
        var afterQueued: String?
        while allowNonEmpty {
            let page = try await target.outboxMail(after: afterQueued, limit: 1000)
            guard let last = page.last else { break }
            queued.formUnion(page.map(\.id))
            afterQueued = last.id
        }
        var afterMail: String?
        while true {
            let page = try await source.outboxMail(after: afterMail, limit: 1000)
            guard let last = page.last else { break }
            for mail in page {
                if queued.contains(mail.id) {
                    outbox.kept += 1
                    continue
                }
                try await target.enqueueMail(mail)
                outbox.copied += 1
            }
            afterMail = last.id
        }
        tallies.append(("queued email", outbox))

        // The audit log, oldest first so the target's ids keep the order (the ids themselves are renumbered).
        // Each tenant's entries are read through its bound store; all are written in the source's id order, each
        // into its tenant.
        var entries: [(tenant: String?, entry: AuditEntry)] = []
        for scope in scopes {
            let from = source.bound(toTenant: scope)
            var before: Int64?
            while true {
                let page = try await from.auditEntries(before: before, limit: 1000)
                guard let last = page.last else { break }
                entries.append(contentsOf: page.map { (scope, $0) })
                before = last.id
            }
        }
        entries.sort { $0.entry.id < $1.entry.id }
        var audit = Tally()
        for (tenant, entry) in entries {
            try await target.bound(toTenant: tenant).appendAuditEntry(entry)
            audit.copied += 1
        }
        tallies.append(("audit entries", audit))

        // The final check: every kind counted again on both sides.
        let sourceCounts = try await Self.counts(source)
        let targetCounts = try await Self.counts(target)
        print("copied \(Self.describe(from)) → \(Self.describe(to))")
        print("kind                   source   target   copied   kept")
        var short: [String] = []
        for (name, tally) in tallies {
            let sourceCount = sourceCounts[name] ?? 0
            let targetCount = targetCounts[name] ?? 0
            print(name.padding(toLength: 20, withPad: " ", startingAt: 0)
                  + [sourceCount, targetCount, tally.copied, tally.kept].map { String($0).leftPadded(9) }.joined())
            if targetCount < sourceCount { short.append(name) }
        }
        guard short.isEmpty else {
            throw CLIError("the target holds fewer \(short.joined(separator: ", ")) than the source: the copy is incomplete (was a server writing to the target?)")
        }
        print("count check: ok")
    }

    static func counts(_ store: any StoreCopying) async throws -> [String: Int] {
        let tenants = try await store.allTenants()
        // Users, providers and audit entries are counted per tenant (a bound store sees its tenant's only).
        var users = 0
        var providers = 0
        var audit = 0
        for scope in [nil] + tenants.map(\.id) {
            let bound = store.bound(toTenant: scope)
            users += try await bound.userCount()
            providers += try await bound.idpConfigs().count
            var before: Int64?
            while true {
                let page = try await bound.auditEntries(before: before, limit: 5000)
                guard let last = page.last else { break }
                audit += page.count
                before = last.id
            }
        }
        var tokens = 0
        var afterHash: String?
        while true {
            let page = try await store.refreshTokens(after: afterHash, limit: 5000)
            guard let last = page.last else { break }
            tokens += page.count
            afterHash = last.tokenHash
        }
        var vault = 0
        var afterKey: ProviderTokenKey?
        while true {
            let page = try await store.providerTokenRecords(after: afterKey, limit: 5000)
            guard let last = page.last else { break }
            vault += page.count
            afterKey = ProviderTokenKey(localId: last.localId, providerId: last.providerId)
        }
        var codes = 0
        var afterCode: String?
        while true {
            let page = try await store.oobCodes(after: afterCode, limit: 5000)
            guard let last = page.last else { break }
            codes += page.count
            afterCode = last.codeHash
        }
        var passkeys = 0
        var afterPasskey: String?
        while true {
            let page = try await store.passkeys(after: afterPasskey, limit: 5000)
            guard let last = page.last else { break }
            passkeys += page.count
            afterPasskey = last.credentialId
        }
        return [
            "passkeys": passkeys,
            "email action codes": codes,
            "queued email": try await store.outboxCount(),
            "projects": try await store.projectConfigs().count,
            "signing keys": try await store.signingKeys().count,
            "service-account keys": try await store.allServiceAccountKeys().count,
            "tenants": tenants.count,
            "identity providers": providers,
            "apps": try await store.apps().count,
            "users": users,
            "refresh tokens": tokens,
            "provider tokens": vault,
            "audit entries": audit,
        ]
    }

    /// A store's name, safe to print (a URL's password masked).
    static func describe(_ name: String) -> String {
        if PostgresStoreConfiguration.isPostgresURL(name) {
            return (try? PostgresStoreConfiguration(url: name))?.maskedURL ?? "the PostgreSQL database"
        }
        return name
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
