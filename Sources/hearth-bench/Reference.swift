import CoreFoundation
import Crypto
import Foundation
import HearthCore
import _CryptoExtras
#if canImport(Glibc)
import Glibc
#endif

/// The RSA-2048 (PKCS#1 v1.5, SHA-256) figures every ratio is taken against, measured in the same run:
/// `openssl speed rsa2048` (the machine's limit), Hearth's own signer in this process (OpenSSL 3 loaded at run
/// time, or swift-crypto) and swift-crypto. All are CPU time per operation on one thread, as the server's figures
/// are CPU time per request, so a busy machine does not inflate them.
struct RSAReference {
    /// swift-crypto.
    var sign: Double
    var verify: Double
    /// Hearth's signer (``RS256Signers`` with `auto`), in this process.
    var hearthSign: Double
    var hearthSigner: String
    /// `openssl speed`; nil when the `openssl` command is missing or its output was not understood.
    var openssl: OpenSSLSpeed?

    /// The limits: OpenSSL's figures, or swift-crypto's when OpenSSL was not measured.
    var limitSign: Double { openssl?.sign ?? sign }
    var limitVerify: Double { openssl?.verify ?? verify }

    /// In-process figures in five windows of `seconds / 5` (the median window counts, so a burst of other load
    /// during one window does not skew them); `openssl speed` for `opensslSeconds` per operation.
    static func measure(seconds: Double, opensslSeconds: Int) throws -> RSAReference {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let message = Data(repeating: 0x41, count: 600)
        let digest = SHA256.hash(data: message)
        let signature = try key.signature(for: digest, padding: .insecurePKCS1v1_5)
        let hearth = try RS256Signers.make(pem: key.pemRepresentation, preference: .auto).signer
        let window = seconds / 5
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        var signs: [Double] = [], verifies: [Double] = [], hearthSigns: [Double] = []
        for _ in 0..<5 {
            signs.append(try cpuPerOperation(window: window, minimum: 4) { _ = try key.signature(for: digest, padding: .insecurePKCS1v1_5) })
            hearthSigns.append(try cpuPerOperation(window: window, minimum: 4) { _ = try hearth.sign(digest: digest) })
            verifies.append(try cpuPerOperation(window: window, minimum: 40) {
                guard key.publicKey.isValidSignature(signature, for: digest, padding: .insecurePKCS1v1_5) else {
                    throw BenchError("RSA verification failed")
                }
            })
        }
        return RSAReference(sign: median(signs), verify: median(verifies), hearthSign: median(hearthSigns),
                            hearthSigner: hearth.implementation, openssl: OpenSSLSpeed.measure(seconds: opensslSeconds))
    }

    /// Runs `operation` for `window` seconds of wall time (at least `minimum` times); answers the thread's CPU time per run.
    static func cpuPerOperation(window: Double, minimum: Int, _ operation: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = threadCPUSeconds()
        var count = 0
        while (clock.now - start).seconds < window || count < minimum {
            try operation()
            count += 1
        }
        return (threadCPUSeconds() - cpuStart) / Double(count)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// One line for the report.
    var summary: String {
        let limit = openssl.map { String(format: "OpenSSL %@ speed (the limit): sign %.3f ms, verify %.4f ms", $0.version, $0.sign * 1000, $0.verify * 1000) }
            ?? "OpenSSL speed: not measured (no `openssl` command), the limits are swift-crypto's"
        return limit + String(format: "; Hearth's signer in process (%@): sign %.3f ms; swift-crypto: sign %.3f ms, verify %.4f ms",
                              hearthSigner, hearthSign * 1000, sign * 1000, verify * 1000)
    }
}

/// `openssl speed -mr -seconds S rsa2048`: sign and verify seconds per operation, from the machine-readable
/// `+F2:<index>:<bits>:<sign/s>:<verify/s>` line. OpenSSL divides by the process's user CPU time.
struct OpenSSLSpeed {
    var sign: Double
    var verify: Double
    var version: String

    static func measure(seconds: Int) -> OpenSSLSpeed? {
        guard let output = run(["openssl", "speed", "-mr", "-seconds", "\(max(seconds, 1))", "rsa2048"]) else { return nil }
        let version = run(["openssl", "version"]).flatMap { $0.split(separator: " ").dropFirst().first.map(String.init) } ?? "3"
        for line in output.split(separator: "\n") where line.hasPrefix("+F2:") {
            let fields = line.split(separator: ":")
            guard fields.count >= 5, fields[2] == "2048", let signs = Double(fields[3]), let verifies = Double(fields[4]),
                  signs > 0, verifies > 0
            else { continue }
            return OpenSSLSpeed(sign: 1 / signs, verify: 1 / verifies, version: version)
        }
        return nil
    }

    /// Runs a command (through `/usr/bin/env`); its standard output, or nil when it failed. Spawned with an empty
    /// signal mask and default dispositions: `openssl speed` times itself with SIGALRM, which the bench's threads
    /// block (Foundation's `Process` passes that mask on, and the child then never stops).
    static func run(_ arguments: [String]) -> String? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        // Neither end may leak into the child's own children (a daemon the script starts would hold the pipe open).
        _ = fcntl(pipe[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, environ)
        close(pipe[1])
        guard status == 0 else { close(pipe[0]); return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count > 0 { output += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        close(pipe[0])
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) == -1 && errno == EINTR {}
        guard exit == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}
