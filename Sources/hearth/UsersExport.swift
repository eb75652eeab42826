import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HearthCore
import HearthStore
import HearthWire

/// The streamed `auth:export` file of `hearth users export` (issue 41): the header, then each page of users encoded
/// and written as it is read, then the footer — memory bounded by one page however many users there are. Written to a
/// new owner-only (0600) file beside the target and renamed over it at the end: a failure or a crash never leaves half
/// a file at the target, and an existing file (with `--force`) is replaced whole.
///
/// The file is the Firebase CLI's format, one user a line:
///
///     {"users": [
///     {"createdAt":"1700000000000","email":"ada@example.com",…},
///     {…}
///     ]}
struct UsersExportFile {
    /// Users read and written per page.
    static let pageSize = 1_000

    let target: String
    let temporary: String
    private let descriptor: Int32
    private let encoder: JSONEncoder
    private var buffer = Data()
    private var first = true
    private var closed = false
    /// Users written so far.
    private(set) var count = 0

    /// Creates the temporary file beside `target` (mode 0600, never an existing file or a link).
    init(target: String) throws {
        let directory = (target as NSString).deletingLastPathComponent
        let name = ".\((target as NSString).lastPathComponent).\(UUID().uuidString).tmp"
        self.target = target
        self.temporary = directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
        descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CLIError("could not write \(target): check that its directory exists and is writable") }
        Self.removeOnInterrupt(temporary)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        buffer.reserveCapacity(1 << 20)
        buffer.append(contentsOf: Array(#"{"users": ["#.utf8))
    }

    /// Encodes `users` and writes them.
    mutating func append(_ users: [FirebaseExportUser]) throws {
        for user in users {
            buffer.append(contentsOf: Array((first ? "\n" : ",\n").utf8))
            buffer.append(try encoder.encode(user))
            first = false
            count += 1
        }
        try flush()
    }

    /// Writes the footer, syncs the file to disk and renames it over the target.
    mutating func commit() throws {
        buffer.append(contentsOf: Array("\n]}\n".utf8))
        try flush()
        guard fsync(descriptor) == 0 else { throw failure() }
        close(descriptor)
        closed = true
        defer { Self.keepOnInterrupt() }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CLIError("could not write \(target): check that its directory exists and is writable")
        }
    }

    /// Closes and removes the temporary file (after a failure).
    mutating func discard() {
        if !closed { close(descriptor) }
        closed = true
        unlink(temporary)
        Self.keepOnInterrupt()
    }

    /// The temporary file of the export in progress (a C string: read in a signal handler).
    private nonisolated(unsafe) static var interruptedTemporary: UnsafeMutablePointer<CChar>?

    /// An export stopped by Ctrl-C or SIGTERM removes its temporary file (`unlink` is safe in a signal handler), then
    /// ends as the signal would have ended it.
    private static func removeOnInterrupt(_ path: String) {
        interruptedTemporary = strdup(path)
        for number in [SIGINT, SIGTERM] {
            signal(number) { number in
                if let path = UsersExportFile.interruptedTemporary { unlink(path) }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// The export is over (renamed or removed): signals act as before.
    private static func keepOnInterrupt() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        free(interruptedTemporary)
        interruptedTemporary = nil
    }

    private mutating func flush() throws {
        let written: Bool = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let result = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += result
            }
            return true
        }
        buffer.removeAll(keepingCapacity: true)
        guard written else { throw failure() }
    }

    private func failure() -> CLIError {
        CLIError("could not write \(target): \(String(cString: strerror(errno))) (is the disk full?)")
    }
}

extension FirebaseExportUser {
    /// `user` as `auth:export` writes it. A Hearth scrypt hash is split into hash and salt, its parameters added to
    /// `parameters` (printed for `firebase auth:import`); an imported hash not yet re-hashed is left out (`skipped`).
    init(_ user: UserRecord, parameters: inout Set<String>, skipped: inout Int) {
        var hash: String?
        var salt: String?
        if let stored = user.passwordHash {
            // Only Hearth's own `scrypt$…` form is split (an imported hash is a long base64 text: splitting it by
            // Character cost a quarter of a 10⁶-user export, issue 41).
            let parts = stored.hasPrefix("scrypt$") ? stored.utf8.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false).map { Substring($0) } : []
            if parts.count == 6, parts[0] == "scrypt" {
                parameters.insert("--mem-cost \(parts[1]) --block-size \(parts[2]) --parallelization \(parts[3]) --dk-len \(Data(base64Encoded: String(parts[5]))?.count ?? 32)")
                salt = String(parts[4])
                hash = String(parts[5])
            } else {
                skipped += 1
            }
        }
        // The two fields of `user.userInfo` the file carries, made as it makes them (not the whole lookup record: its
        // date formatting cost more than the rest of a user's line).
        self.init(
            localId: user.localId, email: user.email, emailVerified: user.emailVerified, passwordHash: hash, salt: salt,
            displayName: user.displayName, photoUrl: user.photoUrl, lastSignedInAt: user.lastLoginAt.map { String(Int64($0.timeIntervalSince1970 * 1000)) },
            createdAt: String(Int64((user.createdAt.timeIntervalSince1970 * 1000).rounded())), phoneNumber: user.phoneNumber,
            disabled: user.disabled, customAttributes: user.customClaims.isEmpty ? nil : JSONValue.object(user.customClaims).compactJSONString,
            providerUserInfo: user.identities.filter { $0.providerId != ProviderIdentity.phoneProviderId }.map {
                LinkProviderUserInfo(providerId: $0.providerId, rawId: $0.federatedId, email: $0.email, displayName: $0.displayName, photoUrl: $0.photoUrl)
            },
            mfaInfo: user.mfa.phoneFactors.isEmpty ? nil : user.mfa.phoneFactors.map(\.enrollmentInfo))
    }
}
