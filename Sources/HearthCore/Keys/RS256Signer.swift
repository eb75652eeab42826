import Crypto
import CryptoExtras
import Foundation
import HearthWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Signs SHA-256 digests with RSASSA-PKCS1-v1_5: the RS256 signature of every token Hearth mints.
///
/// PKCS#1 v1.5 is deterministic, so every implementation gives the same bytes for the same key and digest.
public protocol RS256Signing: Sendable {
    /// The PKCS#1 v1.5 signature of `digest` (the DigestInfo prefix is added by the implementation).
    func sign(digest: SHA256Digest) throws -> [UInt8]
    /// Which implementation signs, for the start-up log and `hearth doctor`: `openssl 3.0.19` or `swift-crypto`.
    var implementation: String { get }
}

/// Which RSA implementation signs tokens (setting `crypto.rsaSigner`).
public enum RSASignerPreference: String, Sendable, CaseIterable {
    /// The platform's OpenSSL 3 `libcrypto` when it loads and agrees with swift-crypto on a probe signature,
    /// otherwise swift-crypto.
    case auto
    /// OpenSSL 3 or fail at start (for deployments that want to know).
    case openssl
    /// swift-crypto (BoringSSL, compiled into the binary) always.
    case swiftCrypto = "swift-crypto"
}

public enum RS256SignerError: Error, CustomStringConvertible, Sendable {
    case openSSLUnavailable(String)
    case openSSL(String)
    case notRSA

    public var description: String {
        switch self {
        case .openSSLUnavailable(let why): "OpenSSL 3 libcrypto is not usable: \(why)"
        case .openSSL(let what): "OpenSSL: \(what)"
        case .notRSA: "the signing key is not an RSA key"
        }
    }
}

/// swift-crypto's RSA (BoringSSL, built into the binary): the key is parsed once.
public struct SwiftCryptoRS256Signer: RS256Signing {
    private let key: _RSA.Signing.PrivateKey

    public init(pem: String) throws { key = try _RSA.Signing.PrivateKey(pemRepresentation: pem) }

    public func sign(digest: SHA256Digest) throws -> [UInt8] {
        Array(try key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    public var implementation: String { "swift-crypto" }
}

/// Chooses the signer for a key: OpenSSL 3 when preferred and usable, else swift-crypto.
public enum RS256Signers {
    /// The signer for `pem` under `preference`, and why OpenSSL was not taken when `auto` fell back (for the log).
    ///
    /// With `auto`, OpenSSL is used only if it loads, parses the key, and its signature of a probe digest equals
    /// swift-crypto's byte for byte.
    public static func make(pem: String, preference: RSASignerPreference) throws -> (signer: any RS256Signing, fallbackReason: String?) {
        let reference = try SwiftCryptoRS256Signer(pem: pem)
        if preference == .swiftCrypto { return (reference, nil) }
        do {
            let openssl = try OpenSSLRS256Signer(pem: pem)
            let probe = SHA256.hash(data: Array("hearth rs256 signer probe".utf8))
            guard try openssl.sign(digest: probe) == reference.sign(digest: probe) else {
                throw RS256SignerError.openSSL("its probe signature differs from swift-crypto's")
            }
            return (openssl, nil)
        } catch {
            if preference == .openssl { throw error }
            return (reference, "\(error)")
        }
    }
}

/// RSA signing with the platform's OpenSSL 3 `libcrypto`, loaded at run time with `dlopen`: no headers and no
/// link-time dependency, so the binary runs where it is absent (``RS256Signers`` then uses swift-crypto).
///
/// The key is parsed once into an `EVP_PKEY`. Signing contexts (`EVP_PKEY_CTX`, set up once for PKCS#1 v1.5
/// with SHA-256) are kept in a small pool: a context serves one thread at a time, the key is shared. Blinding and
/// constant-time arithmetic are OpenSSL's.
public final class OpenSSLRS256Signer: RS256Signing {
    private let library: LibCrypto
    /// `EVP_PKEY*`, as a bit pattern; set in `init`, never changed, freed in `deinit`.
    private let key: UInt
    private let size: Int
    /// Ready `EVP_PKEY_CTX*` bit patterns; a context is owned by one caller between `take` and `put`.
    private let pool = Mutex<[UInt]>([])
    private static let poolLimit = 16

    public init(pem: String) throws {
        let library = try LibCrypto.shared.get()
        self.library = library
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = library.bioNewMemBuf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { _ = library.bioFree(bio) }
            return library.readPrivateKey(bio, nil, nil, nil)
        }
        // The PEM held the private key: wipe the copy.
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { memset(base, 0, buffer.count) }
        }
        guard let parsed else { throw library.error("reading the private key") }
        guard library.baseID(parsed) == 6 /* EVP_PKEY_RSA */ else {
            library.pkeyFree(parsed)
            throw RS256SignerError.notRSA
        }
        key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(parsed)))
        size = Int(library.pkeySize(parsed))
        // One context now, so a broken library fails here and not on a request.
        let context = try makeContext()
        put(context)
    }

    deinit {
        for context in pool.withLock({ $0 }) { library.contextFree(Self.pointer(context)) }
        library.pkeyFree(Self.pointer(key))
    }

    public var implementation: String { "openssl \(library.version)" }

    public func sign(digest: SHA256Digest) throws -> [UInt8] {
        let context = try take()
        var signature = [UInt8](repeating: 0, count: size)
        var length = size
        let status = digest.withUnsafeBytes { digestBytes in
            signature.withUnsafeMutableBufferPointer { output in
                library.sign(Self.pointer(context), output.baseAddress, &length,
                             digestBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), digestBytes.count)
            }
        }
        guard status == 1 else {
            // A context that failed is not reused.
            library.contextFree(Self.pointer(context))
            throw library.error("signing")
        }
        put(context)
        if length != size { signature.removeLast(size - length) }
        return signature
    }

    private static func pointer(_ bits: UInt) -> OpaquePointer { OpaquePointer(bitPattern: bits)! }

    private func take() throws -> UInt {
        if let context = pool.withLock({ $0.popLast() }) { return context }
        return try makeContext()
    }

    private func put(_ context: UInt) {
        let kept = pool.withLock { contexts in
            guard contexts.count < Self.poolLimit else { return false }
            contexts.append(context)
            return true
        }
        if !kept { library.contextFree(Self.pointer(context)) }
    }

    private func makeContext() throws -> UInt {
        guard let context = library.contextNew(nil, Self.pointer(key), nil) else { throw library.error("creating a signing context") }
        guard library.signInit(context) == 1, library.setPadding(context, 1 /* RSA_PKCS1_PADDING */) == 1,
              let sha256 = library.sha256(), library.setSignatureMD(context, sha256) == 1
        else {
            library.contextFree(context)
            throw library.error("setting up a signing context")
        }
        return UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context)))
    }
}

/// An RS256 JWT signer for one key: the header (`alg`, `kid`, `typ`) is encoded once; each token costs the claims'
/// JSON, one SHA-256 and one signature.
public struct RS256TokenSigner: Sendable {
    public let kid: String
    public let signer: any RS256Signing
    /// `base64url(header).`
    private let prefix: String

    /// The claims' encoder: jwt-kit's (dates as seconds since 1970), shared.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    public init(kid: String, signer: any RS256Signing) throws {
        self.kid = kid
        self.signer = signer
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "kid": kid, "typ": "JWT"], options: [.sortedKeys])
        prefix = header.base64URLEncodedString() + "."
    }

    /// `header.claims.signature`, each part base64url.
    public func sign(_ payload: some Encodable) throws -> String {
        let input = prefix + (try Self.encoder.encode(payload)).base64URLEncodedString()
        let signature = try signer.sign(digest: SHA256.hash(data: Array(input.utf8)))
        return input + "." + Data(signature).base64URLEncodedString()
    }
}

/// The libcrypto functions the signer calls, resolved once per process.
struct LibCrypto: Sendable {
    typealias BIONewMemBuf = @convention(c) (UnsafeRawPointer?, Int32) -> OpaquePointer?
    typealias BIOFree = @convention(c) (OpaquePointer?) -> Int32
    typealias ReadPrivateKey = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias PKeyInt = @convention(c) (OpaquePointer?) -> Int32
    typealias PKeyFree = @convention(c) (OpaquePointer?) -> Void
    typealias ContextNew = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    typealias ContextInt = @convention(c) (OpaquePointer?) -> Int32
    typealias ContextSetInt = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias ContextSetMD = @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    typealias MDGetter = @convention(c) () -> OpaquePointer?
    typealias Sign = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int) -> Int32
    typealias ErrorGet = @convention(c) () -> UInt
    typealias ErrorString = @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
    typealias ErrorClear = @convention(c) () -> Void
    typealias VersionMajor = @convention(c) () -> UInt32
    typealias VersionText = @convention(c) (Int32) -> UnsafePointer<CChar>?

    let bioNewMemBuf: BIONewMemBuf
    let bioFree: BIOFree
    let readPrivateKey: ReadPrivateKey
    let baseID: PKeyInt
    let pkeySize: PKeyInt
    let pkeyFree: PKeyFree
    let contextNew: ContextNew
    let contextFree: PKeyFree
    let signInit: ContextInt
    let setPadding: ContextSetInt
    let setSignatureMD: ContextSetMD
    let sha256: MDGetter
    let sign: Sign
    let errorGet: ErrorGet
    let errorString: ErrorString
    let errorClear: ErrorClear
    /// e.g. `3.0.19`.
    let version: String

    /// Loaded on first use; the library is never closed.
    static let shared: Result<LibCrypto, RS256SignerError> = Result { try LibCrypto() }.mapError {
        $0 as? RS256SignerError ?? .openSSLUnavailable("\($0)")
    }

    private init() throws(RS256SignerError) {
        #if os(Linux)
        let names = ["libcrypto.so.3"]
        #elseif canImport(Darwin)
        let names = ["libcrypto.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib"]
        #else
        let names: [String] = []
        #endif
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
            throw .openSSLUnavailable("libcrypto.so.3 was not found (install the libssl3 package, or set crypto.rsaSigner to swift-crypto)")
        }
        func symbol<T>(_ name: String, _: T.Type) throws(RS256SignerError) -> T {
            guard let address = dlsym(handle, name) else { throw .openSSLUnavailable("libcrypto has no \(name)") }
            return unsafeBitCast(address, to: T.self)
        }
        let major = try symbol("OPENSSL_version_major", VersionMajor.self)()
        guard major == 3 else { throw .openSSLUnavailable("libcrypto is version \(major), not 3") }
        let versionText = try symbol("OpenSSL_version", VersionText.self)(0 /* OPENSSL_VERSION */).map { String(cString: $0) } ?? "OpenSSL 3"
        // "OpenSSL 3.0.19 27 Jan 2026" → "3.0.19"
        version = versionText.split(separator: " ").dropFirst().first.map(String.init) ?? "3"
        bioNewMemBuf = try symbol("BIO_new_mem_buf", BIONewMemBuf.self)
        bioFree = try symbol("BIO_free", BIOFree.self)
        readPrivateKey = try symbol("PEM_read_bio_PrivateKey", ReadPrivateKey.self)
        baseID = try symbol("EVP_PKEY_get_base_id", PKeyInt.self)
        pkeySize = try symbol("EVP_PKEY_get_size", PKeyInt.self)
        pkeyFree = try symbol("EVP_PKEY_free", PKeyFree.self)
        contextNew = try symbol("EVP_PKEY_CTX_new_from_pkey", ContextNew.self)
        contextFree = try symbol("EVP_PKEY_CTX_free", PKeyFree.self)
        signInit = try symbol("EVP_PKEY_sign_init", ContextInt.self)
        setPadding = try symbol("EVP_PKEY_CTX_set_rsa_padding", ContextSetInt.self)
        setSignatureMD = try symbol("EVP_PKEY_CTX_set_signature_md", ContextSetMD.self)
        sha256 = try symbol("EVP_sha256", MDGetter.self)
        sign = try symbol("EVP_PKEY_sign", Sign.self)
        errorGet = try symbol("ERR_get_error", ErrorGet.self)
        errorString = try symbol("ERR_error_string_n", ErrorString.self)
        errorClear = try symbol("ERR_clear_error", ErrorClear.self)
    }

    /// Drains this thread's OpenSSL error queue (libcurl shares the library, so nothing is left behind) into an error.
    func error(_ doing: String) -> RS256SignerError {
        var first: String?
        while true {
            let code = errorGet()
            if code == 0 { break }
            if first == nil {
                var buffer = [CChar](repeating: 0, count: 256)
                buffer.withUnsafeMutableBufferPointer { errorString(code, $0.baseAddress, $0.count) }
                first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        errorClear()
        return .openSSL("\(doing) failed: \(first ?? "no error code")")
    }
}
