import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth project passkeys`: the project's `passkeys` setting (on/off, rp id, extra origins, user verification),
/// shown with its effective values and changed as the admin API's `updateMask=passkeys.<leaf>` changes it (the same
/// checks, audited as `config.update`).
struct ProjectPasskeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys",
        abstract: "Show or change the project's passkey setting (WebAuthn sign-in and second factor).",
        discussion: """
            Without options, shows the setting in force. The rp id (relying party id) is the domain passkeys are bound \
            to: by default the host of the server's public URL; it may be set to that host or a parent domain of it. \
            Changing it strands every registered passkey (their users must register new ones). The server's own origin \
            and https://<rp id> are always allowed; --allowed-origin adds others (the rp id or its subdomains, or \
            android:apk-key-hash:… app origins).

            Examples:
              hearth project passkeys --enable
              hearth project passkeys --rp-id example.com
              hearth project passkeys --allowed-origin https://app.example.com
              hearth project passkeys --user-verification preferred
              hearth project passkeys --clear-origins --rp-id ''      (back to the defaults)
            """)

    /// `--user-verification`.
    enum UserVerification: String, ExpressibleByArgument, CaseIterable {
        case required, preferred
    }

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var project: ProjectOption
    @Flag(name: .customLong("enable"), help: "Let users register passkeys and sign in with them.") var enable = false
    @Flag(name: .customLong("disable"), help: "Refuse passkey enrollment and sign-in (PASSKEY_NOT_ENABLED); registered passkeys are kept.")
    var disable = false
    @Option(name: .customLong("rp-id"), help: ArgumentHelp(
        "The rp id: the server's host or a parent domain of it ('' returns to the default, the public URL's host). Changing it strands registered passkeys.",
        valueName: "domain"))
    var rpId: String?
    @Option(name: .customLong("allowed-origin"), help: ArgumentHelp(
        "An origin to accept beside the server's own (https://host[:port] on the rp id or a subdomain); repeatable.", valueName: "url"))
    var allowedOrigins: [String] = []
    @Option(name: .customLong("remove-origin"), help: ArgumentHelp("An added origin to stop accepting; repeatable.", valueName: "url"))
    var removedOrigins: [String] = []
    @Flag(name: .customLong("clear-origins"), help: "Remove every added origin (before adding those of --allowed-origin).")
    var clearOrigins = false
    @Option(name: .customLong("user-verification"),
            help: "required (the authenticator verifies the user: biometrics or a PIN; the default) or preferred.")
    var userVerification: UserVerification?

    func validate() throws {
        if enable && disable { throw ValidationError("--enable and --disable contradict each other: pass one") }
        if let common = allowedOrigins.first(where: removedOrigins.contains) {
            throw ValidationError("\(common) is both added (--allowed-origin) and removed (--remove-origin)")
        }
    }

    /// The setting as `hearth project passkeys` prints it.
    static func describe(projectId: String, _ setting: PasskeySetting) -> String {
        let rpId = setting.storedRpId == nil
            ? "\(setting.rpId) (default: the host of the server's public URL)"
            : "\(setting.rpId) (set; the server's host is \(setting.publicHost))"
        let ipNote = setting.rpIdIsIPAddress
            ? "\n                      an IP address: browsers refuse passkeys here; reach the server by a domain name (--public-url, e.g. http://localhost:PORT)"
            : ""
        let added = setting.allowedOrigins.isEmpty ? "none added" : setting.allowedOrigins.joined(separator: ", ")
        let verification = setting.userVerification == "PREFERRED"
            ? "preferred (a passkey without biometrics or a PIN is accepted)"
            : "required (biometrics or a device PIN at every passkey sign-in)"
        return """
            project               \(projectId)
            passkeys              \(setting.enabled ? "on" : "off")
            rp id                 \(rpId)\(ipNote)
            origins (always)      \(setting.builtInOrigins.joined(separator: ", "))
            origins (added)       \(added)
            user verification     \(verification)
            """
    }

    func run() async throws {
        let (projectId, before, after) = try await storeOptions.withStoreAndSettings(projectId: project.projectId) { store, settings in
            let current = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            // The server's public URL (as configured, else as the server last recorded it): the default rp id and
            // the check of a new one depend on it.
            let service = AdminService.commandLine(store: store, projectId: settings.projectId,
                                                   publicURL: await settings.serverURL(store: store))
            let before = try await service.passkeySetting()
            var origins: [String]?
            if clearOrigins || !allowedOrigins.isEmpty || !removedOrigins.isEmpty {
                var list = clearOrigins ? [] : current.passkeys?.allowedOrigins ?? []
                if let missing = removedOrigins.first(where: { !list.contains($0) }), !clearOrigins {
                    throw CLIError("\(missing) is not an added origin; the added ones: " + (list.isEmpty ? "none" : list.joined(separator: ", ")))
                }
                list.removeAll(where: removedOrigins.contains)
                for origin in allowedOrigins where !list.contains(origin) { list.append(origin) }
                origins = list
            }
            let state: Bool? = enable ? true : disable ? false : nil
            let after = try await HearthCLI.plainly {
                try await service.updatePasskeySetting(enabled: state, rpId: rpId, allowedOrigins: origins,
                                                       userVerification: userVerification?.rawValue.uppercased(), by: HearthCLI.principal)
            }
            return (settings.projectId, before, after)
        }
        if before.rpId != after.rpId {
            var standardError = StandardError()
            print("warning: the rp id changed from \(before.rpId) to \(after.rpId): passkeys registered for \(before.rpId) no longer sign in; "
                  + "their users must register new ones (see hearth users passkeys list).", to: &standardError)
        }
        print(Self.describe(projectId: projectId, after))
    }
}

/// `hearth users passkeys`: a user's passkeys as stored, and their removal through the admin API's
/// `accounts:update` `deletePasskey` (audited `passkey.remove` as `cli:<login>`).
struct UsersPasskeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys",
        abstract: "List or remove a user's passkeys.",
        subcommands: [List.self, Remove.self])

    /// One line per passkey: credential id, name, created, last used, synced or device-bound.
    static func describe(_ passkeys: [PasskeyCredential], of localId: String) -> String {
        guard !passkeys.isEmpty else { return "\(localId) has no passkey." }
        return passkeys.map { passkey in
            [passkey.credentialId, passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? "-", passkey.createdAt.formatted(.iso8601),
             passkey.lastUsedAt.map { "last used " + $0.formatted(.iso8601) } ?? "never used",
             passkey.backupEligible ? "synced" : "device-bound"].joined(separator: "\t")
        }.joined(separator: "\n")
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's passkeys: credential id, name, registered at, last used, synced or device-bound.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            let (localId, passkeys) = try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ in
                let store = scope.store
                let record = try await Users.find(store, user)
                return (record.localId, try await store.passkeys(localId: record.localId))
            }
            print(UsersPasskeys.describe(passkeys, of: localId))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove passkeys of a user by credential id (see hearth users passkeys list): they no longer sign in to the account.",
            discussion: "All the ids must be the user's passkeys, else nothing is removed (PASSKEY_ENROLLMENT_NOT_FOUND). "
                + "The user's current sessions continue: end them with hearth users revoke.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        @Argument(help: "Credential ids (base64url, as listed; the standard base64 alphabet is accepted too).") var credentialIds: [String]
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func validate() throws {
            if credentialIds.isEmpty { throw ValidationError("name at least one credential id (hearth users passkeys list \(user) shows them)") }
        }

        func run() async throws {
            let removed = try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                let store = scope.store
                let record = try await Users.find(store, user)
                let passkeys = try await store.passkeys(localId: record.localId)
                guard !passkeys.isEmpty else { throw CLIError("\(record.localId) has no passkey; nothing to remove") }
                var named: [PasskeyCredential] = []
                for id in credentialIds {
                    let normalized = PasskeyBytes.normalizedCredentialId(id)
                    guard let passkey = passkeys.first(where: { $0.credentialId == normalized }) else {
                        throw CLIError("\(record.localId) has no passkey \(id.prefix(100)) (PASSKEY_ENROLLMENT_NOT_FOUND); nothing was removed. Its passkeys: "
                            + passkeys.map(\.credentialId).joined(separator: ", "))
                    }
                    if !named.contains(passkey) { named.append(passkey) }
                }
                let what = named.map { "\($0.credentialId) (\($0.name.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed"))" }.joined(separator: ", ")
                let noun = named.count == 1 ? "the passkey" : "the \(named.count) passkeys"
                if !yes { try UsersMultiFactor.confirm("Remove \(noun) \(what) of \(record.localId)? They no longer sign in to this account.") }
                do {
                    try await HearthCLI.answered {
                        try await service.removePasskeys(localId: record.localId, credentialIds: named.map(\.credentialId), by: HearthCLI.principal, in: scope)
                    }
                } catch let error as HearthAPIError where error.code == .passkeyEnrollmentNotFound {
                    throw CLIError("\(error.description) (PASSKEY_ENROLLMENT_NOT_FOUND: removed meanwhile?); nothing was removed")
                } catch let error as HearthAPIError {
                    throw CLIError(error.description)
                }
                return "\(noun) \(what) of \(record.localId)"
            }
            print("Removed \(removed). The user's current sessions continue (hearth users revoke ends them).")
        }
    }
}
