import Foundation
import HearthCore
import HearthServer
import HearthWire
import Synchronization

/// `hearth users import`'s reading of an `auth:export` file (issue 41): never the whole file in memory. A first pass
/// checks the file's frame and counts its users; the second reads it in 1 MB chunks and hands out batches of
/// ``batchSize`` users (memory is bounded by a batch), each user decoded alone (one that does not decode is that
/// user's failure, with its index; the others go on). The next batch is read and decoded while one is written.
enum UserFileStream {
    /// Bytes read at a time.
    static let chunkSize = 1 << 20
    /// Users per batch: one store transaction each. Larger than the admin API's 1000: a transaction writes each
    /// index page it dirties once, and random uids and emails dirty about one page per user and index (at 2·10⁵
    /// random users, batches of 10 000 import ~2.5× faster than batches of 1 000 on SQLite).
    static let batchSize = 5000
    /// Failures printed one by one (the rest are counted).
    static let shownFailures = 50

    /// What the checking pass found.
    struct Scan: Sendable {
        /// Users in the file.
        var users: Int
        /// Whether a user has a `passwordHash` (the hash parameters are then required). Only looked for on request.
        var hasPasswordHashes: Bool
    }

    /// A user of the file that was not imported.
    struct Failure: Sendable {
        /// The user's index in the file.
        var index: Int
        var uid: String?
        var message: String
    }

    /// An import's running totals; the first ``shownFailures`` failures in file order.
    struct Outcome: Sendable {
        var imported = 0
        var failed = 0
        var processed = 0
        var shown: [Failure] = []

        mutating func add(_ batch: (processed: Int, imported: Int, failures: [Failure])) {
            processed += batch.processed
            imported += batch.imported
            failed += batch.failures.count
            shown += batch.failures.prefix(max(0, shownFailures - shown.count))
        }
    }

    /// One user of a batch, decoded (with its uid) or failed.
    enum Entry: Sendable {
        case user(ImportUserInfo)
        case undecodable(uid: String?, message: String)
    }

    /// The first pass: the frame of `{"users": [...]}` checked end to end, the users counted (and with
    /// `lookingForHashes`, whether one has a `passwordHash`). A file that cannot be read, is truncated or is not
    /// that shape is refused with where and why: nothing is imported from it.
    static func check(_ file: String, lookingForHashes: Bool) throws -> Scan {
        let handle = try open(file)
        defer { try? handle.close() }
        var reader = StreamedJSONArray(member: "users", keepingElements: lookingForHashes)
        var hashes = false
        let needle = Array("\"passwordHash\"".utf8)
        do {
            while let chunk = try read(handle, file) {
                for element in try reader.feed(chunk) where !hashes {
                    hashes = element.withUnsafeBytes { bytes in
                        let bytes = bytes.bindMemory(to: UInt8.self)
                        guard bytes.count >= needle.count else { return false }
                        return (0...(bytes.count - needle.count)).contains { start in
                            bytes[start] == needle[0] && needle.indices.allSatisfy { bytes[start + $0] == needle[$0] }
                        }
                    }
                }
            }
            try reader.finish()
        } catch let error as StreamedJSONArray.Error {
            throw CLIError("\(file) is not an auth:export JSON file ({\"users\": [...]}): \(error.description); nothing was imported")
        }
        return Scan(users: reader.count, hasPasswordHashes: hashes)
    }

    /// The second pass: `body` gets each batch (the index in the file of its first user, its entries), in order;
    /// the next batch is read and decoded meanwhile.
    static func read(_ file: String, _ body: (_ start: Int, _ entries: [Entry]) async throws -> Void) async throws {
        let source = BatchSource(handle: try open(file), file: file)
        defer { source.close() }
        var start = 0
        var next = Task { try source.next() }
        while let batch = try await next.value {
            next = Task { try source.next() }
            try await body(start, batch)
            start += batch.count
        }
    }

    /// Imports one batch through the admin service's batch import (the one `accounts:batchCreate` uses): the
    /// decoded users together, the undecodable ones reported. Failures carry the file's indexes, in order.
    static func importBatch(_ entries: [Entry], from start: Int, template: ImportedPasswordHash?, allowOverwrite: Bool,
                            service: AdminService, scope: Scope) async throws -> (processed: Int, imported: Int, failures: [Failure]) {
        var infos: [ImportUserInfo] = []
        var positions: [Int] = []
        var failures: [Failure] = []
        infos.reserveCapacity(entries.count)
        for (offset, entry) in entries.enumerated() {
            switch entry {
            case .user(let info):
                infos.append(info)
                positions.append(offset)
            case .undecodable(let uid, let message):
                failures.append(Failure(index: start + offset, uid: uid, message: message))
            }
        }
        let outcome = try await service.importBatch(infos, template: template, allowOverwrite: allowOverwrite, now: Date(), in: scope)
        for failure in outcome.failures {
            let offset = positions[failure.index]
            // A uid of this scope can be replaced; one held outside it cannot, and the service's message says why
            // (uids are unique across the server's tenants).
            failures.append(Failure(index: start + offset, uid: infos[failure.index].localId,
                                    message: failure.uidExistsHere ? "uid exists (use --allow-overwrite to replace it)" : failure.message))
        }
        failures.sort { $0.index < $1.index }
        return (entries.count, outcome.imported, failures)
    }

    private static func open(_ file: String) throws -> FileHandle {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw CLIError("cannot read \(file): check the path and that this user may read it")
        }
        return handle
    }

    /// The next chunk, nil at the end.
    fileprivate static func read(_ handle: FileHandle, _ file: String) throws -> Data? {
        let chunk: Data?
        do {
            chunk = try handle.read(upToCount: chunkSize)
        } catch {
            throw CLIError("cannot read \(file): a read failed part-way")
        }
        guard let chunk, !chunk.isEmpty else { return nil }
        return chunk
    }

    /// One user's JSON as the import's user, or why not (the uid when it can be found).
    static func entry(_ element: Data, decoder: JSONDecoder) -> Entry {
        let account: FirebaseAccountFileUser
        do {
            account = try decoder.decode(FirebaseAccountFileUser.self, from: element)
        } catch {
            struct UidOnly: Decodable { var localId: String? }
            let uid = (try? decoder.decode(UidOnly.self, from: element))?.localId
            return .undecodable(uid: uid, message: HearthAPIError(.invalidArgument, "the user is not an auth:export user object: \(reason(error))").description)
        }
        var info = ImportUserInfo(localId: account.localId, email: account.email, passwordHash: account.passwordHash, salt: account.salt)
        info.emailVerified = account.emailVerified
        info.displayName = account.displayName
        info.photoUrl = account.photoUrl
        info.phoneNumber = account.phoneNumber
        info.disabled = account.disabled
        info.customAttributes = account.customAttributes
        info.createdAt = account.createdAt
        info.lastLoginAt = account.lastSignedInAt
        info.providerUserInfo = account.providerUserInfo
        info.mfaInfo = account.mfaInfo
        return .user(info)
    }

    /// A decoding error in a line: the field and what was wrong, without the value.
    private static func reason(_ error: any Error) -> String {
        let context: DecodingError.Context
        switch error {
        case DecodingError.typeMismatch(_, let found), DecodingError.valueNotFound(_, let found), DecodingError.keyNotFound(_, let found),
             DecodingError.dataCorrupted(let found):
            context = found
        default:
            return "it is not valid JSON"
        }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        if path.isEmpty { return context.underlyingError == nil ? context.debugDescription : "it is not valid JSON" }
        return "\(path): \(context.debugDescription)"
    }
}

/// The second pass's reader: the file, its frame reader and the decoder, behind a lock (one batch is read while
/// the previous one is imported, by another task).
private final class BatchSource: Sendable {
    private struct State {
        var handle: FileHandle?
        var reader = StreamedJSONArray(member: "users")
        var pending: [Data] = []
        var done = false
        let decoder = JSONDecoder()
    }

    private let state: Mutex<State>
    private let file: String

    init(handle: FileHandle, file: String) {
        state = Mutex(State(handle: handle))
        self.file = file
    }

    /// The next batch of at most ``UserFileStream/batchSize`` users, decoded; nil after the last.
    func next() throws -> [UserFileStream.Entry]? {
        try state.withLock { state in
            while state.pending.count < UserFileStream.batchSize, !state.done {
                guard let handle = state.handle, let chunk = try UserFileStream.read(handle, file) else {
                    state.done = true
                    do {
                        try state.reader.finish()
                    } catch let error as StreamedJSONArray.Error {
                        // The first pass read it whole: the file changed since.
                        throw CLIError("\(file) changed during the import: \(error.description)")
                    }
                    break
                }
                do {
                    state.pending += try state.reader.feed(chunk)
                } catch let error as StreamedJSONArray.Error {
                    throw CLIError("\(file) changed during the import: \(error.description)")
                }
            }
            guard !state.pending.isEmpty else { return nil }
            let count = min(UserFileStream.batchSize, state.pending.count)
            let decoder = state.decoder
            let batch = state.pending.prefix(count).map { UserFileStream.entry($0, decoder: decoder) }
            state.pending.removeFirst(count)
            return batch
        }
    }

    func close() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
        }
    }
}
