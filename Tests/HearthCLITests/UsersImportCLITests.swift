import Foundation
import HearthTesting
import Testing

/// Issue 41 (H1): `hearth users import` streams its file in batches through the admin service's batch import, with
/// a progress bar on standard error, into a data directory that may not exist yet.
@Suite struct UsersImportCLITests {
    static let firebaseScrypt = ["--hash-algo", "SCRYPT", "--hash-key",
                                 "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
                                 "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14"]

    /// An `auth:export` file of `count` users (Firebase's scrypt hash for user 0, random ones of its shape for the
    /// rest, a Google identity each, a phone number every 7th, claims); `tweak` replaces a user's JSON.
    static func exportFile(_ count: Int, tweak: [Int: String] = [:]) throws -> String {
        var text = "{\"users\": [\n"
        for i in 0..<count {
            if i > 0 { text += ",\n" }
            if let replaced = tweak[i] { text += replaced; continue }
            let hash = i == 0 ? "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
                : Data((0..<64).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let phone = i % 7 == 0 ? #","phoneNumber":"+1555\#(String(10_000_000 + i).dropFirst())""# : ""
            text += #"{"localId":"imp-\#(i)","email":"imp\#(i)@example.com","emailVerified":true,"displayName":"Imported {\"\#(i)\"} [é]","#
                + #""passwordHash":"\#(hash)","salt":"42xEC+ixf3L2lw==","createdAt":"1500000000000","lastSignedInAt":"1600000000000","#
                + #""customAttributes":"{\"plan\":\"pro\"}","providerUserInfo":[{"providerId":"google.com","rawId":"g-\#(i)","email":"imp\#(i)@gmail.com"}]\#(phone)}"#
        }
        text += "\n]}\n"
        let file = CLI.temporaryDirectory() + "/firebase-export.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// Issue 41, H1 (streaming CLI import): 12 000 users into a data directory that does not exist yet — created 0700
    /// with its database — on SQLite and PostgreSQL: the users with their identities and phone numbers, the three bad
    /// ones reported by their index and uid (an email taken, a user that does not decode, a hash that is not base64)
    /// while the others go on, a plain progress line per 10 % on standard error (not a terminal) and none on
    /// standard output; a second run reports the uids that exist, the first 50 and "… and N more".
    @Test(arguments: HooksCLITests.stores)
    func importsAGeneratedFileInBatchesWithProgress(store: String) async throws {
        let file = try Self.exportFile(12_000, tweak: [
            17: #"{"localId":"imp-17","email":"imp3@example.com"}"#,
            2_500: #"{"localId":"imp-2500","email":["not","a","string"]}"#,
            4_000: #"{"localId":"imp-4000","passwordHash":"%%%"}"#,
        ])
        try await HooksCLITests.withPlace(store) { place in
            let dataDir = try #require(place.arguments.last)
            #expect(!FileManager.default.fileExists(atPath: dataDir))
            let done = try CLI.run(["users", "import", file] + Self.firebaseScrypt + place.arguments, timeout: 300)
            #expect(done.status == 1, "\(done.output)")
            #expect(done.stdout.contains("Imported 11997 of 12000 users; 3 failed."), "\(done.stdout)")
            #expect(done.stdout.contains("user 17 (imp-17): EMAIL_EXISTS"), "\(done.stdout)")
            #expect(done.stdout.contains("user 2500 (imp-2500): INVALID_ARGUMENT : the user is not an auth:export user object: email"), "\(done.stdout)")
            #expect(done.stdout.contains("user 4000 (imp-4000): INVALID_ARGUMENT : passwordHash is not base64"), "\(done.stdout)")
            // A line each time another 10 % is done (here at each batch of 5 000: 41 %, 83 %), then the last one.
            let progress = done.stderr.split(separator: "\n")
            for percent in ["41%", "83%"] {
                #expect(progress.contains { $0.hasPrefix(percent) && $0.contains(" / 12 000 users") && $0.contains("users/s") }, "\(done.stderr)")
            }
            #expect(progress.last?.hasPrefix("100%  12 000 users") == true, "\(done.stderr)")
            #expect(!done.stderr.contains("\r") && !done.stdout.contains("%  "))
            if store == "sqlite" {
                let attributes = try FileManager.default.attributesOfItem(atPath: dataDir)
                #expect((attributes[.posixPermissions] as? Int) == 0o700)
                #expect(FileManager.default.fileExists(atPath: dataDir + "/hearth.sqlite"))
            }
            let shown = try CLI.run(["users", "get", "imp-11998"] + place.arguments)
            #expect(shown.stdout.contains("imp11998@example.com") && shown.stdout.contains("google.com"), "\(shown.output)")
            let withPhone = try CLI.run(["users", "get", "+15550004991"] + place.arguments)
            #expect(withPhone.stdout.contains("imp-4991"), "\(withPhone.output)")
            #expect(try CLI.run(["users", "get", "imp-2500"] + place.arguments).status != 0)

            let again = try CLI.run(["users", "import", file] + Self.firebaseScrypt + place.arguments, timeout: 300)
            #expect(again.status == 1)
            #expect(again.stdout.contains("user 0 (imp-0): uid exists (use --allow-overwrite to replace it)"), "\(again.stdout)")
            #expect(again.stdout.contains("… and 11950 more") && again.stdout.contains("Imported 0 of 12000 users; 12000 failed."), "\(again.stdout)")
        }
    }

    /// Issue 41, H1 (streaming CLI import): a truncated file, a top level that is not an object, and a file without
    /// a "users" array are refused before anything is written — exit 1, what is wrong and at which byte, nothing on
    /// standard output, no data directory made; a hash without --hash-algo is still refused up front; a data
    /// directory path that is a file is refused in words.
    @Test func malformedFilesImportNothing() async throws {
        let whole = try String(contentsOfFile: try Self.exportFile(3_000), encoding: .utf8)
        let directory = CLI.temporaryDirectory()
        let cases: [(String, String)] = [
            (String(whole.prefix(whole.utf8.count / 2)), "the file ends before its JSON does (truncated after byte"),
            (#"[{"localId":"a"}]"#, "the file is not a JSON object"),
            (#"{"accounts": [{"localId":"a"}]}"#, #"the file has no "users" array"#),
            ("", "the file is empty"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let file = directory + "/bad-\(index).json"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let dataDir = directory + "/data-\(index)"
            let refused = try CLI.run(["users", "import", file, "--data-dir", dataDir] + Self.firebaseScrypt)
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.stderr.contains("is not an auth:export JSON file") && refused.stderr.contains(expected)
                    && refused.stderr.contains("nothing was imported"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(refused.stdout)")
            #expect(!FileManager.default.fileExists(atPath: dataDir))
        }
        let hashes = try Self.exportFile(3)
        let noAlgorithm = try CLI.run(["users", "import", hashes, "--data-dir", directory + "/data-hash"])
        #expect(noAlgorithm.status == 64 && noAlgorithm.stderr.contains("MISSING_HASH_ALGORITHM"), "\(noAlgorithm.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data-hash"))
        let aFile = directory + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: aFile))
        let onFile = try CLI.run(["users", "import", hashes, "--data-dir", aFile] + Self.firebaseScrypt)
        #expect(onFile.status == 1 && onFile.stderr.contains("is a file, not a directory"), "\(onFile.output)")
        let missing = try CLI.run(["users", "import", directory + "/nope.json", "--data-dir", directory + "/data-none"] + Self.firebaseScrypt)
        #expect(missing.status == 1 && missing.stderr.contains("cannot read") && missing.stderr.contains("nope.json"), "\(missing.output)")
    }
}
