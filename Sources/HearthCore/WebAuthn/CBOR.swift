import Foundation

/// A CBOR data item (RFC 8949) of the subset WebAuthn uses: integers, byte and text strings, arrays, maps and the
/// simple values `false`, `true` and `null`. Tags, floats, other simple values and indefinite lengths are refused
/// by ``CBORDecoder``.
public indirect enum CBORValue: Sendable, Equatable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer −1 − n (the decoder only accepts n ≤ Int64.max, so it fits Int64).
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes(Data)
    /// Major type 3: a text string (valid UTF-8).
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, in the order its pairs were encoded (keys are unique integers or text strings).
    case map([(CBORValue, CBORValue)])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// An integer value as Int64 (nil for other items and for unsigned values above Int64.max).
    public var int64: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// An integer item for `value`.
    public static func int(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The value under `key` when this is a map.
    public subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The value under an integer key (COSE labels) when this is a map.
    public subscript(label: Int64) -> CBORValue? { self[.int(label)] }

    /// The value under a text key when this is a map.
    public subscript(name: String) -> CBORValue? { self[.text(name)] }

    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8) // bytes, not Unicode equivalence
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }
}

/// Why bytes are not a CBOR item of the supported subset; `offset` is where the decoder stopped.
public enum CBORError: Error, Equatable, Sendable {
    /// The input ends inside an item.
    case truncated(offset: Int)
    /// Bytes follow the (single) top-level item.
    case trailingBytes(offset: Int)
    /// Additional information 31 (indefinite length or "break").
    case indefiniteLength(offset: Int)
    /// Additional information 28–30 (reserved).
    case reservedAdditionalInfo(offset: Int)
    /// Major type 6: tags are not part of the subset.
    case tagNotSupported(offset: Int)
    /// Major type 7 other than false/true/null (floats, undefined, other simple values).
    case simpleValueNotSupported(offset: Int)
    /// A negative integer below Int64.min, or a length that does not fit Int.
    case integerOutOfRange(offset: Int)
    /// A text string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A map key that is neither an integer nor a text string.
    case unsupportedMapKey(offset: Int)
    /// A map key that appears twice in one map.
    case duplicateMapKey(offset: Int)
    /// Nesting deeper than the decoder's limit.
    case tooDeep(offset: Int)
    /// The input exceeds the decoder's size limit.
    case tooLarge(size: Int)
}

/// Decodes the CBOR subset of ``CBORValue`` with definite lengths only, bounded nesting and size, and lengths
/// checked against the remaining input before anything is allocated. Non-shortest integer encodings are accepted
/// (WebAuthn does not require CTAP2's canonical form).
public enum CBORDecoder {
    /// The largest input accepted (attestation objects with certificate chains stay well below this).
    public static let maxInputSize = 256 * 1024

    /// Decodes exactly one item that spans all of `bytes`. `maxDepth` (at most 64) bounds nesting: 0 allows only
    /// a scalar at the top, 1 a COSE key, 2 an attestation object.
    public static func decode(_ bytes: Data, maxDepth: Int = 8) throws(CBORError) -> CBORValue {
        let (value, used) = try decodePrefix(bytes, maxDepth: maxDepth)
        guard used == bytes.count else { throw .trailingBytes(offset: used) }
        return value
    }

    /// Decodes the first item of `bytes` and returns it with the number of bytes it used (the rest is the caller's,
    /// e.g. the extensions after a COSE key in authenticator data).
    public static func decodePrefix(_ bytes: Data, maxDepth: Int = 8) throws(CBORError) -> (value: CBORValue, length: Int) {
        guard bytes.count <= maxInputSize else { throw .tooLarge(size: bytes.count) }
        var reader = Reader(bytes: Array(bytes), maxDepth: min(maxDepth, 64)) // recursion stays shallow whatever the caller asks
        let value = try reader.item(depth: 0)
        return (value, reader.offset)
    }

    private enum MapKey: Hashable {
        case unsigned(UInt64), negative(UInt64), text([UInt8]) // text by its bytes, as CBOR compares keys
    }

    private struct Reader {
        let bytes: [UInt8]
        let maxDepth: Int
        var offset = 0

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        var remaining: Int { bytes.count - offset }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// The head's argument (RFC 8949 §3): the value for additional information 0–27.
        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0...23: return UInt64(info)
            case 24...27:
                let size = 1 << Int(info - 24)
                guard remaining >= size else { throw .truncated(offset: bytes.count) }
                var value: UInt64 = 0
                for _ in 0..<size {
                    let next = try byte()
                    value = value << 8 | UInt64(next)
                }
                return value
            case 31: throw .indefiniteLength(offset: start)
            default: throw .reservedAdditionalInfo(offset: start)
            }
        }

        /// A length or count that is at most the remaining input (each element takes at least one byte).
        func length(_ argument: UInt64, at start: Int) throws(CBORError) -> Int {
            guard argument <= UInt64(Int.max) else { throw .integerOutOfRange(offset: start) }
            guard Int(argument) <= remaining else { throw .truncated(offset: bytes.count) }
            return Int(argument)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            let start = offset
            guard depth <= maxDepth else { throw .tooDeep(offset: start) }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1f
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 31: throw .indefiniteLength(offset: start)
                default: throw .simpleValueNotSupported(offset: start)
                }
            }
            if major == 6 { throw .tagNotSupported(offset: start) }
            let argument = try self.argument(info, at: start)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                guard argument <= UInt64(Int64.max) else { throw .integerOutOfRange(offset: start) }
                return .negative(argument)
            case 2:
                let count = try length(argument, at: start)
                defer { offset += count }
                return .bytes(Data(bytes[offset..<offset + count]))
            case 3:
                let count = try length(argument, at: start)
                guard let text = String(validating: bytes[offset..<offset + count], as: UTF8.self) else {
                    throw .invalidUTF8(offset: start)
                }
                offset += count
                return .text(text)
            case 4:
                let count = try length(argument, at: start)
                var items: [CBORValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            default: // 5: a map; each pair takes at least two bytes
                let count = try length(argument, at: start)
                guard count <= remaining / 2 else { throw .truncated(offset: bytes.count) }
                var pairs: [(CBORValue, CBORValue)] = []
                pairs.reserveCapacity(count)
                var seen = Set<MapKey>() // a set, so a map of many keys costs linear time, not quadratic
                for _ in 0..<count {
                    let keyStart = offset
                    let key = try item(depth: depth + 1)
                    let id: MapKey
                    switch key {
                    case .unsigned(let n): id = .unsigned(n)
                    case .negative(let n): id = .negative(n)
                    case .text(let text): id = .text(Array(text.utf8))
                    default: throw .unsupportedMapKey(offset: keyStart)
                    }
                    guard seen.insert(id).inserted else { throw .duplicateMapKey(offset: keyStart) }
                    let value = try item(depth: depth + 1)
                    pairs.append((key, value))
                }
                return .map(pairs)
            }
        }
    }
}

/// Encodes ``CBORValue`` deterministically (RFC 8949 §4.2.1: shortest heads, map keys sorted bytewise by their
/// encodings). Used by tests and fuzzing; the server keeps the bytes it received rather than re-encoding.
public enum CBOREncoder {
    /// The deterministic encoding of `value`.
    public static func encode(_ value: CBORValue) -> Data {
        var out: [UInt8] = []
        append(value, to: &out)
        return Data(out)
    }

    private static func head(_ major: UInt8, _ argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out += [type | 24, UInt8(argument)]
        case 0x100...0xffff: out.append(type | 25); out += (0..<2).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        case 0x1_0000...0xffff_ffff: out.append(type | 26); out += (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        default: out.append(type | 27); out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        }
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, to: &out)
        case .negative(let n): head(1, n, to: &out)
        case .bytes(let data): head(2, UInt64(data.count), to: &out); out += data
        case .text(let text): head(3, UInt64(text.utf8.count), to: &out); out += text.utf8
        case .array(let items):
            head(4, UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let pairs):
            head(5, UInt64(pairs.count), to: &out)
            let encoded = pairs.map { (key: [UInt8](encode($0.0)), value: [UInt8](encode($0.1))) }
            for pair in encoded.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) { out += pair.key; out += pair.value }
        case .bool(let flag): out.append(flag ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        }
    }
}
