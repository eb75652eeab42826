import Foundation
import HearthCore
import Testing

@Suite struct PasswordHasherTests {
    let hasher = PasswordHasher(parameters: .init(cost: 1 << 10))

    @Test func hashVerifiesOnlyTheRightPassword() throws {
        let encoded = try hasher.hash("correct horse")
        #expect(try hasher.verify("correct horse", against: encoded))
        #expect(try !hasher.verify("correct horsf", against: encoded))
        #expect(try !hasher.verify("", against: encoded))
    }

    @Test func saltsDiffer() throws {
        let a = try hasher.hash("same password")
        let b = try hasher.hash("same password")
        #expect(a != b)
        #expect(a.hasPrefix("scrypt$1024$8$1$"))
    }

    @Test func defaultCostIsFirebases() throws {
        let hasher = PasswordHasher()
        let encoded = try hasher.hash("correct horse")
        #expect(encoded.hasPrefix("scrypt$16384$8$1$"))
        #expect(try hasher.verify("correct horse", against: encoded))
    }

    @Test func parametersAreReadFromTheHashAndUpgradesAreDetected() throws {
        let old = try PasswordHasher(parameters: .init(cost: 1 << 8)).hash("correct horse")
        // A hasher with other parameters still verifies the old hash, and says it needs a rehash.
        #expect(try hasher.verify("correct horse", against: old))
        #expect(hasher.needsRehash(old))
        #expect(!hasher.needsRehash(try hasher.hash("x-y-z-w")))
    }

    @Test(arguments: ["", "scrypt$", "bcrypt$1$2$3$aa$bb", "scrypt$1000$8$1$AAAA$AAAA", "scrypt$1024$8$1$!!$AAAA"])
    func unreadableHashesAreErrors(_ encoded: String) {
        #expect(throws: PasswordHasher.Error.self) { try hasher.verify("x", against: encoded) }
    }
}

@Suite struct EmailAddressTests {
    @Test(arguments: [("Ada@Example.COM ", "ada@example.com"), ("a.b+c@sub.example.org", "a.b+c@sub.example.org")])
    func normalizes(_ input: String, _ expected: String) {
        #expect(EmailAddress.normalize(input) == expected)
    }

    @Test(arguments: ["", "ada", "ada@", "@example.com", "ada@example", "a b@example.com", "ada@-x.com", "ada@@example.com", "ada@ex..com"])
    func rejects(_ input: String) {
        #expect(EmailAddress.normalize(input) == nil)
    }
}
