import Foundation
import HearthCore
import HearthWire

/// What differs between Microsoft, Yahoo and generic OpenID Connect providers.
enum ProviderRules {
    static let microsoftAuthority = "https://login.microsoftonline.com"
    static let microsoftGraph = "https://graph.microsoft.com"
    static let yahooBase = "https://api.login.yahoo.com"
    /// The Microsoft consumer (personal accounts) tenant.
    static let consumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// `common` when absent; otherwise `organizations`, `consumers`, a GUID or a domain.
    static func microsoftTenant(_ raw: String?) throws -> String {
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

    /// Emails on domains the provider owns: the only ones trusted as verified.
    static func providerOwnsEmail(_ kind: IdPKind, email: String) -> Bool {
        guard let domain = email.split(separator: "@").last.map(String.init)?.lowercased() else { return false }
        let labels = domain.split(separator: ".").map(String.init)
        guard labels.count >= 2 else { return false }
        let tail = labels.dropFirst().joined(separator: ".")
        let countryLike = tail == "com" || tail.count == 2 || tail.hasPrefix("co.") || tail.hasPrefix("com.")
        switch kind {
        case .microsoft:
            return ["outlook", "hotmail", "live", "msn", "windowslive", "passport"].contains(labels[0]) && countryLike && labels.count <= 3
        case .yahoo:
            return (["yahoo", "ymail", "rocketmail"].contains(labels[0]) && countryLike && labels.count <= 3)
        case .oidc:
            return false
        }
    }
}
