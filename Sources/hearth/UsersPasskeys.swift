import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth users passkeys`: a user's passkeys; removal goes through the admin API's `accounts:update` with
/// `deletePasskey` (audited as `passkey.remove` by `cli:<login>`).
struct UsersPasskeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys",
        abstract: "List or remove a user's passkeys.",
        subcommands: [List.self, Remove.self])

    /// One line per passkey: credential id, name, algorithm, synced or not, created, last used.
    static func describe(_ localId: String, _ passkeys: [PasskeyCredential]) -> String {
        guard !passkeys.isEmpty else { return "\(localId) has no passkey." }
        return passkeys.map { passkey in
            let algorithm = switch passkey.algorithm {
            case -7: "ES256"
            case -8: "EdDSA"
            case -257: "RS256"
            default: "alg \(passkey.algorithm)"
            }
            return [passkey.credentialId, passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? "-", algorithm,
                    passkey.backedUp ? "synced" : "device-bound", passkey.createdAt.formatted(.iso8601),
                    passkey.lastUsedAt.map { "last used \($0.formatted(.iso8601))" } ?? "never used"].joined(separator: "\t")
        }.joined(separator: "\n")
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's passkeys: credential id, name, algorithm, synced or device-bound, created, last used.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String

        func run() async throws {
            let text = try await storeOptions.withStore { store in
                let record = try await Users.find(store, user)
                return UsersPasskeys.describe(record.localId, try await store.passkeys(localId: record.localId))
            }
            print(text)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user's passkeys (all, or one with --passkey): they no longer sign in.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "uid or email") var user: String
        @Option(name: .customLong("passkey"), help: "The credential id of the one passkey to remove (see hearth users passkeys list).")
        var passkey: String?
        @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let removed = try await storeOptions.withService { service, store, _ in
                let record = try await Users.find(store, user)
                let passkeys = try await store.passkeys(localId: record.localId)
                guard !passkeys.isEmpty else { throw CLIError("\(record.localId) has no passkey; nothing to remove") }
                let wanted = passkey.map { PasskeyBytes.normalizedCredentialId($0) ?? $0 }
                if let wanted, !passkeys.contains(where: { $0.credentialId == wanted }) {
                    throw CLIError("\(record.localId) has no passkey \(passkey ?? ""); its passkeys: " + passkeys.map(\.credentialId).joined(separator: ", "))
                }
                let ids = wanted.map { [$0] } ?? passkeys.map(\.credentialId)
                let what = wanted.map { id in "the passkey \(id) (\(passkeys.first { $0.credentialId == id }?.name ?? "unnamed")) of \(record.localId)" }
                    ?? "all \(ids.count) passkey\(ids.count == 1 ? "" : "s") of \(record.localId)"
                if !yes { try UsersMFA.confirm("Remove \(what)? They no longer sign in.") }
                var request = AdminUpdateRequest(localId: record.localId)
                request.deletePasskey = ids
                do {
                    _ = try await HearthCLI.answered { try await service.update(request, by: HearthCLI.principal) }
                } catch let error as HearthAPIError {
                    throw CLIError(error.description)
                }
                return what
            }
            print("Removed \(removed).")
        }
    }
}
