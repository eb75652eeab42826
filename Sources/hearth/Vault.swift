import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import Logging

/// `hearth vault`: the provider token vault's keys.
struct Vault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "The provider token vault: make keys, show what is kept, move records to the active key.",
        discussion: """
            The vault keeps providers' refresh tokens sealed with AES-256-GCM. Its keys come from vault.keys.file \
            (env HEARTH_VAULT_KEYS_FILE, --vault-keys-file) or vault.keys (env HEARTH_VAULT_KEYS): one id:base64 per line, \
            the first sealing. To rotate: put a new key first, keep the old ones, restart, run 'hearth vault rekey', then \
            remove the old keys.
            """,
        subcommands: [NewKey.self, Status.self, Rekey.self]
    )

    struct NewKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-key", abstract: "Print a new random key line (id:base64) to put in the vault key file.")
        @Option(help: "The key's id (letters, digits, - and _; default k<date>).")
        var id: String?

        func validate() throws {
            if let id, id.isEmpty || id.count > 32 || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                throw ValidationError("--id must be 1 to 32 letters, digits, '-' or '_'")
            }
        }

        func run() async throws {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmm"
            print(ProviderTokenKeys.generate(id: id ?? "k\(formatter.string(from: Date()))"))
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Count the kept records per key (no token is shown).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("vault-keys-file"), help: "The vault key file (default: vault.keys.file / HEARTH_VAULT_KEYS_FILE).")
        var vaultKeysFile: String?

        func run() async throws {
            let report = try await Vault.pass(storeOptions: storeOptions, vaultKeysFile: vaultKeysFile, rekey: false)
            Vault.printReport(report.0, keys: report.1, rekeyed: false)
        }
    }

    struct Rekey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal every kept record with the active (first) key, so older keys can be removed.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(name: .customLong("vault-keys-file"), help: "The vault key file (default: vault.keys.file / HEARTH_VAULT_KEYS_FILE).")
        var vaultKeysFile: String?

        func run() async throws {
            let report = try await Vault.pass(storeOptions: storeOptions, vaultKeysFile: vaultKeysFile, rekey: true)
            Vault.printReport(report.0, keys: report.1, rekeyed: true)
            if report.0.unreadable > 0 { throw ExitCode(1) }
        }
    }

    static func pass(storeOptions: StoreOptions, vaultKeysFile: String?, rekey: Bool) async throws -> (ProviderTokenVaultMaintenance.Report, ProviderTokenKeys) {
        let settings = try storeOptions.settings(vaultKeysFile.map { [.vaultKeysFile: $0] } ?? [:])
        guard let keys = settings.providerTokenKeys else {
            throw CLIError("no vault keys: give --vault-keys-file (or set HEARTH_VAULT_KEYS_FILE / vault.keys.file)")
        }
        let store = try await HearthCLI.openStore(settings: settings, create: false, logger: .init(label: "hearth.store"))
        do {
            var report = try await ProviderTokenVaultMaintenance.pass(store: store, keys: keys, rekey: rekey)
            // Provider client secrets are sealed with the same keys: a rekey moves them to the active key too.
            if rekey { report.clientSecretsResealed = try await store.sealStoredClientSecrets() }
            try await store.close()
            return (report, keys)
        } catch {
            try? await store.close()
            throw error
        }
    }

    static func printReport(_ report: ProviderTokenVaultMaintenance.Report, keys: ProviderTokenKeys, rekeyed: Bool) {
        let total = report.recordsByKey.values.reduce(0, +)
        print("\(total) provider token record(s); active key \(keys.activeKeyId).")
        for (id, count) in report.recordsByKey.sorted(by: { $0.key < $1.key }) {
            let note = keys.keyIds.contains(id) ? (id == keys.activeKeyId ? " (active)" : " (older key)") : " (key NOT configured: these cannot be opened)"
            print("  key \(id): \(count)\(note)")
        }
        if rekeyed {
            print("Sealed \(report.resealed) record(s) again with key \(keys.activeKeyId).")
            print("Sealed \(report.clientSecretsResealed) provider client secret(s) with key \(keys.activeKeyId).")
        }
        if report.unreadable > 0 {
            print("\(report.unreadable) record(s) do not open with the configured keys: add their key to the key file, or they stay unusable (users sign in again to replace them).")
        }
    }
}
