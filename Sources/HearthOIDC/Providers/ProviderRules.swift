import Foundation
import HearthCore
import HearthWire

/// What differs between Microsoft, Yahoo and generic OpenID Connect providers.
enum ProviderRules {
    static let microsoftAuthority = "https://login.microsoftonline.com"
    static let microsoftGraph = "https://graph.microsoft.com"
    static let yahooBase = "https://api.login.yahoo.com"
    /// The Microsoft consumer (personal accounts) tenant.
    static let entraConsumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// `common` when absent; otherwise `organizations`, `consumers`, a GUID or a domain.
    static func entraTenant(_ raw: String?) throws -> String {
        let tenant = (raw ?? "").isEmpty ? "common" : raw!
        let allowed = tenant.count <= 253 && tenant.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        guard allowed, !tenant.hasPrefix("."), !tenant.hasPrefix("-") else {
            throw RelyingPartyError(.configuration, "the Microsoft tenant must be common, organizations, consumers, a tenant id or a domain")
        }
        return tenant
    }

    /// Firebase's federated id for a Microsoft account: the `oid`, except personal accounts
    /// (`00000000-0000-0000-XXXX-XXXXXXXXXXXX`), whose id is the un-padded 16 hex digits.
    static func microsoftFederatedId(oid: String) -> String {
        let lower = oid.lowercased()
        let prefix = "00000000-0000-0000-"
        if lower.hasPrefix(prefix), lower.count == 36 {
            return String(lower.dropFirst(prefix.count)).replacingOccurrences(of: "-", with: "")
        }
        return lower
    }

    /// Microsoft's own consumer mail domains (personal Microsoft accounts), exactly: no pattern, no country guess.
    static let microsoftConsumerDomains: Set<String> = [
        "outlook.com", "hotmail.com", "live.com", "msn.com", "passport.com", "windowslive.com",
        "outlook.co.uk", "hotmail.co.uk", "live.co.uk", "outlook.fr", "hotmail.fr", "live.fr",
        "outlook.de", "hotmail.de", "live.de", "outlook.it", "hotmail.it", "live.it", "outlook.es", "hotmail.es", "live.com.mx",
        "outlook.jp", "hotmail.co.jp", "live.jp", "outlook.com.au", "hotmail.com.au", "live.com.au", "live.ca", "hotmail.ca",
        "outlook.com.br", "hotmail.com.br", "live.nl", "hotmail.nl", "outlook.be", "hotmail.be", "live.be", "outlook.at",
        "live.at", "outlook.dk", "hotmail.dk", "live.dk", "outlook.se", "hotmail.se", "live.se", "live.no", "hotmail.no",
        "outlook.ie", "live.ie", "outlook.in", "live.in", "outlook.kr", "outlook.sg", "outlook.ph", "outlook.my", "outlook.co.id",
        "outlook.co.th", "outlook.co.il", "outlook.com.ar", "outlook.cl", "outlook.pt", "outlook.cz", "outlook.sk",
        "outlook.hu", "outlook.com.gr", "outlook.com.tr", "outlook.com.vn", "outlook.lv", "outlook.sa",
    ]

    /// Yahoo's own mail domains, exactly.
    static let yahooDomains: Set<String> = [
        "yahoo.com", "ymail.com", "rocketmail.com", "myyahoo.com",
        "yahoo.co.uk", "yahoo.fr", "yahoo.de", "yahoo.it", "yahoo.es", "yahoo.ie", "yahoo.gr", "yahoo.se", "yahoo.dk",
        "yahoo.no", "yahoo.fi", "yahoo.at", "yahoo.be", "yahoo.nl", "yahoo.pl", "yahoo.ro", "yahoo.pt", "yahoo.cz",
        "yahoo.hu", "yahoo.ca", "yahoo.com.mx", "yahoo.com.br", "yahoo.com.ar", "yahoo.cl", "yahoo.com.co", "yahoo.com.pe",
        "yahoo.com.ve", "yahoo.co.in", "yahoo.in", "yahoo.co.jp", "yahoo.co.kr", "yahoo.com.tw", "yahoo.com.hk",
        "yahoo.com.sg", "yahoo.com.my", "yahoo.com.ph", "yahoo.co.id", "yahoo.co.th", "yahoo.com.vn", "yahoo.com.au",
        "yahoo.co.nz", "yahoo.co.za", "yahoo.com.tr", "yahoo.com.eg", "yahoo.co.il",
    ]

    /// Whether a Microsoft ID token's email is one Microsoft vouches for. A work or school tenant's administrator
    /// sets `email` and Graph's `mail` freely (`ceo@msn.com` from any tenant: the nOAuth attack), so the domain
    /// alone proves nothing. Verified only when the token says the tenant verified the email's domain
    /// (`xms_edov: true`, Microsoft's "email domain owner verified" optional claim, for the token's own `email`),
    /// or when the account is a personal one — the token is from the consumer tenant — on one of Microsoft's
    /// own mail domains.
    static func microsoftEmailVerified(email: String, claims: [String: JSONValue], emailFromToken: Bool) -> Bool {
        if emailFromToken, claims["xms_edov"] == .bool(true) || claims["xms_edov"] == .string("true") || claims["xms_edov"] == .string("1") {
            return true
        }
        guard claims["tid"]?.stringValue?.lowercased() == entraConsumerTenant else { return false }
        return microsoftConsumerDomains.contains(domain(of: email))
    }

    /// Whether a Yahoo email is on one of Yahoo's own domains (then Yahoo's `email_verified` is believed).
    static func yahooOwnsEmail(_ email: String) -> Bool {
        yahooDomains.contains(domain(of: email))
    }

    static func domain(of email: String) -> String {
        email.split(separator: "@").last.map { String($0).lowercased() } ?? ""
    }
}
