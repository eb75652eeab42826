import Foundation

extension String {
    /// The text without control and format characters (Unicode Cc and Cf, which include the bidirectional overrides
    /// and isolates): safe to quote in an error message, a log line, a page or an email.
    public var withoutControlCharacters: String {
        String(String.UnicodeScalarView(unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
    }
}
