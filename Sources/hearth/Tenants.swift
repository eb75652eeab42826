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

extension StoreOptions {
    /// `withService` with the scope `--tenant` names (the project's without it): its store is bound to the tenant.
    /// An unknown or malformed tenant id is refused, naming `hearth tenants list`.
    func withScope<T: Sendable>(_ tenant: String?, _ body: (AdminService, Scope, Settings) async throws -> T) async throws -> T {
        try await withService { service, _, settings in
            let scope: Scope
            do {
                scope = try await service.scope(tenantId: tenant, in: "--tenant")
            } catch let error as HearthAPIError {
                throw CLIError(error.description)
            }
            return try await body(service, scope, settings)
        }
    }
}

/// `hearth tenants`: Identity Platform tenants (isolated pools of users), from the data directory like the other
/// administration commands. Writes are recorded in the audit log as `cli:<login>`.
struct Tenants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "List, create, inspect and delete tenants (isolated pools of users, Identity Platform's multi-tenancy).",
        discussion: "A tenant's users and providers are managed with --tenant ID on hearth users and hearth providers.",
        subcommands: [List.self, Create.self, Get.self, Delete.self])

    /// The tenant with this id, else a plain error naming `hearth tenants list`.
    static func find(_ store: any HearthStore, _ id: String) async throws -> TenantRecord {
        guard TenantRecord.isValidId(id), let tenant = try await store.bound(toTenant: nil).tenant(id: id) else {
            throw CLIError("no tenant \"\(String(id.withoutControlCharacters.prefix(64)))\": hearth tenants list shows the tenants' ids")
        }
        return tenant
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

    /// `hearth tenants create`.
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
            let body = Tenant(displayName: displayName, allowPasswordSignup: allowPasswordSignup,
                              enableEmailLinkSignin: enableEmailLinkSignin, enableAnonymousUser: enableAnonymous)
            let tenant = try await storeOptions.withService { service, store, _ in
                var attempts = 0
                while true {
                    let tenant: TenantRecord
                    do {
                        tenant = try TenantRecord.creating(body, at: Date())
                    } catch let error as TenantWireError {
                        throw ValidationError(error.detail)
                    }
                    do {
                        try await store.bound(toTenant: nil).insertTenant(tenant)
                    } catch StoreError.tenantExists where attempts < 5 {
                        attempts += 1  // the random suffix clashed: another id
                        continue
                    }
                    try await service.record("tenants.create", target: tenant.id, detail: tenant.displayName,
                                             by: HearthCLI.principal, in: service.projectScope)
                    return tenant
                }
            }
            print("Created tenant \(tenant.id) (\(tenant.displayName)).")
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

    /// `hearth tenants delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a tenant with all its users, their sessions and its providers (it cannot be undone).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The tenant id.") var id: String
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let tenant = try await storeOptions.withService { service, store, _ in
                let tenant = try await Tenants.find(store, id)
                if !yes {
                    let users = try await store.bound(toTenant: tenant.id).userCount()
                    try UsersMultiFactor.confirm("Delete tenant \(tenant.id) (\(tenant.displayName)) with its \(users) user(s) and its providers? This cannot be undone.")
                }
                guard try await store.bound(toTenant: nil).deleteTenant(id: tenant.id) else {
                    throw CLIError("no tenant \(tenant.id): it was deleted meanwhile")
                }
                try await service.record("tenants.delete", target: tenant.id, detail: tenant.displayName,
                                         by: HearthCLI.principal, in: service.projectScope)
                return tenant
            }
            print("Deleted tenant \(tenant.id).")
        }
    }
}
