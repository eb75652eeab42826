// A QR Code encoder (ISO/IEC 18004:2015, model 2): byte mode, error correction L/M/Q/H, versions 1…40, mask
// chosen by the standard penalty rules, rendered as an inline SVG. Hearth needs one picture — the `otpauth://`
// URI of a TOTP secret — and no QR package is in its dependency set, so this is the small, readable core of the
// standard and nothing more (no Kanji/alphanumeric/numeric modes, no ECI, no Micro QR, no structured append).
//
// Cross-checked bit for bit against segno, an independent encoder (`Tests/e2e/qr_vectors.py`), and decoded by
// zbar from the SVG output.

/// A QR Code symbol: the module matrix of some bytes, encoded in byte mode.
///
/// ```swift
/// let code = try QRCode(text: uri)                       // error correction M, smallest version that fits
/// let svg = code.svg(label: "QR code of the authenticator key")
/// ```
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still be read: about 7 %, 15 %, 25 % and 30 % of the codewords.
    public enum ErrorCorrection: Int, Sendable, CaseIterable, CustomStringConvertible {
        case low, medium, quartile, high

        /// The level's letter: `L`, `M`, `Q` or `H`.
        public var description: String { ["L", "M", "Q", "H"][rawValue] }

        /// The two bits the format information carries for the level (ISO/IEC 18004 table 12).
        var formatBits: Int { [1, 0, 3, 2][rawValue] }
    }

    /// Why some bytes could not be encoded.
    public enum EncodingError: Error, Equatable, CustomStringConvertible {
        /// The data is longer than the largest version allowed holds at this error-correction level.
        case dataTooLong(bytes: Int, capacity: Int, maxVersion: Int, errorCorrection: ErrorCorrection)
        /// A version outside 1…40 or an empty range was asked for.
        case invalidVersionRange(ClosedRange<Int>)
        /// A mask pattern outside 0…7 was asked for.
        case invalidMask(Int)

        /// A sentence for a log or an error page.
        public var description: String {
            switch self {
            case let .dataTooLong(bytes, capacity, maxVersion, level):
                "\(bytes) bytes do not fit in a QR code of version \(maxVersion) at error correction \(level): at most \(capacity) bytes"
            case let .invalidVersionRange(range):
                "QR code versions run from 1 to 40; \(range.lowerBound)…\(range.upperBound) was asked for"
            case let .invalidMask(mask):
                "QR code mask patterns run from 0 to 7; \(mask) was asked for"
            }
        }
    }

    /// The version, 1…40: the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    /// The error-correction level.
    public let errorCorrection: ErrorCorrection
    /// The mask pattern applied to the data, 0…7.
    public let mask: Int
    /// Modules per side (without the quiet zone).
    public let size: Int
    /// Row-major, `true` for a dark module.
    private let modules: [Bool]

    /// Encodes `text`'s UTF-8 bytes; see ``init(bytes:errorCorrection:versions:mask:)``.
    public init(text: String, errorCorrection: ErrorCorrection = .medium, versions: ClosedRange<Int> = 1...40,
                mask: Int? = nil) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection, versions: versions, mask: mask)
    }

    /// Encodes `bytes` in byte mode in the smallest version of `versions` that holds them, with the given mask
    /// pattern or (nil) the one of lowest penalty.
    /// - Throws: ``EncodingError/dataTooLong(bytes:capacity:maxVersion:errorCorrection:)`` when even the largest
    ///   version allowed is too small; the other cases for a version range or mask out of bounds.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium, versions: ClosedRange<Int> = 1...40,
                mask: Int? = nil) throws(EncodingError) {
        guard versions.lowerBound >= 1, versions.upperBound <= 40 else { throw .invalidVersionRange(versions) }
        if let mask, !(0...7).contains(mask) { throw .invalidMask(mask) }
        guard let version = versions.first(where: { Self.capacity(version: $0, errorCorrection: errorCorrection) >= bytes.count })
        else {
            throw .dataTooLong(bytes: bytes.count,
                               capacity: Self.capacity(version: versions.upperBound, errorCorrection: errorCorrection),
                               maxVersion: versions.upperBound, errorCorrection: errorCorrection)
        }
        let codewords = Self.interleavedCodewords(
            data: Self.dataCodewords(bytes, version: version, level: errorCorrection),
            version: version, level: errorCorrection)
        var matrix = Matrix(version: version)
        matrix.place(codewords)
        let chosen = mask ?? {
            let scores = (0..<8).map { matrix.masked($0).penalty() }
            return scores.firstIndex(of: scores.min()!)!  // the first of equal scores, as segno does
        }()
        var final = matrix.masked(chosen)
        final.drawFormatAndVersion(level: errorCorrection, mask: chosen)
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = chosen
        self.size = final.size
        self.modules = final.dark
    }

    /// Whether the module in column `x`, row `y` (0-based, from the top left, quiet zone excluded) is dark.
    public func isDark(x: Int, y: Int) -> Bool {
        precondition((0..<size).contains(x) && (0..<size).contains(y), "module outside the symbol")
        return modules[y * size + x]
    }

    /// One line per row, `1` for dark and `0` for light (what the tests compare with another encoder's matrix).
    public var bitRows: [String] {
        (0..<size).map { y in String((0..<size).map { modules[y * size + $0] ? "1" : "0" }) }
    }

    /// How many bytes a symbol of `version` holds in byte mode at `errorCorrection` (ISO/IEC 18004 table 7).
    public static func capacity(version: Int, errorCorrection: ErrorCorrection) -> Int {
        precondition((1...40).contains(version), "QR code versions run from 1 to 40")
        let bits = dataCodewordCount(version: version, level: errorCorrection) * 8
        return (bits - 4 - characterCountBits(version: version)) / 8
    }

    // MARK: SVG

    /// The symbol as an `<svg>` element to put inline in an HTML page: a white square with the quiet zone (4
    /// modules) and one `<path>` drawing the dark modules, `shape-rendering="crispEdges"`, `role="img"` with
    /// `label` as its `aria-label` (escaped here). No script, style sheet or external reference, so it shows under
    /// a content security policy of `default-src 'none'`.
    /// - Parameter moduleSize: CSS pixels per module for the `width`/`height` attributes (the drawing scales).
    public func svg(label: String, moduleSize: Int = 4) -> String {
        let quiet = 4
        let side = size + 2 * quiet
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] else { x += 1; continue }
                var run = 1
                while x + run < size, modules[y * size + x + run] { run += 1 }
                path += "M\(x + quiet) \(y + quiet)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let pixels = side * max(1, moduleSize)
        let label = Self.escapeAttribute(label)
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(pixels)\" "
            + "height=\"\(pixels)\" role=\"img\" aria-label=\"\(label)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }

    static func escapeAttribute(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case _ where character.value < 0x20: out += " "  // no control characters in an attribute
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    // MARK: Codewords

    /// Bits of the byte-mode character count: 8 up to version 9, 16 from version 10 on.
    static func characterCountBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// Error-correction codewords per block, by level then version (index 0 unused). ISO/IEC 18004 table 9.
    private static let eccCodewordsPerBlock: [[Int]] = [
        [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error-correction blocks, by level then version (index 0 unused). ISO/IEC 18004 table 9.
    private static let blockCount: [[Int]] = [
        [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Modules left for codewords (data, error correction and remainder bits) once the function patterns are drawn.
    static func rawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    static func dataCodewordCount(version: Int, level: ErrorCorrection) -> Int {
        rawDataModules(version: version) / 8
            - eccCodewordsPerBlock[level.rawValue][version] * blockCount[level.rawValue][version]
    }

    /// Mode indicator, count, the bytes, terminator, bit padding and the pad codewords 0xEC 0x11 (ISO/IEC 18004 7.4).
    static func dataCodewords(_ bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: characterCountBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacityBits = dataCodewordCount(version: version, level: level) * 8
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacityBits / 8 {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return codewords
    }

    /// Splits the data into blocks, appends each block's Reed–Solomon codewords and interleaves (ISO/IEC 18004 7.6).
    static func interleavedCodewords(data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let blocks = blockCount[level.rawValue][version]
        let eccLength = eccCodewordsPerBlock[level.rawValue][version]
        let rawCodewords = rawDataModules(version: version) / 8
        let shortBlocks = blocks - rawCodewords % blocks
        let shortDataLength = rawCodewords / blocks - eccLength
        let divisor = ReedSolomon.generator(degree: eccLength)
        var dataBlocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blocks {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            let block = Array(data[start..<start + length])
            start += length
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, divisor: divisor))
        }
        var result: [UInt8] = []
        result.reserveCapacity(rawCodewords)
        for column in 0...shortDataLength {
            for block in dataBlocks where column < block.count { result.append(block[column]) }
        }
        for column in 0..<eccLength {
            for block in eccBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Bits appended most significant first.
private struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed–Solomon over GF(2⁸) with the QR code's polynomial x⁸ + x⁴ + x³ + x² + 1 and generator roots α⁰…α^(n−1).
enum ReedSolomon {
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(bit)) & 1) * Int(x)
        }
        return UInt8(z)
    }

    /// The generator polynomial's coefficients, highest degree first, the leading 1 left out.
    static func generator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }
}

/// The module grid while it is built: function patterns, then codewords, then mask, format and version.
private struct Matrix {
    let version: Int
    let size: Int
    var dark: [Bool]
    /// Finder, separator, timing, alignment, format and version modules: not data, never masked.
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = Self.alignmentPositions(version: version)
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let last = positions.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Format and version areas, and the dark module: reserved here, light while the masks are evaluated.
        for index in 0..<9 where index != 6 {  // (8, 6) and (6, 8) belong to the timing patterns
            set(8, index, false)
            set(index, 8, false)
        }
        for index in 0..<8 {
            set(size - 1 - index, 8, false)
            set(8, size - 1 - index, false)
        }
        if version >= 7 {
            for index in 0..<18 {
                set(size - 11 + index % 3, index / 3, false)
                set(index / 3, size - 11 + index % 3, false)
            }
        }
    }

    /// Centres of the alignment patterns on either axis (ISO/IEC 18004 annex E).
    static func alignmentPositions(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        // The last centre is 7 modules from the far edge; the others step back from it, the first stays at 6.
        return [6] + (1..<count).map { version * 4 + 10 - (count - 1 - $0) * step }
    }

    private mutating func set(_ x: Int, _ y: Int, _ value: Bool) {
        dark[y * size + x] = value
        isFunction[y * size + x] = true
    }

    /// Places the codewords' bits in the two-module columns, right to left, alternately upwards and downwards,
    /// skipping the vertical timing pattern (ISO/IEC 18004 7.7.3). Remainder bits stay light.
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        let total = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    let index = y * size + x
                    guard !isFunction[index], bit < total else { continue }
                    dark[index] = (codewords[bit >> 3] >> UInt8(7 - (bit & 7))) & 1 == 1
                    bit += 1
                }
            }
            right -= 2
        }
    }

    /// A copy with data mask pattern `mask` (ISO/IEC 18004 table 10) applied to every non-function module.
    func masked(_ mask: Int) -> Matrix {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] {
                let invert = switch mask {
                case 0: (x + y) % 2 == 0
                case 1: y % 2 == 0
                case 2: x % 3 == 0
                case 3: (x + y) % 3 == 0
                case 4: (x / 3 + y / 2) % 2 == 0
                case 5: x * y % 2 + x * y % 3 == 0
                case 6: (x * y % 2 + x * y % 3) % 2 == 0
                default: ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { copy.dark[y * size + x].toggle() }
            }
        }
        return copy
    }

    /// The penalty score of ISO/IEC 18004:2015 7.8.3.1 (N1 runs, N2 2×2 blocks, N3 finder-like 1:1:3:1:1 with four
    /// light modules on a side, N4 dark proportion), evaluated before format and version information are placed.
    func penalty() -> Int {
        var score = 0
        var darkCount = 0
        var row = [Bool](repeating: false, count: size)
        var column = [Bool](repeating: false, count: size)
        for i in 0..<size {
            for j in 0..<size {
                row[j] = dark[i * size + j]
                column[j] = dark[j * size + i]
                if row[j] { darkCount += 1 }
                if i > 0, j > 0, row[j] == row[j - 1], row[j] == dark[(i - 1) * size + j],
                   row[j] == dark[(i - 1) * size + j - 1] {
                    score += 3
                }
            }
            score += Self.runPenalty(row) + Self.runPenalty(column)
            score += Self.finderLikePenalty(row) + Self.finderLikePenalty(column)
        }
        let total = size * size
        score += 10 * (abs(20 * darkCount - 10 * total) / total)
        return score
    }

    /// N1: 3 + (length − 5) for every run of five or more modules of one colour.
    private static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var run = 1
        for index in 1...line.count {
            if index < line.count, line[index] == line[index - 1] {
                run += 1
            } else {
                if run >= 5 { score += run - 2 }
                run = 1
            }
        }
        return score
    }

    /// N3: 40 for each dark-light-dark-dark-dark-light-dark pattern with four light modules (or the symbol's edge)
    /// before or after it.
    private static func finderLikePenalty(_ line: [Bool]) -> Int {
        let pattern = [true, false, true, true, true, false, true]
        let size = line.count
        func allLight(_ range: Range<Int>) -> Bool {
            line[max(range.lowerBound, 0)..<min(range.upperBound, size)].allSatisfy { !$0 }
        }
        var score = 0
        var start = 0
        while start + 7 <= size {
            guard (0..<7).allSatisfy({ line[start + $0] == pattern[$0] }) else { start += 1; continue }
            if allLight(start - 4..<start) || allLight(start + 7..<start + 11) {
                score += 40
                start += 7
            } else {
                start += 4
            }
        }
        return score
    }

    /// Draws the 15 format bits (level, mask, BCH code, XOR 0x5412) twice, the dark module, and from version 7 the
    /// 18 version bits twice (ISO/IEC 18004 7.9, 7.10).
    mutating func drawFormatAndVersion(level: QRCode.ErrorCorrection, mask: Int) {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ value: Int, _ index: Int) -> Bool { (value >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(bits, index)) }
        set(8, 7, bit(bits, 6))
        set(8, 8, bit(bits, 7))
        set(7, 8, bit(bits, 8))
        for index in 9..<15 { set(14 - index, 8, bit(bits, index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(bits, index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(bits, index)) }
        set(8, size - 8, true)
        guard version >= 7 else { return }
        var versionRemainder = version
        for _ in 0..<12 { versionRemainder = (versionRemainder << 1) ^ ((versionRemainder >> 11) * 0x1F25) }
        let versionBits = version << 12 | versionRemainder
        for index in 0..<18 {
            let value = bit(versionBits, index)
            set(size - 11 + index % 3, index / 3, value)
            set(index / 3, size - 11 + index % 3, value)
        }
    }
}
