import Foundation
import HearthCore
import Testing

/// Runs scrypt-heavy work on a Dispatch thread: blocking the two cooperative threads of this machine for seconds
/// would stall every concurrently running server test.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

@Suite struct ImportedPasswordHashTests {
    /// Firebase's published scrypt test vector (firebase/scrypt README).
    static let firebaseScrypt = ImportedPasswordHash(
        algorithm: .scrypt,
        hash: ImportedPasswordHash.decodeBase64("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")!,
        salt: ImportedPasswordHash.decodeBase64("42xEC+ixf3L2lw==")!,
        signerKey: ImportedPasswordHash.decodeBase64("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: ImportedPasswordHash.decodeBase64("Bw==")!, rounds: 8, memoryCost: 14)

    @Test func firebaseScryptTestVector() async throws {
        try Self.firebaseScrypt.validate()
        var otherKey = Self.firebaseScrypt
        otherKey.signerKey = Data(repeating: 7, count: 64)
        let key = otherKey
        let results = try await offPool {
            (Self.firebaseScrypt.verify("user1password"), Self.firebaseScrypt.verify("user1passwore"), key.verify("user1password"))
        }
        #expect(results.0)
        #expect(!results.1)
        #expect(!results.2)
    }

    @Test func bcryptVector() async throws {
        let hash = ImportedPasswordHash(algorithm: .bcrypt, hash: Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8), salt: Data())
        let results = try await offPool { (hash.verify("U*U"), hash.verify("U*V")) }
        #expect(results.0)
        #expect(!results.1)
    }

    @Test func storedFormRoundTripsAndIsRehashedOnSignIn() async throws {
        let encoded = Self.firebaseScrypt.encoded
        #expect(encoded.hasPrefix(ImportedPasswordHash.prefix))
        #expect(ImportedPasswordHash(encoded: encoded) == Self.firebaseScrypt)
        let hasher = PasswordHasher(parameters: .init(cost: 1 << 10))
        let results = try await offPool { (try hasher.verify("user1password", against: encoded), try hasher.verify("nope", against: encoded)) }
        #expect(results.0)
        #expect(!results.1)
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
