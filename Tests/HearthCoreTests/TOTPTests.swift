import Foundation
import HearthCore
import HearthWire
import Testing

@Suite struct TOTPTests {
    // RFC 6238 Appendix B's seeds: the ASCII digits repeated to the hash's length.
    static let seed20 = Data("12345678901234567890".utf8)
    static let seed32 = Data("12345678901234567890123456789012".utf8)
    static let seed64 = Data("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    struct Vector: Sendable, CustomTestStringConvertible {
        let time: TimeInterval
        let sha1: String
        let sha256: String
        let sha512: String
        var testDescription: String { "T=\(Int64(time))" }
    }

    static let rfc6238: [Vector] = [
        Vector(time: 59, sha1: "94287082", sha256: "46119246", sha512: "90693936"),
        Vector(time: 1_111_111_109, sha1: "07081804", sha256: "68084774", sha512: "25091201"),
        Vector(time: 1_111_111_111, sha1: "14050471", sha256: "67062674", sha512: "99943326"),
        Vector(time: 1_234_567_890, sha1: "89005924", sha256: "91819424", sha512: "93441116"),
        Vector(time: 2_000_000_000, sha1: "69279037", sha256: "90698825", sha512: "38618901"),
        Vector(time: 20_000_000_000, sha1: "65353130", sha256: "77737706", sha512: "47863826"),
    ]

    @Test(arguments: TOTPTests.rfc6238) func rfc6238AppendixB(vector: Vector) throws {
        let date = Date(timeIntervalSince1970: vector.time)
        let sha1 = try #require(TOTP(secret: Self.seed20, algorithm: .sha1, digits: 8))
        let sha256 = try #require(TOTP(secret: Self.seed32, algorithm: .sha256, digits: 8))
        let sha512 = try #require(TOTP(secret: Self.seed64, algorithm: .sha512, digits: 8))
        #expect(sha1.code(at: date) == vector.sha1)
        #expect(sha256.code(at: date) == vector.sha256)
        #expect(sha512.code(at: date) == vector.sha512)
        // Each code verifies at its own moment, with no window, and answers that moment's step.
        #expect(sha1.verify(vector.sha1, at: date, adjacentIntervals: 0) == Int64(vector.time) / 30)
        #expect(sha256.verify(vector.sha256, at: date, adjacentIntervals: 0) == Int64(vector.time) / 30)
        #expect(sha512.verify(vector.sha512, at: date, adjacentIntervals: 0) == Int64(vector.time) / 30)
        // A code of another hash does not.
        #expect(sha1.verify(vector.sha256, at: date, adjacentIntervals: 0) == nil)
    }

    @Test func rfc4226AppendixD() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in expected.enumerated() {
            #expect(TOTP.hotp(secret: Self.seed20, counter: UInt64(counter)) == code, "counter \(counter)")
        }
    }

    @Test func timeSteps() throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 0)) == 0)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 29.999)) == 0)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 30)) == 1)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 59)) == 1)
        // The default is six digits: the last six of the eight-digit vector.
        #expect(totp.code(at: Date(timeIntervalSince1970: 59)) == "287082")
        let sixty = try #require(TOTP(secret: Self.seed20, period: 60))
        #expect(sixty.timeStep(at: Date(timeIntervalSince1970: 119)) == 1)
    }

    @Test func parametersOutsideTheirRangesAreRefused() {
        #expect(TOTP(secret: Data()) == nil)
        #expect(TOTP(secret: Self.seed20, digits: 5) == nil)
        #expect(TOTP(secret: Self.seed20, digits: 9) == nil)
        #expect(TOTP(secret: Self.seed20, period: 0) == nil)
        #expect(TOTP(secret: Self.seed20, digits: 7) != nil)
    }

    @Test(arguments: [0, 1, 5, 10]) func windowEdges(adjacent: Int) throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        let now = Date(timeIntervalSince1970: 1_800_000_015)
        let current = totp.timeStep(at: now)
        let n = Int64(adjacent)
        for offset in [-n, n] {
            let code = totp.code(forStep: current + offset)
            #expect(totp.verify(code, at: now, adjacentIntervals: adjacent) == current + offset, "offset \(offset)")
        }
        for offset in [-n - 1, n + 1] {
            let code = totp.code(forStep: current + offset)
            // Skip the rare step whose code equals one inside the window.
            let inside = (-n...n).contains { totp.code(forStep: current + $0) == code }
            if !inside {
                #expect(totp.verify(code, at: now, adjacentIntervals: adjacent) == nil, "offset \(offset)")
            }
        }
    }

    @Test func theWindowIsClampedToTen() throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        let now = Date(timeIntervalSince1970: 1_800_000_015)
        let current = totp.timeStep(at: now)
        #expect(totp.verify(totp.code(forStep: current - 10), at: now, adjacentIntervals: 50) == current - 10)
        #expect(totp.verify(totp.code(forStep: current - 11), at: now, adjacentIntervals: 50) == nil)
        #expect(totp.verify(totp.code(forStep: current), at: now, adjacentIntervals: -3) == current)
        #expect(totp.verify(totp.code(forStep: current - 1), at: now, adjacentIntervals: -3) == nil)
    }

    @Test func aCodeIsAcceptedOnce() throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        let now = Date(timeIntervalSince1970: 1_800_000_015)
        let current = totp.timeStep(at: now)
        let code = totp.code(forStep: current)
        let step = try #require(totp.verify(code, at: now, adjacentIntervals: 1))
        #expect(step == current)
        // The server keeps `step`: the same code, and any earlier one, is refused afterwards.
        #expect(totp.verify(code, at: now, adjacentIntervals: 1, after: step) == nil)
        #expect(totp.verify(totp.code(forStep: current - 1), at: now, adjacentIntervals: 1, after: step) == nil)
        // The next step's code still works.
        #expect(totp.verify(totp.code(forStep: current + 1), at: now, adjacentIntervals: 1, after: step) == current + 1)
    }

    @Test(arguments: ["", "12345", "1234567", "12345a", "12 3456", " 123456", "123456\n", "-12345", "+12345",
                      "١٢٣٤٥٦", "１２３４５６", "12345６", "¹²³⁴⁵⁶"])
    func malformedCodesAreRefused(code: String) throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        #expect(totp.verify(code, at: Date(timeIntervalSince1970: 1_800_000_015), adjacentIntervals: 10) == nil)
    }

    @Test func unicodeDigitsOfTheRightValueAreStillRefused() throws {
        // The Arabic-Indic and full-width forms of the right code: the same numbers, not ASCII digits.
        let totp = try #require(TOTP(secret: Self.seed20))
        let now = Date(timeIntervalSince1970: 59)
        let code = totp.code(at: now)
        #expect(totp.verify(code, at: now, adjacentIntervals: 0) != nil)
        let arabic = String(code.unicodeScalars.map { Character(Unicode.Scalar(0x0660 + $0.value - 0x30)!) })
        let fullWidth = String(code.unicodeScalars.map { Character(Unicode.Scalar(0xFF10 + $0.value - 0x30)!) })
        #expect(totp.verify(arabic, at: now, adjacentIntervals: 0) == nil)
        #expect(totp.verify(fullWidth, at: now, adjacentIntervals: 0) == nil)
    }

    @Test func generatedSecrets() throws {
        let a = TOTP.generateSecret()
        let b = TOTP.generateSecret()
        #expect(a.count == 20)
        #expect(a != b)
        #expect(Base32.encode(a).count == 32)
        #expect(TOTP.generateSecret(byteCount: 32).count == 32)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    // MARK: otpauth URIs

    @Test func otpauthURIOfAPlainAccount() throws {
        let totp = try #require(TOTP(secret: Self.seed20))
        #expect(OTPAuthURI.totp(totp, accountName: "alice@example.com", issuer: "ACME")
            == "otpauth://totp/ACME:alice@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME&algorithm=SHA1&digits=6&period=30")
    }

    @Test func otpauthURIEncodesSpacesColonsAndUnicode() throws {
        let uri = OTPAuthURI.totp(secret: "JBSWY3DPEHPK3PXP", accountName: "José@example.com", issuer: "ACME Co: Dev",
                                  algorithm: "SHA256", digits: 8, period: 60)
        #expect(uri == "otpauth://totp/ACME%20Co%3A%20Dev:Jos%C3%A9@example.com?secret=JBSWY3DPEHPK3PXP"
            + "&issuer=ACME%20Co%3A%20Dev&algorithm=SHA256&digits=8&period=60")
        // The only literal colon after the scheme is the label's separator; URLComponents parses it back.
        let components = try #require(URLComponents(string: uri))
        #expect(components.scheme == "otpauth")
        #expect(components.host == "totp")
        #expect(components.path == "/ACME Co: Dev:José@example.com")
        #expect(components.queryItems?.first { $0.name == "issuer" }?.value == "ACME Co: Dev")
        #expect(OTPAuthURI.encode("Ünïcødé 日本") == "%C3%9Cn%C3%AFc%C3%B8d%C3%A9%20%E6%97%A5%E6%9C%AC")
        #expect(OTPAuthURI.encode("a&b=c?d#e/f+g%") == "a%26b%3Dc%3Fd%23e%2Ff%2Bg%25")
    }

    @Test func otpauthURIWithoutIssuer() {
        #expect(OTPAuthURI.totp(secret: "JBSWY3DPEHPK3PXP", accountName: "bob", issuer: "")
            == "otpauth://totp/bob?secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30")
    }
}

@Suite struct Base32Tests {
    // RFC 4648 §10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test func rfc4648Vectors() {
        for (plain, encoded) in Self.vectors {
            let data = Data(plain.utf8)
            #expect(Base32.encode(data, padding: true) == encoded, "\(plain)")
            let unpadded = encoded.replacingOccurrences(of: "=", with: "")
            #expect(Base32.encode(data) == unpadded, "\(plain)")
            #expect(Base32.decode(encoded) == data, "\(plain)")
            #expect(Base32.decode(unpadded) == data, "\(plain)")
            #expect(Base32.decode(unpadded.lowercased()) == data, "\(plain)")
        }
    }

    @Test func roundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(Base32.decode(Base32.encode(data)) == data, "length \(length)")
            #expect(Base32.decode(Base32.encode(data, padding: true)) == data, "length \(length)")
        }
        #expect(Base32.encode(Data(repeating: 0xFF, count: 5)) == "77777777")
        #expect(Base32.encode(Data(repeating: 0x00, count: 5)) == "AAAAAAAA")
    }

    @Test func mixedCaseAndGroupingSpaces() {
        #expect(Base32.decode("mzxW 6ytb oi") == Data("foobar".utf8))
        #expect(Base32.decode("GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ") == Data("12345678901234567890".utf8))
    }

    @Test(arguments: ["M", "MZX", "MZXW6Y", "MZ1W", "MZ8W", "MZ0W", "MZ=XW", "MZXW6YQ=A", "MZ-XW", "МZXW"])
    func malformedInputIsRefused(text: String) {
        #expect(Base32.decode(text) == nil)
    }
}

@Suite struct RecoveryCodeTests {
    @Test func generatedCodesHaveTheirShape() throws {
        let codes = RecoveryCodes.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        for code in codes {
            let groups = code.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.count == 2 && groups.allSatisfy { $0.count == 5 }, "\(code)")
            #expect(code.replacingOccurrences(of: "-", with: "").allSatisfy { RecoveryCodes.alphabet.contains($0) }, "\(code)")
            #expect(RecoveryCodes.normalize(code) == code.replacingOccurrences(of: "-", with: ""))
        }
        #expect(RecoveryCodes.generate(count: 3).count == 3)
        // No look-alikes.
        for confusable in "01ilo" { #expect(!RecoveryCodes.alphabet.contains(confusable)) }
    }

    @Test func normalizationIgnoresCaseDashesAndSpaces() {
        #expect(RecoveryCodes.normalize("k7m2p-x9qr4") == "k7m2px9qr4")
        #expect(RecoveryCodes.normalize("K7M2P-X9QR4") == "k7m2px9qr4")
        #expect(RecoveryCodes.normalize(" k7m2p x9qr4 ") == "k7m2px9qr4")
        #expect(RecoveryCodes.normalize("k7-m2-p-x9-qr4") == "k7m2px9qr4")
        #expect(RecoveryCodes.normalize("k7m2px9qr4") == "k7m2px9qr4")
    }

    @Test(arguments: ["", "k7m2p-x9qr", "k7m2p-x9qr44", "k7m2p_x9qr4", "k7m2p-x9qr0", "k7m2p-x9qro", "k7m2p-x9qrl",
                      "k7m2p-x9qr\u{212A}", "ｋ7m2p-x9qr4", "k7m2p\tx9qr4"])
    func malformedCodesAreRefused(code: String) {
        #expect(RecoveryCodes.normalize(code) == nil)
        #expect(RecoveryCodes.hash(code) == nil)
    }

    @Test func storedAsSHA256AndMatchedOnce() throws {
        let codes = ["k7m2p-x9qr4", "abcde-fghjk", "23456-789ab"]
        let stored = try codes.map { try #require(RecoveryCodes.hash($0)) }
        // SHA-256 of the normalized text, hex.
        #expect(stored[0] == "k7m2px9qr4".sha256Hex)
        #expect(stored.allSatisfy { $0.count == 64 })
        #expect(RecoveryCodes.match("ABCDE FGHJK", against: stored) == 1)
        #expect(RecoveryCodes.match("23456789ab", against: stored) == 2)
        #expect(RecoveryCodes.match("k7m2p-x9qr5", against: stored) == nil)
        #expect(RecoveryCodes.match("nonsense", against: stored) == nil)
        // The server removes a used hash: the code then matches nothing.
        var remaining = stored
        remaining.remove(at: 1)
        #expect(RecoveryCodes.match("abcde-fghjk", against: remaining) == nil)
    }
}
