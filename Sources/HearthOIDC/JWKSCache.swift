import Foundation
import HearthCore
import HearthWire
import JWTKit
import NIOHTTP1

/// Providers' signing keys, cached per JWKS URL for the `Cache-Control: max-age` the provider sends (default one
/// hour, at most a day), refetched once when a token names an unknown `kid` (no more often than
/// `minimumRefetchInterval`, so forged kids cannot make Hearth hammer the provider). Each key's verifier (a
/// one-key JWT key collection) is built when the key set is fetched and reused until the key set changes.
public actor JWKSCache {
    private let http: UpstreamHTTP
    private let clock: WallClock
    private let minimumRefetchInterval: TimeInterval
    private var entries: [String: Entry] = [:]

    struct Entry {
        var keys: [Key]
        var fetchedAt: Date
        var maxAge: TimeInterval
    }

    /// A provider's public key as published, and its built verifier (nil when jwt-kit cannot use the key).
    struct Key: Sendable {
        var jwk: [String: JSONValue]
        var verifier: JWTKeyCollection?
    }

    init(http: UpstreamHTTP, clock: WallClock, minimumRefetchInterval: TimeInterval) {
        self.http = http
        self.clock = clock
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// The key for `kid` (or the only key, when the token has no `kid`).
    func key(uri: String, kid: String?) async throws -> Key {
        let now = clock.now()
        var entry = entries[uri]
        if entry == nil || now.timeIntervalSince(entry!.fetchedAt) >= entry!.maxAge || entry!.fetchedAt > now {
            entry = try await fetch(uri)
        }
        if let found = Self.select(entry!.keys, kid: kid) { return found }
        // Unknown kid: the provider may have rotated its keys. Refetch once.
        if now.timeIntervalSince(entry!.fetchedAt) >= minimumRefetchInterval || entry!.fetchedAt > now {
            entry = try await fetch(uri)
            if let found = Self.select(entry!.keys, kid: kid) { return found }
        }
        throw RelyingPartyError.idToken(kid == nil
            ? "the ID token has no kid and the provider publishes several keys"
            : "the ID token is signed with a key the provider does not publish")
    }

    /// How many keys at `uri` Hearth can verify with (fetched now; the configuration check).
    func usableKeyCount(uri: String) async throws -> Int {
        try await fetch(uri).keys.filter { $0.verifier != nil }.count
    }

    private static func select(_ keys: [Key], kid: String?) -> Key? {
        guard let kid else { return keys.count == 1 ? keys[0] : nil }
        return keys.first { $0.jwk["kid"]?.stringValue == kid }
    }

    private func fetch(_ uri: String) async throws -> Entry {
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.get(uri)
        } catch {
            throw RelyingPartyError.idToken("the provider's keys could not be fetched")
        }
        guard reply.status == 200,
              case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: reply.body),
              case .array(let list)? = object["keys"]
        else { throw RelyingPartyError.idToken("the provider's key set is unusable (HTTP \(reply.status))") }
        // Only public asymmetric signing keys: an `oct` (HMAC) key would let anyone who knows it forge tokens.
        let jwks = list.compactMap(\.objectValue).filter { key in
            let type = key["kty"]?.stringValue
            let use = key["use"]?.stringValue
            return (type == "RSA" || type == "EC") && (use == nil || use == "sig") && key["d"] == nil
        }
        // Unchanged key set: keep the built verifiers.
        var keys: [Key]
        if let previous = entries[uri]?.keys, previous.map(\.jwk) == jwks {
            keys = previous
        } else {
            keys = []
            for jwk in jwks { keys.append(Key(jwk: jwk, verifier: await Self.verifier(jwk))) }
        }
        let entry = Entry(keys: keys, fetchedAt: clock.now(), maxAge: Self.maxAge(reply.headers))
        entries[uri] = entry
        return entry
    }

    /// A one-key collection for `jwk`, with the only algorithm its type is accepted with (RS256 for RSA, ES256
    /// for EC); nil when the key names another algorithm or jwt-kit cannot read it.
    private static func verifier(_ jwk: [String: JSONValue]) async -> JWTKeyCollection? {
        guard let type = jwk["kty"]?.stringValue,
              let algorithm = IDTokenValidator.allowedAlgorithms.first(where: { $0.value == type })?.key
        else { return nil }
        if let named = jwk["alg"]?.stringValue, named != algorithm { return nil }
        var withAlgorithm = jwk
        withAlgorithm["alg"] = .string(algorithm)
        guard let data = try? WireJSON.encoder.encode(JSONValue.object(withAlgorithm)),
              let key = try? WireJSON.decoder.decode(JWK.self, from: data)
        else { return nil }
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwk: key, isDefault: true)
        } catch {
            return nil
        }
        return collection
    }

    static func maxAge(_ headers: HTTPHeaders) -> TimeInterval {
        let directives = headers[canonicalForm: "cache-control"].map { $0.lowercased() }
        if directives.contains("no-store") || directives.contains("no-cache") { return 0 }
        for directive in directives where directive.hasPrefix("max-age=") {
            if let seconds = TimeInterval(directive.dropFirst("max-age=".count)) { return min(max(seconds, 0), 86_400) }
        }
        return 3600
    }
}
