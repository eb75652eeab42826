import Foundation

/// Why a phone number was refused by ``PhoneNumber/parse(_:)``.
public enum PhoneNumberError: Error, Sendable, Equatable {
    /// No number at all (empty, or only separators).
    case empty
    /// Longer than ``PhoneNumber/maximumInputLength`` UTF-8 bytes: refused before it is looked at.
    case tooLong
    /// Does not start with `+` (a national number, or `00…`).
    case missingPlus
    /// Holds something other than ASCII digits and the separators (letters, NUL, another script's digits, a
    /// second `+`).
    case invalidCharacter
    /// Fewer than 2 or more than 15 digits after the `+`, or a first digit of 0 (not E.164).
    case invalidLength

    /// What is wrong and what to do, for `INVALID_PHONE_NUMBER : <detail>`.
    public var detail: String {
        let expected = "expected an E.164 number such as +15555550100"
        return switch self {
        case .empty: "the phone number is empty; \(expected)"
        case .tooLong: "the phone number is too long; \(expected)"
        case .missingPlus: "the phone number must start with + and the country calling code; \(expected)"
        case .invalidCharacter: "the phone number may hold only digits after the + (spaces, dashes, dots and parentheses are ignored); \(expected)"
        case .invalidLength: "an E.164 number has 2 to 15 digits after the + and its first digit is not 0; \(expected)"
        }
    }
}

/// Phone numbers in E.164 form (`+` then 2…15 ASCII digits, the first not 0): the one parser for the client RPCs,
/// the admin API, the console and the CLI, the calling-code → region table of `smsRegionConfig`, and the masked
/// form sign-in answers show (Firebase's obfuscation).
public enum PhoneNumber {
    /// Input longer than this (UTF-8 bytes) is refused before it is parsed.
    public static let maximumInputLength = 64

    /// Normalises `text` to E.164: spaces (any Unicode whitespace), `-`, `.`, `(` and `)` are removed; what is left
    /// must be `+` then 2…15 ASCII digits, the first not 0. `"+1 (555) 555-0100"` → `"+15555550100"`.
    public static func parse(_ text: String) throws(PhoneNumberError) -> String {
        guard text.utf8.count <= maximumInputLength else { throw .tooLong }
        var digits: [UInt8] = []
        var sawPlus = false
        var sawAnything = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar == "-" || scalar == "." || scalar == "(" || scalar == ")" { continue }
            sawAnything = true
            if scalar == "+" {
                guard !sawPlus, digits.isEmpty else { throw .invalidCharacter }
                sawPlus = true
                continue
            }
            guard scalar.isASCII, let value = UInt8(exactly: scalar.value), (0x30...0x39).contains(value) else {
                throw .invalidCharacter
            }
            guard sawPlus else { throw .missingPlus }
            digits.append(value)
        }
        guard sawAnything else { throw .empty }
        guard sawPlus else { throw .missingPlus }
        guard (2...15).contains(digits.count), digits.first != 0x30 else { throw .invalidLength }
        return "+" + String(decoding: digits, as: UTF8.self)
    }

    /// Whether `text` is already E.164 as ``parse(_:)`` makes it (no separators).
    public static func isE164(_ text: String) -> Bool { (try? parse(text)) == text }

    /// Firebase's obfuscated form: every digit but the last four replaced by `*`, the `+` kept
    /// (`+15555550100` → `+*******0100`).
    public static func masked(_ e164: String) -> String {
        var remaining = 4
        var scalars: [Character] = []
        for character in e164.reversed() {
            if character.isASCII, character.isNumber {
                if remaining > 0 { remaining -= 1; scalars.append(character) } else { scalars.append("*") }
            } else {
                scalars.append(character)
            }
        }
        return String(scalars.reversed())
    }

    /// The ISO 3166-1 alpha-2 regions a number may belong to, from its country calling code (ITU-T E.164
    /// assignments). `+1` is split by area code (the Canadian and Caribbean NANP codes; anything else is `US`), and
    /// a few shared codes by their leading digits (`+7 6…/7…` Kazakhstan, `+44 1481` Guernsey, …); a code shared
    /// by several regions that is not split answers all of them (`+590` → GP, BL, MF). Empty for a number of no
    /// region (`+800`, `+882`, …) or an unknown code. Expects E.164 (``parse(_:)``).
    ///
    /// `smsRegionConfig` decides with these: `allowlistOnly` allows a number when one of its regions is allowed;
    /// `allowByDefault` refuses it when one of its regions is disallowed.
    public static func regions(of e164: String) -> [String] {
        guard e164.hasPrefix("+") else { return [] }
        let digits = String(e164.dropFirst())
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return [] }
        if digits.hasPrefix("1") { return [nanpRegion(String(digits.dropFirst()))] }
        for length in 1...3 where digits.count >= length {
            let code = String(digits.prefix(length))
            guard let regions = callingCodes[code] else { continue }
            let rest = digits.dropFirst(length)
            for (prefix, region) in splits[code] ?? [] where rest.hasPrefix(prefix) { return [region] }
            return regions
        }
        return []
    }

    /// Whether `code` is a two-letter region (ISO 3166-1 alpha-2, upper case) that some calling code belongs to:
    /// what `smsRegionConfig` may name.
    public static func isValidRegionCode(_ code: String) -> Bool { allRegions.contains(code) }

    /// Every region ``regions(of:)`` can answer.
    public static let allRegions: Set<String> = {
        var all = Set(callingCodes.values.flatMap { $0 })
        all.formUnion(nanpAreaCodes.values)
        all.insert("US")
        for table in splits.values { all.formUnion(table.map(\.1)) }
        return all
    }()

    private static func nanpRegion(_ national: String) -> String {
        nanpAreaCodes[String(national.prefix(3))] ?? "US"
    }

    /// NANP area codes outside the United States (Canada and the Caribbean and Pacific members).
    private static let nanpAreaCodes: [String: String] = {
        var table: [String: String] = [:]
        let canada = "204 226 236 249 250 257 263 289 306 343 354 365 367 368 382 387 403 416 418 428 431 437 438 450 460 468 474 506 514 519 548 579 581 584 587 600 604 613 622 639 647 672 683 705 709 742 753 778 780 782 807 819 825 867 873 879 902 905 942"
        for code in canada.split(separator: " ") { table[String(code)] = "CA" }
        let others: [(String, String)] = [
            ("242", "BS"), ("246", "BB"), ("264", "AI"), ("268", "AG"), ("284", "VG"), ("340", "VI"), ("345", "KY"),
            ("441", "BM"), ("473", "GD"), ("649", "TC"), ("658", "JM"), ("664", "MS"), ("670", "MP"), ("671", "GU"),
            ("684", "AS"), ("721", "SX"), ("758", "LC"), ("767", "DM"), ("784", "VC"), ("787", "PR"), ("809", "DO"),
            ("829", "DO"), ("849", "DO"), ("868", "TT"), ("869", "KN"), ("876", "JM"), ("939", "PR"),
        ]
        for (code, region) in others { table[code] = region }
        return table
    }()

    /// Shared calling codes split by the digits after the code (first match wins).
    private static let splits: [String: [(String, String)]] = [
        "7": [("6", "KZ"), ("7", "KZ")],
        "39": [("06698", "VA")],
        "44": [("1481", "GG"), ("7781", "GG"), ("7839", "GG"), ("7911", "GG"), ("1534", "JE"), ("7509", "JE"),
               ("7797", "JE"), ("7829", "JE"), ("7937", "JE"), ("1624", "IM"), ("7524", "IM"),
               ("7624", "IM"), ("7924", "IM")],
        "47": [("79", "SJ")],
        "61": [("89162", "CC"), ("89164", "CX")],
        "262": [("269", "YT"), ("639", "YT")],
        "290": [("8", "TA")],
        "358": [("18", "AX")],
        "599": [("3", "BQ"), ("4", "BQ"), ("7", "BQ"), ("9", "CW")],
        "672": [("1", "AQ")],
    ]

    /// Country calling codes (without `+1`) → regions; the first region is the code's main one.
    private static let callingCodes: [String: [String]] = {
        let table = """
        7 RU; 20 EG; 27 ZA; 30 GR; 31 NL; 32 BE; 33 FR; 34 ES; 36 HU; 39 IT; 40 RO; 41 CH; 43 AT; 44 GB; 45 DK; 46 SE;
        47 NO; 48 PL; 49 DE; 51 PE; 52 MX; 53 CU; 54 AR; 55 BR; 56 CL; 57 CO; 58 VE; 60 MY; 61 AU; 62 ID; 63 PH;
        64 NZ; 65 SG; 66 TH; 81 JP; 82 KR; 84 VN; 86 CN; 90 TR; 91 IN; 92 PK; 93 AF; 94 LK; 95 MM; 98 IR;
        211 SS; 212 MA EH; 213 DZ; 216 TN; 218 LY; 220 GM; 221 SN; 222 MR; 223 ML; 224 GN; 225 CI; 226 BF; 227 NE;
        228 TG; 229 BJ; 230 MU; 231 LR; 232 SL; 233 GH; 234 NG; 235 TD; 236 CF; 237 CM; 238 CV; 239 ST; 240 GQ;
        241 GA; 242 CG; 243 CD; 244 AO; 245 GW; 246 IO; 247 AC; 248 SC; 249 SD; 250 RW; 251 ET; 252 SO; 253 DJ;
        254 KE; 255 TZ; 256 UG; 257 BI; 258 MZ; 260 ZM; 261 MG; 262 RE; 263 ZW; 264 NA; 265 MW; 266 LS; 267 BW;
        268 SZ; 269 KM; 290 SH; 291 ER; 297 AW; 298 FO; 299 GL;
        350 GI; 351 PT; 352 LU; 353 IE; 354 IS; 355 AL; 356 MT; 357 CY; 358 FI; 359 BG; 370 LT; 371 LV; 372 EE;
        373 MD; 374 AM; 375 BY; 376 AD; 377 MC; 378 SM; 379 VA; 380 UA; 381 RS; 382 ME; 383 XK; 385 HR; 386 SI;
        387 BA; 389 MK; 420 CZ; 421 SK; 423 LI;
        500 FK GS; 501 BZ; 502 GT; 503 SV; 504 HN; 505 NI; 506 CR; 507 PA; 508 PM; 509 HT; 590 GP BL MF; 591 BO;
        592 GY; 593 EC; 594 GF; 595 PY; 596 MQ; 597 SR; 598 UY; 599 CW;
        670 TL; 672 NF; 673 BN; 674 NR; 675 PG; 676 TO; 677 SB; 678 VU; 679 FJ; 680 PW; 681 WF; 682 CK; 683 NU;
        685 WS; 686 KI; 687 NC; 688 TV; 689 PF; 690 TK; 691 FM; 692 MH;
        850 KP; 852 HK; 853 MO; 855 KH; 856 LA; 880 BD; 886 TW;
        960 MV; 961 LB; 962 JO; 963 SY; 964 IQ; 965 KW; 966 SA; 967 YE; 968 OM; 970 PS; 971 AE; 972 IL; 973 BH;
        974 QA; 975 BT; 976 MN; 977 NP; 992 TJ; 993 TM; 994 AZ; 995 GE; 996 KG; 998 UZ
        """
        var codes: [String: [String]] = [:]
        for entry in table.split(separator: ";") {
            let words = entry.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let code = words.first, words.count > 1 else { continue }
            codes[code] = Array(words.dropFirst())
        }
        return codes
    }()
}
