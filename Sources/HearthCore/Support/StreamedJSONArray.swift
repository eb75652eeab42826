import Foundation

/// Reads the elements of one array member of a top-level JSON object — `{"users": [ {...}, {...} ]}`, the
/// Firebase `auth:export` file — from chunks of any size, without ever holding the whole document (issue 41): each
/// element comes out as its own bytes, for a `JSONDecoder` to decode one batch at a time. Memory is bounded by
/// the largest element plus a chunk.
///
/// Only the document's frame is checked here (the top level is an object; the member is an array; strings,
/// brackets and braces nest and close; nothing follows the object): an element's own syntax is its decoder's
/// business, so one malformed user fails alone. Other members of the top-level object are skipped, before or
/// after the array. Strings may hold any bytes (braces, brackets, escaped quotes, `\u` escapes, UTF-8).
///
///     var reader = StreamedJSONArray(member: "users")
///     for chunk in chunks { for element in try reader.feed(chunk) { … } }
///     try reader.finish()   // throws when the document is truncated or has no "users" array
public struct StreamedJSONArray: Sendable {
    /// Why the document is not `{"<member>": [...]}`, with the byte offset where that was seen.
    public struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        /// Offset of the byte in the document (0-based) where the problem was found.
        public var offset: Int
    }

    /// The member whose array is read (`users`).
    public let member: String
    /// How many elements were read so far.
    public private(set) var count = 0
    /// How many bytes were fed so far.
    public private(set) var offset = 0

    private enum State: Sendable {
        case start, beforeKey(first: Bool), key, afterKey, beforeValue, skipping, afterValue, arrayStart(first: Bool), element, afterElement, end
    }

    private var state = State.start
    /// The key being read (raw, with its quotes), or the element being read.
    private var buffer: [UInt8] = []
    private var scanner = ValueScanner()
    private var keyEscaped = false
    private var readingMember = false
    private var sawMember = false

    /// Whether elements are handed out (`false`: only counted, for a first pass that checks the frame).
    public let keepsElements: Bool

    /// - Parameter keepingElements: `false` to count the elements without copying them (a checking pass).
    public init(member: String, keepingElements: Bool = true) {
        self.member = member
        self.keepsElements = keepingElements
    }

    /// Reads `chunk`, the next bytes of the document; answers the elements it completed, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws -> [Data] {
        var elements: [Data] = []
        let handled: Void? = try chunk.withContiguousStorageIfAvailable { bytes in try feed(bytes, into: &elements) }
        if handled == nil { try Array(chunk).withUnsafeBufferPointer { bytes in try feed(bytes, into: &elements) } }
        return elements
    }

    /// The document ended: throws when it is incomplete (truncated), or holds no `member` array.
    public mutating func finish() throws {
        switch state {
        case .end: return
        case .start: throw Error(description: offset == 0 ? "the file is empty" : "the file holds no JSON object", offset: offset)
        default: throw Error(description: "the file ends before its JSON does (truncated after byte \(offset)): it was cut short", offset: offset)
        }
    }

    private mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, into elements: inout [Data]) throws {
        var index = 0
        let end = bytes.count
        while index < end {
            let byte = bytes[index]
            switch state {
            case .start:
                if Self.isSpace(byte) || (offset + index < 3 && [0xEF, 0xBB, 0xBF][offset + index] == byte) { break }
                guard byte == UInt8(ascii: "{") else {
                    throw fail("the file is not a JSON object ({\"\(member)\": [...]}): it starts with \(Self.shown(byte))", at: index)
                }
                state = .beforeKey(first: true)
            case .beforeKey(let first):
                if Self.isSpace(byte) { break }
                if byte == UInt8(ascii: "}"), first { state = .end; try finishObject(at: index); break }
                guard byte == UInt8(ascii: "\"") else { throw fail("expected a member name, found \(Self.shown(byte))", at: index) }
                buffer = [byte]
                keyEscaped = false
                state = .key
            case .key:
                // Key text up to its closing quote, byte by byte (names are short).
                buffer.append(byte)
                if keyEscaped {
                    keyEscaped = false
                } else if byte == UInt8(ascii: "\\") {
                    keyEscaped = true
                } else if byte == UInt8(ascii: "\"") {
                    let name = try? JSONDecoder().decode(String.self, from: Data(buffer))
                    readingMember = name == member
                    buffer = []
                    state = .afterKey
                }
            case .afterKey:
                if Self.isSpace(byte) { break }
                guard byte == UInt8(ascii: ":") else { throw fail("expected ':' after a member name, found \(Self.shown(byte))", at: index) }
                state = .beforeValue
            case .beforeValue:
                if Self.isSpace(byte) { break }
                if readingMember {
                    if sawMember { throw fail("the object has two \"\(member)\" members", at: index) }
                    guard byte == UInt8(ascii: "[") else { throw fail("\"\(member)\" is not an array: it starts with \(Self.shown(byte))", at: index) }
                    sawMember = true
                    state = .arrayStart(first: true)
                    break
                }
                guard Self.startsValue(byte) else { throw fail("expected a value, found \(Self.shown(byte))", at: index) }
                scanner = ValueScanner()
                _ = scanner.step(byte)
                state = .skipping
            case .skipping:
                // A run of bytes inside a string or a container: skipped in one go.
                switch scanner.step(byte) {
                case .more: break
                case .endsHere: state = .afterValue
                case .endedBefore: state = .afterValue; continue
                }
            case .afterValue:
                if Self.isSpace(byte) { break }
                if byte == UInt8(ascii: ",") { state = .beforeKey(first: false); break }
                guard byte == UInt8(ascii: "}") else { throw fail("expected ',' or '}' after a member, found \(Self.shown(byte))", at: index) }
                state = .end
                try finishObject(at: index)
            case .arrayStart(let first):
                if Self.isSpace(byte) { break }
                if byte == UInt8(ascii: "]"), first { state = .afterValue; break }
                guard Self.startsValue(byte) else { throw fail("expected an element of \"\(member)\", found \(Self.shown(byte))", at: index) }
                scanner = ValueScanner()
                _ = scanner.step(byte)
                if keepsElements { buffer = [byte] }
                state = .element
            case .element:
                // The element's bytes up to where it ends: copied in runs, not byte by byte.
                var stop = index
                var outcome = ValueScanner.Step.more
                while stop < end {
                    outcome = scanner.step(bytes[stop])
                    if outcome != .more { break }
                    stop += 1
                }
                let through = outcome == .endsHere ? stop + 1 : stop
                if keepsElements { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<through])) }
                if outcome == .more { index = end; continue }
                if keepsElements {
                    elements.append(Data(buffer))
                    buffer = []
                }
                count += 1
                state = .afterElement
                index = through
                continue
            case .afterElement:
                if Self.isSpace(byte) { break }
                if byte == UInt8(ascii: ",") { state = .arrayStart(first: false); break }
                guard byte == UInt8(ascii: "]") else { throw fail("expected ',' or ']' after element \(count - 1) of \"\(member)\", found \(Self.shown(byte))", at: index) }
                state = .afterValue
            case .end:
                guard Self.isSpace(byte) else { throw fail("unexpected \(Self.shown(byte)) after the end of the JSON object", at: index) }
            }
            index += 1
        }
        offset += end
    }

    private func finishObject(at index: Int) throws {
        guard sawMember else { throw fail("the file has no \"\(member)\" array ({\"\(member)\": [...]})", at: index) }
    }

    private func fail(_ description: String, at index: Int) -> Error {
        Error(description: "\(description) at byte \(offset + index)", offset: offset + index)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// A byte that can begin a JSON value.
    private static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): true
        default: false
        }
    }

    /// A byte as a message shows it: printable ASCII quoted, anything else in hex.
    private static func shown(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    /// Finds where one JSON value ends, byte by byte: strings (with their escapes) and nesting are followed, the
    /// value's own syntax is not checked.
    struct ValueScanner: Sendable {
        enum Step: Sendable { case more, endsHere, endedBefore }
        var depth = 0
        var inString = false
        var escaped = false
        var scalar = false
        var started = false

        mutating func step(_ byte: UInt8) -> Step {
            if !started {
                started = true
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth = 1
                case UInt8(ascii: "\""): inString = true
                default: scalar = true
                }
                return .more
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return .endsHere }
                }
                return .more
            }
            if scalar {
                switch byte {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return .endedBefore
                default: return .more
                }
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return .endsHere }
            default: break
            }
            return .more
        }
    }
}
