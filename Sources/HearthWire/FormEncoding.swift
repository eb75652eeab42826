import Foundation

/// `application/x-www-form-urlencoded` (RFC 3986 unreserved characters kept): the one form encoder and parser
/// for request bodies, the dev providers' forms and the OAuth messages.
public enum FormEncoding {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encodes one component.
    public static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Encodes pairs as `a=b&c=d`.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Decodes `a=b&c=d` (with `+` as space; an invalid escape is kept as sent). Empty pairs are skipped.
    public static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair -> (String, String)? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawKey = parts.first else { return nil }
            func unescape(_ s: Substring) -> String {
                let spaced = s.contains("+") ? s.replacingOccurrences(of: "+", with: " ") : String(s)
                guard spaced.contains("%") else { return spaced }
                return spaced.removingPercentEncoding ?? spaced
            }
            return (unescape(rawKey), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// The decoded fields as a dictionary (the last of repeated names wins).
    public static func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in decode(text) { fields[key] = value }
        return fields
    }
}

/// A URL's query read with `application/x-www-form-urlencoded` semantics — `+` is a space, as Python's `urlencode`,
/// Java's `URLEncoder` and HTML forms send it — the one way every Hearth endpoint reads a query.
public struct FormQuery: Sendable {
    /// The decoded parameters (the last of repeated names wins).
    public let fields: [String: String]

    /// Parses the raw (still percent-encoded) query text; nil is no query.
    public init(_ query: String?) {
        fields = FormEncoding.fields(query ?? "")
    }

    /// The value of `name`, if present.
    public func get(_ name: String) -> String? { fields[name] }
}
