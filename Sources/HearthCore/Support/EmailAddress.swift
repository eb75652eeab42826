import Foundation

/// Email normalization and a pragmatic syntax check (what Firebase's backend accepts, roughly).
public enum EmailAddress {
    /// The form every address is stored and compared in: trimmed, lower-cased and in Unicode Normalization Form C,
    /// so a composed and a decomposed `rené@example.com` (or `RENÉ@…`) are one address, as at Firebase.
    public static func canonical(_ raw: String) -> String {
        // Printable ASCII without spaces (nearly every address): nothing to trim or compose; lower-casing is A-Z only
        // (issue 41: the general path was a tenth of an import's CPU).
        let bytes = raw.utf8
        if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            guard bytes.contains(where: { (0x41...0x5A).contains($0) }) else { return raw }
            return String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().precomposedStringWithCanonicalMapping
    }

    /// ``canonical(_:)``, or `nil` when it is not a plausible address.
    public static func normalize(_ raw: String) -> String? {
        let email = canonical(raw)
        guard email.count <= 254, !email.contains(where: { $0.isWhitespace || $0 == "," || $0 == ";" }) else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return nil }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 }),
              labels.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }),
              labels.allSatisfy({ !$0.hasPrefix("-") && !$0.hasSuffix("-") })
        else { return nil }
        return email
    }
}
import Foundation
