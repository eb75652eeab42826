import Foundation

/// The one rule of a project's authorized domains: which hosts they let in — email actions' `continueUrl`, web
/// sign-in's page (the handler's `redirectUrl`, the helper iframe's embedder), a demo project's unsigned custom tokens
/// from web pages — and what counts as an address literal there and as a passkey relying-party id.
public enum AuthorizedDomains {
    /// An IPv4 or IPv6 address literal (or digits and dots alone): it matches only itself, and is never a valid rp id
    /// (browsers refuse it).
    public static func isAddressLiteral(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber })
    }

    /// Whether `host` (brackets of an IPv6 literal allowed) is one of `domains` or a subdomain of one, case-insensitively;
    /// an address literal only exactly.
    public static func allows(host: String, in domains: [String]) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return domains.contains { raw in
            let domain = raw.lowercased()
            if host == domain { return true }
            return !isAddressLiteral(domain) && !isAddressLiteral(host) && host.hasSuffix("." + domain)
        }
    }
}
