import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire
import HearthStoreSQLite
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `hearth service-accounts`: the keys allowed to sign custom tokens for this project.
struct ServiceAccounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-accounts",
        abstract: "Manage the service-account keys that may sign custom tokens.",
        subcommands: [Create.self, Add.self, List.self, Remove.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a key pair, write a Google-format service-account JSON file (for the Firebase admin SDKs), then register its public key.")

        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The service account's email (the custom tokens' iss/sub), e.g. admin@demo-hearth.iam.gserviceaccount.com.")
        var email: String
        @Option(name: .customLong("project-id"), help: "Project id written into the file (default: the configured project, demo-hearth).")
        var projectId: String?
        @Option(help: "Where to write the JSON file (mode 0600). It holds the private key.")
        var out: String
        @Option(name: .customLong("public-url"), help: "The server's external URL for token_uri (default: the configured public.url, else the URL the server last started with).")
        var publicURL: String?
        @Flag(help: "Replace an existing file at --out.")
        var force = false

        func validate() throws {
            guard EmailAddress.normalize(email) != nil, email == email.trimmingCharacters(in: .whitespaces) else {
                throw ValidationError("--email \(email) is not an email address (e.g. admin@demo-hearth.iam.gserviceaccount.com)")
            }
            if let publicURL, URLComponents(string: publicURL)?.host == nil || !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
                throw ValidationError("--public-url \(publicURL) is not an http(s) URL")
            }
        }

        func run() async throws {
            if !force, FileManager.default.fileExists(atPath: out) {
                throw CLIError("\(out) already exists: choose another --out, or pass --force to replace it")
            }
            try await storeOptions.withService(projectId: projectId) { service, store, settings in
                let project = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
                let base = await settings.serverURL(store: store, explicit: publicURL)
                let generated = try ServiceAccountKey.generate(clientEmail: email, projectId: project.projectId, publicURL: base, now: Date())
                // The file first (a registered key without its private half is useless), atomically, mode 0600.
                try Self.writeSecretFile(generated.file, to: out, replace: force)
                do {
                    try await service.registerServiceAccountKey(generated.key, by: HearthCLI.principal)
                } catch {
                    try? FileManager.default.removeItem(atPath: out)
                    throw CLIError("could not register the key (the file \(out) was removed again)")
                }
                print("Wrote \(out) (keep it secret) and registered key \(generated.key.keyId) for \(email); token_uri \(base)/oauth2.googleapis.com/token.")
            }
        }

        /// Writes `data` to a temporary file (0600) next to `path`, then renames it into place.
        static func writeSecretFile(_ data: Data, to path: String, replace: Bool) throws {
            let directory = (path as NSString).deletingLastPathComponent
            let temporary = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(UUID().uuidString).tmp")
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("cannot write \(path): check that \(directory.isEmpty ? "the current directory" : directory) exists and is writable")
            }
            if !replace, FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: temporary)
                throw CLIError("\(path) already exists: choose another --out, or pass --force to replace it")
            }
            guard rename(temporary, path) == 0 else {
                try? FileManager.default.removeItem(atPath: temporary)
                throw CLIError("cannot write \(path): check that the path is a writable file location")
            }
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
            guard FileManager.default.fileExists(atPath: publicKey) else { throw CLIError("the public key file \(publicKey) does not exist") }
            guard let data = FileManager.default.contents(atPath: publicKey) else {
                throw CLIError("the public key file \(publicKey) cannot be read (check its permissions)")
            }
            let pem = String(decoding: data, as: UTF8.self)
            guard ServiceAccountKey.rsaPublicKey(pem: pem) != nil else {
                throw CLIError("\(publicKey) holds no PEM RSA public key or certificate (-----BEGIN PUBLIC KEY----- or -----BEGIN CERTIFICATE-----)")
            }
            let key = ServiceAccountKey(clientEmail: email, keyId: keyId, publicKeyPEM: pem, createdAt: Date())
            try await storeOptions.withService { service, _, _ in
                try await HearthCLI.plainly { try await service.registerServiceAccountKey(key, by: HearthCLI.principal) }
            }
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
            try await storeOptions.withService { service, _, _ in
                do {
                    try await HearthCLI.answered { try await service.removeServiceAccountKey(clientEmail: email, keyId: keyId, by: HearthCLI.principal) }
                } catch let error as HearthAPIError where error.code == .configurationNotFound {
                    throw ValidationError("no key \(keyId) for \(email)")
                }
            }
            print("Removed key \(keyId) of \(email).")
        }
    }
}
