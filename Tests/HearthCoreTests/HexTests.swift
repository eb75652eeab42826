import Foundation
import HearthCore
import Testing

@Suite struct HexTests {
    @Test func hexAndSHA256Hex() {
        #expect(Data([0x00, 0x0F, 0xA0, 0xFF, 0x5C]).hexString == "000fa0ff5c")
        #expect(Data().hexString == "")
        // FIPS 180-2 test vector.
        #expect("abc".sha256Hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
