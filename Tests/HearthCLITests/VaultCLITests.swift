import Foundation
import HearthCore
import HearthStoreSQLite
import Testing

/// The provider token vault's settings and commands, through the real `hearth` binary.
@Suite struct VaultCLITests {
    @Test func newKeyMakesAUsableKeyAndServeSaysTheVaultIsOn() async throws {
        let made = try CLI.run(["vault", "new-key", "--id", "k1"])
        #expect(made.status == 0, "\(made.output)")
        let line = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let keys = try ProviderTokenKeys.parse(line)
        #expect(keys.activeKeyId == "k1")
        #expect(try CLI.run(["vault", "new-key"]).stdout != made.stdout)
        #expect(try CLI.run(["vault", "new-key", "--id", "no spaces"]).status != 0)

        let directory = CLI.temporaryDirectory()
        let file = directory + "/vault-keys"
        try (line + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let data = directory + "/data"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let readable = try RunningServer.start(["--vault-keys-file", file], dataDir: data)
        readable.stop()
        #expect(readable.log.contains("can be read by other users (mode 644): chmod 600 it"), "\(readable.log)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let on = try RunningServer.start(["--vault-keys-file", file], dataDir: data)
        on.stop()
        #expect(on.banner.contains("token vault:   on (key k1 seals, 1 key(s))"), "\(on.banner)")
        #expect(!on.log.contains("can be read by other users"))
        #expect(!on.banner.contains(String(line.dropFirst(3))) && !on.log.contains(String(line.dropFirst(3))))
        let off = try RunningServer.start([], dataDir: data)
        off.stop()
        #expect(off.banner.contains("token vault:   off"), "\(off.banner)")

        // status: counts per key, no token shown; without keys a clear error.
        let status = try CLI.run(["vault", "status", "--data-dir", data, "--vault-keys-file", file])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.stdout.contains("0 provider token record(s); active key k1."))
        let rekey = try CLI.run(["vault", "rekey", "--data-dir", data])
        #expect(rekey.status != 0)
        #expect(rekey.output.contains("no vault keys"), "\(rekey.output)")
    }

    @Test func badVaultKeysAreRefusedWithoutEchoingThem() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let secretish = "k1:c2hvcnQtYnV0LXNlY3JldA=="
        let short = try CLI.run(["serve", "--port", "0", "--data-dir", data], environment: ["HEARTH_VAULT_KEYS": secretish], timeout: 20)
        #expect(short.status != 0)
        #expect(short.output.contains("HEARTH_VAULT_KEYS") && short.output.contains("32 bytes"), "\(short.output)")
        #expect(!short.output.contains("c2hvcnQtYnV0LXNlY3JldA"))
        let both = try CLI.run(["serve", "--port", "0", "--data-dir", data, "--vault-keys-file", "/nonexistent"],
                               environment: ["HEARTH_VAULT_KEYS": secretish], timeout: 20)
        #expect(both.output.contains("not both"), "\(both.output)")
        // The file form, nested in a configuration file.
        let config = CLI.temporaryDirectory() + "/hearth.json"
        try #"{"vault": {"keys": {"file": "/nonexistent/keys"}}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let missing = try CLI.run(["serve", "--port", "0", "--data-dir", data, "--config", config], timeout: 20)
        #expect(missing.status != 0)
        #expect(missing.output.contains("\"vault.keys.file\" in \(config)") && missing.output.contains("cannot be read"), "\(missing.output)")
        // A misspelt key is named with a suggestion.
        try #"{"vault": {"kyes": "x"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let typo = try CLI.run(["serve", "--port", "0", "--data-dir", data, "--config", config], timeout: 20)
        #expect(typo.output.contains("did you mean \"vault.keys\""), "\(typo.output)")
    }

    @Test func providersEnableSetsNativeClientIdsAndTheVault() throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let enable = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--client-id", "WEB-ID", "--client-secret", "s3cret",
                                  "--native-client-id", "MSAL-IOS", "--native-client-id", "MSAL-ANDROID", "--no-token-vault"])
        #expect(enable.status == 0, "\(enable.output)")
        #expect(enable.stdout.contains("token vault off, native client ids MSAL-IOS,MSAL-ANDROID"), "\(enable.stdout)")
        let list = try CLI.run(["providers", "list", "--data-dir", data])
        #expect(list.stdout.contains("token vault off\tnative clients MSAL-IOS,MSAL-ANDROID"), "\(list.stdout)")
        // Settings not given are kept; the vault back on; the list cleared.
        let again = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--token-vault"])
        // On for the provider; the server has no vault keys, so the command says the vault stays off until it has.
        #expect(again.stdout.contains("token vault off (no vault keys: give the server --vault-keys-file; hearth vault new-key makes one), native client ids MSAL-IOS,MSAL-ANDROID"), "\(again.output)")
        let cleared = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--clear-native-client-ids"])
        #expect(cleared.status == 0 && !cleared.stdout.contains("native client ids"), "\(cleared.output)")
        let conflicting = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--clear-native-client-ids", "--native-client-id", "X"])
        #expect(conflicting.status != 0)
        #expect(conflicting.output.contains("not both"))
    }

    /// A user linked to microsoft.com with a vault record sealed by `keys`, written straight into the SQLite store.
    static func seedRecord(data: String, keys: ProviderTokenKeys, localId: String) async throws {
        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        try await store.createUser(UserRecord(localId: localId, createdAt: Date(), validSince: Date(),
                                              identities: [ProviderIdentity(providerId: "microsoft.com", federatedId: "oid-\(localId)")]))
        let (keyId, sealed) = try keys.seal(ProviderTokens(refreshToken: "rt-\(localId)", accessToken: nil, accessTokenExpiresAt: nil, clientId: "WEB-ID"),
                                            localId: localId, providerId: "microsoft.com")
        _ = try await store.saveProviderTokens(ProviderTokenRecord(localId: localId, providerId: "microsoft.com", federatedId: "oid-\(localId)",
                                                                   keyId: keyId, sealed: sealed, accessTokenExpiresAt: nil, updatedAt: Date()))
        try await store.close()
    }

    static func recordCount(data: String) async throws -> Int {
        let store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let count = try await store.providerTokenRecords(after: nil, limit: 100).count
        try await store.close()
        return count
    }

    @Test func rekeyMovesRecordsAndTurningTheVaultOffDeletesThem() async throws {
        let directory = CLI.temporaryDirectory()
        let data = directory + "/data"
        RunningServer.startAndStop(dataDir: data)
        let old = ProviderTokenKeys.generate(id: "old")
        let new = ProviderTokenKeys.generate(id: "new")
        for id in ["u1", "u2"] { try await Self.seedRecord(data: data, keys: try ProviderTokenKeys.parse(old), localId: id) }
        let file = directory + "/keys"
        try "\(new)\n\(old)\n".write(toFile: file, atomically: true, encoding: .utf8)

        let before = try CLI.run(["vault", "status", "--data-dir", data, "--vault-keys-file", file])
        #expect(before.stdout.contains("key old: 2 (older key)"), "\(before.output)")
        let rekey = try CLI.run(["vault", "rekey", "--data-dir", data, "--vault-keys-file", file])
        #expect(rekey.status == 0, "\(rekey.output)")
        #expect(rekey.stdout.contains("Sealed 2 record(s) again with key new."), "\(rekey.output)")
        #expect(!rekey.output.contains("rt-u1"))
        let after = try CLI.run(["vault", "status", "--data-dir", data, "--vault-keys-file", file])
        #expect(after.stdout.contains("key new: 2 (active)") && !after.stdout.contains("key old"), "\(after.output)")
        // Without the key that sealed them: said, and a failing exit.
        try "\(ProviderTokenKeys.generate(id: "other"))\n".write(toFile: file, atomically: true, encoding: .utf8)
        let lost = try CLI.run(["vault", "rekey", "--data-dir", data, "--vault-keys-file", file])
        #expect(lost.status != 0)
        #expect(lost.stdout.contains("key new: 2 (key NOT configured") && lost.stdout.contains("2 record(s) do not open"), "\(lost.output)")

        // Turning the vault off for microsoft.com deletes its records; so does removing the provider.
        #expect(try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--client-id", "WEB-ID", "--client-secret", "s"]).status == 0)
        #expect(try await Self.recordCount(data: data) == 2)
        #expect(try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--no-token-vault"]).status == 0)
        #expect(try await Self.recordCount(data: data) == 0)
        try await Self.seedRecord(data: data, keys: try ProviderTokenKeys.parse(new), localId: "u3")
        #expect(try CLI.run(["providers", "remove", "microsoft.com", "--data-dir", data]).status == 0)
        #expect(try await Self.recordCount(data: data) == 0)
    }
}
