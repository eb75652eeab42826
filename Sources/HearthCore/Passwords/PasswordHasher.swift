import Crypto
import CryptoExtras
import Foundation

/// scrypt password hashing (swift-crypto's CryptoExtras) with a per-user salt. The parameters are stored in
/// each encoded hash (`scrypt$N$r$p$salt$hash`), so they can be raised later: ``needsRehash(_:)`` tells which
/// hashes to upgrade on the next successful sign-in.
public struct PasswordHasher: Sendable {
    /// scrypt cost parameters.
    public struct Parameters: Sendable, Equatable {
        /// scrypt's CPU/memory cost `N`, a power of two (swift-crypto calls it `rounds`; it is not a round count).
        public var cost: Int
        public var blockSize: Int
        public var parallelism: Int
        public var saltByteCount: Int
        public var outputByteCount: Int

        public init(cost: Int = 1 << 14, blockSize: Int = 8, parallelism: Int = 1, saltByteCount: Int = 16, outputByteCount: Int = 32) {
            self.cost = cost
            self.blockSize = blockSize
            self.parallelism = parallelism
            self.saltByteCount = saltByteCount
            self.outputByteCount = outputByteCount
        }

        /// Firebase's own scrypt cost (N = 2^14, r = 8, p = 1).
        public static let `default` = Parameters()
    }

    /// Errors of hashing or of reading a stored hash.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Fewer characters than this is `WEAK_PASSWORD`.
    public static let minimumLength = 6
    /// More bytes than this is refused (scrypt input is unbounded otherwise).
    public static let maximumByteCount = 4096

    public let parameters: Parameters

    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Hashes `password` with a fresh random salt.
    public func hash(_ password: String) throws -> String {
        let salt = Data(RandomID.bytes(parameters.saltByteCount))
        let key = try derive(password, salt: salt, parameters: parameters)
        let hash = key.withUnsafeBytes { Data($0) }
        return "scrypt$\(parameters.cost)$\(parameters.blockSize)$\(parameters.parallelism)$\(salt.base64EncodedString())$\(hash.base64EncodedString())"
    }

    /// Whether `password` matches `encoded`; the final comparison is constant-time.
    public func verify(_ password: String, against encoded: String) throws -> Bool {
        if let imported = ImportedPasswordHash(encoded: encoded) { return imported.verify(password) }
        let (stored, salt, expected) = try Self.decode(encoded)
        let key = try derive(password, salt: salt, parameters: stored)
        // SymmetricKey's equality is a constant-time comparison.
        return key == SymmetricKey(data: expected)
    }

    /// Spends the same work as a real verification, for unknown accounts (no timing oracle for emails).
    public func verifyDummy(_ password: String) {
        _ = try? derive(password, salt: Data(repeating: 0, count: parameters.saltByteCount), parameters: parameters)
    }

    /// Whether `encoded` was made with other parameters than this hasher's.
    public func needsRehash(_ encoded: String) -> Bool {
        guard let (stored, _, _) = try? Self.decode(encoded) else { return true }
        return stored.cost != parameters.cost || stored.blockSize != parameters.blockSize
            || stored.parallelism != parameters.parallelism
    }

    private func derive(_ password: String, salt: Data, parameters: Parameters) throws -> SymmetricKey {
        do {
            return try KDF.Scrypt.deriveKey(
                from: Data(password.utf8), salt: salt, outputByteCount: parameters.outputByteCount,
                rounds: parameters.cost, blockSize: parameters.blockSize, parallelism: parameters.parallelism)
        } catch {
            throw Error(description: "scrypt key derivation failed")
        }
    }

    static func decode(_ encoded: String) throws -> (Parameters, Data, Data) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt",
              let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              n > 1, n.nonzeroBitCount == 1, r > 0, p > 0,
              let salt = Data(base64Encoded: String(parts[4])), let hash = Data(base64Encoded: String(parts[5])),
              !hash.isEmpty
        else { throw Error(description: "unreadable password hash") }
        return (Parameters(cost: n, blockSize: r, parallelism: p, saltByteCount: salt.count, outputByteCount: hash.count), salt, hash)
    }
}
