import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Security)
import Security
#endif

/// Where the signed-in user is kept between launches: Keychain on Apple platforms, a 0600 file on Linux, or your
/// own implementation.
public protocol UserPersistence: Sendable {
    func load(key: String) throws -> Data?
    func save(_ data: Data, key: String) throws
    func remove(key: String) throws
}

/// Keeps nothing beyond the process.
public final class InMemoryUserPersistence: UserPersistence {
    private let storage = LockedValue<[String: Data]>([:])

    public init() {}

    public func load(key: String) throws -> Data? { storage.withLock { $0[key] } }
    public func save(_ data: Data, key: String) throws { storage.withLock { $0[key] = data } }
    public func remove(key: String) throws { storage.withLock { $0[key] = nil } }
}

/// A file per key in a private directory (0700), each file 0600, written atomically.
/// Default directory: `$XDG_CONFIG_HOME/hearth/auth` or `~/.config/hearth/auth`.
public struct FileUserPersistence: UserPersistence {
    public let directory: URL

    public init(directory: URL? = nil) {
        if let directory {
            self.directory = directory
        } else {
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
            self.directory = base.appendingPathComponent("hearth").appendingPathComponent("auth")
        }
    }

    func url(for key: String) -> URL {
        directory.appendingPathComponent(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? String($0) : "_" }.joined() + ".json")
    }

    public func load(key: String) throws -> Data? {
        let url = url(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    public func save(_ data: Data, key: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = url(for: key)
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        // Created 0600 from the first byte (open(2) with O_EXCL), flushed, then renamed into place.
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw AuthErrorUtils.error(.keychainError, message: "Could not create \(temporary.path).") }
        let written = data.withUnsafeBytes { buffer in write(fd, buffer.baseAddress, buffer.count) }
        let synced = fsync(fd)
        _ = close(fd)
        guard written == data.count, synced == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw AuthErrorUtils.error(.keychainError, message: "Could not write \(temporary.path).")
        }
        // rename(2) replaces the old file atomically: a reader sees the old or the new user, never half of one.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw AuthErrorUtils.error(.keychainError, message: "Could not replace \(url.path).")
        }
    }

    public func remove(key: String) throws {
        let url = url(for: key)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}

#if canImport(Security)
/// The Keychain (generic passwords of service `hearth.auth`, this device only, after first unlock).
public struct KeychainUserPersistence: UserPersistence {
    public let service: String

    public init(service: String = "hearth.auth") {
        self.service = service
    }

    private func query(_ key: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
    }

    public func load(key: String) throws -> Data? {
        var query = query(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw AuthErrorUtils.error(.keychainError, message: "Keychain read failed (\(status)).") }
        return result as? Data
    }

    public func save(_ data: Data, key: String) throws {
        let status = SecItemUpdate(query(key) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var item = query(key)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw AuthErrorUtils.error(.keychainError, message: "Keychain write failed (\(added)).") }
        } else if status != errSecSuccess {
            throw AuthErrorUtils.error(.keychainError, message: "Keychain update failed (\(status)).")
        }
    }

    public func remove(key: String) throws {
        let status = SecItemDelete(query(key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw AuthErrorUtils.error(.keychainError, message: "Keychain delete failed (\(status)).")
        }
    }
}
#endif

/// The platform's default persistence.
func defaultUserPersistence() -> any UserPersistence {
    #if canImport(Security)
    KeychainUserPersistence()
    #else
    FileUserPersistence()
    #endif
}
