import Foundation
import HearthCore

/// The rules of web sign-in about sites: where the helper iframe may be embedded (the project's authorized domains,
/// matched by ``AuthorizedDomains``) and when a redirect sign-in cannot work (the page and Hearth on different sites).
enum WebOrigins {
    /// The `frame-ancestors` sources of the authorized domains: each domain and its subdomains, any port, http and
    /// https (an `https:` source does not match an `http:` page). IPv6 literals cannot be written as sources.
    static func frameAncestors(_ domains: [String]) -> String {
        var sources: [String] = []
        for raw in domains {
            let domain = raw.lowercased()
            guard !domain.isEmpty, !domain.contains(":"), domain.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else { continue }
            sources += ["http://\(domain):*", "https://\(domain):*"]
            if !AuthorizedDomains.isAddressLiteral(domain) { sources += ["http://*.\(domain):*", "https://*.\(domain):*"] }
        }
        return sources.isEmpty ? "'none'" : sources.joined(separator: " ")
    }

    /// Whether two http(s) URLs are on the same site, as browsers partition storage: the same scheme, and the same
    /// registrable domain — here the last two labels of a name (a heuristic without the Public Suffix List: sites on
    /// a shared suffix such as `github.io` count as one), the whole host for `localhost` names and IP addresses.
    static func sameSite(_ first: String, _ second: String) -> Bool {
        guard let a = URLComponents(string: first), let b = URLComponents(string: second),
              let schemeA = a.scheme?.lowercased(), let schemeB = b.scheme?.lowercased(), schemeA == schemeB,
              let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased()
        else { return false }
        return site(hostA) == site(hostB)
    }

    static func site(_ host: String) -> String {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if AuthorizedDomains.isAddressLiteral(host) { return host }
        let labels = host.split(separator: ".")
        if labels.last == "localhost" { return "localhost" }
        return labels.suffix(2).joined(separator: ".")
    }

    static let crossSiteTitle = "Redirect sign-in cannot work here"

    /// Why a redirect sign-in across sites would come back empty, and what works instead.
    static func crossSiteExplanation(appHost: String, hearthHost: String) -> String {
        """
        The app's page (\(appHost)) and Hearth (\(hearthHost)) are on different sites. A redirect sign-in hands its \
        result back through storage of Hearth's site, and browsers partition that storage by the site of the page on \
        top: the app would find nothing, and getRedirectResult() would answer null without an error.

        What works: sign in with a popup (signInWithPopup) from this page; or serve Hearth on the app's site — a \
        subdomain such as auth.example.com for app.example.com — or behind the app's own origin through a reverse \
        proxy, and point connectAuthEmulator at that address (docs/web.md).
        """
    }
}
