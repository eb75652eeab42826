import ArgumentParser
import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import Logging

/// `hearth service-accounts`: the keys allowed to sign custom tokens for this project.
struct ServiceAccounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-accounts",
        abstract: "Manage the service-account keys that may sign custom tokens.",
        subcommands: [Create.self, Add.self, List.self, Remove.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a key pair, register its public key, and write a Google-format service-account JSON file (for the Firebase admin SDKs).")

        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The service account's email (the custom tokens' iss/sub).")
        var email: String
        @Option(name: .customLong("project-id"), help: "Project id written into the file (default demo-hearth).")
        var projectId: String = "demo-hearth"
        @Option(help: "Where to write the JSON file (mode 0600). It holds the private key.")
        var out: String

        func run() async throws {
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let keyId = RandomID.token(byteCount: 20).lowercased().filter { $0.isLetter || $0.isNumber }
            let registration = ServiceAccountKey(clientEmail: email, keyId: keyId, publicKeyPEM: key.publicKey.pemRepresentation, createdAt: Date())
            try await storeOptions.withStore { try await $0.saveServiceAccountKey(registration) }
            let file: [String: String] = [
                "type": "service_account", "project_id": projectId, "private_key_id": keyId,
                "private_key": key.pkcs8PEMRepresentation + "\n", "client_email": email, "client_id": "0",
                "token_uri": "http://127.0.0.1:9099/token-not-used",
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(file)
            guard FileManager.default.createFile(atPath: out, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("could not write \(out)")
            }
            print("Registered key \(keyId) for \(email); wrote \(out) (keep it secret).")
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register an existing public key (PEM public key or certificate).")

        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The service account's email.")
        var email: String
        @Option(name: .customLong("key-id"), help: "The key id signers put in the JWT header (private_key_id).")
        var keyId: String
        @Option(name: .customLong("public-key"), help: "A PEM file with the RSA public key or a certificate.")
        var publicKey: String

        func run() async throws {
            let pem = try String(contentsOfFile: publicKey, encoding: .utf8)
            guard ServiceAccountKey.rsaPublicKey(pem: pem) != nil else { throw ValidationError("\(publicKey) holds no RSA public key or certificate") }
            try await storeOptions.withStore { try await $0.saveServiceAccountKey(ServiceAccountKey(clientEmail: email, keyId: keyId, publicKeyPEM: pem, createdAt: Date())) }
            print("Registered key \(keyId) for \(email).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered service-account keys.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let keys = try await storeOptions.withStore { try await $0.allServiceAccountKeys() }
            if keys.isEmpty { print("No service-account keys.") }
            for key in keys { print("\(key.clientEmail)\t\(key.keyId)\t\(key.createdAt.formatted(.iso8601))") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a service-account key.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The service account's email.")
        var email: String
        @Option(name: .customLong("key-id"), help: "The key id.")
        var keyId: String

        func run() async throws {
            let removed = try await storeOptions.withStore { try await $0.deleteServiceAccountKey(clientEmail: email, keyId: keyId) }
            guard removed else { throw ValidationError("no key \(keyId) for \(email)") }
            print("Removed key \(keyId) of \(email).")
        }
    }
}

extension StoreOptions {
    /// The data directory: the option, else HEARTH_DATA_DIR, else ./.hearth.
    var dataDirectory: String {
        dataDir ?? ProcessInfo.processInfo.environment["HEARTH_DATA_DIR"] ?? "./.hearth"
    }

    /// Runs `body` with the data directory's store open, and closes it afterwards, also when `body` fails.
    /// (Administration commands may run while the server runs: SQLite's WAL mode serializes the writers.)
    func withStore<T: Sendable>(_ body: (SQLiteStore) async throws -> T) async throws -> T {
        let store = try await HearthCLI.openStore(directory: dataDirectory, logger: Logger(label: "hearth.store"))
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}
