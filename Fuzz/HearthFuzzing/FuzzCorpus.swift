import Foundation

/// The seed corpus (`Fuzz/corpus/<target>/`, one input per file) and the seeded mutations the corpus-driven
/// property test applies (the libFuzzer runs mutate on their own).
public enum FuzzCorpus {
    /// `Fuzz/corpus` in the source tree.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("corpus")

    /// The seeds of `target`, sorted by file name.
    public static func seeds(_ target: FuzzTarget) -> [[UInt8]] {
        let folder = directory.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map(Array.init)
        }
    }

    /// The provider documents the seeds start from: a discovery document, key set, token response, userinfo and
    /// ID-token claims that together make a valid sign-in at ``FuzzRig/providerNow``.
    public static let defaultProviderParts: [[UInt8]] = [
        Array(#"{"issuer":"{{BASE}}","authorization_endpoint":"{{BASE}}/authorize","token_endpoint":"{{BASE}}/token","jwks_uri":"{{BASE}}/jwks","userinfo_endpoint":"{{BASE}}/userinfo","response_types_supported":["code"]}"#.utf8),
        Array(#"{"keys":[{{KEY}}]}"#.utf8),
        Array(#"{"access_token":"access-1","token_type":"Bearer","expires_in":3600,"id_token":"{{ID_TOKEN}}"}"#.utf8),
        Array(#"{"sub":"user-1","email":"ada@fuzz.example.com","email_verified":true,"name":"Ada"}"#.utf8),
        Array(#"{"iss":"{{BASE}}","aud":"fuzz-client","sub":"user-1","nonce":"fuzz-nonce","iat":1893456000,"exp":1893459600,"email":"ada@fuzz.example.com","email_verified":true,"name":"Ada"}"#.utf8),
    ]

    /// A provider input from its parts (nil: the default part).
    public static func providerParts(discovery: [UInt8]?, jwks: [UInt8]?, tokenResponse: [UInt8]?, userinfo: [UInt8]?, claims: [UInt8]?) -> [UInt8] {
        let parts = [discovery, jwks, tokenResponse, userinfo, claims].enumerated().map { $0.element ?? defaultProviderParts[$0.offset] }
        return Array(parts.joined(separator: [0]))
    }

    /// A query string from arbitrary bytes: bytes that cannot appear in a URL's query are percent-encoded, the
    /// query's own syntax (`&`, `=`, `%`, `+`) is kept so mutations reach the parser's structure.
    public static func queryText(_ input: [UInt8]) -> String {
        var text = ""
        for byte in input {
            let scalar = Unicode.Scalar(byte)
            if byte >= 0x21, byte < 0x7f, !"#\"<>\\^`{|}[]".unicodeScalars.contains(scalar) {
                text.unicodeScalars.append(scalar)
            } else {
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }

    /// Dictionary of fragments mutations splice in: JSON and JWT syntax, odd numbers, odd strings.
    static let fragments: [[UInt8]] = [
        "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "-1", "0", "1e309", "-0", "9223372036854775808",
        "1.5", "\"\\u0000\"", "\"\\ud800\"", "{}", "[]", ".", "..", "eyJ", "=", "&", "%", "%00", "%ff", "+", "\u{0}",
        "alg", "none", "HS256", "RS256", "kid", "\"kid\":\"../../etc/passwd\"", "exp", "iat", "aud", "iss", "sub",
        String(repeating: "A", count: 300), String(repeating: "[", count: 64), "\u{FEFF}", "é", "\u{202E}",
    ].map { Array($0.utf8) }

    /// One seeded mutation of `seed` (1–4 edits: byte flips, inserts, deletions, duplicated or spliced ranges,
    /// dictionary fragments).
    public static func mutate(_ seed: [UInt8], using rng: inout some RandomNumberGenerator, others: [[UInt8]] = []) -> [UInt8] {
        var data = seed
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let position = data.isEmpty ? 0 : Int.random(in: 0...data.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where !data.isEmpty:
                let index = min(position, data.count - 1)
                data[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1:
                data.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case 2 where !data.isEmpty:
                let end = min(data.count, position + Int.random(in: 1...16, using: &rng))
                data.removeSubrange(min(position, data.count - 1)..<end)
            case 3 where !data.isEmpty:
                let start = Int.random(in: 0..<data.count, using: &rng)
                let end = min(data.count, start + Int.random(in: 1...32, using: &rng))
                data.insert(contentsOf: data[start..<end], at: position)
            case 4, 5:
                data.insert(contentsOf: fragments.randomElement(using: &rng)!, at: position)
            case 6 where !others.isEmpty:
                let other = others.randomElement(using: &rng)!
                guard !other.isEmpty else { break }
                let start = Int.random(in: 0..<other.count, using: &rng)
                data.insert(contentsOf: other[start..<min(other.count, start + Int.random(in: 1...64, using: &rng))], at: position)
            default:
                if !data.isEmpty { data[min(position, data.count - 1)] = [0, 0xff, 0x7f, 0x80, 0x22, 0x5c, 0x2e].randomElement(using: &rng)! }
            }
        }
        return data
    }
}

/// A small, fast, seedable generator (SplitMix64) so a failing run can be repeated from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
