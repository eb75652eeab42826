import HearthWire
import Foundation
import HearthCore

/// The deterministic identities of the dev IdPs: the same email always gives the same ids.
enum DevUsers {
    /// Microsoft's consumer tenant (personal accounts).
    static let entraConsumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let consumerDomains: Set<String> = ["outlook.com", "hotmail.com", "live.com"]

    struct MicrosoftUser: Sendable {
        var email: String
        var name: String
        var oid: String
        var tid: String
        var isPersonal: Bool
    }

    static func digest(_ text: String) -> [UInt8] { Array(WireDigest.sha256(text)) }


    /// A UUID string made from a hash (stable per input).
    static func uuid(_ seed: String) -> String {
        let h = Data(digest(seed).prefix(16)).hexString
        let c = Array(h)
        return "\(String(c[0..<8]))-\(String(c[8..<12]))-\(String(c[12..<16]))-\(String(c[16..<20]))-\(String(c[20..<32]))"
    }

    static func domain(of email: String) -> String { email.split(separator: "@").last.map(String.init) ?? "" }

    /// outlook.com / hotmail.com / live.com are personal accounts in the consumer tenant with the padded oid;
    /// other domains are work accounts in a tenant derived from the domain.
    static func microsoft(email: String, name: String) -> MicrosoftUser {
        let domain = domain(of: email)
        if consumerDomains.contains(domain) {
            let h = Data(digest("msa:" + email).prefix(8)).hexString
            let oid = "00000000-0000-0000-\(h.prefix(4))-\(h.dropFirst(4))"
            return MicrosoftUser(email: email, name: name, oid: oid, tid: entraConsumerTenant, isPersonal: true)
        }
        return MicrosoftUser(email: email, name: name, oid: uuid("oid:" + email), tid: entraTenantId(forDomain: domain), isPersonal: false)
    }

    static func entraTenantId(forDomain domain: String) -> String { uuid("tenant:" + domain.lowercased()) }

    /// Public mail domains no work tenant owns: a work account with such an address is one whose administrator set
    /// the email freely (the nOAuth case), so its token carries no `xms_edov`.
    static let publicMailDomains: Set<String> = [
        "msn.com", "passport.com", "windowslive.com", "outlook.co.uk", "hotmail.co.uk", "gmail.com", "googlemail.com",
        "yahoo.com", "icloud.com", "me.com", "aol.com", "proton.me", "protonmail.com", "gmx.de", "web.de",
    ]

    /// Whether the dev tenant of a work account has verified the domain of its email (Microsoft's `xms_edov`): the
    /// dev tenant is made from the email's domain, so it owns that domain unless the domain is a public mail one.
    static func domainOwnerVerified(_ user: MicrosoftUser) -> Bool {
        !user.isPersonal && !publicMailDomains.contains(domain(of: user.email).lowercased())
    }

    /// A Yahoo-style GUID: 26 characters of base32.
    static func yahooGuid(email: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, value = 0, output = ""
        for byte in digest("yahoo:" + email) {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5, output.count < 26 {
                output.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        return output
    }

    /// A pairwise subject per client, as Microsoft's `sub`.
    static func pairwiseSubject(clientId: String, oid: String) -> String {
        Data(digest(clientId + ":" + oid)).base64URLEncodedString()
    }
}
