import Crypto
import Foundation
import HearthWire

/// The provider token vault's keys: AES-256-GCM keys with ids. The first key seals; every key opens, so a key can
/// be rotated by putting a new one first and keeping the old ones until `hearth vault rekey` (or use) has moved
/// every record on. Text form: one `id:base64-of-32-bytes` per line (or comma-separated); `#` starts a comment.
/// Neither `description` nor an error ever shows key material.
public struct ProviderTokenKeys: Sendable, CustomStringConvertible {
    /// The id of the key that seals.
    public let activeKeyId: String
    /// Every key id, active first.
    public let keyIds: [String]
    private let keys: [String: SymmetricKey]

    /// Keys by id; the first seals. Throws when empty, when an id repeats or is malformed, or a key is not 32 bytes.
    public init(_ entries: [(id: String, key: Data)]) throws {
        guard let first = entries.first else { throw ProviderTokenVaultError.malformedKeys("no key given") }
        var keys: [String: SymmetricKey] = [:]
        for entry in entries {
            guard Self.isKeyId(entry.id) else {
                throw ProviderTokenVaultError.malformedKeys("key id '\(entry.id.prefix(40))' must be 1 to 32 letters, digits, '-' or '_'")
            }
            guard entry.key.count == 32 else {
                throw ProviderTokenVaultError.malformedKeys("key \(entry.id) must be 32 bytes (base64 of 32 random bytes), got \(entry.key.count)")
            }
            guard keys[entry.id] == nil else { throw ProviderTokenVaultError.malformedKeys("key id \(entry.id) appears twice") }
            keys[entry.id] = SymmetricKey(data: entry.key)
        }
        self.activeKeyId = first.id
        self.keyIds = entries.map(\.id)
        self.keys = keys
    }

    /// Parses the text form (`id:base64` per line or comma-separated, `#` comments).
    public static func parse(_ text: String) throws -> ProviderTokenKeys {
        var entries: [(id: String, key: Data)] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "," }) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw ProviderTokenVaultError.malformedKeys("each key is id:base64 (e.g. k1:\(String(repeating: "A", count: 43))=)")
            }
            let id = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let encoded = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            guard let key = Data(base64Encoded: encoded) ?? Data(base64URLEncoded: encoded) else {
                throw ProviderTokenVaultError.malformedKeys("key \(id.prefix(32)) is not base64")
            }
            entries.append((id, key))
        }
        return try ProviderTokenKeys(entries)
    }

    /// A new key in the text form, `id:base64`, from the system's random generator.
    public static func generate(id: String) -> String {
        let key = SymmetricKey(size: .bits256)
        return id + ":" + key.withUnsafeBytes { Data($0) }.base64EncodedString()
    }

    static func isKeyId(_ id: String) -> Bool {
        (1...32).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    public var description: String { "ProviderTokenKeys(active: \(activeKeyId), ids: \(keyIds.joined(separator: ",")))" }

    /// Seals `tokens` for one user and provider with the active key: base64 of the AES-GCM combined box. The user
    /// and provider are authenticated data, so a box moved to another row does not open.
    public func seal(_ tokens: ProviderTokens, localId: String, providerId: String) throws -> (keyId: String, sealed: String) {
        let plaintext = try JSONEncoder().encode(tokens)
        let box = try AES.GCM.seal(plaintext, using: keys[activeKeyId]!, authenticating: Self.context(localId: localId, providerId: providerId))
        guard let combined = box.combined else { throw ProviderTokenVaultError.undecryptable }
        return (activeKeyId, combined.base64EncodedString())
    }

    /// Opens a sealed box made by ``seal(_:localId:providerId:)`` with the key `keyId`.
    public func open(sealed: String, keyId: String, localId: String, providerId: String) throws -> ProviderTokens {
        guard let key = keys[keyId] else { throw ProviderTokenVaultError.unknownKey(keyId) }
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let plaintext = try? AES.GCM.open(box, using: key, authenticating: Self.context(localId: localId, providerId: providerId)),
              let tokens = try? JSONDecoder().decode(ProviderTokens.self, from: plaintext)
        else { throw ProviderTokenVaultError.undecryptable }
        return tokens
    }

    /// The prefix of a secret sealed by ``sealSecret(_:context:)`` as it is stored.
    public static let sealedSecretPrefix = "hearth-sealed:v1:"

    /// Whether `text` is a sealed secret (as stored), not a plaintext one.
    public static func isSealedSecret(_ text: String) -> Bool { text.hasPrefix(sealedSecretPrefix) }

    /// The key id a sealed secret names, if `text` is one.
    public static func sealingKeyId(_ text: String) -> String? {
        guard isSealedSecret(text) else { return nil }
        return text.dropFirst(sealedSecretPrefix.count).split(separator: ":", maxSplits: 1).first.map(String.init)
    }

    /// Seals a secret (a provider's client secret) with the active key, bound to `context` (the row it belongs to):
    /// `hearth-sealed:v1:<key id>:<base64 of the AES-GCM box>`.
    public func sealSecret(_ secret: String, context: String) throws -> String {
        let box = try AES.GCM.seal(Data(secret.utf8), using: keys[activeKeyId]!, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw ProviderTokenVaultError.undecryptable }
        return Self.sealedSecretPrefix + activeKeyId + ":" + combined.base64EncodedString()
    }

    /// Opens a secret sealed by ``sealSecret(_:context:)`` for the same `context`.
    public func openSecret(_ sealed: String, context: String) throws -> String {
        let body = sealed.dropFirst(Self.sealedSecretPrefix.count)
        let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
        guard Self.isSealedSecret(sealed), parts.count == 2 else { throw ProviderTokenVaultError.undecryptable }
        guard let key = keys[parts[0]] else { throw ProviderTokenVaultError.unknownKey(parts[0]) }
        guard let data = Data(base64Encoded: parts[1]), let box = try? AES.GCM.SealedBox(combined: data),
              let plaintext = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        else { throw ProviderTokenVaultError.undecryptable }
        return String(decoding: plaintext, as: UTF8.self)
    }

    static func context(localId: String, providerId: String) -> Data {
        Data("hearth.provider-tokens.v1\u{0}\(localId)\u{0}\(providerId)".utf8)
    }
}

/// What the vault keeps for one linked identity (only ever stored sealed). `description` hides the tokens.
public struct ProviderTokens: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The provider's refresh token.
    public var refreshToken: String?
    /// The last access token and when it expires.
    public var accessToken: String?
    public var accessTokenExpiresAt: Date?
    /// The OAuth client the tokens were issued to: after a change of client they are useless and are dropped.
    public var clientId: String
    /// The scopes the provider granted, when it said.
    public var scope: String?
    /// Microsoft: the Entra tenant of the sign-in (its token endpoint renews the tokens); Google: the narrowed hosted
    /// domain. Stored as `tenant`.
    public var entraTenantOrHostedDomain: String?

    public init(refreshToken: String?, accessToken: String?, accessTokenExpiresAt: Date?, clientId: String, scope: String? = nil,
                entraTenantOrHostedDomain: String? = nil) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.clientId = clientId
        self.scope = scope
        self.entraTenantOrHostedDomain = entraTenantOrHostedDomain
    }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "rt", accessToken = "at", accessTokenExpiresAt = "exp", clientId = "cid", scope, entraTenantOrHostedDomain = "tenant"
    }

    public var description: String {
        "ProviderTokens(refreshToken: \(refreshToken == nil ? "none" : "********"), accessToken: \(accessToken == nil ? "none" : "********"), clientId: \(clientId))"
    }
}

/// Why the vault could not seal or open (never with key or token material).
public enum ProviderTokenVaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key list is unusable.
    case malformedKeys(String)
    /// The record was sealed with a key id no longer configured.
    case unknownKey(String)
    /// The box does not open with its key (tampered, moved to another row, or another key under the same id).
    case undecryptable

    public var description: String {
        switch self {
        case .malformedKeys(let reason): "provider token vault keys: \(reason)"
        case .unknownKey(let id): "the provider token vault has no key \(id.prefix(32)) (it sealed this record): configure it again among the vault keys"
        case .undecryptable: "a provider token vault record does not open with its key"
        }
    }
}
