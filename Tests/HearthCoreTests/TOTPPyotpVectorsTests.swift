import Foundation
import HearthCore
import HearthWire
import Testing

/// Codes computed by pyotp (an independent implementation) from fixed seeds: `Tests/e2e/totp_vectors.py --print`
/// writes these rows and, without `--print`, checks every row here against pyotp again.
@Suite struct TOTPPyotpVectorsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let secret: String
        let algorithm: TOTP.Algorithm
        let digits: Int
        let period: Int
        let time: Int64
        let code: String
        var testDescription: String { "\(algorithm.rawValue)/\(digits)/\(period)s @\(time)" }
    }

    static func V(_ secret: String, _ algorithm: TOTP.Algorithm, _ digits: Int, _ period: Int, _ time: Int64,
                  _ code: String) -> Row {
        Row(secret: secret, algorithm: algorithm, digits: digits, period: period, time: time, code: code)
    }

    static let rows: [Row] = [
        V("ZWDXD7YYYYV6WPSCRC26XOY", .sha1, 6, 60, 0, "058308"),
        V("UQQONWLH4DVYQUFVG4N33HZEW35KPHNJRVOCXEKMCSB54RK36RGA", .sha256, 7, 30, 7948, "2323502"),
        V("VINR6EL45IBJ4NT2CWMHKO2WDGVOTVG6Q53YIICX5U5HQBQAVLY5VUFZEOTJ56MEWW2FEJZV7J7A7CIE7PFHS2EI2JL7HBWRYNIL5DA", .sha512, 8, 30, 15868, "81755489"),
        V("IMY3B4HG4WSGMJFA2FIOFSDT3NWFGQ5G", .sha1, 6, 30, 23816, "423104"),
        V("RPAIGGDM2KOL4KBIGV2VDPJQDEYQK", .sha256, 7, 30, 1111142785, "6252884"),
        V("SRSWDR2J4BRNTNCSGXKFZYX7CVR2WLCILGKYYR23G6KP2CUNBAYHBIO2VAPB66JDYHGKON6YD7YBMUPSEA4OA6M3JQUUTF3FDDQ6OFI", .sha512, 8, 60, 1700039595, "23805955"),
        V("VKSDORMREL5AG6JUFRWXJZTURNCHSPKW", .sha1, 6, 30, 2000047514, "519801"),
        V("NFCVXCALABUWGIJ2REDM4KT3AZDMLCGIN2OHCDNGRV6ES6ZHGZ4Q", .sha256, 7, 30, 4102500233, "4089683"),
        V("BF6OBQVU235YUOHFSBY6JKMFVQBKMPERSBDQ", .sha512, 8, 30, 63352, "65586505"),
        V("2BVVNNUXQ2RR3C7ZFQAXHMZDBIHY4JP5", .sha1, 6, 30, 71300, "871150"),
        V("KA7X5LT5CHKE5KWY5DSCAWJJUSKRV4YB7W4CWTKIK3TWBCZLA3OQ", .sha256, 7, 60, 79220, "6362113"),
        V("OQSVI7OO4AUMIFEIOACKOO2437UBRF26DJL7OUC5AZK54UZCIESIE22GVWUHH6K23RYOMNPHYSSP3JMTQUA252KQGBYGMGV3JS7RB4I", .sha512, 8, 30, 87168, "46791411"),
        V("OYVVPAQHZHR7DTN5EVOV7P3CX45R7ZVQ3IYQCQ4OIM", .sha1, 6, 30, 1111206137, "954189"),
        V("FOOUWKOQMOWPZH72LWZBZ44JNUHVGYPYAV75RSOH63VSU5O23Z2Q", .sha256, 7, 30, 1700102947, "3266371"),
        V("NVVTWXKP22KGFUOWZTHTWYSBJSGSOK4HTSGOZOIQFMWACNQUNIJH4AICLTL57NFP3IIH7OZLKBPFIPUD372RW6C2NI7S2ZP2DZJZIQI", .sha512, 8, 30, 2000110866, "18202364"),
        V("GX2VTDXHWME5CLQ232UBDWMH3RVSNIQU", .sha1, 6, 60, 4102563585, "702328"),
        V("7SPT7KJPZJGWQI7ZMJLNE3NP7IHLJ7IWERKGCCTLWWZKZIUG", .sha256, 7, 30, 126704, "0286612"),
        V("GUXAUJQDYNQ26XGYNOFK2N6WXNZ2UPHUG4UHR2DRWNNMQF27JAYIPDUN2JTP72NEFI56PRT3DZAO4MLNNHESLMFEJ4JI2EBXCAU3HZQ", .sha512, 8, 30, 134652, "09092933"),
        V("OD4JEQWJ5N36WEDWSBVLQ6PKK3Y72CBA", .sha1, 6, 30, 142572, "875644"),
        V("YUTNRSTH7RKFUWNDS7GRKRJC56ZRDUAMXX5GMLPOKHUBORWBWO4A", .sha256, 7, 30, 150520, "8937135"),
        V("A43VFOQIWQEMDL6L6TWPJCPTLONTGC45XUPUO4UPUFVL7CYESEVUJXA", .sha512, 8, 60, 1111269489, "99945913"),
        V("A7S7NUS27HBAB3T2XGD4FYAVVOFQ65YP", .sha1, 6, 30, 1700166299, "587838"),
        V("L6KE7RHYXSSBW3BTR2LXLL3IM3ECJ6TV6ODHE7QQC6FLM4FYYBEA", .sha256, 7, 30, 2000174218, "5367045"),
        V("CGCYKZIAPTYOHADOGTGQWNB6AEIYPUCXGW7JLXZ457OVNA7AGOCKB4KV4DX5QCOPV4YWYBZKL3TRD63Q5AIXTJM7653O7KM7QPNDWBA", .sha512, 8, 30, 4102626937, "10791959"),
    ]

    @Test(arguments: TOTPPyotpVectorsTests.rows) func agreesWithPyotp(row: Row) throws {
        let secret = try #require(Base32.decode(row.secret))
        let totp = try #require(TOTP(secret: secret, algorithm: row.algorithm, digits: row.digits, period: row.period))
        let date = Date(timeIntervalSince1970: TimeInterval(row.time))
        #expect(totp.code(at: date) == row.code)
        #expect(totp.verify(row.code, at: date, adjacentIntervals: 0) == row.time / Int64(row.period))
    }
}
