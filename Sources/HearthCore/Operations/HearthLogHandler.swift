import Foundation
import Logging
import Synchronization

/// The server's log handler: one line per entry on standard error, as text (the default) or as JSON
/// (`--log-format json`), with the current request's id (``HearthRequestID``) as `request_id`.
///
/// A last line of defence, whatever a caller passes: email addresses are shortened to their first character and
/// domain (`a…@example.com`), and JWTs (ID tokens, custom tokens, access tokens, session cookies) and Hearth's
/// refresh tokens are replaced by `[redacted]`, in the message and in every metadata value.
public struct HearthLogHandler: LogHandler {
    /// How lines are written.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let format: Format
    let sink: @Sendable (String) -> Void

    /// `sink` receives each line without its newline; the default writes to standard error.
    public init(label: String, format: Format, level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
                sink: @escaping @Sendable (String) -> Void = HearthLogHandler.standardError) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        // Hummingbird's own request id is replaced by the one the response carries.
        merged.removeValue(forKey: "hb.request.id")
        var fields: [(String, String)] = merged.map { ($0.key, Self.redact("\($0.value)")) }.sorted { $0.0 < $1.0 }
        if let id = HearthRequestID.current { fields.insert(("request_id", id), at: 0) }
        let message = Self.redact(event.message.description)
        let time = Date()
        switch format {
        case .text:
            // Values may come from requests (an assertion's issuer, a name): control characters are escaped, so no
            // value can end the line and write a line of its own.
            let rendered = fields.isEmpty ? "" : " " + fields.map { "\(Self.escaped($0.0))=\(Self.escaped($0.1))" }.joined(separator: " ")
            sink("\(Self.timestamp(time)) \(event.level) \(label):\(rendered) \(Self.escaped(message))")
        case .json:
            var parts = ["\"time\":\(Self.quoted(Self.timestamp(time)))", "\"level\":\(Self.quoted(event.level.rawValue))",
                         "\"logger\":\(Self.quoted(label))", "\"message\":\(Self.quoted(message))"]
            let reserved: Set<String> = ["time", "level", "logger", "message"]
            for (key, value) in fields {
                parts.append("\(Self.quoted(reserved.contains(key) ? "meta.\(key)" : key)):\(Self.quoted(value))")
            }
            sink("{" + parts.joined(separator: ",") + "}")
        }
    }

    // MARK: Output

    private static let writeLock = Mutex(())

    /// Writes one line to standard error (whole lines, never interleaved).
    public static let standardError: @Sendable (String) -> Void = { line in
        let data = Data((line + "\n").utf8)
        writeLock.withLock { _ in FileHandle.standardError.write(data) }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `text` for a text log line: control characters (C0, DEL, C1) and Unicode line and paragraph separators as
    /// escapes (`\n`, `\r`, `\t`, `\u{…}`), a backslash doubled; everything else as it is.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\\" }) else { return text }
        return escape(text, json: false)
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String { "\"" + escape(text, json: true) + "\"" }

    /// The one escaper of both formats: JSON escapes quotes and C0 controls (`\u00XX`); text escapes every control
    /// and line separator (`\u{XX}`).
    private static func escape(_ text: String, json: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where json: out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where json && scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where !json && isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    // MARK: Redaction

    /// `text` with email addresses shortened and tokens removed.
    public static func redact(_ text: String) -> String {
        // Fast path: nothing that could be an email address or a token.
        guard text.contains("@") || text.contains("eyJ") || text.contains("hrt1.") else { return text }
        var result = text
        result.replace(#/eyJ[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*\.?[A-Za-z0-9_\-]*/#) { _ in "[redacted]" }
        result.replace(#/hrt1\.[A-Za-z0-9_\-.]+/#) { _ in "[redacted]" }
        result.replace(#/([A-Za-z0-9._%+\-]+)@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+)/#) { match in
            "\(match.output.1.prefix(1))…@\(match.output.2)"
        }
        return result
    }
}

/// The id of the request being served, for log lines written anywhere below the router (services, stores, the
/// relying party): ``HearthLogHandler`` adds it to every line as `request_id`.
public enum HearthRequestID {
    /// The current request's id, or nil outside a request.
    @TaskLocal public static var current: String?

    /// A new id: 128 random bits as 32 hexadecimal digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (value: UInt64) in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// An incoming id is kept when it is 1 to 128 characters of letters, digits and `-_.:` (what proxies and
    /// tracing systems send); anything else is replaced, so a log line never carries arbitrary client text.
    public static func accepts(_ candidate: String) -> Bool {
        (1...128).contains(candidate.utf8.count)
            && candidate.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x3A
            }
    }
}
