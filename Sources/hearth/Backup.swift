import ArgumentParser
import Foundation
import HearthCore
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `hearth backup --to FILE`: an online copy of the SQLite database, and beside it the data directory's key files
/// the copy needs (`FILE.totp-secrets.key`: without it every enrolled TOTP factor is lost; issue 35, item 11).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database to a file while the server runs (SQLite's online backup), with the key files it needs beside it.",
        discussion: """
            Writes FILE (the database) and, when the data directory has them, FILE.totp-secrets.key (the key sealing the \
            users' TOTP secrets: a database restored without it loses every second factor) and FILE.dev-idp-clients.json \
            (the --dev identity providers' clients), all mode 600. The vault keys file, if any, is not copied: keep it apart.
            Restore: stop the server, remove <data-dir>/hearth.sqlite-wal and -shm, copy FILE to <data-dir>/hearth.sqlite and \
            FILE.totp-secrets.key to <data-dir>/totp-secrets.key, start it (the command prints these steps with the paths).
            For PostgreSQL use pg_dump: pg_dump --format=custom --file=hearth.dump "$HEARTH_DATABASE_URL" (see docs/deployment.md).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The file to write (must not exist); the key files go beside it as FILE.totp-secrets.key and FILE.dev-idp-clients.json.")
    var to: String

    /// The data directory's files a restore needs besides the database: its name there, and what it is for.
    static let keyFiles: [(name: String, purpose: String)] = [
        ("totp-secrets.key", "the key sealing the users' TOTP secrets: without it every enrolled second factor is lost"),
        ("dev-idp-clients.json", "the --dev identity providers' client ids and secrets"),
    ]

    func run() async throws {
        let settings = try storeOptions.settings()
        if let database = settings.database {
            throw CLIError("hearth backup copies the SQLite store; for PostgreSQL (\(database.maskedURL)) use pg_dump --format=custom --file=hearth.dump <url> (see docs/deployment.md)")
        }
        let present = Self.keyFiles.filter { FileManager.default.fileExists(atPath: (settings.dataDir as NSString).appendingPathComponent($0.name)) }
        for target in [to] + present.map({ "\(to).\($0.name)" }) where FileManager.default.fileExists(atPath: target) {
            throw CLIError("\(target) exists: give a new file name")
        }
        let census: SealedFactorCensus? = try await storeOptions.withStore { store in
            guard let sqlite = store as? SQLiteStore else { throw CLIError("hearth backup copies the SQLite store") }
            do {
                try await sqlite.backup(to: to)
            } catch StoreError.backend(let message) {
                throw CLIError(message)
            }
            return try? await sqlite.sealedTOTPFactors()
        }
        var lines = ["backed up \(settings.storeDescription) to \(to)"]
        var copied: [(from: String, to: String)] = []
        for file in present {
            let source = (settings.dataDir as NSString).appendingPathComponent(file.name)
            let target = "\(to).\(file.name)"
            try Self.copyOwnerOnly(source, to: target)
            copied.append((source, target))
            lines.append("backed up \(source) to \(target) (\(file.purpose))")
        }
        // What the users' second factors need, by key: in this backup, in the vault keys file, or nowhere.
        let local = try LocalSecretKeyFile.load(directory: settings.dataDir)
        for (keyId, entry) in (census?.byKey ?? [:]).sorted(by: { $0.key < $1.key }) {
            let counted = "\(entry.factors) TOTP second factor(s) of \(entry.users.count) user(s)"
            if local?.keyIds.contains(keyId) == true {
                lines.append("  \(counted) sealed with key \(keyId): in \(to).totp-secrets.key")
            } else if settings.providerTokenKeys?.keyIds.contains(keyId) == true {
                lines.append("  \(counted) sealed with vault key \(keyId): in the vault keys file, which this backup does not hold")
            } else {
                lines.append("  WARNING: \(counted) sealed with key \(keyId), which neither the data directory nor the vault keys have: those factors cannot be used now either")
            }
        }
        if let file = settings.providerTokenKeysFile {
            lines.append("NOT in this backup: the vault keys file \(file) (it seals provider tokens, provider client secrets and TOTP secrets): keep a copy of it, apart from the database backups")
        } else if settings.providerTokenKeys != nil {
            lines.append("NOT in this backup: the vault keys (vault.keys / HEARTH_VAULT_KEYS): keep a copy of them, apart from the database backups")
        }
        let dataDir = settings.dataDir
        lines.append("To restore: stop the server, then")
        lines.append("  rm -f \(dataDir)/hearth.sqlite-wal \(dataDir)/hearth.sqlite-shm")
        lines.append("  cp \(to) \(dataDir)/hearth.sqlite")
        for file in copied { lines.append("  cp \(file.to) \(file.from)") }
        lines.append("and start it (docs/deployment.md#backups-and-restore).")
        print(lines.joined(separator: "\n"))
    }

    /// Copies `source` to a new file `target`, mode 0600 (never over an existing file or through a planted link).
    static func copyOwnerOnly(_ source: String, to target: String) throws {
        guard let data = FileManager.default.contents(atPath: source) else { throw CLIError("cannot read \(source): check its permissions") }
        let descriptor = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CLIError("cannot write \(target): check that its directory exists and is writable") }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count else {
            unlink(target)
            throw CLIError("cannot write \(target) (is the disk full?)")
        }
    }
}
