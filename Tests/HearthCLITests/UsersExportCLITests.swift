import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import HearthWire
import Testing

/// Issue 41, item 3: `hearth users export` streams a page of users at a time into an owner-only file renamed over the
/// target, with a progress line on standard error; the file imports into another Hearth unchanged.
@Suite struct UsersExportCLITests {
    static let count = 3_000

    /// A Hearth scrypt hash (`scrypt$N$r$p$salt$hash`), as the server stores a password.
    static func hearthHash(_ index: Int) -> String {
        let salt = Data((0..<16).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }).base64EncodedString()
        let hash = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }).base64EncodedString()
        return "scrypt$16384$8$1$\(salt)$\(hash)"
    }

    /// `count` users with everything the file carries: passwords, providers, phone numbers, SMS second factors, claims.
    static func seed(_ dataDir: String) async throws {
        let store = try await SQLiteStore.open(path: dataDir + "/hearth.sqlite")
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<count {
            var identities: [ProviderIdentity] = []
            if index % 3 == 0 {
                identities.append(ProviderIdentity(providerId: "google.com", federatedId: "g\(index)", email: "g\(index)@gmail.com",
                                                   displayName: "Google \(index)", photoUrl: "https://example.com/\(index).png"))
            }
            var user = UserRecord(localId: String(format: "exp-%05d", index), email: index % 10 == 9 ? nil : "user\(index)@example.com",
                                  emailVerified: index % 2 == 0, displayName: "User {\"\(index)\"} ]", passwordHash: index % 4 == 0 ? hearthHash(index) : nil,
                                  disabled: index % 50 == 7, createdAt: created.addingTimeInterval(Double(index)), validSince: created,
                                  customClaims: index % 5 == 0 ? ["role": .string("admin"), "level": .number(Double(index))] : [:], identities: identities)
            user.lastLoginAt = index % 7 == 0 ? created.addingTimeInterval(Double(index) + 0.5) : nil
            if index % 11 == 0 { user.phoneNumber = "+1555\(String(format: "%07d", index))" }
            if index % 13 == 0 {
                user.mfa = UserMultiFactor(factors: [MultiFactorEnrollment(enrollmentId: "mfa-\(index)", displayName: "Phone", enrolledAt: created,
                                                                           phoneNumber: "+1666\(String(format: "%07d", index))")])
            }
            try await store.createUser(user)
        }
        try await store.close()
    }

    static func users(in file: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
        return try #require((object as? [String: Any])?["users"] as? [[String: Any]])
    }

    /// Issue 41, item 3: an export of 3 000 users (a few pages) is streamed with a progress line, written 0600 with no
    /// temporary file left beside it, and round-trips through `hearth users import` into another Hearth: the second
    /// export holds the same users, field for field (the password hashes were handed over with their parameters).
    @Test func exportStreamsAndRoundTripsThroughImport() async throws {
        let source = CLI.temporaryDirectory() + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try await Self.seed(source)
        let directory = CLI.temporaryDirectory() + "/exports"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/users.json"
        let exported = try CLI.run(["users", "export", file, "--data-dir", source])
        #expect(exported.status == 0, "\(exported.output)")
        #expect(exported.stdout.contains("Exported 3000 users to \(file)."), "\(exported.stdout)")
        #expect(exported.stdout.contains("Password hashes: STANDARD_SCRYPT --mem-cost 16384 --block-size 8 --parallelization 1 --dk-len 32"))
        // Not a terminal: a plain line per 10 % (a page is a third here) and the final one, on standard error only.
        #expect(exported.stderr.contains("33%  1 000 / 3 000 users") && exported.stderr.contains("100%  3 000 users"), "\(exported.stderr)")
        #expect(!exported.stdout.contains("%"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["users.json"], "no temporary file left")
        let first = try Self.users(in: file)
        #expect(first.count == Self.count)
        #expect(first.map { $0["localId"] as? String } == (0..<Self.count).map { String(format: "exp-%05d", $0) })
        let sample = first[78]
        #expect(sample["displayName"] as? String == "User {\"78\"} ]" && sample["email"] as? String == "user78@example.com")
        #expect((sample["mfaInfo"] as? [[String: Any]])?.first?["phoneInfo"] as? String == "+16660000078")
        #expect((sample["providerUserInfo"] as? [[String: Any]])?.first?["rawId"] as? String == "g78")

        let target = CLI.temporaryDirectory() + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try await SQLiteStore.open(path: target + "/hearth.sqlite").close()
        let imported = try CLI.run(["users", "import", file, "--hash-algo", "STANDARD_SCRYPT", "--mem-cost", "16384", "--block-size", "8",
                                    "--parallelization", "1", "--dk-len", "32", "--data-dir", target])
        #expect(imported.status == 0 && imported.stdout.contains("Imported 3000 of 3000 users"), "\(imported.output.suffix(2000))")
        let again = directory + "/again.json"
        let reexported = try CLI.run(["users", "export", again, "--data-dir", target])
        #expect(reexported.status == 0, "\(reexported.output)")
        // The imported hashes are Firebase-style until each user's next sign-in: not exported yet, and said so.
        #expect(reexported.stdout.contains("750 users still hold an imported hash"), "\(reexported.stdout)")
        let second = try Self.users(in: again)
        func comparable(_ user: [String: Any]) -> NSDictionary {
            var user = user
            user["passwordHash"] = nil
            user["salt"] = nil
            return user as NSDictionary
        }
        #expect(second.count == first.count)
        let mismatches = zip(first, second).filter { comparable($0) != comparable($1) }
        #expect(mismatches.isEmpty, "\(mismatches.count) users differ, e.g. \(mismatches.first.map { "\($0.0) vs \($0.1)" } ?? "")")
    }

    /// Issue 41, item 3: an export that cannot be written says so and leaves nothing behind (nor a target).
    @Test func anUnwritableExportLeavesNothing() async throws {
        let source = CLI.temporaryDirectory() + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try await SQLiteStore.open(path: source + "/hearth.sqlite").close()
        let missing = CLI.temporaryDirectory() + "/no-such-directory/users.json"
        let refused = try CLI.run(["users", "export", missing, "--data-dir", source])
        #expect(refused.status == 1 && refused.stderr.contains("could not write \(missing): check that its directory exists and is writable"),
                "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
