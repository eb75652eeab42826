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
/// recorded in the audit log as `cli:<login>`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List, inspect, create, change, disable, delete, import and export users.",
        subcommands: [List.self, Get.self, Create.self, Update.self, Disable.self, Enable.self, Delete.self, Revoke.self,
                      SetClaims.self, Import.self, Export.self]
    )

    static var actor: String { "cli:\(ProcessInfo.processInfo.environment["USER"] ?? "operator")" }

    static func audit(_ store: any HearthStore, _ action: String, target: String, detail: String? = nil) async throws {
        try await store.appendAuditEntry(AuditEntry(time: Date(), actor: actor, action: action, target: target, detail: detail))
    }

    /// The user with this uid, else with this email.
    static func find(_ store: any HearthStore, _ identifier: String) async throws -> UserRecord {
        if let user = try await store.user(localId: identifier) { return user }
        if let email = EmailAddress.normalize(identifier), let user = try await store.user(email: email) { return user }
        // Not found is an answer, not a usage error: plain message, exit status 1.
        throw CLIError("no user with uid or email \(identifier)")
    }

    static func describe(_ user: UserRecord) -> String {
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
        return lines.joined(separator: "\n")
    }

    /// `hearth users list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users by uid, a page at a time; --search finds by exact email, uid or phone.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "An email, uid or E.164 phone number to find.") var search: String?
        @Option(help: "Users per page (1-1000).") var limit: Int = 100
        @Option(name: .customLong("page-token"), help: "Start after this uid (printed at the end of the previous page).") var pageToken: String?

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let (users, next): ([UserRecord], String?) = try await storeOptions.withStore { store in
                if let search {
                    var query = UserQuery(limit: limit)
                    if let email = EmailAddress.normalize(search) { query.emails = [email] }
                    query.localIds = [search]
                    if search.hasPrefix("+") { query.phoneNumbers = [search] }
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
            if let next { print("More: hearth users list --page-token \(next)") }
        }
    }

    /// `hearth users get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user (by uid or email).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            print(Users.describe(try await storeOptions.withStore { try await Users.find($0, user) }))
        }
    }

    /// `hearth users create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user (the password may come from HEARTH_USER_PASSWORD, which keeps it out of the shell history).")
        @OptionGroup var storeOptions: StoreOptions
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
            let localId = try uid.map { try AdminService.checkLocalId($0) } ?? RandomID.localId()
            var secret = password ?? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"]
            if secret != nil, noPassword { throw ValidationError("--no-password and a password (--password or HEARTH_USER_PASSWORD) contradict each other") }
            if email != nil, secret == nil, !noPassword {
                // Asked on a terminal; without one, a password-less user is made only when asked for explicitly.
                guard isatty(STDIN_FILENO) != 0, let typed = getpass("Password for \(email ?? ""): ").map({ String(cString: $0) }), !typed.isEmpty else {
                    throw ValidationError("no password for \(email ?? ""): pass --password, set HEARTH_USER_PASSWORD, run on a terminal to be asked, or pass --no-password for a user without one")
                }
                secret = typed
            }
            let now = Date()
            var user = UserRecord(localId: localId, email: try email.map(Users.email), emailVerified: emailVerified,
                                  displayName: displayName, disabled: disabled, createdAt: now,
                                  validSince: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
            user.phoneNumber = try phone.map(AdminService.checkPhoneNumber)
            if let secret {
                user.passwordHash = try Users.hash(secret)
                user.passwordUpdatedAt = now
            }
            try await storeOptions.withStore { store in
                do {
                    try await store.createUser(user)
                } catch StoreError.duplicateLocalId {
                    throw ValidationError("a user with uid \(localId) exists")
                } catch StoreError.emailExists {
                    throw ValidationError("another user has the email \(user.email ?? "")")
                } catch StoreError.federatedIdTaken {
                    throw ValidationError("another user has the phone number \(user.phoneNumber ?? "")")
                }
                try await Users.audit(store, "accounts.create", target: localId)
            }
            print("Created user \(localId).")
        }
    }

    static func email(_ raw: String) throws -> String {
        guard let email = EmailAddress.normalize(raw) else { throw ValidationError("\(raw) is not an email address") }
        return email
    }

    static func hash(_ password: String) throws -> String {
        guard password.count >= PasswordHasher.minimumLength, password.utf8.count <= PasswordHasher.maximumByteCount else {
            throw ValidationError("a password has \(PasswordHasher.minimumLength) characters to \(PasswordHasher.maximumByteCount) bytes")
        }
        return try PasswordHasher().hash(password)
    }

    /// Applies `change` to the user and records it.
    static func modify(_ storeOptions: StoreOptions, _ identifier: String, action: String, detail: String? = nil,
                       _ change: @Sendable (inout UserRecord) throws -> Void) async throws -> UserRecord {
        try await storeOptions.withStore { store in
            var user = try await find(store, identifier)
            try change(&user)
            let stored: UserRecord
            do {
                stored = try await store.updateUser(user)
            } catch StoreError.emailExists {
                throw ValidationError("another user has that email")
            } catch StoreError.federatedIdTaken {
                throw ValidationError("another user has that phone number")
            } catch StoreError.conflict {
                throw ValidationError("the user changed meanwhile; run the command again")
            }
            try await audit(store, action, target: user.localId, detail: detail)
            return stored
        }
    }

    /// `hearth users update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user's email, password, name, phone or email verification.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        @Option(help: "A new email address (marks it unverified).") var email: String?
        @Option(help: "A new password (or HEARTH_USER_PASSWORD with --password-from-env); ends the user's sessions.") var password: String?
        @Flag(name: .customLong("password-from-env"), help: "Read the new password from HEARTH_USER_PASSWORD.") var passwordFromEnv = false
        @Option(name: .customLong("display-name"), help: "The user's display name ('' removes it on update).") var displayName: String?
        @Option(help: "E.164 phone number, or '' to remove it.") var phone: String?
        @Option(name: .customLong("email-verified"), help: "on/off") var emailVerified: Project.Switch?

        func run() async throws {
            let newEmail = try email.map(Users.email)
            let secret = password ?? (passwordFromEnv ? ProcessInfo.processInfo.environment["HEARTH_USER_PASSWORD"] : nil)
            let hash = try secret.map(Users.hash)
            let newPhone = try phone.map { $0.isEmpty ? "" : try AdminService.checkPhoneNumber($0) }
            var fields: [String] = []
            if email != nil { fields.append("email") }
            if hash != nil { fields.append("password") }
            if displayName != nil { fields.append("displayName") }
            if phone != nil { fields.append("phoneNumber") }
            if emailVerified != nil { fields.append("emailVerified") }
            guard !fields.isEmpty else { throw ValidationError("nothing to change") }
            let displayName = displayName
            let verified = emailVerified?.isOn
            let updated = try await Users.modify(storeOptions, user, action: "accounts.update", detail: fields.joined(separator: ",")) { record in
                if let newEmail, newEmail != record.email { record.email = newEmail; record.emailVerified = false }
                if let verified { record.emailVerified = verified }
                if let displayName { record.displayName = displayName.isEmpty ? nil : displayName }
                if let newPhone { record.phoneNumber = newPhone.isEmpty ? nil : newPhone }
                if let hash {
                    record.passwordHash = hash
                    record.passwordUpdatedAt = Date()
                    record.validSince = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
                }
            }
            if hash != nil { try await storeOptions.withStore { try await $0.revokeRefreshTokens(localId: updated.localId) } }
            print(Users.describe(updated))
        }
    }

    /// `hearth users disable`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: no sign-in, no token refresh.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let updated = try await Users.modify(storeOptions, user, action: "accounts.update", detail: "disableUser") { $0.disabled = true }
            print("Disabled \(updated.localId).")
        }
    }

    /// `hearth users enable`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let updated = try await Users.modify(storeOptions, user, action: "accounts.update", detail: "disableUser") { $0.disabled = false }
            print("Enabled \(updated.localId).")
        }
    }

    /// `hearth users revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End every session of a user (refresh tokens revoked, ID tokens issued before now refused).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let updated = try await Users.modify(storeOptions, user, action: "accounts.update", detail: "validSince") { $0.validSince = now }
            try await storeOptions.withStore { try await $0.revokeRefreshTokens(localId: updated.localId) }
            print("Revoked the sessions of \(updated.localId).")
        }
    }

    /// `hearth users set-claims`.
    struct SetClaims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-claims", abstract: "Set a user's custom claims (a JSON object, at most 1000 characters; '{}' clears them).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        @Argument(help: #"e.g. '{"role":"admin"}'"#) var claims: String
        func run() async throws {
            let parsed: [String: JSONValue]
            do {
                parsed = try AdminService.parseCustomAttributes(claims)
            } catch let error as HearthAPIError {
                throw ValidationError(error.description)
            }
            let updated = try await Users.modify(storeOptions, user, action: "accounts.update", detail: "customAttributes") { $0.customClaims = parsed }
            print("Custom claims of \(updated.localId): \(updated.userInfo.customAttributes ?? "{}") (in ID tokens from the next refresh).")
        }
    }

    /// `hearth users delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user, its linked identities and sessions.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        func run() async throws {
            let localId = try await storeOptions.withStore { store in
                let record = try await Users.find(store, user)
                guard try await store.deleteUser(localId: record.localId) else { throw ValidationError("no user \(user)") }
                try await Users.audit(store, "accounts.delete", target: record.localId)
                return record.localId
            }
            print("Deleted \(localId).")
        }
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
