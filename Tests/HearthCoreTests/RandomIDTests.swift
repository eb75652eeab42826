import Foundation
import HearthCore
import Testing

/// Random identifiers drawn eight bytes per call from the system generator: lengths, alphabets and uniformity.
@Suite struct RandomIDTests {
    @Test(arguments: [0, 1, 7, 8, 9, 16, 31, 32, 33, 100])
    func bytesHasTheRequestedLength(_ count: Int) {
        #expect(RandomID.bytes(count).count == count)
    }

    @Test func bytesDifferBetweenCallsAndUseEveryBit() {
        let draws = (0..<64).map { _ in RandomID.bytes(32) }
        #expect(Set(draws).count == draws.count)
        // Every bit position of every byte is set somewhere: a dropped or constant byte of a word would show.
        var seen = [UInt8](repeating: 0, count: 32)
        for draw in draws { for (index, byte) in draw.enumerated() { seen[index] |= byte } }
        #expect(seen.allSatisfy { $0 == 0xFF })
    }

    @Test func tokensAreBase64URLOfTheRequestedBytes() throws {
        let token = RandomID.token()
        #expect(token.count == 43)
        #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(try #require(Data(base64URLEncoded: token)).count == 32)
        #expect(RandomID.token(byteCount: 16).count == 22)
    }

    @Test func localIdsAreTwentyEightAlphanumerics() {
        let ids = (0..<200).map { _ in RandomID.localId() }
        #expect(ids.allSatisfy { $0.count == 28 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        #expect(Set(ids).count == ids.count)
    }

    /// 62 symbols do not divide 256: taking every byte modulo 62 would make the first eight symbols a quarter more
    /// likely. Over 124 000 draws each symbol is expected 2 000 times; the bias would give ~2 480 for those.
    @Test func alphanumericIsUniformOverItsAlphabet() {
        var counts: [Character: Int] = [:]
        for character in RandomID.alphanumeric(count: 124_000) { counts[character, default: 0] += 1 }
        #expect(counts.count == 62)
        // Five standard deviations (sqrt(2000) ≈ 45) either side.
        #expect(counts.values.allSatisfy { (1_775...2_225).contains($0) }, "\(counts.sorted { $0.key < $1.key })")
    }

    @Test func stringDrawsOnlyFromTheGivenAlphabet() {
        let alphabet = Array("abc")
        let drawn = RandomID.string(count: 3_000, from: alphabet)
        #expect(drawn.count == 3_000)
        #expect(Set(drawn) == Set(alphabet))
        #expect(RandomID.string(count: 0, from: alphabet).isEmpty)
        let all = (0..<256).map { Character(UnicodeScalar(UInt8($0))) }
        #expect(RandomID.string(count: 10, from: all).count == 10)
    }
}
