import Foundation
import HearthCore
import HearthWire
import NIOHTTP1

/// Providers' signing keys, cached per JWKS URL for the `Cache-Control: max-age` the provider sends (default one
/// hour, at most a day), refetched once when a token names an unknown `kid` (no more often than
/// `minimumRefetchInterval`, so forged kids cannot make Hearth hammer the provider).
public actor JWKSCache {
    private let http: UpstreamHTTP
    private let clock: WallClock
    private let minimumRefetchInterval: TimeInterval
    private var entries: [String: Entry] = [:]

    struct Entry {
        var keys: [[String: JSONValue]]
        var fetchedAt: Date
        var maxAge: TimeInterval
    }

    init(http: UpstreamHTTP, clock: WallClock, minimumRefetchInterval: TimeInterval) {
        self.http = http
        self.clock = clock
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// The key for `kid` (or the only key, when the token has no `kid`), as a JWK object.
    func key(uri: String, kid: String?) async throws -> [String: JSONValue] {
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

    private static func select(_ keys: [[String: JSONValue]], kid: String?) -> [String: JSONValue]? {
        guard let kid else { return keys.count == 1 ? keys[0] : nil }
        return keys.first { $0["kid"]?.stringValue == kid }
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
        let keys = list.compactMap(\.objectValue).filter { key in
            let type = key["kty"]?.stringValue
            let use = key["use"]?.stringValue
            return (type == "RSA" || type == "EC") && (use == nil || use == "sig") && key["d"] == nil
        }
        let entry = Entry(keys: keys, fetchedAt: clock.now(), maxAge: Self.maxAge(reply.headers))
        entries[uri] = entry
        return entry
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
