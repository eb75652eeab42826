import ArgumentParser
import Foundation
import HearthStore
import HearthStorePostgres
import HearthStoreSQLite
import Logging

/// `hearth backup --to FILE`: an online copy of the SQLite database.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database to a file while the server runs (SQLite's online backup).",
        discussion: """
            Restore by stopping the server and putting the copy in place as <data-dir>/hearth.sqlite.
            For PostgreSQL use pg_dump: pg_dump --format=custom --file=hearth.dump "$HEARTH_DATABASE_URL" (see docs/deployment.md).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The file to write (must not exist).")
    var to: String

    func run() async throws {
        let settings = try storeOptions.settings()
        if let database = settings.database {
            throw CLIError("hearth backup copies the SQLite store; for PostgreSQL (\(database.maskedURL)) use pg_dump --format=custom --file=hearth.dump <url> (see docs/deployment.md)")
        }
        guard !FileManager.default.fileExists(atPath: to) else { throw CLIError("\(to) exists: give a new file name") }
        try await storeOptions.withStore { store in
            guard let sqlite = store as? SQLiteStore else { throw CLIError("hearth backup copies the SQLite store") }
            do {
                try await sqlite.backup(to: to)
            } catch StoreError.backend(let message) {
                throw CLIError(message)
            }
        }
        print("backed up \(settings.storeDescription) to \(to)")
    }
}
