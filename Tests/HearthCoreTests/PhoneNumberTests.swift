import Foundation
import HearthCore
import HearthWire
import Testing

/// The one phone-number parser, the calling-code → region table, Firebase's masking, and the code hashing.
@Suite struct PhoneNumberTests {
    /// Issue 40, item 4: numbers are normalised to E.164 — separators removed, nothing else changed.
    @Test(arguments: [
        ("+15555550100", "+15555550100"), ("+1 (555) 555-0100", "+15555550100"), ("+44 7700.900.123", "+447700900123"),
        ("  +33 6 12 34 56 78 ", "+33612345678"), ("+1\u{00A0}555\u{2009}555\u{3000}0100", "+15555550100"), ("+12", "+12"),
        ("+123456789012345", "+123456789012345"),
    ])
    func normalisesToE164(_ input: String, _ expected: String) throws {
        #expect(try PhoneNumber.parse(input) == expected)
        #expect(PhoneNumber.isE164(expected))
    }

    /// Issue 40, item 4: anything that is not an E.164 number is refused with what is wrong and what to send.
    @Test(arguments: [
        ("", PhoneNumberError.empty), ("  - ()", .empty), ("5555550100", .missingPlus), ("0015555550100", .missingPlus),
        ("+0155555501", .invalidLength), ("+1", .invalidLength), ("+1234567890123456", .invalidLength),
        ("+1555555010a", .invalidCharacter), ("+1555\u{0}5550100", .invalidCharacter), ("+1555٥٥٥0100", .invalidCharacter),
        ("+１５５５５５５０１００", .invalidCharacter), ("++15555550100", .invalidCharacter), ("+1555+5550100", .invalidCharacter),
        ("1+5555550100", .missingPlus), ("+1/555/555", .invalidCharacter), ("+1 555 555 0100 ext 12", .invalidCharacter),
        (String(repeating: " ", count: 60) + "+15555550100", .tooLong), ("+1" + String(repeating: "5", count: 100), .tooLong),
    ])
    func refusesWhatIsNotANumber(_ input: String, _ error: PhoneNumberError) {
        #expect(throws: error) { try PhoneNumber.parse(input) }
        #expect(error.detail.contains("expected an E.164 number such as +15555550100"))
        #expect(!PhoneNumber.isE164(input))
    }

    /// Issue 40, item 2: the masked form of sign-in answers is Firebase's — every digit but the last four hidden.
    @Test func masksAllButTheLastFourDigits() {
        #expect(PhoneNumber.masked("+15555550100") == "+*******0100")
        #expect(PhoneNumber.masked("+447700900123") == "+********0123")
        #expect(PhoneNumber.masked("+123") == "+123")
        #expect(PhoneNumber.masked("+12345") == "+*2345")
    }

    /// Issue 40, item 4: a number's regions come from its calling code — NANP split by area code, shared codes
    /// split where the table knows the prefix, all sharers otherwise, none for non-geographic codes.
    @Test(arguments: [
        ("+15555550100", ["US"]), ("+14165550100", ["CA"]), ("+18765550100", ["JM"]), ("+17875550100", ["PR"]), ("+18095550100", ["DO"]),
        ("+447700900123", ["GB"]), ("+441481700123", ["GG"]), ("+447624123456", ["IM"]), ("+33612345678", ["FR"]), ("+4915112345678", ["DE"]),
        ("+79161234567", ["RU"]), ("+77011234567", ["KZ"]), ("+8613800138000", ["CN"]), ("+919876543210", ["IN"]), ("+2348012345678", ["NG"]),
        ("+590690123456", ["GP", "BL", "MF"]), ("+3906698123", ["VA"]), ("+390612345678", ["IT"]), ("+35818123456", ["AX"]),
        ("+358401234567", ["FI"]), ("+5999123456", ["CW"]), ("+5997123456", ["BQ"]), ("+80012345678", []), ("+88213012345", []), ("+99912345", []),
    ])
    func regionsComeFromTheCallingCode(_ number: String, _ regions: [String]) {
        #expect(PhoneNumber.regions(of: number) == regions)
        for region in regions { #expect(PhoneNumber.isValidRegionCode(region)) }
    }

    /// Issue 40, item 4: region codes in `smsRegionConfig` are two upper-case letters of a real calling region.
    @Test func regionCodesAreValidated() {
        for code in ["US", "CA", "GB", "KZ", "AX", "XK", "AQ"] { #expect(PhoneNumber.isValidRegionCode(code), "\(code)") }
        for code in ["us", "USA", "", "ZZ", "U", "U\u{0}", "ＵＳ"] { #expect(!PhoneNumber.isValidRegionCode(code), "\(code)") }
    }

    /// Issue 40, item 4: the region policy — an allow-list allows a number when one of its regions is listed (never a
    /// number of no region), a deny-list refuses it when one is listed, no policy allows everything.
    @Test func regionPolicyDecides() {
        let allowUS = SmsRegionConfig(allowlistOnly: .init(allowedRegions: ["US", "GP"]))
        #expect(allowUS.allows(regions: PhoneNumber.regions(of: "+15555550100")))
        #expect(!allowUS.allows(regions: PhoneNumber.regions(of: "+14165550100")))
        #expect(allowUS.allows(regions: PhoneNumber.regions(of: "+590690123456")))
        #expect(!allowUS.allows(regions: PhoneNumber.regions(of: "+80012345678")))
        let denyBL = SmsRegionConfig(allowByDefault: .init(disallowedRegions: ["BL", "RU"]))
        #expect(!denyBL.allows(regions: PhoneNumber.regions(of: "+590690123456")))
        #expect(!denyBL.allows(regions: PhoneNumber.regions(of: "+79161234567")))
        #expect(denyBL.allows(regions: PhoneNumber.regions(of: "+77011234567")))
        #expect(denyBL.allows(regions: PhoneNumber.regions(of: "+80012345678")))
        #expect(SmsRegionConfig().allows(regions: []))
        #expect(!SmsRegionConfig(allowlistOnly: .init(allowedRegions: nil)).allows(regions: ["US"]))
    }

    /// Issue 40, item 1: codes are 6 uniform digits, stored as an HMAC keyed by the sessionInfo (the row alone does
    /// not reveal the code), compared in constant time; sessionInfo and proofs are long random strings.
    @Test func codesAreHashedWithTheSessionInfo() {
        let codes = (0..<2000).map { _ in PhoneVerificationRecord.newCode() }
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy { "0123456789".contains($0) } })
        #expect(Set(codes.map { $0.first! }).count == 10)
        let sessionInfo = PhoneVerificationRecord.newSessionInfo()
        #expect(sessionInfo.hasPrefix("hps1.") && sessionInfo.count > 40)
        #expect(PhoneVerificationRecord.newTemporaryProof().hasPrefix("hpp1."))
        #expect(PhoneVerificationRecord.newSessionInfo() != sessionInfo)
        let hash = PhoneVerificationRecord.codeHash(code: "123456", sessionInfo: sessionInfo)
        #expect(hash.count == 64 && hash != PhoneVerificationRecord.codeHash(code: "123456", sessionInfo: sessionInfo + "x"))
        #expect(hash != PhoneVerificationRecord.codeHash(code: "123457", sessionInfo: sessionInfo))
        // RFC 4231 test case 2 (key "Jefe"): the HMAC is the standard one.
        #expect(PhoneVerificationRecord.codeHash(code: "what do ya want for nothing?", sessionInfo: "Jefe")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let record = PhoneVerificationRecord(idHash: "h", kind: .code, purpose: .signIn, phoneNumber: "+15555550100", codeHash: hash,
                                             createdAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 300))
        #expect(record.matches(code: "123456", sessionInfo: sessionInfo))
        #expect(!record.matches(code: "123456", sessionInfo: PhoneVerificationRecord.newSessionInfo()))
        #expect(!record.matches(code: "１２３４５６", sessionInfo: sessionInfo))
        #expect(!PhoneVerificationRecord.constantTimeEquals("abc", "abcd") && PhoneVerificationRecord.constantTimeEquals("abc", "abc"))
        #expect(record.isExpired(at: Date(timeIntervalSince1970: 300)) && !record.isExpired(at: Date(timeIntervalSince1970: 299)))
        #expect(PhoneCodePurpose.mfaSignIn.smsType == .multiFactorSignIn && PhoneCodePurpose.signIn.smsType == .signInOrSignUp)
    }
}
