import Foundation

/// The JSON form of Hearth's wire answers: sorted keys, unescaped slashes. One shared encoder and decoder
/// (both are thread-safe), instead of a fresh one per response.
public enum WireJSON {
    /// Sorted keys, `/` not escaped.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public static let decoder = JSONDecoder()
}
