import Foundation
import HearthStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets (the database, its WAL and shared-memory files, backups) are readable by their owner
/// only: created 0600 whatever the process's umask, and an existing one with group or other bits is tightened.
enum OwnerOnlyFiles {
    /// Creates `path` empty with mode 0600 when it does not exist (SQLite then gives `-wal`/`-shm` the same mode);
    /// when it and its companions exist with group or other permissions, sets them to 0600.
    static func prepare(databaseAt path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else {
            throw StoreError.backend("sqlite: cannot create \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            _ = chmod(file, 0o600)
        }
    }
}
