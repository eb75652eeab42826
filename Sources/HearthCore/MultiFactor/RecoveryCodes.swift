import Foundation
import HearthWire

/// One-time recovery codes (a Hearth extension beyond Firebase): ten codes the user writes down at enrollment, each
/// accepted once by `mfaSignIn:finalize` in place of a TOTP code.
///
/// A code is ten characters from an alphabet without look-alikes (no `0`/`o`, `1`/`i`/`l`), shown as two groups
/// of five (`k7m2p-x9qr4`), about 49.5 bits. The server stores only the SHA-256 of the normalized code; what the
/// user types is normalized first (case, dashes and spaces do not matter).
public enum RecoveryCodes {
    /// The characters of a code: digits 2–9 and lower-case letters without `i`, `l`, `o` (31 symbols).
    public static let alphabet = Array("23456789abcdefghjkmnpqrstuvwxyz")
    /// Codes generated at once.
    public static let defaultCount = 10
    /// Characters per group.
    public static let groupLength = 5
    /// Groups per code.
    public static let groupCount = 2

    /// Characters of a normalized code.
    public static var codeLength: Int { groupLength * groupCount }

    /// `count` new codes as shown to the user (`xxxxx-xxxxx`), from the system's secure generator.
    public static func generate(count: Int = RecoveryCodes.defaultCount) -> [String] {
        (0..<count).map { _ in
            (0..<groupCount).map { _ in RandomID.string(count: groupLength, from: alphabet) }.joined(separator: "-")
        }
    }

    /// The canonical form of a typed code: lower case, without dashes and spaces; `nil` when anything else is not
    /// in ``alphabet`` (non-ASCII letters included) or the length is wrong.
    public static func normalize(_ typed: String) -> String? {
        var out: [Character] = []
        for scalar in typed.unicodeScalars {
            if scalar == "-" || scalar == " " { continue }
            guard scalar.isASCII else { return nil }
            let lower = Character(String(scalar).lowercased())
            guard alphabet.contains(lower) else { return nil }
            out.append(lower)
        }
        guard out.count == codeLength else { return nil }
        return String(out)
    }

    /// The stored form of a code: lower-case hex SHA-256 of its normalized text; `nil` for a malformed code.
    public static func hash(_ code: String) -> String? {
        normalize(code).map(WireDigest.sha256Hex)
    }

    /// The index in `storedHashes` of the typed code, or `nil`. Every stored hash is compared, in constant time.
    public static func match(_ typed: String, against storedHashes: [String]) -> Int? {
        guard let candidate = hash(typed) else { return nil }
        let typedBytes = Array(candidate.utf8)
        var found: Int?
        for (index, stored) in storedHashes.enumerated() where ConstantTime.equals(Array(stored.utf8), typedBytes) {
            found = index
        }
        return found
    }
}
