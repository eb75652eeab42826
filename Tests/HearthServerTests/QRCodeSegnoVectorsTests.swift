import Crypto
import Foundation
import HearthPages
import Testing

/// Symbols that segno (an independent encoder) makes for the same bytes: `Tests/e2e/qr_vectors.py --print` writes
/// these rows and, without `--print`, checks every row here against segno again. Each row is the data (from the LCG
/// both sides share, or a literal string), the error-correction level, the version and mask segno chose (or, with
/// `forced`, the mask it was told to use), whether the byte count is the version's whole capacity, and the SHA-256
/// of the module matrix (rows of `0`/`1` joined by newlines). With `HEARTH_QR_SVG_DIR` set, the suite also writes
/// every symbol's SVG and bytes there for `qr_vectors.py --decode DIR`, which reads them back with zbar.
@Suite struct QRCodeSegnoVectorsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let data: [UInt8]
        let level: QRCode.ErrorCorrection
        let version: Int
        let mask: Int
        let forced: Bool
        let full: Bool
        let sha256: String
        var testDescription: String { "\(name) \(level) v\(version) mask \(mask)\(forced ? " (forced)" : "")" }
    }

    /// The generator `qr_vectors.py` shares: a 31-bit LCG, one byte per step.
    static func generated(_ count: Int, seed: Int) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = (state &* 1_103_515_245 &+ 12345) & 0x7FFF_FFFF
            return UInt8((state >> 16) & 0xFF)
        }
    }

    static func G(_ count: Int, _ seed: Int, _ level: QRCode.ErrorCorrection, _ version: Int, _ mask: Int,
                  _ forced: Bool, _ full: Bool, _ sha256: String) -> Row {
        Row(name: "\(count) bytes (seed \(seed))", data: generated(count, seed: seed), level: level, version: version,
            mask: mask, forced: forced, full: full, sha256: sha256)
    }

    static func T(_ text: String, _ level: QRCode.ErrorCorrection, _ version: Int, _ mask: Int, _ forced: Bool,
                  _ sha256: String) -> Row {
        Row(name: "\"\(text.prefix(24))\"", data: Array(text.utf8), level: level, version: version, mask: mask,
            forced: forced, full: false, sha256: sha256)
    }

    static func digest(_ code: QRCode) -> String {
        SHA256.hash(data: Data(code.bitRows.joined(separator: "\n").utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: rows)
    func segnoMakesTheSameSymbol(_ row: Row) throws {
        let code = try QRCode(bytes: row.data, errorCorrection: row.level, mask: row.forced ? row.mask : nil)
        #expect(code.version == row.version)
        #expect(code.mask == row.mask)
        #expect(code.size == 17 + 4 * row.version)
        #expect(Self.digest(code) == row.sha256)
        if row.full {
            #expect(QRCode.capacity(version: row.version, errorCorrection: row.level) == row.data.count)
        }
        if let directory = ProcessInfo.processInfo.environment["HEARTH_QR_SVG_DIR"], !directory.isEmpty {
            let name = "\(row.level)-v\(row.version)-\(Self.digest(code).prefix(12))"
            let base = URL(fileURLWithPath: directory).appendingPathComponent(name)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(code.svg(label: "test").utf8).write(to: base.appendingPathExtension("svg"))
            try Data(row.data).write(to: base.appendingPathExtension("bin"))
        }
    }

    static let rows: [Row] = [
        G(17, 4, .low, 1, 1, false, true, "14080438bd050c1fb704825411ba129184660870b516928637316116215be042"),
        G(32, 8, .low, 2, 3, false, true, "9c0bdc80e74c60433bbcd72715aa6f482c475f628e7a5a3a6ce3271cc0dd29db"),
        G(53, 12, .low, 3, 1, false, true, "ec60b538492367345d8f5046579fb645157f69621797c818682419170ecd8bb4"),
        G(78, 16, .low, 4, 1, false, true, "a01c2bd28fd0cce839945a1133693f73e799d1bafb583bfd4128e52accc554d1"),
        G(106, 20, .low, 5, 6, false, true, "cf764302b435dbec01ddcc17325a6d949af1fcae027270ba2484d5700a804010"),
        G(134, 24, .low, 6, 7, false, true, "2d4c537e8a7f472c7150851170d481005c4b7ce41988301cb336428e52731a36"),
        G(154, 28, .low, 7, 7, false, true, "04ef7030b6ed639bd135d5b99850da011d510fa62bc344b771d6ff8550d1b16c"),
        G(192, 32, .low, 8, 2, false, true, "83e63281f1ae8ade5f08aff1a9ebb2bdd25ff86ada08b263ccd410964ae701f9"),
        G(230, 36, .low, 9, 4, false, true, "2633371cfea6335ee669239d6bd14231afd432aa5389cfa33bfb1d8902234206"),
        G(271, 40, .low, 10, 3, false, true, "9fc21ffda619ba4f71e3fb25b334373e79b6f193b699b6fe4c52d799a611a896"),
        G(321, 44, .low, 11, 0, false, true, "1806dccdfcfee1952d720db0a11116d1631ee9184b8f9a8c3e53b013a9e0f21e"),
        G(367, 48, .low, 12, 4, false, true, "413492afbbf26097d0961ed9221f027f74c7041ee0cbad73d91855f7e535e923"),
        G(425, 52, .low, 13, 6, false, true, "71229a41bee1f63dc6744643a56bf77821009955a33989a66527f47887935381"),
        G(458, 56, .low, 14, 6, false, true, "808fef22127d5dfeaab92ec06e015a5a4e8d8c2d2e0d2ee8e36a86bdedb0859a"),
        G(520, 60, .low, 15, 1, false, true, "86a7088e836a3ea6ae4a67614c2cdfea2fc644a74739f92fd793bbf53677fa01"),
        G(586, 64, .low, 16, 4, false, true, "e368cb184dd58681228134b1fc8baa7e92a48a0bd6cc3fef3404b63ce7159516"),
        G(644, 68, .low, 17, 1, false, true, "f8a5534244386d4e0b2b2308b90b850af252bf7676ac5bd97c2b5155c2d0c3ec"),
        G(718, 72, .low, 18, 4, false, true, "0f2ef0a7e6771b86b9da6aae86505ead702572d71ae0646d2cf41d20c6d7662c"),
        G(792, 76, .low, 19, 0, false, true, "2a9234f79a69be1a30fa2987cc803b4ba11f7c7fa8500e5e808a94108d3d0119"),
        G(858, 80, .low, 20, 0, false, true, "a23c386936f585434bb2e8c576ee814b90fa394f82d9015d2ff30844d527258f"),
        G(929, 84, .low, 21, 2, false, true, "5a69098363615fe3b4d748f8030695aa70ae50c3e32a667a209053b07ee3386f"),
        G(1003, 88, .low, 22, 2, false, true, "df05a4457019c165deedf909dd4d1efe13baec2e24d80cb9cba7943540f3c205"),
        G(1091, 92, .low, 23, 5, false, true, "a559864e62cd7e04ef6a5233bc08bee28242b139d82223412ac2dc73e57ddd70"),
        G(1171, 96, .low, 24, 0, false, true, "568c46e1c321101b4068da2b7c4bdce066ddfbc783a46b127fe31434a45ebc03"),
        G(1273, 100, .low, 25, 7, false, true, "adac8a3c9cbcf4e66a6e38266f29e4ba2003b7e38f69d447149c5675f6036241"),
        G(1367, 104, .low, 26, 7, false, true, "c2778369f4489d81ab8cb7a51259b008393a482016b5c4ac097e3ccdcf3912ad"),
        G(1465, 108, .low, 27, 6, false, true, "62b253f24357f485c3a67f8cfe365b99c6b3be52ca76fd9faab40c17fdc6bc5f"),
        G(1528, 112, .low, 28, 0, false, true, "64f6bb21b7dba609b99bb38f9a368c317690e5d32f5206354d30e7110e88d160"),
        G(1628, 116, .low, 29, 7, false, true, "03d03e883f072286b250ee9073f19f13dd5bdf7e4276abe50bc738094715df0e"),
        G(1732, 120, .low, 30, 2, false, true, "3d77a1a1eb1603021dc202426a55e3778076360c261886ac7acf123f98991b61"),
        G(1840, 124, .low, 31, 0, false, true, "5732c18572bca48cc81e619587cde1a455bfcf99190df50b7b687bf8869c8a61"),
        G(1952, 128, .low, 32, 2, false, true, "a94b0ed773161c41e36db869ea60fcff079c9835329ffd58d4bd94b96c2b43d4"),
        G(2068, 132, .low, 33, 2, false, true, "ff3c8be1d418e5bd2af04543f686502ce3c351b30972714e5782327bc9f22ca4"),
        G(2188, 136, .low, 34, 0, false, true, "19db5ce14049558e357c6b0d92c8c84293a31dc1f21f067cdb09af22e1c659ac"),
        G(2303, 140, .low, 35, 7, false, true, "6dd6e31869fe6032b0e6546021e467ac5500ea47fd0905f958606ea04cd6d13d"),
        G(2431, 144, .low, 36, 2, false, true, "323984dd9906d834eb7cd6cd356ca8a858e8cdfd38947890d0edf59e58322cb1"),
        G(2563, 148, .low, 37, 6, false, true, "055eea2330966f12def3d77187fadb2f2e97b39115934de56b954d510d363ad1"),
        G(2699, 152, .low, 38, 4, false, true, "749cf3ef9e4c890ec1fe89d30ea7fb94eabc15385b92287e951ac05fa0b2e35c"),
        G(2809, 156, .low, 39, 2, false, true, "6df52dbfd81474fac570310f81dd938bece6ec04c53d5d75a0ef665fefbaa27c"),
        G(2953, 160, .low, 40, 2, false, true, "2ba688c1c718cae24a247f62662a8a91870c6344967aba6f5dd29ddfa24a7ad0"),
        G(14, 5, .medium, 1, 0, false, true, "8ff225a11e8cfe185dbafd527dc8d34120a0a3abf46de337fb385360e8934637"),
        G(26, 9, .medium, 2, 7, false, true, "953b9284cd9360a0181e2c67673f65efdf8213a1c75d236d25a904e5e48a0537"),
        G(42, 13, .medium, 3, 0, false, true, "bd4cf605ceb3777e3ba5ab00ba907349581534f2a96ad4b05ca503c5ed40444d"),
        G(62, 17, .medium, 4, 6, false, true, "1b8a761590cbacc69c4b2af4f216db82d61fbb270894f8f1e908e34360ef28da"),
        G(84, 21, .medium, 5, 0, false, true, "99eddedfb01ed1b8b86d81230132bb833474f93c6848535bba856d6c18363490"),
        G(106, 25, .medium, 6, 1, false, true, "f4155c3f2dd6d428364eb539adfe43ea3cea31f6c64b58b06ee5ad5315e0e6ac"),
        G(122, 29, .medium, 7, 3, false, true, "9a0e060f3f9da40d10d435c0ed6e6e5804441bc1488768753f85772f098bebc5"),
        G(152, 33, .medium, 8, 4, false, true, "b50bb1b54fd26cf9e3e5ecf9b21b54f21f37cbce110f0c516035cde609f585fc"),
        G(180, 37, .medium, 9, 5, false, true, "959c586f55812375cccc95311bb2eda6293ec42ca81c66eef22179cf9dd59f42"),
        G(213, 41, .medium, 10, 7, false, true, "4adbee68cb98f1625591311411c2a0a186be53718d3f556042f4a7dda02d5c2d"),
        G(251, 45, .medium, 11, 6, false, true, "56bdae2fff3e5ec897ef4478ad897017df03495edb3bbaef0c4b85088099ec24"),
        G(287, 49, .medium, 12, 3, false, true, "0a9b274ecb7caf0c8a77f3c088904079153c850c38e120da7d61521b346f6efe"),
        G(331, 53, .medium, 13, 3, false, true, "ac95d02a4fd6a9ba1b7e01ee6e5ae39f1b5a019a753465e35065d32ff456b4fa"),
        G(362, 57, .medium, 14, 6, false, true, "f2a8c6b82138a2c10f4188380c7f3a5e663eb18e4cb6cc04bba9a1b7136f1b62"),
        G(412, 61, .medium, 15, 6, false, true, "acb3ccd58efeef04f1a6a44152a323f72b2795edf6ec943469a1a832712e18e6"),
        G(450, 65, .medium, 16, 6, false, true, "31aa19827f402f2bf14f4a76a23e91157cfd47564681331ffe815277a8b745bc"),
        G(504, 69, .medium, 17, 0, false, true, "fc69cc6812dfa0c03b094cfeb8101a6ba2d7f2eb14406a8e709ab2652b8df22f"),
        G(560, 73, .medium, 18, 2, false, true, "e29aeab2721be730bf6b2977d2b83cd4fa427dcc64fe5118c111816becdacc17"),
        G(624, 77, .medium, 19, 7, false, true, "aa019678cac4970727f9fbc663040d763e76bc8a5efcdc790fc07d439090a05f"),
        G(666, 81, .medium, 20, 0, false, true, "b7280cef0040c91c5a4ff78057080e21157f0d9e270698a212264596e710c726"),
        G(711, 85, .medium, 21, 1, false, true, "3e0bedd06a25613aae316bf731b2f343d6acaef5019039d5d8b475942afb2f17"),
        G(779, 89, .medium, 22, 6, false, true, "409457ed9720700565ee36b0a390f3693e19d65e0d5fb6f826662591b35de0b2"),
        G(857, 93, .medium, 23, 6, false, true, "92ddc0ebb66678bae7f6cde7cbc2aa933e43d567d54029e24563756f4ed6ac03"),
        G(911, 97, .medium, 24, 4, false, true, "c375c6a077ff7b2a549f9c4222e0d1ab5b468e6de7f1411d63ab83f8527b6cfc"),
        G(997, 101, .medium, 25, 3, false, true, "8322aa4d6bb15b99e277c5c10f2937091c237e933fcde81e9e2953feebce7dea"),
        G(1059, 105, .medium, 26, 2, false, true, "13ea26b23bfd300f7e236ccc306967800f4a3c4561f77fa2b768efba44111226"),
        G(1125, 109, .medium, 27, 5, false, true, "fab0671b6dad5f02f77cadc6c9f5d16d444c7fd1f177b2393038fdf47b907dec"),
        G(1190, 113, .medium, 28, 3, false, true, "286f583b57b2faadd73afce208d0fa2e9e5240e0beb26957f4bcc3d96cf94926"),
        G(1264, 117, .medium, 29, 2, false, true, "5cf608da75a55f6a6d73ad5ad343aca1b308b7fca256eab866da863d4087e136"),
        G(1370, 121, .medium, 30, 3, false, true, "f036714226fa48453ebc5eb8a36e9a0bcdf1442ca53edc07237d8a6fa846d82d"),
        G(1452, 125, .medium, 31, 0, false, true, "1c1de79d7beb067a090dcc3ae58619c36c438ecf4e46ad36e5df56bcc1c8134c"),
        G(1538, 129, .medium, 32, 6, false, true, "ad6d879b886ab57a525f6fd55a8705035c1a21db2556d3c4e5d0e94024ba4c75"),
        G(1628, 133, .medium, 33, 2, false, true, "e2371a05d784527425a5b3300b276977768a351d442b5a2c392573bf4e170a07"),
        G(1722, 137, .medium, 34, 3, false, true, "f01fb72b8c958a689b3e870dd340684fdf070f5e7faa2d0e5719e4caa50620aa"),
        G(1809, 141, .medium, 35, 0, false, true, "5713b76217682ebdf995e195d16ed2f7c8d2c70dd3218b555fcc972376d37ff9"),
        G(1911, 145, .medium, 36, 4, false, true, "5beb1c701d4324105cc3f0bf19b3385712e29bf352510b1829d40fcb0d88df55"),
        G(1989, 149, .medium, 37, 3, false, true, "1277741e16e78c4d6dfd8cea1215d9fa750ecca45a2efea4c746728929f8a2fd"),
        G(2099, 153, .medium, 38, 0, false, true, "03b72529f6724343a9751026d5b22c7884c649cb60513e56f672903b7edf2ed9"),
        G(2213, 157, .medium, 39, 0, false, true, "8313edd648fa511a60015441056f89e268d0ae8e301995bf83f666023c744e23"),
        G(2331, 161, .medium, 40, 1, false, true, "203e7a64de13a2b5bbe5e07848451fc78064f776f2e2daca1ad6522547d4299a"),
        G(11, 6, .quartile, 1, 1, false, true, "d59f5d49fa7062404365ce21ba7e8ce5ae0b646eae2562b4d0481b63daeac973"),
        G(20, 10, .quartile, 2, 0, false, true, "dd119b72d09e727be016d104a9e06860b714b31c02de4cf81e5070a9ec9ccf28"),
        G(32, 14, .quartile, 3, 0, false, true, "cd13d4537aad0b0b8f3bdb4eaddb56ebbac1c8686fb6d27404935ea7aa4119aa"),
        G(46, 18, .quartile, 4, 4, false, true, "1b2e01f193ef24a92b1e56091816292a8861c466dc2ddd9ec0e565a1da6a6915"),
        G(60, 22, .quartile, 5, 2, false, true, "8b5f781ef14315f2f175daadb4b2232f108c088d443a869e996bb4d9938063e9"),
        G(74, 26, .quartile, 6, 1, false, true, "781ada5a7fc4bc0ddd1e10be0f861e1d2cad351c6f5f102f7d4f42c6e10dc153"),
        G(86, 30, .quartile, 7, 5, false, true, "2e68310f38d0ee6532447fad8518b50587c89dadeb1cc9f0d7e08aefda9505f6"),
        G(108, 34, .quartile, 8, 3, false, true, "f002735544e99875ed835a1d3971437b2cd41eec765dada545ebefb73056571c"),
        G(130, 38, .quartile, 9, 0, false, true, "43bbb4ba61ddc092e3a8b8215c72c232898b33b5de816ae9d485e112ef0a49c5"),
        G(151, 42, .quartile, 10, 4, false, true, "02abfe736222a68f7524c42381371665849017986982e7d23282147eebbbe632"),
        G(177, 46, .quartile, 11, 6, false, true, "f70b39fda44e39793210b47523048f38d3a72a3ed44f4e5ef8bc822c294757ec"),
        G(203, 50, .quartile, 12, 4, false, true, "9cce2ab5975d3f2bc30f97481b9dc98fd085288eac5b65493117faae97b9eee8"),
        G(241, 54, .quartile, 13, 6, false, true, "8409ebd321d8a2a8d858f5d30d7b0bdcd00185ee91a263a6d441caabd55b0090"),
        G(258, 58, .quartile, 14, 1, false, true, "491026753f99f64c2ecaf97a6e37b1d140cda0794b381cd5cf312bab9e36cc31"),
        G(292, 62, .quartile, 15, 2, false, true, "5a44ac6322df9d80db4991f15c6245fdd9a2dcf8d2d7df5741e6697ad16cdd08"),
        G(322, 66, .quartile, 16, 2, false, true, "53533a11183803731c99d928a3dc5d2688e645995c4bd7b39c7dd7e5775b5e1e"),
        G(364, 70, .quartile, 17, 0, false, true, "ef2d712e0dd37f195eedf4d2a3b6b5f7bb1b17b459301cd3c656d6c8c1679719"),
        G(394, 74, .quartile, 18, 7, false, true, "8a7f704f3740986468af204065a1363c70ff755600102172f54f62061798367e"),
        G(442, 78, .quartile, 19, 0, false, true, "5ee2681ad39a6b94e6d2cac29afa9c42be57e5a0057400854cef59a1cb115e6a"),
        G(482, 82, .quartile, 20, 1, false, true, "1aacdf0872f34da95f33a2143d08b6e59cf936b46881f473ad5c39fb68d3e8a8"),
        G(509, 86, .quartile, 21, 7, false, true, "793e3ccda63c4221528f06ba5cd6db873fce78c6757406c96a0a3a25891d0d9d"),
        G(565, 90, .quartile, 22, 3, false, true, "bc39beb952c390599052ffb3a912a818e92656f81906f65a2a1444da344db9a3"),
        G(611, 94, .quartile, 23, 7, false, true, "b58c4cc3f690141cb6e70ccda3da6f232e9878bde6a9e085e6844b6aad7d49dd"),
        G(661, 98, .quartile, 24, 5, false, true, "19e5b4ce3ae31a01b10eff0fcbba73a6179b0a2f7162f17bbcc58e7641a0334a"),
        G(715, 102, .quartile, 25, 6, false, true, "266c9f537b0901beaa816533e3368bc5a007bdf5d08a8561646fa4aa5e83a49c"),
        G(751, 106, .quartile, 26, 2, false, true, "2d2f540d7eeb0eb1d950baecd1ffcef1fcae1710d7e9550af4612ed8c99a3a81"),
        G(805, 110, .quartile, 27, 7, false, true, "71364c578b4a1c3496aaa9778bfc1620cb410d88f826c7f49456b05762ff7285"),
        G(868, 114, .quartile, 28, 6, false, true, "efe6e8cee4e4452b8b96aa0cbefc83211c046fc701b64fccfc5cd5eeb2a5d2aa"),
        G(908, 118, .quartile, 29, 0, false, true, "2927a249103550814c289d1fae015e960affc027bfba80a3c6649963549234d7"),
        G(982, 122, .quartile, 30, 4, false, true, "8a8cee58f8fb0dadb54f699cb6f9508f2f90b566c2d2acccb7ecd28f1c36fc1a"),
        G(1030, 126, .quartile, 31, 1, false, true, "bd4a7c6f0f62243ff2f1d006d70bcd5ff0c0e20b65f7b5dbfb50c58c9bd248a8"),
        G(1112, 130, .quartile, 32, 6, false, true, "2bd2ea9a469af3cd69375b0aeccddf38235d7da2def546af62612884ea8d1577"),
        G(1168, 134, .quartile, 33, 2, false, true, "d8648b621ffdf5c1e56206d24338070a77a370a100847cd36b324064f9d08241"),
        G(1228, 138, .quartile, 34, 4, false, true, "233c54d7154ef77d4dae290011d7bdf33648c47a5d1088903b52c1b7489b7698"),
        G(1283, 142, .quartile, 35, 4, false, true, "a2036f6a1518cebe9229005a28845606b623bf7aee507a350881eb18f38f900b"),
        G(1351, 146, .quartile, 36, 1, false, true, "c002f6b328e57d8db7b3bce9f9130c0f05bae39759c224993873816f53b80723"),
        G(1423, 150, .quartile, 37, 3, false, true, "2ffcdcbc36be98a99bf7dde756470acd7723c19b75a706c09a4dba74b5a15ce9"),
        G(1499, 154, .quartile, 38, 0, false, true, "7e6c3f2a9514a584510b91ec870df064abd40037b9dbf4521f4bc449ea5afa67"),
        G(1579, 158, .quartile, 39, 4, false, true, "2f4fd5456dea8850882ff6c16d6eacee08240309b31d3c7e0d7063573ecca309"),
        G(1663, 162, .quartile, 40, 5, false, true, "677793258e8038fce10b4cfd45ee59507d817654b5ac8cd50c4e8aef9e7e4210"),
        G(7, 7, .high, 1, 7, false, true, "2ad2c868b58ddded2cb57d423cd2bcf2b677f4cf3b453aa6873d02d09ad98785"),
        G(14, 11, .high, 2, 1, false, true, "d55828110e89eb9f67928e2c86756339e8860c8518d64341f884f469506aeeea"),
        G(24, 15, .high, 3, 4, false, true, "69c74bf5331f6477064c90e2abd74b942e8828ad5896e0bf580dc7bf98bffc1b"),
        G(34, 19, .high, 4, 0, false, true, "6af649bb88ce72825fd0410817b42219752239603173c208563a6327050e0173"),
        G(44, 23, .high, 5, 6, false, true, "5636cf75f27ef4a043a7d622b5d5099035f222f69aa984af658f7d4243b57d76"),
        G(58, 27, .high, 6, 2, false, true, "6b0fe1eecf83afbf0f3319154c7bba68fd2bcbecebe8c12108efd6d3812d1500"),
        G(64, 31, .high, 7, 1, false, true, "ae8d595a6b18a5ef81baf73a34dd6318832bbe13e56a4d1482b6ab5fe523da8c"),
        G(84, 35, .high, 8, 2, false, true, "a44d4f7aa0d02d9fc0b23938c97e579bdad493e761bc141bb622d9da0a38c8bc"),
        G(98, 39, .high, 9, 2, false, true, "ae72ddb488ebee3a45e88582aa2959aa57797cb0147d521cbbd27fc8fd3b6dc2"),
        G(119, 43, .high, 10, 3, false, true, "e8193cab8906803d6e266d2d9f2e40f399ec4ca682c9934e84f4fb123277790b"),
        G(137, 47, .high, 11, 5, false, true, "32025a3098468441752702602594e03b9fc0a2e569340e4eba41327e49fb291c"),
        G(155, 51, .high, 12, 7, false, true, "4ab949615d80cd82eeafbc152059b4ffebca3c384efa1aecd7410b099bf54f72"),
        G(177, 55, .high, 13, 3, false, true, "a4ffed299ca42f3f58536fc61ebf906560c65b34d43666345cb49fb3ad625f4a"),
        G(194, 59, .high, 14, 6, false, true, "458d3a2ae0be883e2945569e34e9d46d1ee88245ca02732ae52f949d4f76b119"),
        G(220, 63, .high, 15, 3, false, true, "944305468599893e9cd00eeb12fad37b7affd74b47d3b2efbef3de033d681fd2"),
        G(250, 67, .high, 16, 2, false, true, "e27a31225bad3669dd6f823e24be2d7dae77877f340122a497c5e157372c89fd"),
        G(280, 71, .high, 17, 7, false, true, "fb47b80bf356ee1479d26214919a37eaa129fdf90caff537730d62c6de8016b4"),
        G(310, 75, .high, 18, 3, false, true, "6d05e5065eb98107827704711a27b5f7d844d7cb5a01f8f67308966888aa3f4a"),
        G(338, 79, .high, 19, 5, false, true, "a8f2ea28d6e9a9ae1a597075988f9b2e2b8543b46d79e45d76ef1f38b0cb2afc"),
        G(382, 83, .high, 20, 7, false, true, "b05530a83530acd034134401e3374634a6e890eb0646b2b470d95d886bf83156"),
        G(403, 87, .high, 21, 0, false, true, "decb24ac494e27eaabafaa067a399063a125d1e71122c60b4eb64a6b5f6a87bd"),
        G(439, 91, .high, 22, 3, false, true, "9a761caee69dbac59feafa3c28c8d62ada83d3f6fe04f86939a0692474df385b"),
        G(461, 95, .high, 23, 4, false, true, "f0eee6c72f19f0533df10acfebfcc3c7f182ab591854efd6a8323e3a327cc913"),
        G(511, 99, .high, 24, 5, false, true, "b0650dacd288daea82714a69849fceea5cd9b96f0f008149451e4c133250b62d"),
        G(535, 103, .high, 25, 2, false, true, "2345c71b25f2f91e721c3fc40fce254e964191b5137293f6edf03d37cf46d969"),
        G(593, 107, .high, 26, 2, false, true, "832b43f55b0bf088620d7a992d70eddda3eb22cb0ad2b7c499f13ec89ce99102"),
        G(625, 111, .high, 27, 0, false, true, "1ce69e4d20f2f758d3013d3ace7620ff45ffce08a24d842974699dce82e48c32"),
        G(658, 115, .high, 28, 7, false, true, "81e00f8b6a8ba5fdaa425bc0674d4316692892286b40bbc9d200fd087e6b9e8c"),
        G(698, 119, .high, 29, 2, false, true, "b481231d3c81b7e837f6af11ac741459228a348bc8c2aced73de3ccd771d6537"),
        G(742, 123, .high, 30, 7, false, true, "1161b651e16a65dd14d0b32bd983186483f3d6a8dc5e77dd75319d6da8a17e47"),
        G(790, 127, .high, 31, 6, false, true, "116cff4abe87f081a76bc56a081ee4ecac6e3e77c13851eb257e3369b086dc76"),
        G(842, 131, .high, 32, 0, false, true, "3d8a0b33f7f03fd313bd0e4571d4b0a98fd4ff163f0f3143cc7ebe49a6c4fb53"),
        G(898, 135, .high, 33, 4, false, true, "4615ab354293c94670afa5e808f768ecaac813caa6d43f7f5f5d776560b4ae12"),
        G(958, 139, .high, 34, 1, false, true, "f32757298645f69ee52774dcd46d653a20d2e5a099140bde5619ad9bd069f0f2"),
        G(983, 143, .high, 35, 1, false, true, "6d46c5c11f9c1d12db57cf46daff1404d7f6d6ec7cbd08bca31341b8d825d68a"),
        G(1051, 147, .high, 36, 3, false, true, "f087350a6be0c91cd5baaa6e2c7d71776ca62ceb76f86187a4445fca1d945beb"),
        G(1093, 151, .high, 37, 7, false, true, "8bc5a9071fc04a7544e63bc5335120928498b494a5d735cf91a636c2082ec976"),
        G(1139, 155, .high, 38, 2, false, true, "5684beb38219f97180658e4bd07645fa04cff49291c5c729d5f9f6de377a5c4c"),
        G(1219, 159, .high, 39, 4, false, true, "8797225767c99b7721388379376db96dcb61e911724ef4579ec0eb044a3ca0f4"),
        G(1273, 163, .high, 40, 0, false, true, "523d4c4853d6845d2bf608993064c19467e1fa3e306eaa53b074a884678cccc8"),
        G(0, 1000, .low, 1, 0, false, false, "4ce260f1891fd1b827103e74ba1bc3c445e9a9c336d6d5a0e03656ccb28da00e"),
        G(1, 1001, .low, 1, 2, false, false, "e0065cd099f60f3d23560c20a793bf01923fb8c01e009a58fc3b6d43530f445d"),
        G(2, 1002, .low, 1, 2, false, false, "fc49aeda4ff4616ae9e74afd13d03ca4c582c9daf62c3ec8f1061293e146707d"),
        G(3, 1003, .low, 1, 0, false, false, "9ead08b1d696e6bfd8f536ec22a0caebd6e8703375ab6bb81ea59ed98dfac291"),
        G(17, 1017, .low, 1, 4, false, false, "e816da7e923c463017aa12651840423d7dd9755bbd23ec29410b78e058db78a7"),
        G(42, 1042, .low, 3, 3, false, false, "0d3db1d34b673a499b890433670e64a04c8e8ec3c93abaed42e3e668c91897d5"),
        G(100, 1100, .low, 5, 6, false, false, "567c7ac0a2d386e60ca31147537b4ec5614d477b4d3b262a75e8eea2c946d855"),
        G(150, 1150, .low, 7, 5, false, false, "c3735f085efb9784dafd2b55260dae3df9e7d82eee666c3693601ac4ebc8b1dc"),
        G(200, 1200, .low, 9, 3, false, false, "023e3cd75b3dc3849e960deb69ab294f41eb89263f4f4963d5e01ec2ca2acb94"),
        G(250, 1250, .low, 10, 4, false, false, "a01bea59f1e8aa0a62ba949b7dfbbbef80d57065fe8943fb0ae74013e7a3a39b"),
        G(0, 1000, .medium, 1, 6, false, false, "e6551c4c35f5661e381824e8453a11ceb5a6f48173022609b07a2360bc1d587a"),
        G(1, 1001, .medium, 1, 1, false, false, "848f621f7ecfca7e8abac5667957ac0b8ca2bcec6a91aa72d50e535501840768"),
        G(2, 1002, .medium, 1, 7, false, false, "2f843ec4504a133bd96ee904670588e3b7edc99b1a295df557eba348469251d8"),
        G(3, 1003, .medium, 1, 0, false, false, "9e1c18655e6e01f7acd4445fedcbc8949a7455d129ed7dae690028a829d42c16"),
        G(17, 1017, .medium, 2, 4, false, false, "a7ea7bc0ad15ec617ce02ea48441a1781dc6707862ae2ed811593f3521bc2a79"),
        G(42, 1042, .medium, 3, 3, false, false, "958c41341fd6030a42e893d7321f042eb13d95611aebb263fcd74f2dfccff0fa"),
        G(100, 1100, .medium, 6, 7, false, false, "630670403604edef9cf6821d781c4d31fc00467f8132e38797ae4150328168ea"),
        G(150, 1150, .medium, 8, 6, false, false, "87c87dd42a8feb661ba5159f5f21d67f0c67ed662e0d7a93e37a8fc6db337aec"),
        G(200, 1200, .medium, 10, 6, false, false, "c1df31166f7e83b2f424a92feb12585e74c557015fbb289c7aaecc8e6bfe51b0"),
        G(250, 1250, .medium, 11, 6, false, false, "102f104d48ec09d6b0f476e7190740019260bc2a5a6211fa10448e153248d158"),
        G(0, 1000, .quartile, 1, 6, false, false, "b7cb5518f9b9f7cac16545e990edac180c5828fa2883babaca39a4cbff1156eb"),
        G(1, 1001, .quartile, 1, 1, false, false, "0a1c65bfdf6ced0d5a173ad3ab54b2ea37d4880035720ba22732e9d7c4f8bccf"),
        G(2, 1002, .quartile, 1, 3, false, false, "731a4a2c7865088661eb33942942088afce7e08f7263fe9a1b6025ef4e27906a"),
        G(3, 1003, .quartile, 1, 4, false, false, "b0d4ed4b7a364b48626a26431c9888da1ee2c0a337ba8816dff28f3f9a58ef59"),
        G(17, 1017, .quartile, 2, 2, false, false, "1899a15854aa3cf85dd3485977b1ee8ab2555c50c14f8662c0d579fd31945ee3"),
        G(42, 1042, .quartile, 4, 6, false, false, "40aa4288f678f047233edbc12ec71c071ba027fcaea0c1edf486e40c5bd40143"),
        G(100, 1100, .quartile, 8, 6, false, false, "7e9c5e51fddff1d34e31bf906c3251f62c59cb3ef9fc84583fd36f2e5e82894b"),
        G(150, 1150, .quartile, 10, 2, false, false, "8106a7263d1640ab11b296ae3cb3cee4c61974439cd116eace5b14708978dfe4"),
        G(200, 1200, .quartile, 12, 6, false, false, "66c1e2eae8b6da355e030db3d0c18f4e8656aa4e59e5a761c6bafc8141f3496c"),
        G(250, 1250, .quartile, 14, 4, false, false, "aa00061565d2425e4644f3450ef093decc9d1d80c8f20900a2052fa61eb07f41"),
        G(0, 1000, .high, 1, 7, false, false, "b2d791f98ba0d4354f7a2efa9404e75a82fb073ddbca3f30b43c93216eee20c1"),
        G(1, 1001, .high, 1, 3, false, false, "8e3d61f8fe718bffc6117b90081e1496164325b85f87ff1262a676a54516615d"),
        G(2, 1002, .high, 1, 0, false, false, "bdee91ce37fa43810efa1415b9bcd25b995b41ad5c8d27f0a4f75a51b329e13e"),
        G(3, 1003, .high, 1, 5, false, false, "2ef7141cddca325a42d90420940210788f2adbebf959fcc00693dbf9715aad27"),
        G(17, 1017, .high, 3, 7, false, false, "de20c7c8e99e7f05ddc79fe0055bdfd46e03dabe5f87941c3a4f289a5cfe90a7"),
        G(42, 1042, .high, 5, 4, false, false, "495cb5d3de2b9e17531f8f69e58eeb5c72226e219be6261b4473b7963432bd4f"),
        G(100, 1100, .high, 10, 2, false, false, "79afac8acfbdb1f7c51e5e52d9b9aae81240bb2a5e91b0b5fb836d8ae0b9d970"),
        G(150, 1150, .high, 12, 4, false, false, "85bb0a495a8d17f2a922fc5f75123874e4902781aaeff83161fac32680f774c9"),
        G(200, 1200, .high, 15, 4, false, false, "ad61f7260a1d32ef01ec337cd7e086c7580c13c070f903d9bfcb3e8b744e7963"),
        G(250, 1250, .high, 16, 4, false, false, "d92a9d579df8aac7d3ec1fa3b74680a78ca4c88a1c85ee3a211980dccc54725d"),
        G(10, 2000, .medium, 1, 0, true, false, "0cc60afb69687968a8d58e537573387fb62676a8e82028bfce7ec685731362a1"),
        G(130, 2000, .low, 6, 0, true, false, "ab08efd1107d826b97a19faf6d8a3cbdfe978766ece730875171b94583e8b538"),
        G(300, 2000, .high, 18, 0, true, false, "8e9c1aa1265f6dc634b89432de996a1b8f25c9129ec364a8af3fcbda871af0a6"),
        G(10, 2001, .medium, 1, 1, true, false, "b83e34b079e330f701830973f914697d4a67263ab818a767c38d34fce094c53b"),
        G(130, 2001, .low, 6, 1, true, false, "39c310166f7ed65d2729e039e24c780d0c849486de9ba55c8a135c9c708a56e8"),
        G(300, 2001, .high, 18, 1, true, false, "acc5b68b30a6ef212b554e0134add86a51f7e090887ab9502fafd881b0e5f0d5"),
        G(10, 2002, .medium, 1, 2, true, false, "466dccfc91f275d804422201a4a9f67c5a791dd1fa133e76f7d96f99f7b82104"),
        G(130, 2002, .low, 6, 2, true, false, "5a74578e3e11b534e309fa7a14f5891fff0db75b286a6a9e2d9edea8767b97da"),
        G(300, 2002, .high, 18, 2, true, false, "d7d8db2f01c67017bbd8db620a7728a7ead5efa49156f3958780f4df3a48e28d"),
        G(10, 2003, .medium, 1, 3, true, false, "2f022868ad8de22deb9e0e15b19d7bb133f7c7c0a613a454c3da88aa7b0c952f"),
        G(130, 2003, .low, 6, 3, true, false, "975c5c04d9bf462b2f1383702354fc4b22ef303fd90869c50e92b51e3b588c96"),
        G(300, 2003, .high, 18, 3, true, false, "8664ff104f73113bc1835d84df4d6f225fff4951fc6c905aa9cd5c9f83258587"),
        G(10, 2004, .medium, 1, 4, true, false, "7e02a69a50c1321640afbde6cb858eaaf111dfe7fe0e96bfb4addfd3ffa76cce"),
        G(130, 2004, .low, 6, 4, true, false, "63ffa71e00874edd1683607ea367e6dbccc84b29b711ecf8d395e57c0567a392"),
        G(300, 2004, .high, 18, 4, true, false, "823b789204156534aa1080579eccf740486d20207f1872f972d57b8d8ffc48bc"),
        G(10, 2005, .medium, 1, 5, true, false, "b6321061a6ea6272562e153ec6decca13bdaa0f82417e07b51891f704af1f975"),
        G(130, 2005, .low, 6, 5, true, false, "731a5faa57c179dd11b235e5b7b40d6873d5fc5270842f2f66b3bf497d423cdd"),
        G(300, 2005, .high, 18, 5, true, false, "ac7974503c2cb296f38581f5e5c7620f38d3d2b8eb03ce0c2c91e107d6fcfd1b"),
        G(10, 2006, .medium, 1, 6, true, false, "a422c0071d331a99879b911a9902cc7ce2ba27658140a3c6b7027c1be91970cc"),
        G(130, 2006, .low, 6, 6, true, false, "2579fffe38d1b266c07af14d60367faecb5a48eb1ea107ec5e1a2383f18ed2ec"),
        G(300, 2006, .high, 18, 6, true, false, "c34fed03eb588437423cd1377cfa0ccb1ca9ad42b5198f0377c38ff051666922"),
        G(10, 2007, .medium, 1, 7, true, false, "49a1f67f80302a7f0ddeb036edb1f1e93fb5ff52e685df4118463927fed4034b"),
        G(130, 2007, .low, 6, 7, true, false, "ba13705f5b474289898253b2b02609d0465e7ef7e055dc13067902a9d804db5a"),
        G(300, 2007, .high, 18, 7, true, false, "ca19bc11abec71a48859ea870dbec2a26a88c744830c024464fc61612a191d59"),
        T("otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Hearth%20Demo&algorithm=SHA1&digits=6&period=30", .low, 7, 6, false, "a7b9a30ad3ddb4e63219a43d17698f0ae11af0b2ffe35056f10a0c7cb11e10e7"),
        T("otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Hearth%20Demo&algorithm=SHA1&digits=6&period=30", .medium, 8, 2, false, "db942d9ab55a0394f60f43519a311bc2e2ea9cde5acb89dc856975ed080f87be"),
        T("otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Hearth%20Demo&algorithm=SHA1&digits=6&period=30", .quartile, 10, 2, false, "041785e600cf8362af5499563abd5bccd6b9eb937f524e2c3121bbb1eb1b24a9"),
        T("otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Hearth%20Demo&algorithm=SHA1&digits=6&period=30", .high, 12, 4, false, "1fee268f37858f9cd2b99282028b71d2bec22a68bbfc6ba75cab8c95bb0993c0"),
        T("otpauth://totp/demo-project:clock-check?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=demo-project&algorithm=SHA1&digits=6&period=30", .low, 6, 2, false, "33b300601663b5a07f56c4e9137db7effc371c335d083c0eac243705ca3e2e4a"),
        T("otpauth://totp/demo-project:clock-check?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=demo-project&algorithm=SHA1&digits=6&period=30", .medium, 8, 4, false, "699d5821a5d7ce83e44df65b35df0794a2fe042b861f7c6ae1f7790f14717944"),
        T("otpauth://totp/demo-project:clock-check?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=demo-project&algorithm=SHA1&digits=6&period=30", .quartile, 10, 5, false, "7aeaa33e0f56b2476bb18b824bcb052184d343f0b7436a9648b8414d60f01b63"),
        T("otpauth://totp/demo-project:clock-check?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=demo-project&algorithm=SHA1&digits=6&period=30", .high, 11, 5, false, "b4f65f5df6a37f3133c26c9f64f2479ab12d590b7da4142ddb7cc9cf5047298d"),
        T("otpauth://totp/An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9:someone.with.a.long.address%40subdomain.example.org?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3DOOBZ&issuer=An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9&algorithm=SHA1&digits=6&period=30", .low, 11, 2, false, "c42e0f1ccb9f92f4c6c527c234878c7353c6ded128f61d54cef8e9cd5dded646"),
        T("otpauth://totp/An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9:someone.with.a.long.address%40subdomain.example.org?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3DOOBZ&issuer=An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9&algorithm=SHA1&digits=6&period=30", .medium, 13, 3, false, "b91f25a0bd2ea9747f99c423a7422be420ccccb2b3e700e5c5d598cac9044b27"),
        T("otpauth://totp/An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9:someone.with.a.long.address%40subdomain.example.org?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3DOOBZ&issuer=An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9&algorithm=SHA1&digits=6&period=30", .quartile, 15, 4, false, "36c4273f61e49d469ad6ef8f26226696aeb9330c142c40cddf15acdd78836794"),
        T("otpauth://totp/An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9:someone.with.a.long.address%40subdomain.example.org?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3DOOBZ&issuer=An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9&algorithm=SHA1&digits=6&period=30", .high, 18, 4, false, "336c43dcb05d8563093e7a1b8dd8e2f1ea050e19d119888308f1f2d16b6dabce"),
        T("", .low, 1, 0, false, "4ce260f1891fd1b827103e74ba1bc3c445e9a9c336d6d5a0e03656ccb28da00e"),
        T("", .medium, 1, 6, false, "e6551c4c35f5661e381824e8453a11ceb5a6f48173022609b07a2360bc1d587a"),
        T("", .quartile, 1, 6, false, "b7cb5518f9b9f7cac16545e990edac180c5828fa2883babaca39a4cbff1156eb"),
        T("", .high, 1, 7, false, "b2d791f98ba0d4354f7a2efa9404e75a82fb073ddbca3f30b43c93216eee20c1"),
        T("A", .low, 1, 0, false, "f195dbbdf146dae0ddeba600cfb966e631eeab6cbf78410286bda1914ca89458"),
        T("A", .medium, 1, 7, false, "23eee31305a65603663d1cc2f2e7c7f71fa05e2010f7942e342aa4f4dca2d95e"),
        T("A", .quartile, 1, 4, false, "05e65ce3a3fc956052468fca69f5b6ba64efe49f8629123ae76390b1ef7ad919"),
        T("A", .high, 1, 1, false, "92c6cb5733679259e26ef45082f9932a784f2c39836069e17622bf87e2802e2c"),
        T("Hello, QR!", .low, 1, 2, false, "a79b2996a2b0919504f120cf70a50680a0b15c38615f2fc8137dbf23fb468493"),
        T("Hello, QR!", .medium, 1, 7, false, "590a09563a433b102d51e6b85bfa5d37cc8749122b49435157f1a5849f652b06"),
        T("Hello, QR!", .quartile, 1, 3, false, "1daa66964fda7877bb521f548516b68bf594ca69b78b49c855ac038d21d442f3"),
        T("Hello, QR!", .high, 2, 3, false, "6bfca7cb82e18fd4abfcc27b8debf1a5534db02b8afe593b266993845b354ec3"),
    ]
}
