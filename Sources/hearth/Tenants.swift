import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `--tenant ID` on the user and provider commands: act in that Identity Platform tenant instead of the project.
struct TenantOption: ParsableArguments {
    @Option(help: "A tenant's id (hearth tenants list): act on that tenant's users or providers instead of the project's own.")
    var tenant: String?
}

extension TenantOption {
    /// The scope `tenant` names (the project's without one), its refusals in words: an unknown or malformed id names
    /// `hearth tenants list`, a tenant with sign-in turned off names `hearth tenants update ID --enable-auth`.
    static func scope(_ tenant: String?, of service: AdminService) async throws -> Scope {
        do {
            return try await service.scope(tenantId: tenant, in: "--tenant")
        } catch let error as HearthAPIError {
            throw Tenants.plain(error, id: tenant ?? "")
        }
    }
}

extension StoreOptions {
    /// `withService` with the scope `--tenant` names (the project's without it): its store is bound to the tenant.
    /// An unknown or malformed tenant id is refused, naming `hearth tenants list`.
    func withScope<T: Sendable>(_ tenant: String?, _ body: (AdminService, Scope, Settings) async throws -> T) async throws -> T {
        try await withService { service, _, settings in
            try await body(service, try await TenantOption.scope(tenant, of: service), settings)
        }
    }
}

/// `hearth tenants`: Identity Platform tenants (isolated pools of users), from the data directory like the other
/// administration commands. Writes go through the admin service's tenant calls (``AdminService/createTenant(_:by:)``,
/// ``AdminService/updateTenant(_:_:paths:by:)``, ``AdminService/deleteTenant(_:by:)``: the v2 REST resource's checks,
/// defaults and audit entries), recorded as `cli:<login>`.
struct Tenants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "List, create, inspect, change and delete tenants (isolated pools of users, Identity Platform's multi-tenancy).",
        discussion: "A tenant's users and providers are managed with --tenant ID on hearth users and hearth providers.",
        subcommands: [List.self, Create.self, Get.self, Update.self, Delete.self])

    /// The refusal for a tenant id that names no tenant (unknown, or not a tenant id at all), shown shortened and
    /// without control characters.
    static func notFound(_ id: String) -> CLIError {
        CLIError("no tenant \"\(String(id.withoutControlCharacters.prefix(64)))\": hearth tenants list shows the tenants' ids")
    }

    /// The admin service's refusal in the command's words: `TENANT_NOT_FOUND` as ``notFound(_:)``, a tenant with
    /// sign-in turned off (`disableAuth`) naming the command that turns it on, a bad display name or setting as a
    /// usage error with the service's message.
    static func plain(_ error: HearthAPIError, id: String) -> any Error {
        switch error.code {
        case .tenantNotFound: notFound(id)
        case .operationNotAllowed:
            CLIError("tenant \(id) has sign-in and user management turned off (disableAuth): hearth tenants update \(id) --enable-auth turns them back on")
        default: ValidationError(error.detail ?? error.description)
        }
    }

    /// The tenant with this id, else a plain error naming `hearth tenants list`.
    static func find(_ store: any HearthStore, _ id: String) async throws -> TenantRecord {
        guard TenantRecord.isValidId(id), let tenant = try await store.bound(toTenant: nil).tenant(id: id) else { throw notFound(id) }
        return tenant
    }

    /// The id of a tenant resource (`projects/{p}/tenants/{id}`).
    static func id(of resource: Tenant) -> String {
        String(resource.name?.split(separator: "/").last ?? "")
    }

    static func describe(_ tenant: TenantRecord) -> String {
        func onOff(_ flag: Bool) -> String { flag ? "on" : "off" }
        let settings = tenant.settings
        return [
            "id                   \(tenant.id)",
            "display name         \(tenant.displayName)",
            "password sign-up     \(onOff(settings.allowPasswordSignup))",
            "email-link sign-in   \(onOff(settings.enableEmailLinkSignin))",
            "anonymous sign-in    \(onOff(settings.enableAnonymousUser))",
            "sign-in disabled     \(settings.disableAuth ? "yes" : "no")",
            "second factors       \(settings.mfa?.state?.rawValue ?? "off")",
            "created              \(tenant.createdAt.formatted(.iso8601))",
        ].joined(separator: "\n")
    }

    /// `hearth tenants list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tenants: id, display name, sign-in methods on.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let tenants = try await storeOptions.withStore { store in try await store.allTenants() }
            if tenants.isEmpty { print("No tenants. hearth tenants create --display-name NAME makes one.") }
            for tenant in tenants {
                let settings = tenant.settings
                let methods = [settings.allowPasswordSignup ? "password" : nil, settings.enableEmailLinkSignin ? "email-link" : nil,
                               settings.enableAnonymousUser ? "anonymous" : nil].compactMap { $0 }
                print([tenant.id, tenant.displayName, methods.joined(separator: ",").ifEmpty("-"),
                       settings.disableAuth ? "disabled" : ""].joined(separator: "\t"))
            }
        }
    }

    /// `hearth tenants create`: the admin service's `createTenant` (the REST resource's `POST …/tenants`).
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a tenant; its id (printed) is made from the display name. Its sign-in methods are off unless turned on here.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("display-name"), help: "The tenant's name: 4 to 20 letters, digits or hyphens, starting with a letter.")
        var displayName: String
        @Flag(name: .customLong("allow-password-signup"), help: "Allow email/password sign-up and sign-in.") var allowPasswordSignup = false
        @Flag(name: .customLong("enable-email-link-signin"), help: "Allow email-link (passwordless) sign-in.") var enableEmailLinkSignin = false
        @Flag(name: .customLong("enable-anonymous"), help: "Allow anonymous sign-up.") var enableAnonymous = false

        func run() async throws {
            // Only the flags given are sent (the others keep Identity Platform's default, off), as an SDK's create does.
            let body = Tenant(displayName: displayName, allowPasswordSignup: allowPasswordSignup ? true : nil,
                              enableEmailLinkSignin: enableEmailLinkSignin ? true : nil, enableAnonymousUser: enableAnonymous ? true : nil)
            let created = try await storeOptions.withService { service, _, _ in
                do {
                    return try await HearthCLI.answered { try await service.createTenant(body, by: HearthCLI.principal) }
                } catch let error as HearthAPIError {
                    throw ValidationError(error.detail ?? error.description)
                }
            }
            print("Created tenant \(Tenants.id(of: created)) (\(created.displayName ?? displayName)).")
        }
    }

    /// `hearth tenants get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one tenant and its user count.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The tenant id.") var id: String

        func run() async throws {
            let (tenant, users) = try await storeOptions.withStore { store in
                let tenant = try await Tenants.find(store, id)
                return (tenant, try await store.bound(toTenant: tenant.id).userCount())
            }
            print(Tenants.describe(tenant))
            print("users                \(users) (hearth users list --tenant \(tenant.id))")
        }
    }

    /// `hearth tenants update`: the admin service's `updateTenant` (the REST resource's `PATCH …/tenants/{t}` with the
    /// `updateMask` of the options given).
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a tenant's display name or sign-in methods; what is not named stays as it is.",
            discussion: "Example: hearth tenants update acme-x7k2p --allow-password-signup --disable-anonymous")

        /// `--disable-auth` / `--enable-auth`.
        enum Auth: String, EnumerableFlag {
            case disableAuth, enableAuth

            static func help(for value: Auth) -> ArgumentHelp? {
                switch value {
                case .disableAuth: return ArgumentHelp("Stop every sign-in, token refresh and user management in the tenant (Identity Platform's disableAuth).")
                case .enableAuth: return ArgumentHelp("Turn sign-in and user management back on.")
                }
            }
        }

        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The tenant id.") var id: String
        @Option(name: .customLong("display-name"), help: "A new name: 4 to 20 letters, digits or hyphens, starting with a letter (the id stays).")
        var displayName: String?
        @Flag(name: .customLong("allow-password-signup"), inversion: .prefixedNo, help: "Allow (or with --no-… refuse) email/password sign-up and sign-in.")
        var allowPasswordSignup: Bool?
        @Flag(name: .customLong("email-link-signin"), inversion: .prefixedEnableDisable, help: "Allow or refuse email-link (passwordless) sign-in.")
        var emailLinkSignin: Bool?
        @Flag(name: .customLong("anonymous"), inversion: .prefixedEnableDisable, help: "Allow or refuse anonymous sign-up.")
        var anonymous: Bool?
        @Flag var auth: Auth?

        func validate() throws {
            if displayName == nil, allowPasswordSignup == nil, emailLinkSignin == nil, anonymous == nil, auth == nil {
                throw ValidationError("nothing to change: pass --display-name, --allow-password-signup/--no-allow-password-signup, "
                    + "--enable-/--disable-email-link-signin, --enable-/--disable-anonymous or --disable-auth/--enable-auth")
            }
        }

        func run() async throws {
            let body = Tenant(displayName: displayName, allowPasswordSignup: allowPasswordSignup, enableEmailLinkSignin: emailLinkSignin,
                              enableAnonymousUser: anonymous, disableAuth: auth.map { $0 == .disableAuth })
            let paths = [displayName.map { _ in "displayName" }, allowPasswordSignup.map { _ in "allowPasswordSignup" },
                         emailLinkSignin.map { _ in "enableEmailLinkSignin" }, anonymous.map { _ in "enableAnonymousUser" },
                         auth.map { _ in "disableAuth" }].compactMap { $0 }
            let tenant = try await storeOptions.withService { service, store, _ in
                do {
                    _ = try await HearthCLI.answered { try await service.updateTenant(id, body, paths: paths, by: HearthCLI.principal) }
                } catch let error as HearthAPIError {
                    throw Tenants.plain(error, id: id)
                }
                return try await Tenants.find(store, id)
            }
            print(Tenants.describe(tenant))
        }
    }

    /// `hearth tenants delete`: the admin service's `deleteTenant` (the REST resource's `DELETE …/tenants/{t}`), after
    /// a question naming how many users go with it (unless `--yes`).
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a tenant with all its users, their sessions and its providers (it cannot be undone).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The tenant id.") var id: String
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let (tenant, users) = try await storeOptions.withService { service, store, _ in
                let tenant = try await Tenants.find(store, id)
                // Counted on the store bound to the tenant: a tenant with sign-in turned off is deleted as any other.
                let users = try await store.bound(toTenant: tenant.id).userCount()
                if !yes {
                    try UsersMultiFactor.confirm("Delete tenant \(tenant.id) (\(tenant.displayName)) with its \(Tenants.users(users)) and its providers? This cannot be undone.",
                                                 refused: "Nothing deleted.")
                }
                do {
                    _ = try await HearthCLI.answered { try await service.deleteTenant(tenant.id, by: HearthCLI.principal) }
                } catch let error as HearthAPIError where error.code == .tenantNotFound {
                    throw CLIError("no tenant \(tenant.id): it was deleted meanwhile")
                }
                return (tenant, users)
            }
            print("Deleted tenant \(tenant.id). Its \(Tenants.users(users)) went with it.")
        }
    }

    /// "1 user", "3 users".
    static func users(_ count: Int) -> String { count == 1 ? "1 user" : "\(count) users" }
}
