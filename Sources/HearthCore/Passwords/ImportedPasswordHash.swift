import Crypto
import CryptoExtras
import Foundation
import HearthWire
import HummingbirdBcrypt

/// A password hash imported from another system (`accounts:batchCreate`, `hearth users import`), with the
/// parameters needed to verify it. Stored in the user's `passwordHash` as `import$<base64url JSON>`; the first
/// successful sign-in replaces it with Hearth's own scrypt hash (``PasswordHasher/needsRehash(_:)``).
public struct ImportedPasswordHash: Codable, Sendable, Equatable {
    /// The most memory one imported scrypt verification may take (128·N·r bytes).
    static let maxScryptMemory = 64 << 20

    /// The stored form's prefix.
    public static let prefix = "import$"

    /// The algorithms Firebase's import accepts that Hearth verifies.
    public enum Algorithm: String, Codable, Sendable, CaseIterable {
        /// Firebase's modified scrypt (signer key, salt separator, rounds, memory cost).
        case scrypt = "SCRYPT"
        case standardScrypt = "STANDARD_SCRYPT"
        case bcrypt = "BCRYPT"
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        case pbkdfSHA1 = "PBKDF_SHA1"
        case hmacSHA512 = "HMAC_SHA512"
        case hmacSHA256 = "HMAC_SHA256"
        case hmacSHA1 = "HMAC_SHA1"
        case hmacMD5 = "HMAC_MD5"
        case sha512 = "SHA512"
        case sha256 = "SHA256"
        case sha1 = "SHA1"
        case md5 = "MD5"
    }

    /// Why a hash configuration or a hash was refused.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    public var algorithm: Algorithm
    public var hash: Data
    public var salt: Data
    /// HMAC key, or Firebase scrypt's signer key.
    public var signerKey: Data?
    public var saltSeparator: Data?
    /// scrypt: r (1–8); PBKDF2 iterations; SHA/MD5 iterations.
    public var rounds: Int?
    /// Firebase scrypt: log2 N (1–14).
    public var memoryCost: Int?
    /// Standard scrypt: N, p, r, output length.
    public var cpuMemCost: Int?
    public var parallelization: Int?
    public var blockSize: Int?
    public var dkLen: Int?
    /// `PASSWORD_AND_SALT` for the digest algorithms; the default is salt then password.
    public var passwordFirst: Bool?

    public init(algorithm: Algorithm, hash: Data, salt: Data, signerKey: Data? = nil, saltSeparator: Data? = nil,
                rounds: Int? = nil, memoryCost: Int? = nil, cpuMemCost: Int? = nil, parallelization: Int? = nil,
                blockSize: Int? = nil, dkLen: Int? = nil, passwordFirst: Bool? = nil) {
        self.algorithm = algorithm
        self.hash = hash
        self.salt = salt
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.cpuMemCost = cpuMemCost
        self.parallelization = parallelization
        self.blockSize = blockSize
        self.dkLen = dkLen
        self.passwordFirst = passwordFirst
    }

    /// Checks the parameters (as Firebase bounds them), so that a bad import fails at import time.
    public func validate() throws {
        func require(_ condition: Bool, _ message: String) throws { if !condition { throw Error(message) } }
        try require(!hash.isEmpty, "the password hash is empty")
        switch algorithm {
        case .scrypt:
            try require(!(signerKey ?? Data()).isEmpty, "SCRYPT needs the signer key (hash key)")
            try require((1...8).contains(rounds ?? 0), "SCRYPT rounds must be 1 to 8")
            try require((1...14).contains(memoryCost ?? 0), "SCRYPT memoryCost must be 1 to 14")
        case .standardScrypt:
            let n = cpuMemCost ?? 0
            try require(n > 1 && n.nonzeroBitCount == 1 && n <= 1 << 20, "STANDARD_SCRYPT cpuMemCost must be a power of two up to 2^20")
            try require((1...16).contains(blockSize ?? 0), "STANDARD_SCRYPT blockSize must be 1 to 16")
            try require((1...4).contains(parallelization ?? 0), "STANDARD_SCRYPT parallelization must be 1 to 4")
            // Every sign-in attempt pays this cost: at most 64 MiB of memory (128·N·r bytes), like a strong scrypt.
            try require(128 * n * (blockSize ?? 0) <= Self.maxScryptMemory,
                        "STANDARD_SCRYPT needs 128·cpuMemCost·blockSize ≤ 64 MiB (e.g. cpuMemCost 2^17 with blockSize 4)")
            try require((1...128).contains(dkLen ?? hash.count), "STANDARD_SCRYPT dkLen must be 1 to 128")
        case .bcrypt:
            let text = String(data: hash, encoding: .utf8) ?? ""
            let parts = text.split(separator: "$", omittingEmptySubsequences: false)
            try require(parts.count == 4 && parts[0].isEmpty && parts[1].hasPrefix("2"), "a BCRYPT hash is the modular crypt text ($2a$/$2b$/$2y$…)")
            // Each attempt costs 2^cost rounds: 31 would take hours.
            try require((4...16).contains(Int(parts[2]) ?? 0), "BCRYPT cost must be 4 to 16")
        case .pbkdf2SHA256, .pbkdfSHA1:
            try require((1...120_000).contains(rounds ?? 0), "PBKDF rounds must be 1 to 120000")
            try require((1...128).contains(hash.count), "a PBKDF hash is 1 to 128 bytes")
        case .hmacSHA512, .hmacSHA256, .hmacSHA1, .hmacMD5:
            try require(!(signerKey ?? Data()).isEmpty, "HMAC algorithms need the key")
        case .sha512, .sha256, .sha1:
            try require((0...8192).contains(rounds ?? 1), "rounds must be 0 to 8192")
        case .md5:
            try require((0...8192).contains(rounds ?? 0), "MD5 rounds must be 0 to 8192")
        }
    }

    /// The stored form.
    public var encoded: String {
        let data = (try? Self.encoder.encode(self)) ?? Data()
        return Self.prefix + data.base64URLEncodedString()
    }

    /// One encoder for every stored form (configured once, never changed after: safe to share).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Reads the stored form; nil for anything else.
    public init?(encoded: String) {
        guard encoded.hasPrefix(Self.prefix) else { return nil }
        var text = String(encoded.dropFirst(Self.prefix.count)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text.append("=") }
        guard let data = Data(base64Encoded: text), let value = try? JSONDecoder().decode(Self.self, from: data) else { return nil }
        self = value
    }

    /// Whether `password` matches; the final comparison is constant-time.
    public func verify(_ password: String) -> Bool {
        guard let computed = try? compute(password) else { return false }
        if algorithm == .bcrypt { return computed == Data([1]) }
        return computed.count == hash.count && SymmetricKey(data: computed) == SymmetricKey(data: hash)
    }

    /// The hash of `password` under these parameters (for bcrypt: `[1]` when it matches).
    public func compute(_ password: String) throws -> Data {
        let passwordBytes = Data(password.utf8)
        let input = (passwordFirst ?? false) ? passwordBytes + salt : salt + passwordBytes
        switch algorithm {
        case .scrypt:
            let key = try KDF.Scrypt.deriveKey(from: passwordBytes, salt: salt + (saltSeparator ?? Data()), outputByteCount: 32,
                                               rounds: 1 << (memoryCost ?? 14), blockSize: rounds ?? 8, parallelism: 1)
            return try AES._CTR.encrypt(signerKey ?? Data(), using: key, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
        case .standardScrypt:
            let key = try KDF.Scrypt.deriveKey(from: passwordBytes, salt: salt, outputByteCount: dkLen ?? hash.count,
                                               rounds: cpuMemCost ?? 16384, blockSize: blockSize ?? 8, parallelism: parallelization ?? 1,
                                               maxMemory: Self.maxScryptMemory + (1 << 20))
            return key.withUnsafeBytes { Data($0) }
        case .bcrypt:
            let text = String(decoding: hash, as: UTF8.self)
            return Bcrypt.verify(password, hash: text) ? Data([1]) : Data([0])
        case .pbkdf2SHA256, .pbkdfSHA1:
            let function: KDF.Insecure.PBKDF2.HashFunction = algorithm == .pbkdf2SHA256 ? .sha256 : .insecureSHA1
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: passwordBytes, salt: salt, using: function, outputByteCount: hash.count,
                                                        unsafeUncheckedRounds: rounds ?? 1)
            return key.withUnsafeBytes { Data($0) }
        case .hmacSHA512: return Data(HMAC<SHA512>.authenticationCode(for: input, using: SymmetricKey(data: signerKey ?? Data())))
        case .hmacSHA256: return Data(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: signerKey ?? Data())))
        case .hmacSHA1: return Data(HMAC<Insecure.SHA1>.authenticationCode(for: input, using: SymmetricKey(data: signerKey ?? Data())))
        case .hmacMD5: return Data(HMAC<Insecure.MD5>.authenticationCode(for: input, using: SymmetricKey(data: signerKey ?? Data())))
        case .sha512: return Self.iterate(SHA512.self, input, rounds: rounds)
        case .sha256: return Self.iterate(SHA256.self, input, rounds: rounds)
        case .sha1: return Self.iterate(Insecure.SHA1.self, input, rounds: rounds)
        case .md5: return Self.iterate(Insecure.MD5.self, input, rounds: rounds)
        }
    }

    /// `rounds` applications of the digest (0 or 1: one).
    static func iterate<H: HashFunction>(_ type: H.Type, _ input: Data, rounds: Int?) -> Data {
        var value = Data(H.hash(data: input))
        for _ in 1..<max(1, rounds ?? 1) { value = Data(H.hash(data: value)) }
        return value
    }

    /// Decodes base64 in any of the forms SDKs send: standard or URL-safe alphabet, padded or not.
    public static func decodeBase64(_ text: String) -> Data? {
        // Plain padded base64 (what auth:export writes) decodes as it is: nothing to trim, translate or pad (issue 41:
        // the slow path below was a sixth of an import's CPU). Anything else, or a failure, takes the slow path.
        if text.utf8.count % 4 == 0, text.utf8.allSatisfy(Self.isPlainBase64Byte), let data = Data(base64Encoded: text) { return data }
        var normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.count % 4 != 0 { normalized.append("=") }
        return Data(base64Encoded: normalized)
    }

    /// `A-Z a-z 0-9 + / =`: a byte the standard alphabet (with its padding) has.
    private static func isPlainBase64Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
        default: false
        }
    }
}
