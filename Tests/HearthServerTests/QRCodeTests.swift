import Foundation
import HearthPages
import Testing

/// The QR encoder's own properties: capacities, errors for data that cannot fit, every length up to capacity, the
/// structure every symbol must have, and the SVG. (Bit-for-bit agreement with segno: `QRCodeSegnoVectorsTests`.)
@Suite struct QRCodeTests {
    /// SplitMix64 with a fixed seed, so a failing length can be rerun.
    struct SeededBytes {
        var state: UInt64
        mutating func next() -> UInt8 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
        mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in next() } }
    }

    @Test func byteCapacitiesAreTheStandardsTable() {
        // ISO/IEC 18004 table 7, byte mode, versions 1…10 and 40.
        let expected: [QRCode.ErrorCorrection: [Int]] = [
            .low: [17, 32, 53, 78, 106, 134, 154, 192, 230, 271],
            .medium: [14, 26, 42, 62, 84, 106, 122, 152, 180, 213],
            .quartile: [11, 20, 32, 46, 60, 74, 86, 108, 130, 151],
            .high: [7, 14, 24, 34, 44, 58, 64, 84, 98, 119],
        ]
        for (level, capacities) in expected {
            #expect((1...10).map { QRCode.capacity(version: $0, errorCorrection: level) } == capacities, "\(level)")
        }
        #expect(QRCode.capacity(version: 40, errorCorrection: .low) == 2953)
        #expect(QRCode.capacity(version: 40, errorCorrection: .high) == 1273)
    }

    @Test func tooMuchDataIsAClearError() throws {
        let tooLong = [UInt8](repeating: 0x41, count: 2954)
        #expect(throws: QRCode.EncodingError.dataTooLong(bytes: 2954, capacity: 2953, maxVersion: 40, errorCorrection: .low)) {
            try QRCode(bytes: tooLong, errorCorrection: .low)
        }
        let error = #expect(throws: QRCode.EncodingError.self) {
            try QRCode(bytes: [UInt8](repeating: 0, count: 214), versions: 1...10)
        }
        #expect(error?.description == "214 bytes do not fit in a QR code of version 10 at error correction M: at most 213 bytes")
        #expect(throws: QRCode.EncodingError.invalidVersionRange(0...3)) { try QRCode(text: "x", versions: 0...3) }
        #expect(throws: QRCode.EncodingError.invalidVersionRange(1...41)) { try QRCode(text: "x", versions: 1...41) }
        #expect(throws: QRCode.EncodingError.invalidMask(8)) { try QRCode(text: "x", mask: 8) }
        // A minimum version is honoured even when the data would fit a smaller one.
        #expect(try QRCode(text: "x", versions: 5...40).version == 5)
    }

    /// Every length from 0 to the capacity of version 10 at every level (random bytes), and the full capacity of
    /// every larger version: each encodes in the smallest version that holds it, with the fixed patterns in place
    /// and both copies of the format information agreeing.
    @Test(arguments: QRCode.ErrorCorrection.allCases)
    func everyLengthUpToCapacityEncodes(_ level: QRCode.ErrorCorrection) throws {
        var random = SeededBytes(state: UInt64(level.rawValue) + 22)
        let lengths = Array(0...QRCode.capacity(version: 10, errorCorrection: level))
            + (11...40).map { QRCode.capacity(version: $0, errorCorrection: level) }
        for length in lengths {
            let code = try QRCode(bytes: random.bytes(length), errorCorrection: level)
            let smallest = (1...40).first { QRCode.capacity(version: $0, errorCorrection: level) >= length }
            #expect(code.version == smallest, "\(length) bytes")
            Self.expectStructure(code, level: level)
        }
    }

    /// Finders, timing patterns, the dark module, and the format information (read back from both copies).
    static func expectStructure(_ code: QRCode, level: QRCode.ErrorCorrection, sourceLocation: SourceLocation = #_sourceLocation) {
        let n = code.size
        for (cx, cy) in [(3, 3), (n - 4, 3), (3, n - 4)] {
            for dy in -3...3 {
                for dx in -3...3 {
                    let ring = max(abs(dx), abs(dy))
                    #expect(code.isDark(x: cx + dx, y: cy + dy) == (ring != 2), sourceLocation: sourceLocation)
                }
            }
        }
        for i in 8..<(n - 8) {
            #expect(code.isDark(x: i, y: 6) == (i % 2 == 0), sourceLocation: sourceLocation)
            #expect(code.isDark(x: 6, y: i) == (i % 2 == 0), sourceLocation: sourceLocation)
        }
        #expect(code.isDark(x: 8, y: n - 8), sourceLocation: sourceLocation)
        // First copy around the top-left finder, bit 0 first; second copy split between the other two finders.
        let first = [(8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 7), (8, 8), (7, 8), (5, 8), (4, 8), (3, 8),
                     (2, 8), (1, 8), (0, 8)]
        let second = (0..<8).map { (n - 1 - $0, 8) } + (8..<15).map { (8, n - 15 + $0) }
        func read(_ cells: [(Int, Int)]) -> Int {
            cells.enumerated().reduce(0) { $0 | (code.isDark(x: $1.element.0, y: $1.element.1) ? 1 << $1.offset : 0) }
        }
        let format = read(first) ^ 0x5412
        #expect(read(first) == read(second), sourceLocation: sourceLocation)
        #expect(format >> 13 == [1, 0, 3, 2][level.rawValue], sourceLocation: sourceLocation)
        #expect((format >> 10) & 7 == code.mask, sourceLocation: sourceLocation)
    }

    @Test func theSVGDrawsExactlyTheDarkModulesInOnePath() throws {
        let uri = "otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Hearth%20Demo"
        let code = try QRCode(text: uri)
        let svg = code.svg(label: #"Key for "Ada" <ada@example.com> & co"#, moduleSize: 3)
        let side = code.size + 8
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)" width="\#(side * 3)""#))
        #expect(svg.contains(#"role="img""#))
        #expect(svg.contains(#"aria-label="Key for &quot;Ada&quot; &lt;ada@example.com&gt; &amp; co""#))
        #expect(svg.contains(#"shape-rendering="crispEdges""#))
        #expect(svg.components(separatedBy: "<path").count == 2)
        #expect(!svg.contains("<script") && !svg.contains("href") && !svg.contains("style"))
        #expect(svg.hasSuffix("</svg>"))
        // Redraw the path's rectangles (M x y h w v1 h-w z) and compare with the matrix, quiet zone included.
        let d = try #require(svg.firstRange(of: #" d=""#).map { svg[$0.upperBound...].prefix { $0 != "\"" } })
        var drawn = Set<[Int]>()
        for piece in d.split(separator: "z") {
            let numbers = piece.split(whereSeparator: { !"0123456789".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5)
            let (x, y, width) = (numbers[0], numbers[1], numbers[2])
            #expect(numbers[3] == 1 && numbers[4] == width)
            for column in x..<(x + width) { #expect(drawn.insert([column, y]).inserted) }
        }
        for y in 0..<side {
            for x in 0..<side {
                let inside = (4..<(side - 4)).contains(x) && (4..<(side - 4)).contains(y)
                #expect(drawn.contains([x, y]) == (inside && code.isDark(x: x - 4, y: y - 4)))
            }
        }
    }

    @Test func textIsItsUTF8Bytes() throws {
        let text = "otpauth://totp/É:ü?secret=AB"
        #expect(try QRCode(text: text) == QRCode(bytes: Array(text.utf8)))
        #expect(try QRCode(text: "").version == 1)
    }
}
