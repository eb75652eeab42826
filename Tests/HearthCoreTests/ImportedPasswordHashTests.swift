import Foundation
import HearthCore
import Testing

@Suite struct ImportedPasswordHashTests {
    /// Firebase's published scrypt test vector (firebase/scrypt README).
    static let firebaseScrypt = ImportedPasswordHash(
        algorithm: .scrypt,
        hash: ImportedPasswordHash.decodeBase64("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")!,
        salt: ImportedPasswordHash.decodeBase64("42xEC+ixf3L2lw==")!,
        signerKey: ImportedPasswordHash.decodeBase64("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: ImportedPasswordHash.decodeBase64("Bw==")!, rounds: 8, memoryCost: 14)

    @Test func firebaseScryptTestVector() throws {
        try Self.firebaseScrypt.validate()
        #expect(Self.firebaseScrypt.verify("user1password"))
        #expect(!Self.firebaseScrypt.verify("user1passwore"))
        var otherKey = Self.firebaseScrypt
        otherKey.signerKey = Data(repeating: 7, count: 64)
        #expect(!otherKey.verify("user1password"))
    }

    @Test func bcryptVector() {
        let hash = ImportedPasswordHash(algorithm: .bcrypt, hash: Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8), salt: Data())
        #expect(hash.verify("U*U"))
        #expect(!hash.verify("U*V"))
    }

    @Test func storedFormRoundTripsAndIsRehashedOnSignIn() throws {
        let encoded = Self.firebaseScrypt.encoded
        #expect(encoded.hasPrefix(ImportedPasswordHash.prefix))
        #expect(ImportedPasswordHash(encoded: encoded) == Self.firebaseScrypt)
        let hasher = PasswordHasher(parameters: .init(rounds: 1 << 10))
        #expect(try hasher.verify("user1password", against: encoded))
        #expect(try !hasher.verify("nope", against: encoded))
        #expect(hasher.needsRehash(encoded))
    }

    @Test func digestAlgorithmsHonourTheInputOrder() {
        let salt = Data("salt".utf8)
        let saltFirst = ImportedPasswordHash(algorithm: .sha256, hash: Data(repeating: 0, count: 32), salt: salt, rounds: 1)
        var computed = saltFirst
        computed.hash = (try? saltFirst.compute("pw")) ?? Data()
        #expect(computed.verify("pw"))
        var passwordFirst = computed
        passwordFirst.passwordFirst = true
        #expect(!passwordFirst.verify("pw"))
    }

    @Test func badParametersAreRefused() {
        var scrypt = Self.firebaseScrypt
        scrypt.memoryCost = 20
        #expect(throws: ImportedPasswordHash.Error.self) { try scrypt.validate() }
        let huge = ImportedPasswordHash(algorithm: .standardScrypt, hash: Data([1]), salt: Data(), cpuMemCost: 1 << 24, parallelization: 1, blockSize: 8)
        #expect(throws: ImportedPasswordHash.Error.self) { try huge.validate() }
        let bcrypt = ImportedPasswordHash(algorithm: .bcrypt, hash: Data("plain".utf8), salt: Data())
        #expect(throws: ImportedPasswordHash.Error.self) { try bcrypt.validate() }
        #expect(ImportedPasswordHash(encoded: "import$%%%") == nil)
        #expect(ImportedPasswordHash.decodeBase64("42xEC-ixf3L2lw") == ImportedPasswordHash.decodeBase64("42xEC+ixf3L2lw=="))
    }
}
