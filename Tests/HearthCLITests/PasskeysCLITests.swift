import Foundation
import HearthCore
import HearthStoreSQLite
import HearthTesting
import Testing

/// `hearth users passkeys`, run as an administrator runs it against a data directory.
@Suite struct PasskeysCLITests {
    static func passkey(_ id: String, _ localId: String, name: String?, algorithm: Int, backedUp: Bool, usedAt: Date?) -> PasskeyCredential {
        PasskeyCredential(credentialId: id, localId: localId, userHandle: "aGFuZGxl", publicKey: "pA", algorithm: algorithm, signCount: 0,
                          name: name, backupEligible: backedUp, backedUp: backedUp, createdAt: Date(timeIntervalSince1970: 1_790_000_000),
                          lastUsedAt: usedAt)
    }

    @Test func usersPasskeysListsAndRemoves() async throws {
        let data = CLI.temporaryDirectory() + "/data"
        RunningServer.startAndStop(dataDir: data)
        let created = try CLI.run(["users", "create", "--email", "grace@example.com", "--password", "correct horse", "--data-dir", data])
        #expect(created.status == 0, "\(created.output)")
        var store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let uid = try #require(try await store.user(email: "grace@example.com")).localId
        #expect(try await store.insertPasskey(Self.passkey("-_-_AQ", uid, name: "MacBook", algorithm: -7, backedUp: true,
                                                           usedAt: Date(timeIntervalSince1970: 1_790_000_500))))
        #expect(try await store.insertPasskey(Self.passkey("AQID", uid, name: nil, algorithm: -8, backedUp: false, usedAt: nil)))
        #expect(try await store.insertPasskey(Self.passkey("BBBB", uid, name: "Key", algorithm: -257, backedUp: false, usedAt: nil)))
        try await store.close()

        let list = try CLI.run(["users", "passkeys", "list", "grace@example.com", "--data-dir", data])
        #expect(list.status == 0, "\(list.output)")
        #expect(list.stdout.contains("-_-_AQ\tMacBook\tES256\tsynced\t2026-09-21T"), "\(list.stdout)")
        #expect(list.stdout.contains("last used 2026-09-21T"))
        #expect(list.stdout.contains("AQID\t-\tEdDSA\tdevice-bound\t") && list.stdout.contains("never used"))
        #expect(list.stdout.contains("BBBB\tKey\tRS256\t"))
        #expect(!list.stdout.contains("aGFuZGxl"), "never the user handle")

        let unknown = try CLI.run(["users", "passkeys", "remove", uid, "--passkey", "CCCC", "--yes", "--data-dir", data])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("has no passkey CCCC"), "\(unknown.stderr)")
        let unconfirmed = try CLI.run(["users", "passkeys", "remove", uid, "--data-dir", data])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.stderr.contains("pass --yes"), "\(unconfirmed.stderr)")

        // One passkey, named in the standard alphabet with padding: the same credential id.
        let one = try CLI.run(["users", "passkeys", "remove", uid, "--passkey", "+/+/AQ==", "--yes", "--data-dir", data])
        #expect(one.status == 0, "\(one.output)")
        #expect(one.stdout.contains("Removed the passkey -_-_AQ (MacBook) of \(uid)."), "\(one.stdout)")
        let all = try CLI.run(["users", "passkeys", "remove", "grace@example.com", "--yes", "--data-dir", data])
        #expect(all.status == 0, "\(all.output)")
        #expect(all.stdout.contains("Removed all 2 passkeys of \(uid)."), "\(all.stdout)")
        #expect(try CLI.run(["users", "passkeys", "list", uid, "--data-dir", data]).stdout.contains("\(uid) has no passkey."))
        let none = try CLI.run(["users", "passkeys", "remove", uid, "--yes", "--data-dir", data])
        #expect(none.status != 0 && none.stderr.contains("nothing to remove"))

        store = try await SQLiteStore.open(path: data + "/hearth.sqlite")
        let audit = try await store.auditEntries(before: nil, limit: 20).filter { $0.action == "passkey.remove" && ($0.detail ?? "").hasPrefix("cli:") }
        #expect(try await store.passkeys(localId: uid).isEmpty)
        try await store.close()
        #expect(audit.count == 2, "one entry per removal")
    }
}
