import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HearthCore
import HearthServer
import HearthStore
import HearthStoreSQLite
import HearthWire

/// `hearth users`: the project's users, from the data directory (also while the server runs). Every write is
/// made through the admin service (the admin API's and the console's checks) and recorded in the
/// audit log as `cli:<login>`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List, inspect, create, change, disable, delete, import and export users.",
        subcommands: [List.self, Get.self, Create.self, Update.self, Disable.self, Enable.self, Delete.self, Revoke.self,
                      SetClaims.self, Import.self, Export.self, ResetLink.self, VerifyLink.self, SignInLink.self, UsersMultiFactor.self, UsersPasskeys.self]
    )

    /// The user with this uid, else with this email, else with this phone number (`+…`, any formatting; issue 40).
    static func find(_ store: any HearthStore, _ identifier: String) async throws -> UserRecord {
        if let user = try await store.user(localId: identifier) { return user }
        if let email = EmailAddress.normalize(identifier), let user = try await store.user(email: email) { return user }
        if identifier.hasPrefix("+"), let phone = try? PhoneNumber.parse(identifier),
           let user = try await store.user(providerId: ProviderIdentity.phoneProviderId, federatedId: phone) { return user }
        // Not found is an answer, not a usage error: plain message, exit status 1.
        throw CLIError(identifier.hasPrefix("+") ? "no user with uid or phone number \(identifier)" : "no user with uid or email \(identifier)")
    }

    /// The user's record; with `passkeys` (``Get``) its second factors and passkeys too — names and dates only, never a
    /// secret or a key (issue 35: `users get` left them out).
    static func describe(_ user: UserRecord, passkeys: [PasskeyCredential]? = nil) -> String {
        let info = user.userInfo
        var lines = [
            "uid              \(user.localId)",
            "email            \(user.email ?? "-")\(user.email != nil ? (user.emailVerified ? " (verified)" : " (not verified)") : "")",
            "phone            \(user.phoneNumber ?? "-")",
            "display name     \(user.displayName ?? "-")",
            "providers        \(info.providerUserInfo.map(\.providerId).joined(separator: ", ").ifEmpty("-"))",
            "disabled         \(user.disabled ? "yes" : "no")",
            "created          \(user.createdAt.formatted(.iso8601))",
            "last sign-in     \(user.lastLoginAt?.formatted(.iso8601) ?? "-")",
            "tokens valid since \(user.validSince.formatted(.iso8601))",
        ]
        if let claims = info.customAttributes { lines.append("custom claims    \(claims)") }
        if user.passwordHash?.hasPrefix(ImportedPasswordHash.prefix) == true { lines.append("password         imported hash (re-hashed at the next sign-in)") }
        if let passkeys {
            let factors = user.mfa.factors
            lines.append("second factors   " + (factors.isEmpty ? "none" : "\(factors.count) (hearth users mfa list \(user.localId))"))
            for factor in factors {
                lines.append("  \(factor.enrollmentId)  \(factor.kind == .phone ? "sms \(factor.phoneNumber ?? "")" : "totp")  \(factor.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "-")  enrolled \(factor.enrolledAt.formatted(.iso8601))")
            }
            if !factors.isEmpty || !user.mfa.recoveryCodeHashes.isEmpty {
                lines.append("  recovery codes left: \(user.mfa.recoveryCodeHashes.count)" + (user.mfa.recoveryCodesUsed > 0 ? " (\(user.mfa.recoveryCodesUsed) used)" : ""))
            }
            lines.append("passkeys         " + (passkeys.isEmpty ? "none" : "\(passkeys.count)"))
            for passkey in passkeys {
                lines.append("  \(passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed")  created \(passkey.createdAt.formatted(.iso8601))"
                    + "  last used \(passkey.lastUsedAt?.formatted(.iso8601) ?? "never")\(passkey.backedUp ? "  synced" : "")  id \(passkey.credentialId.prefix(12))…")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `hearth users list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users by uid, a page at a time; --search finds by exact email, uid or phone.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Option(help: "An email, uid or E.164 phone number to find.") var search: String?
        @Option(help: "Users per page (1-1000).") var limit: Int = 100
        @Option(name: .customLong("page-token"), help: "Start after this uid (printed at the end of the previous page).") var pageToken: String?

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let (users, next): ([UserRecord], String?) = try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ in
                let store = scope.store
                if let search {
                    var query = UserQuery(limit: limit)
                    if let email = EmailAddress.normalize(search) { query.emails = [email] }
                    query.localIds = [search]
                    if search.hasPrefix("+") { query.phoneNumbers = [(try? PhoneNumber.parse(search)) ?? search] }
                    return (try await store.queryUsers(query).users, nil)
                }
                let users = try await store.listUsers(after: pageToken, limit: limit + 1)
                let page = Array(users.prefix(limit))
                return (page, users.count > limit ? page.last?.localId : nil)
            }
            if users.isEmpty { print(search == nil ? "No users." : "No user matches \(search!).") }
            for user in users {
                let providers = user.providerUserInfo.map(\.providerId).joined(separator: ",")
                print([user.localId, user.email ?? user.phoneNumber ?? "-", providers.ifEmpty(user.email != nil ? "email (no password)" : "anonymous"),
                       user.createdAt.formatted(.iso8601), user.lastLoginAt?.formatted(.iso8601) ?? "-",
                       user.disabled ? "disabled" : ""].joined(separator: "\t"))
            }
            if let next { print("More: hearth users list\(tenantOption.tenant.map { " --tenant \($0)" } ?? "") --page-token \(next)") }
        }
    }

    /// `hearth users get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user (by uid or email).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            let (record, passkeys) = try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ in
                let store = scope.store
                let record = try await Users.find(store, user)
                return (record, try await store.passkeys(localId: record.localId))
            }
            print(Users.describe(record, passkeys: passkeys))
        }
    }

    /// `hearth users create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user (the password may come from HEARTH_USER_PASSWORD, which keeps it out of the shell history).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Option(help: "The new user's uid (default: generated).") var uid: String?
        @Option(help: "The user's email address.") var email: String?
        @Option(help: "The user's password (at least 6 characters; prefer HEARTH_USER_PASSWORD, which no process list shows).") var password: String?
        @Option(name: .customLong("display-name"), help: "The user's display name ('' removes it on update).") var displayName: String?
        @Option(help: "E.164 phone number.") var phone: String?
        @Flag(name: .customLong("email-verified"), help: "Mark the email as verified.") var emailVerified = false
        @Flag(help: "Create the user disabled (it cannot sign in until enabled).") var disabled = false
        @Flag(name: .customLong("no-password"), help: "Create an email user without a password (it signs in another way, e.g. a provider linked later).")
        var noPassword = false

        func run() async throws {
            let localId = try uid.map { try AdminService.checkLocalId($0) }
            var secret = password ?? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"]
            if secret != nil, noPassword { throw ValidationError("--no-password and a password (--password or HEARTH_USER_PASSWORD) contradict each other") }
            if email != nil, secret == nil, !noPassword {
                // Asked on a terminal; without one, a password-less user is made only when asked for explicitly.
                guard isatty(STDIN_FILENO) != 0, let typed = getpass("Password for \(email ?? ""): ").map({ String(cString: $0) }), !typed.isEmpty else {
                    throw ValidationError("no password for \(email ?? ""): pass --password, set HEARTH_USER_PASSWORD, run on a terminal to be asked, or pass --no-password for a user without one")
                }
                secret = typed
            }
            let request = AdminCreateUserRequest(localId: localId, email: try email.map(Users.email), password: try secret.map(Users.checkPassword),
                                                 displayName: displayName, phoneNumber: try phone.map(AdminService.checkPhoneNumber),
                                                 emailVerified: emailVerified, disabled: disabled)
            let created = try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                do {
                    return try await HearthCLI.answered { try await service.createUser(request, by: HearthCLI.principal, in: scope).localId }
                } catch let error as HearthAPIError {
                    throw Users.explain(error, uid: localId, email: request.email, phone: request.phoneNumber)
                }
            }
            print("Created user \(created)\(tenantOption.tenant.map { " in tenant \($0)" } ?? "").")
        }
    }

    static func email(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else { throw ValidationError("\(raw) is not an email address") }
        return email
    }

    /// The password as given, when its length is one a password may have.
    static func checkPassword(_ password: String) throws -> String {
        guard password.count >= PasswordHasher.minimumLength, password.utf8.count <= PasswordHasher.maximumByteCount else {
            throw ValidationError("a password has \(PasswordHasher.minimumLength) characters to \(PasswordHasher.maximumByteCount) bytes")
        }
        return password
    }

    /// The admin service's refusals in the command's words (usage errors), by the values the command gave.
    static func explain(_ error: HearthAPIError, uid: String? = nil, email: String? = nil, phone: String? = nil) -> any Error {
        switch error.code {
        case .duplicateLocalId where error.detail?.contains("uids are unique") == true: ValidationError(error.detail ?? "")
        case .duplicateLocalId: ValidationError("a user with uid \(uid ?? "") exists")
        case .emailExists: ValidationError(email.map { "another user has the email \($0)" } ?? "another user has that email")
        case .phoneNumberExists: ValidationError(phone.map { "another user has the phone number \($0)" } ?? "another user has that phone number")
        case .userNotFound: CLIError("no user with uid or email \(uid ?? "")")
        default: ValidationError(error.description)
        }
    }

    /// Changes the user through the admin service's update (its checks, its session revocation, its audit entry
    /// `accounts.update`; a concurrent change is retried) and returns the stored user.
    /// `tenant`: the user's tenant (`--tenant`; nil: the project's own users).
    static func update(_ storeOptions: StoreOptions, _ identifier: String, tenant: String? = nil,
                       _ fill: @Sendable (inout AdminUpdateRequest) -> Void) async throws -> UserRecord {
        try await storeOptions.withScope(tenant) { service, scope, _ in
            let store = scope.store
            let user = try await find(store, identifier)
            var request = AdminUpdateRequest(localId: user.localId)
            fill(&request)
            do {
                _ = try await HearthCLI.answered { try await service.update(request, by: HearthCLI.principal, in: scope) }
            } catch let error as HearthAPIError {
                throw explain(error, uid: identifier)
            }
            return try await find(store, user.localId)
        }
    }

    /// `hearth users update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user's email, password, name, phone or email verification.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        @Option(help: "A new email address (marks it unverified).") var email: String?
        @Option(help: "A new password (or HEARTH_USER_PASSWORD with --password-from-env); ends the user's sessions.") var password: String?
        @Flag(name: .customLong("password-from-env"), help: "Read the new password from HEARTH_USER_PASSWORD.") var passwordFromEnv = false
        @Option(name: .customLong("display-name"), help: "The user's display name ('' removes it on update).") var displayName: String?
        @Option(help: "E.164 phone number, or '' to remove it.") var phone: String?
        @Option(name: .customLong("email-verified"), help: "on/off") var emailVerified: Project.Switch?

        func run() async throws {
            let newEmail = try email.map(Users.email)
            let secret = try (password ?? (passwordFromEnv ? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"] : nil)).map(Users.checkPassword)
            let newPhone = try phone.map { $0.isEmpty ? "" : try AdminService.checkPhoneNumber($0) }
            guard email != nil || secret != nil || displayName != nil || phone != nil || emailVerified != nil else {
                throw ValidationError("nothing to change")
            }
            let displayName = displayName
            let verified = emailVerified?.isOn
            // One service call: the new password and the end of the user's sessions go together.
            let updated = try await Users.update(storeOptions, user, tenant: tenantOption.tenant) { request in
                request.email = newEmail
                request.password = secret
                request.displayName = displayName
                if let newPhone {
                    if newPhone.isEmpty { request.deleteProvider = [ProviderIdentity.phoneProviderId] } else { request.phoneNumber = newPhone }
                }
                request.emailVerified = verified
            }
            print(Users.describe(updated))
        }
    }

    /// `hearth users disable`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: no sign-in, no token refresh.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let updated = try await Users.update(storeOptions, user, tenant: tenantOption.tenant) { $0.disableUser = true }
            print("Disabled \(updated.localId).")
        }
    }

    /// `hearth users enable`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let updated = try await Users.update(storeOptions, user, tenant: tenantOption.tenant) { $0.disableUser = false }
            print("Enabled \(updated.localId).")
        }
    }

    /// `hearth users reset-link|verify-link|signin-link`: the link firebase-admin's `generate_*_link` answers,
    /// printed alone on stdout (nothing is sent). `tenant` (`--tenant`): the user is the tenant's, and the link carries
    /// the tenant (`tenantId`), as the Admin SDKs' tenant-aware `generate_*_link` does.
    static func printActionLink(_ type: OobRequestType, _ storeOptions: StoreOptions, tenant: String?, email: String, continueURL: String?) async throws {
        try await storeOptions.withScope(tenant) { service, scope, _ in
            do {
                let response = try await HearthCLI.answered {
                    try await service.actionLink(type, email: email, continueURL: continueURL, by: HearthCLI.principal, in: scope)
                }
                print(response.oobLink ?? "")
            } catch let error as HearthAPIError {
                throw CLIError([.emailNotFound, .userNotFound].contains(error.code)
                    ? "no user with email \(email)\(tenant.map { " in tenant \($0)" } ?? "")" : error.description)
            }
        }
    }

    struct ResetLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset-link",
            abstract: "Print a password-reset link for a user (valid for oob.code.ttl.reset, used once; nothing is sent).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The user's email") var email: String
        @Option(name: .customLong("continue-url"), help: "Where the page leads afterwards (an authorized domain or a registered app)") var continueURL: String?
        func run() async throws { try await Users.printActionLink(.passwordReset, storeOptions, tenant: tenantOption.tenant, email: email, continueURL: continueURL) }
    }

    struct VerifyLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "verify-link",
            abstract: "Print an email-verification link for a user (nothing is sent).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The user's email") var email: String
        @Option(name: .customLong("continue-url"), help: "Where the page leads afterwards (an authorized domain or a registered app)") var continueURL: String?
        func run() async throws { try await Users.printActionLink(.verifyEmail, storeOptions, tenant: tenantOption.tenant, email: email, continueURL: continueURL) }
    }

    struct SignInLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "signin-link",
            abstract: "Print an email sign-in link (email-link sign-in must be on; nothing is sent).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The email to sign in as") var email: String
        @Option(name: .customLong("continue-url"), help: "Where the app receives the link (an authorized domain or a registered app)") var continueURL: String?
        func run() async throws { try await Users.printActionLink(.emailSignIn, storeOptions, tenant: tenantOption.tenant, email: email, continueURL: continueURL) }
    }

    /// `hearth users revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End every session of a user (refresh tokens revoked, ID tokens issued before now refused).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let now = FlexibleInt(Int64(Date().timeIntervalSince1970.rounded(.down)))
            let updated = try await Users.update(storeOptions, user, tenant: tenantOption.tenant) { $0.validSince = now }
            print("Revoked the sessions of \(updated.localId).")
        }
    }

    /// `hearth users set-claims`.
    struct SetClaims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-claims", abstract: "Set a user's custom claims (a JSON object, at most 1000 characters; '{}' clears them).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        @Argument(help: #"e.g. '{"role":"admin"}'"#) var claims: String
        func run() async throws {
            do {
                // Checked before the user is looked up: a bad object is a usage error whoever the user is.
                _ = try AdminService.parseCustomAttributes(claims)
            } catch let error as HearthAPIError {
                throw ValidationError(error.description)
            }
            let claims = claims
            let updated = try await Users.update(storeOptions, user, tenant: tenantOption.tenant) { $0.customAttributes = claims }
            print("Custom claims of \(updated.localId): \(updated.userInfo.customAttributes ?? "{}") (in ID tokens from the next refresh).")
        }
    }

    /// `hearth users delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user, its linked identities and sessions.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let localId = try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ in
                let record = try await Users.find(scope.store, user)
                do {
                    _ = try await HearthCLI.answered { try await service.delete(AdminDeleteRequest(localId: record.localId), by: HearthCLI.principal, in: scope) }
                } catch let error as HearthAPIError where error.code == .userNotFound {
                    throw ValidationError("no user \(user)")
                }
                return record.localId
            }
            print("Deleted \(localId).")
        }
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
