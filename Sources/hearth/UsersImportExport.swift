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
import Logging

/// One user in the Firebase CLI's `auth:export` / `auth:import` JSON format.
struct FirebaseAccountFileUser: Codable {
    var localId: String?
    var email: String?
    var emailVerified: Bool?
    var passwordHash: String?
    var salt: String?
    var displayName: String?
    var photoUrl: String?
    /// Milliseconds since 1970 (a string in `auth:export` files; numbers are accepted too).
    var lastSignedInAt: FlexibleInt?
    var createdAt: FlexibleInt?
    var phoneNumber: String?
    var disabled: Bool?
    var customAttributes: String?
    var providerUserInfo: [LinkProviderUserInfo]?
    /// Second factors: SMS factors (`phoneInfo`) are imported; a TOTP factor refuses the user (its secret is never exported).
    var mfaInfo: [MFAEnrollmentInfo]?
}

/// The `auth:export` file: `{"users": [...]}`.
struct FirebaseAccountFile: Codable {
    var users: [FirebaseAccountFileUser]
}

/// The exported form (times as strings, as `auth:export` writes them).
struct FirebaseExportUser: Encodable {
    var localId: String
    var email: String?
    var emailVerified: Bool
    var passwordHash: String?
    var salt: String?
    var displayName: String?
    var photoUrl: String?
    var lastSignedInAt: String?
    var createdAt: String
    var phoneNumber: String?
    var disabled: Bool
    var customAttributes: String?
    var providerUserInfo: [LinkProviderUserInfo]
    /// The user's SMS second factors (issue 40; TOTP factors are not exported: their secrets never leave the server).
    var mfaInfo: [MFAEnrollmentInfo]?
}

extension Users {
    /// `hearth users import`: a Firebase `auth:export` JSON file, with the project's password hash parameters.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import users from a Firebase auth:export JSON file; they sign in with their old passwords.",
            discussion: """
                Firebase's parameters are in the console (Authentication > Users > ⋮ > Password hash parameters):
                  hearth users import users.json --hash-algo SCRYPT --hash-key <base64_signer_key> \\
                    --salt-separator <base64_salt_separator> --rounds 8 --mem-cost 14
                Each password is re-hashed with Hearth's scrypt at the user's first sign-in.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "The JSON file (auth:export format).") var file: String
        @Option(name: .customLong("hash-algo"), help: "SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF2_SHA256, PBKDF_SHA1, HMAC_SHA512, HMAC_SHA256, HMAC_SHA1, HMAC_MD5, SHA512, SHA256, SHA1, MD5.")
        var hashAlgo: String?
        @Option(name: .customLong("hash-key"), help: "base64 signer key (SCRYPT) or HMAC key.") var hashKey: String?
        @Option(name: .customLong("salt-separator"), help: "base64 salt separator (SCRYPT).") var saltSeparator: String?
        @Option(help: "Hash rounds (SCRYPT: Firebase's rounds; PBKDF2/SHA*: iterations; BCRYPT: taken from the hash).") var rounds: Int?
        @Option(name: .customLong("mem-cost"), help: "SCRYPT: log2 of N (1-14); STANDARD_SCRYPT: N.") var memCost: Int?
        @Option(help: "STANDARD_SCRYPT parallelization (p).") var parallelization: Int?
        @Option(name: .customLong("block-size"), help: "STANDARD_SCRYPT block size (r).") var blockSize: Int?
        @Option(name: .customLong("dk-len"), help: "STANDARD_SCRYPT derived key length in bytes.") var dkLen: Int?
        @Option(name: .customLong("hash-input-order"), help: "SALT_FIRST (default) or PASSWORD_FIRST.") var hashInputOrder: String?
        @Flag(name: .customLong("allow-overwrite"), help: "Replace users whose uid exists (otherwise they are skipped and reported).")
        var allowOverwrite = false

        func run() async throws {
            // First pass: the file's frame checked and its users counted, streamed: a truncated or malformed file
            // imports nothing, and the progress bar knows its total.
            let scan = try UserFileStream.check(file, lookingForHashes: hashAlgo == nil)
            var request = ImportUsersRequest(users: [], hashAlgorithm: hashAlgo)
            request.signerKey = hashKey
            request.saltSeparator = saltSeparator
            request.rounds = rounds.map { FlexibleInt(Int64($0)) }
            if hashAlgo == "STANDARD_SCRYPT" {
                request.cpuMemCost = memCost.map { FlexibleInt(Int64($0)) }
            } else {
                request.memoryCost = memCost.map { FlexibleInt(Int64($0)) }
            }
            request.parallelization = parallelization.map { FlexibleInt(Int64($0)) }
            request.blockSize = blockSize.map { FlexibleInt(Int64($0)) }
            request.dkLen = dkLen.map { FlexibleInt(Int64($0)) }
            switch hashInputOrder?.uppercased() {
            case nil, "SALT_FIRST": break
            case "PASSWORD_FIRST": request.passwordHashOrder = "PASSWORD_AND_SALT"
            default: throw ValidationError("--hash-input-order is SALT_FIRST or PASSWORD_FIRST")
            }
            let template: ImportedPasswordHash?
            do {
                template = try AdminService.hashTemplate(request, needed: scan.hasPasswordHashes)
            } catch let error as HearthAPIError {
                throw ValidationError(error.description)
            }
            // A data directory without a database yet gets one, as `hearth serve` makes it (0700, the migrations).
            let settings = try storeOptions.settings()
            if settings.database == nil {
                try await HearthCLI.openStore(directory: settings.dataDir, create: true, durability: settings.sqliteDurability,
                                              logger: Logger(label: "hearth.store")).close()
            }
            let total = scan.users
            let overwrite = allowOverwrite
            let file = file
            let algorithm = hashAlgo
            let outcome = try await storeOptions.withScope(tenantOption.tenant) { service, scope, _ -> UserFileStream.Outcome in
                let progress = Progress(total: total, unit: "users")
                var outcome = UserFileStream.Outcome()
                do {
                    try await UserFileStream.read(file) { index, batch in
                        try await outcome.add(UserFileStream.importBatch(batch, from: index, template: template, allowOverwrite: overwrite,
                                                                         service: service, scope: scope))
                        progress.advance(to: outcome.processed)
                    }
                } catch {
                    // Stopped part-way (the database went away): what was imported is still audited.
                    try? await service.record("accounts.batchCreate", target: "\(total) users",
                                              detail: "imported \(outcome.imported), failed \(outcome.failed), stopped after \(outcome.processed), hash \(algorithm ?? "none") (from \((file as NSString).lastPathComponent))",
                                              by: HearthCLI.principal, in: scope)
                    FileHandle.standardError.write(Data("\n".utf8))
                    throw CLIError("the import stopped after \(outcome.processed) of \(total) users (\(outcome.imported) imported, \(outcome.failed) failed): \(HearthAPIError.answering(error)?.description ?? "\(error)")")
                }
                progress.finish()
                try await service.record("accounts.batchCreate", target: "\(total) users",
                                         detail: "imported \(outcome.imported), failed \(outcome.failed), hash \(algorithm ?? "none") (from \((file as NSString).lastPathComponent))",
                                         by: HearthCLI.principal, in: scope)
                return outcome
            }
            for failure in outcome.shown {
                print("user \(failure.index) (\(failure.uid ?? "no uid")): \(failure.message)")
            }
            if outcome.failed > outcome.shown.count { print("… and \(outcome.failed - outcome.shown.count) more") }
            print("Imported \(outcome.imported) of \(total) users\(outcome.failed == 0 ? "" : "; \(outcome.failed) failed").")
            if outcome.failed > 0 { throw ExitCode(1) }
        }
    }

    /// `hearth users export`: every user in the `auth:export` JSON format.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export users to a Firebase auth:export JSON file (mode 0600: it holds password hashes).",
            discussion: "Hearth's hashes are standard scrypt: the command prints the parameters to give `firebase auth:import --hash-algo STANDARD_SCRYPT`.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tenantOption: TenantOption
        @Argument(help: "Where to write the JSON file.") var file: String
        @Flag(help: "Replace an existing file.") var force = false

        func run() async throws {
            if !force, FileManager.default.fileExists(atPath: file) {
                throw CLIError("\(file) already exists: choose another file, or pass --force to replace it")
            }
            let target = file
            // Streamed (issue 41): a page of users read, encoded and written at a time (``UsersExportFile``).
            let (count, parameters, skipped) = try await storeOptions.withScope(tenantOption.tenant) { _, scope, _ -> (Int, Set<String>, Int) in
                let store = scope.store
                let progress = Progress(total: try await store.userCount(), unit: "users")
                var output = try UsersExportFile(target: target)
                do {
                    var parameters: Set<String> = []
                    var skipped = 0
                    var after: String?
                    while true {
                        let page = try await store.listUsers(after: after, limit: UsersExportFile.pageSize)
                        try output.append(page.map { FirebaseExportUser($0, parameters: &parameters, skipped: &skipped) })
                        progress.advance(to: output.count)
                        guard page.count == UsersExportFile.pageSize, let last = page.last else { break }
                        after = last.localId
                    }
                    try output.commit()
                    progress.finish(items: output.count)
                    return (output.count, parameters, skipped)
                } catch {
                    output.discard()
                    throw error
                }
            }
            print("Exported \(count) users to \(file).")
            if !parameters.isEmpty {
                print("Password hashes: STANDARD_SCRYPT \(parameters.sorted().joined(separator: " | "))")
            }
            if skipped > 0 {
                print("\(skipped) users still hold an imported hash (not yet signed in to Hearth): their password hash is not exported.")
            }
        }
    }
}
