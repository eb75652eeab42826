import Foundation
import HearthCore
import Testing

/// The CBOR decoder against RFC 8949 Appendix A (the supported subset decodes and re-encodes to the same bytes; the
/// rest is refused with a typed error) and against malformed input.
@Suite struct CBORTests {
    static func hex(_ text: String) -> Data {
        Data(stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! })
    }

    static let letters: CBORValue = .map(["a", "b", "c", "d", "e"].map { (.text($0), .text($0.uppercased())) })

    /// Appendix A rows inside the subset: hex → value.
    static let supported: [(String, CBORValue)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)), ("1818", .unsigned(24)),
        ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)), ("1a000f4240", .unsigned(1_000_000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .int(-1)), ("29", .int(-10)), ("3863", .int(-100)), ("3903e7", .int(-1000)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ("40", .bytes(Data())), ("4401020304", .bytes(Data([1, 2, 3, 4]))),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", .map([])), ("a201020304", .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("826161a161626163", .array([.text("a"), .map([(.text("b"), .text("c"))])])),
        ("a56161614161626142616361436164614461656145", letters),
    ]

    @Test func appendixASupported() throws {
        for (text, value) in Self.supported {
            let bytes = Self.hex(text)
            #expect(try CBORDecoder.decode(bytes) == value, "\(text)")
            #expect(CBOREncoder.encode(value) == bytes, "\(text) re-encoded")
        }
        #expect(CBORValue.int(Int64.min) == (try CBORDecoder.decode(Self.hex("3b7fffffffffffffff"))))
        #expect((try CBORDecoder.decode(Self.hex("3b7fffffffffffffff"))).int64 == Int64.min)
    }

    /// Appendix A rows outside the subset: floats and other simple values, tags, bignums, indefinite lengths.
    @Test func appendixARefused() {
        let simple = ["f90000", "f98000", "f93c00", "fb3ff199999999999a", "f93e00", "f97bff", "fa47c35000", "fa7f7fffff",
                      "fb7e37e43c8800759c", "f90001", "f90400", "f9c400", "fbc010666666666666", "f97c00", "f97e00", "f9fc00",
                      "fa7f800000", "fa7fc00000", "faff800000", "fb7ff0000000000000", "fb7ff8000000000000",
                      "fbfff0000000000000", "f7", "f0", "f8ff"]
        for text in simple {
            #expect(throws: CBORError.simpleValueNotSupported(offset: 0), "\(text)") { try CBORDecoder.decode(Self.hex(text)) }
        }
        let tags = ["c249010000000000000000", "c349010000000000000000", "c074323031332d30332d32315432303a30343a30305a",
                    "c11a514b67b0", "c1fb41d452d9ec200000", "d74401020304", "d818456449455446",
                    "d82076687474703a2f2f7777772e6578616d706c652e636f6d"]
        for text in tags {
            #expect(throws: CBORError.tagNotSupported(offset: 0), "\(text)") { try CBORDecoder.decode(Self.hex(text)) }
        }
        #expect(throws: CBORError.integerOutOfRange(offset: 0)) { try CBORDecoder.decode(Self.hex("3bffffffffffffffff")) }
        #expect(throws: CBORError.integerOutOfRange(offset: 0)) { try CBORDecoder.decode(Self.hex("3b8000000000000000")) }
        let indefinite = ["5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "9f018202039f0405ffff",
                          "9f01820203820405ff", "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
                          "bf61610161629f0203ffff", "bf6346756ef563416d7421ff"]
        for text in indefinite {
            #expect(throws: CBORError.indefiniteLength(offset: 0), "\(text)") { try CBORDecoder.decode(Self.hex(text)) }
        }
        // Nested: the indefinite item inside a definite one is found where it starts.
        #expect(throws: CBORError.indefiniteLength(offset: 5)) { try CBORDecoder.decode(Self.hex("83018202039f0405ff")) }
        #expect(throws: CBORError.indefiniteLength(offset: 0)) { try CBORDecoder.decode(Self.hex("ff")) }
    }

    /// Every strict prefix of a valid item is "truncated", never another error or a crash.
    @Test func truncationAtEveryByte() throws {
        let value: CBORValue = .map([
            (.text("fmt"), .text("packed")), (.int(-7), .bytes(Data(repeating: 0xab, count: 300))),
            (.unsigned(70000), .array([.unsigned(UInt64.max), .int(-5_000_000_000), .text("\u{6c34}\u{10151}"), .null, .bool(true)])),
            (.text("nested"), .map([(.int(-1), .array([.array([.bytes(Data([1, 2]))])]))])),
        ])
        let bytes = CBOREncoder.encode(value)
        #expect(try CBOREncoder.encode(CBORDecoder.decode(bytes)) == bytes && CBORDecoder.decode(bytes)[-7] == .bytes(Data(repeating: 0xab, count: 300)))
        for length in 0..<bytes.count {
            #expect(throws: CBORError.truncated(offset: length), "prefix \(length)") { try CBORDecoder.decode(bytes.prefix(length)) }
        }
    }

    @Test func hugeLengthsAreRefusedBeforeAllocating() {
        #expect(throws: CBORError.integerOutOfRange(offset: 0)) { try CBORDecoder.decode(Self.hex("5bffffffffffffffff")) }
        #expect(throws: CBORError.truncated(offset: 6)) { try CBORDecoder.decode(Self.hex("5affffffff00")) }
        #expect(throws: CBORError.truncated(offset: 9)) { try CBORDecoder.decode(Self.hex("9b7fffffffffffffff")) }
        #expect(throws: CBORError.truncated(offset: 10)) { try CBORDecoder.decode(Self.hex("bb400000000000000001")) }
        #expect(throws: CBORError.truncated(offset: 5)) { try CBORDecoder.decode(Self.hex("7a0000000a")) }
        #expect(throws: CBORError.tooLarge(size: CBORDecoder.maxInputSize + 1)) {
            try CBORDecoder.decode(Data(count: CBORDecoder.maxInputSize + 1))
        }
    }

    @Test func nestingIsBounded() throws {
        let eight = Data(repeating: 0x81, count: 8) + [0x00]
        #expect(try CBORDecoder.decode(eight) != .null)
        #expect(throws: CBORError.tooDeep(offset: 9)) { try CBORDecoder.decode(Data(repeating: 0x81, count: 9) + [0x00]) }
        #expect(throws: CBORError.tooDeep(offset: 9)) { try CBORDecoder.decode(Data(repeating: 0xa1, count: 100_000)) }
        #expect(throws: CBORError.tooDeep(offset: 3)) { try CBORDecoder.decode(Data(repeating: 0x81, count: 3) + [0x00], maxDepth: 2) }
    }

    @Test func malformedItems() {
        let cases: [(String, CBORError)] = [
            ("a201020103", .duplicateMapKey(offset: 3)), ("a2616101616102", .duplicateMapKey(offset: 4)),
            ("a2200120f6", .duplicateMapKey(offset: 3)), ("a1800f", .unsupportedMapKey(offset: 1)),
            ("a1f601", .unsupportedMapKey(offset: 1)), ("a14101f6", .unsupportedMapKey(offset: 1)),
            ("62c328", .invalidUTF8(offset: 0)), ("61ff", .invalidUTF8(offset: 0)), ("63eda080", .invalidUTF8(offset: 0)),
            ("8162c328", .invalidUTF8(offset: 1)), ("1c", .reservedAdditionalInfo(offset: 0)),
            ("3d", .reservedAdditionalInfo(offset: 0)), ("5e", .reservedAdditionalInfo(offset: 0)),
            ("0000", .trailingBytes(offset: 1)), ("a0ff", .trailingBytes(offset: 1)), ("", .truncated(offset: 0)),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text)") { try CBORDecoder.decode(Self.hex(text)) }
        }
    }

    /// Keys are compared by their bytes (canonically equivalent text is two keys), and the duplicate check is not
    /// quadratic: a map of 40 000 keys decodes at once.
    @Test func mapKeys() throws {
        let accents = try CBORDecoder.decode(CBOREncoder.encode(.map([(.text("\u{e9}"), .unsigned(1)), (.text("e\u{301}"), .unsigned(2))])))
        guard case .map(let pairs) = accents else { Issue.record("not a map"); return }
        #expect(pairs.count == 2 && accents["e\u{301}"] == .unsigned(2) && accents["\u{e9}"] == .unsigned(1))
        let big = CBORValue.map((0..<40_000).map { (.unsigned(UInt64($0) * 100_003), .null) })
        let started = ContinuousClock.now
        guard case .map(let decoded) = try CBORDecoder.decode(CBOREncoder.encode(big)) else { Issue.record("not a map"); return }
        #expect(decoded.count == 40_000)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func prefixDecodingReportsTheLengthUsed() throws {
        let (value, length) = try CBORDecoder.decodePrefix(Self.hex("a201020304ffee"))
        #expect(value[1] == .unsigned(2) && value[3] == .unsigned(4) && length == 5)
        #expect(Self.letters["c"] == .text("C") && Self.letters[7] == nil)
    }

    /// Non-shortest heads are accepted; the encoder writes the shortest and sorts map keys bytewise.
    @Test func encoderIsDeterministic() throws {
        #expect(try CBORDecoder.decode(Self.hex("1b0000000000000001")) == .unsigned(1))
        let unsorted: CBORValue = .map([(.text("b"), .unsigned(1)), (.int(-1), .unsigned(2)), (.unsigned(10), .unsigned(3)), (.text("a"), .null)])
        #expect(CBOREncoder.encode(unsorted) == Self.hex("a40a0320026161f6616201"))
    }
}
